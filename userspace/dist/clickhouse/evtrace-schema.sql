-- SPDX-License-Identifier: GPL-2.0
-- evtrace's tables in ClickHouse (18.16 and later), as evexport writes their
-- rows (schema 1; the columns: docs/fleet.md, "The tables"). {db} and
-- {cluster} are replaced by `evtrace-ch-load --create-tables` (or
-- --print-schema) with EVTRACE_CH_DB and EVTRACE_CH_CLUSTER.
--
-- Each table is a MergeTree on every shard (NAME_local) and a Distributed
-- table over them (NAME) that queries read. A host's rows all go to one
-- shard (the loader inserts into that shard's local tables: no
-- MATERIALIZED column anywhere, which inserts through a Distributed table
-- would refuse), chosen as the Distributed tables' sharding key would,
-- cityHash64(host) modulo the shards. Partitions are (host, chunk): the
-- loader drops a chunk's partition before inserting it, so that a hook run
-- twice loads the chunk once.
-- One statement per line group, separated by lines holding ";" alone.

CREATE DATABASE IF NOT EXISTS {db}
;
CREATE TABLE IF NOT EXISTS {db}.events_local (
	schema UInt16, host String, trace_id String, chunk String, seq UInt64,
	idx UInt64, ts UInt64, cpu UInt32, tid Int32, pid Int32, comm String,
	event String, fields String
) ENGINE = MergeTree() PARTITION BY (host, chunk) ORDER BY (host, ts, idx)
;
CREATE TABLE IF NOT EXISTS {db}.syscalls_local (
	schema UInt16, host String, trace_id String, chunk String, seq UInt64,
	cpu UInt32, tid Int32, pid Int32, comm String, name String,
	entry_ts UInt64, exit_ts UInt64, duration_ns UInt64, ret Int64, errno String
) ENGINE = MergeTree() PARTITION BY (host, chunk) ORDER BY (host, name, entry_ts)
;
CREATE TABLE IF NOT EXISTS {db}.sched_slices_local (
	schema UInt16, host String, trace_id String, chunk String, seq UInt64,
	cpu UInt32, tid Int32, pid Int32, comm String,
	begin_ts UInt64, end_ts UInt64, duration_ns UInt64, end_state Int64
) ENGINE = MergeTree() PARTITION BY (host, chunk) ORDER BY (host, begin_ts, cpu)
;
CREATE TABLE IF NOT EXISTS {db}.wakeups_local (
	schema UInt16, host String, trace_id String, chunk String, seq UInt64,
	cpu UInt32, tid Int32, pid Int32, comm String,
	wakeup_ts UInt64, switch_ts UInt64, latency_ns UInt64
) ENGINE = MergeTree() PARTITION BY (host, chunk) ORDER BY (host, wakeup_ts)
;
CREATE TABLE IF NOT EXISTS {db}.stats_local (
	schema UInt16, host String, trace_id String, chunk String, seq UInt64,
	kernel String, kind String, name String, begin_ts UInt64, end_ts UInt64,
	cpu Int32, tid Int32, pid Int32, comm String, count UInt64, errors UInt64,
	lat_count UInt64, lat_sum_ns UInt64, lat_min_ns UInt64, lat_max_ns UInt64,
	hist Array(UInt64), discarded UInt64, lost_packets UInt64, cpu_ns UInt64
) ENGINE = MergeTree() PARTITION BY (host, chunk) ORDER BY (host, kind, name, seq)
;
CREATE TABLE IF NOT EXISTS {db}.events AS {db}.events_local
	ENGINE = Distributed({cluster}, {db}, events_local, cityHash64(host))
;
CREATE TABLE IF NOT EXISTS {db}.syscalls AS {db}.syscalls_local
	ENGINE = Distributed({cluster}, {db}, syscalls_local, cityHash64(host))
;
CREATE TABLE IF NOT EXISTS {db}.sched_slices AS {db}.sched_slices_local
	ENGINE = Distributed({cluster}, {db}, sched_slices_local, cityHash64(host))
;
CREATE TABLE IF NOT EXISTS {db}.wakeups AS {db}.wakeups_local
	ENGINE = Distributed({cluster}, {db}, wakeups_local, cityHash64(host))
;
CREATE TABLE IF NOT EXISTS {db}.stats AS {db}.stats_local
	ENGINE = Distributed({cluster}, {db}, stats_local, cityHash64(host))
;
