#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make install / uninstall / dkms-install into a DESTDIR: the documented file list
# (make install-list), the programs' --version, the man pages render without
# warnings and document every option of --help, the unit passes
# systemd-analyze verify and its ExecStart assembles evdrain's options from
# /etc/default/evdrain, the modprobe.d example names only real parameters and all
# of them, evtrace(4) documents every parameter, ioctl, debugfs file and netlink
# command and notification, uninstall leaves nothing (but an edited
# /etc/default/evdrain).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
die() { echo "FAIL: $*"; exit 1; }
version=$(cat VERSION)
m() { make -s --no-print-directory "$@"; }

files_in() { (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\.||' | sort); }

# 1. The documented list, for PREFIX=/usr and the default /usr/local.
for prefix in /usr ""; do
	d=$tmp/dest${prefix//\//_}
	m install DESTDIR="$d" ${prefix:+PREFIX=$prefix} > "$tmp/install.log"
	m install-list DESTDIR="$d" ${prefix:+PREFIX=$prefix} | sed "s|^$d||" | sort > "$tmp/want"
	files_in "$d" > "$tmp/got"
	diff -u "$tmp/want" "$tmp/got" || die "installed files differ from make install-list (PREFIX=${prefix:-default})"
	echo "PREFIX=${prefix:-/usr/local (default)}: $(wc -l < "$tmp/got") files as listed:"
	sed 's/^/    /' "$tmp/got"
done
d=$tmp/dest_usr
grep -q '^ExecStart=.* /usr/sbin/evdrain ' "$d/usr/lib/systemd/system/evdrain.service" ||
	die "unit does not run /usr/sbin/evdrain"
grep -q '^ExecStart=.* /usr/local/sbin/evdrain ' "$tmp/dest/usr/local/lib/systemd/system/evdrain.service" ||
	die "unit (default PREFIX) does not run /usr/local/sbin/evdrain"
! grep -rl '@[A-Z]*@' "$d/usr/share/man" "$d/usr/lib/systemd" "$d/usr/bin/evtrace-ch-load" "$d/etc" || die "unsubstituted @PLACEHOLDER@"

# 2. Programs.
[ "$("$d/usr/sbin/evdrain" --version)" = "evdrain $version" ] || die "evdrain --version"
[ "$("$d/usr/sbin/evctl" --version)" = "evctl $version" ] || die "evctl --version"
"$d/usr/bin/evcat" --help > /dev/null || die "evcat --help"
[ "$("$d/usr/bin/evstat" --version)" = "evstat $version" ] || die "evstat --version"
[ "$("$d/usr/bin/evview" --version)" = "evview $version" ] || die "evview --version"
[ "$("$d/usr/bin/evexport" --version)" = "evexport $version" ] || die "evexport --version"
# The loader finds the installed DDL and names the installed evexport and configuration file.
sh -n "$d/usr/bin/evtrace-ch-load" || die "evtrace-ch-load: not valid sh"
EVTRACE_CH_SCHEMA=$d/usr/share/evtrace/clickhouse/evtrace-schema.sql EVTRACE_CH_DB=fleet "$d/usr/bin/evtrace-ch-load" --print-schema |
	grep -q 'CREATE TABLE IF NOT EXISTS fleet.events AS fleet.events_local' || die "evtrace-ch-load --print-schema"
grep -q '^schema_default=/usr/share/evtrace/clickhouse/evtrace-schema.sql$' "$d/usr/bin/evtrace-ch-load" &&
	grep -q '^evexport_default=/usr/bin/evexport$' "$d/usr/bin/evtrace-ch-load" &&
	grep -q '^conf_default=/etc/evtrace/clickhouse.conf$' "$d/usr/bin/evtrace-ch-load" || die "evtrace-ch-load's paths are not the install's"
# evview serves its page from the installed folder (no source tree beside it).
for f in index.html view.js view.css; do
	[ -s "$d/usr/share/evtrace/view/$f" ] || die "evview's $f not installed"
done
build/bin/evsynth "$tmp/trace" --kernel --events 2000 --quiet
"$d/usr/bin/evview" "$tmp/trace" --listen 127.0.0.1:0 > "$tmp/evview.out" 2>&1 &
evview_pid=$!
for _ in $(seq 50); do grep -q 'http://' "$tmp/evview.out" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$tmp/evview.out" | head -n 1)
got=$(python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1] + "view.js").read().decode())' "$url") ||
	{ kill "$evview_pid"; die "the installed evview did not serve view.js ($(cat "$tmp/evview.out"))"; }
kill "$evview_pid"
wait "$evview_pid" || die "evview exit $? on SIGTERM"
[ "$got" = "$(cat "$d/usr/share/evtrace/view/view.js")" ] || die "the installed evview served another view.js"
echo "evview (installed) serves its installed page"

# 3. Man pages: no warnings, the sections, every option of the program's help.
# The options a help text names: -x and --xyz after a blank, '[' or ','.
options() { grep -oE -- '(^|[ [,|])--?[a-zA-Z][a-z-]*' "$1" | sed 's/^[ [,|]//' | sort -u; }
check_page() { # page program section...
	local page=$1 prog=$2; shift 2
	local text err opt s
	text=$(MANWIDTH=80 man -l --warnings=all "$page" 2> "$tmp/man.err") || die "man -l $page failed"
	[ ! -s "$tmp/man.err" ] || { cat "$tmp/man.err"; die "man -l --warnings: $page has warnings"; }
	for s in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" FILES EXAMPLES "SEE ALSO" "$@"; do
		grep -q "^$s\$" <<<"$text" || die "$page: no $s section"
	done
	grep -q "$version" <<<"$text" || die "$page: no version $version in the footer"
	# Every option the program's own help names (and evctl's commands' helps).
	for opt in $(options "$tmp/help.$prog"); do
		grep -q -- "$opt\b" <<<"$text" || die "$page does not document $opt (in $prog --help)"
	done
	echo "${page#$d}: renders without warnings, $(wc -l <<<"$text") lines, documents all $(options "$tmp/help.$prog" | wc -l) options of --help: $(options "$tmp/help.$prog" | tr '\n' ' ')"
}
"$d/usr/sbin/evdrain" --help > "$tmp/help.evdrain"
"$d/usr/bin/evcat" --help > "$tmp/help.evcat"
"$d/usr/bin/evstat" --help > "$tmp/help.evstat"
"$d/usr/bin/evview" --help > "$tmp/help.evview"
"$d/usr/bin/evexport" --help > "$tmp/help.evexport"
"$d/usr/bin/evtrace-ch-load" --help > "$tmp/help.evtrace-ch-load"
"$d/usr/sbin/evctl" --help > "$tmp/help.evctl"
for c in $(sed -n '/^commands:/,/^$/s/^  \([a-z-]*\).*/\1/p' "$tmp/help.evctl"); do
	"$d/usr/sbin/evctl" "$c" --help >> "$tmp/help.evctl"
	grep -q "$c" "$tmp/help.evctl" || die "evctl $c --help"
done
check_page "$d/usr/share/man/man8/evdrain.8" evdrain OPTIONS
check_page "$d/usr/share/man/man8/evctl.8" evctl COMMANDS
check_page "$d/usr/share/man/man1/evcat.1" evcat OPTIONS
check_page "$d/usr/share/man/man1/evstat.1" evstat OPTIONS
check_page "$d/usr/share/man/man1/evview.1" evview OPTIONS API
check_page "$d/usr/share/man/man1/evexport.1" evexport OPTIONS
check_page "$d/usr/share/man/man1/evtrace-ch-load.1" evtrace-ch-load OPTIONS ENVIRONMENT
# Exit codes: every code of the help's "Exit status" line is in the page.
for prog in evdrain:man8/evdrain.8 evctl:man8/evctl.8 evcat:man1/evcat.1 evstat:man1/evstat.1 evview:man1/evview.1 \
	evexport:man1/evexport.1 evtrace-ch-load:man1/evtrace-ch-load.1; do
	p=${prog%%:*} page=$d/usr/share/man/${prog#*:}
	codes=$(tr '\n' ' ' < "$tmp/help.$p" | grep -io 'exit status:.*' | grep -o '\b[0-6] [a-zA-Z]' | cut -c1 | sort -u)
	sect=$(MANWIDTH=80 man -l "$page" 2>/dev/null | sed -n '/^EXIT STATUS/,/^[A-Z]/p')
	for c in $codes; do
		grep -q "^       $c " <<<"$sect" || die "$page: exit status $c not documented"
	done
	echo "${page#$d}: exit statuses $(echo $codes) documented"
done

# 4. The unit.
unit=$d/usr/lib/systemd/system/evdrain.service
# (systemd-analyze: package systemd, which make deps installs.)
command -v systemd-analyze > /dev/null || die "systemd-analyze is not installed (make deps): the unit cannot be verified"
MANPATH=$d/usr/share/man systemd-analyze verify "$unit" || die "systemd-analyze verify $unit"
echo "systemd-analyze verify: evdrain.service accepted"
# ExecStart through a stand-in evdrain that prints its arguments: systemd turns
# $$ into $ and %% into %.
cmd=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'\$/\1/p" "$unit" | sed 's/\$\$/$/g; s/%%/%/g')
[ -n "$cmd" ] || die "no ExecStart=/bin/sh -c '...' in the unit"
mkdir -p "$tmp/stub"
printf '#!/bin/sh\nfor a in "$@"; do printf "[%%s]" "$a"; done\necho\n' > "$tmp/stub/evdrain"
chmod +x "$tmp/stub/evdrain"
cmd=${cmd//\/usr\/sbin\/evdrain/$tmp/stub/evdrain}
run_unit() { # extra VAR=value for the environment file
	env -i PATH=/usr/bin:/bin bash -c 'set -a; . "$1"; shift; for kv in "$@"; do export "$kv"; done; exec sh -c "$0"' \
		"$cmd" "$d/etc/default/evdrain" EVDRAIN_DIR="$tmp/traces" "$@"
}
# The shipped defaults rotate: chunks in EVDRAIN_DIR itself.
got=$(run_unit)
[[ $got =~ ^\[--quiet\]\[-o\]\[$tmp/traces\]\[--channels\]\[compact,normal\]\[--mode\]\[discard\]\[--rotate-size\]\[64M\]\[--max-total\]\[2G\]$ ]] ||
	die "ExecStart with the shipped defaults gave: $got"
got=$(run_unit EVDRAIN_ROTATE_SIZE= EVDRAIN_ROTATE_INTERVAL=10m EVDRAIN_KEEP=6 EVDRAIN_MAX_TOTAL= EVDRAIN_ON_CHUNK=/usr/lib/evtrace/hooks/evtrace-chunk-log)
[[ $got =~ ^\[--quiet\]\[-o\]\[$tmp/traces\]\[--channels\]\[compact,normal\]\[--mode\]\[discard\]\[--rotate-interval\]\[10m\]\[--keep\]\[6\]\[--on-chunk\]\[/usr/lib/evtrace/hooks/evtrace-chunk-log\]$ ]] ||
	die "ExecStart with rotation by time and a hook gave: $got"
# Without rotation: a new directory per start.
got=$(run_unit EVDRAIN_ROTATE_SIZE= EVDRAIN_MAX_TOTAL=)
[[ $got =~ ^\[--quiet\]\[-o\]\[$tmp/traces/[0-9]{8}T[0-9]{6}Z\]\[--channels\]\[compact,normal\]\[--mode\]\[discard\]$ ]] ||
	die "ExecStart without rotation gave: $got"
[ -d "$tmp/traces" ] || die "ExecStart did not create EVDRAIN_DIR"
got=$(run_unit EVDRAIN_ROTATE_SIZE= EVDRAIN_MAX_TOTAL= EVDRAIN_MODE= EVDRAIN_CHANNELS=compact EVDRAIN_DURATION=60 "EVDRAIN_OPTS=--copy --stats-json /x.json")
[[ $got =~ ^\[--quiet\]\[-o\]\[[^]]*\]\[--channels\]\[compact\]\[--duration\]\[60\]\[--copy\]\[--stats-json\]\[/x.json\]$ ]] ||
	die "ExecStart with edited options gave: $got"
# The hooks the defaults name are installed, and the path in the file is theirs.
for h in $(sed -n 's|^#   \(/[^ ]*/evtrace-[a-z-]*\) .*|\1|p' "$d/etc/default/evdrain"); do
	[ -x "$d$h" ] || die "/etc/default/evdrain names $h, not installed"
	sh -n "$d$h" || die "$h: not valid sh"
done
echo "evdrain.service ExecStart: $(run_unit | sed "s|$tmp|TMP|g")"
# Every option the defaults file sets is one the unit reads.
for v in $(sed -n 's/^\([A-Z_]*\)=.*/\1/p' "$d/etc/default/evdrain"); do
	grep -q "$v" "$unit" || die "/etc/default/evdrain sets $v, the unit ignores it"
done

# 5. The modprobe.d example: all the module's parameters, no others.
ex=$d/usr/share/doc/evtrace/examples/evtrace.modprobe.conf
# (not those of test builds: inside #ifdef EVT_TEST_WINDOWS, never shipped)
params=$(awk '/^#ifdef EVT_TEST_WINDOWS/ { t = 1 } /^#endif/ { t = 0 }
	!t && /^module_param(_named|_cb)?\(/ { sub(/^module_param(_named|_cb)?\(/, ""); sub(/,.*/, ""); print }' kmod/*.c | sort -u)
[ -n "$params" ] || die "no module_param in kmod/*.c"
for p in $params; do grep -Eq "^#   $p( |\$)" "$ex" || die "$ex does not describe $p"; done
for p in $(sed -n 's/^#options evtrace //p' "$ex" | tr ' ' '\n' | cut -d= -f1 | sort -u); do
	grep -qx "$p" <<<"$params" || die "$ex uses $p, not a parameter of the module"
done
echo "modprobe.d example: all $(echo $params | wc -w) parameters ($(echo $params))"

# evtrace(4), the module's reference: renders without warnings, documents every
# parameter and every ioctl of include/evtrace/abi.h.
page=$d/usr/share/man/man4/evtrace.4
text=$(MANWIDTH=80 man -l --warnings=all "$page" 2> "$tmp/man.err") || die "man -l $page failed"
[ ! -s "$tmp/man.err" ] || { cat "$tmp/man.err"; die "man -l --warnings: $page has warnings"; }
for s in NAME SYNOPSIS DESCRIPTION "MODULE PARAMETERS" DEVICES IOCTLS "GENERIC NETLINK" DEBUGFS FILES "SEE ALSO"; do
	grep -q "^$s\$" <<<"$text" || die "$page: no $s section"
done
grep -q "$version" <<<"$text" || die "$page: no version $version in the footer"
for p in $params; do grep -Eq "^       $p=" <<<"$text" || die "$page does not document the parameter $p"; done
ioctls=$(sed -n 's/^#define \(EVT_IOC_[A-Z_]*\)[[:space:]]*_IO.*/\1/p' include/evtrace/abi.h)
[ -n "$ioctls" ] || die "no EVT_IOC_ in include/evtrace/abi.h"
for i in $ioctls; do grep -q "^       $i\b" <<<"$text" || die "$page does not document $i"; done
# Its debugfs section lists exactly the files the module creates, and its
# netlink section names every command and notification of the ABI. Read from
# the roff source: the rendered text hyphenates long names.
section() { sed -n "/^\.SH $1\$/,/^\.SH /p" "$page"; }
made=$(sed -n 's/.*debugfs_create_file[a-z_]*("\([a-z_]*\)".*/\1/p' kmod/*.c kmod/*/*.c | sort -u)
listed=$(section DEBUGFS | sed -n '/^\.TP$/{n;s/^\.I \([a-z_]*\)$/\1/p}' | sort -u)
[ -n "$made" ] || die "no debugfs_create_file in kmod/"
[ "$made" = "$listed" ] || die "$page: DEBUGFS lists '$(echo $listed)', the module creates '$(echo $made)'"
nl_names=$(sed -n 's/^[[:space:]]*EVT_\(CMD\|NOTIFY\)_\([A-Z_]*\)\b.*/\2/p' include/evtrace/netlink.h |
	grep -vxE 'UNSPEC|NOTIFY|NONE|_.*')
[ -n "$nl_names" ] || die "no EVT_CMD_/EVT_NOTIFY_ in include/evtrace/netlink.h"
for n in $nl_names; do grep -qw -- "$n" <<<"$(section 'GENERIC NETLINK')" || die "$page: GENERIC NETLINK does not name $n"; done
echo "${page#$d}: renders without warnings, documents all $(echo $params | wc -w) parameters, $(echo $ioctls | wc -w) ioctls, $(echo $made | wc -w) debugfs files and $(echo $nl_names | wc -w) netlink commands and notifications"

# 6. Uninstall: nothing left but an edited defaults file.
echo "EVDRAIN_DIR=/srv/traces" >> "$tmp/dest/etc/default/evdrain"
m uninstall DESTDIR="$tmp/dest" > /dev/null
left=$(files_in "$tmp/dest")
[ "$left" = /etc/default/evdrain ] || die "after uninstall: $left"
m uninstall DESTDIR="$d" PREFIX=/usr > /dev/null
[ -z "$(files_in "$d")" ] || die "after uninstall (PREFIX=/usr): $(files_in "$d")"
echo "uninstall: removes everything, keeps an edited /etc/default/evdrain"

# 7. DKMS sources: the list, and the version dkms.conf reads.
m dkms-install DESTDIR="$tmp/dkms" > /dev/null
src=$tmp/dkms/usr/src/evtrace-$version
for f in dkms.conf Kbuild VERSION kmod/evtrace_main.c kmod/evtrace_rings.c kmod/compat.h kmod/core/evt_ring.c include/evtrace/abi.h; do
	[ -f "$src/$f" ] || die "dkms-install: no $f"
done
for o in $(tr ' \\\t' '\n\n\n' < Kbuild | sed -n 's/^\(kmod\/.*\)\.o$/\1/p'); do
	[ -f "$src/$o.c" ] || die "dkms-install: Kbuild's $o.o has no $o.c"
done
got=$(cd /tmp && bash -c '. "$1"; echo "$PACKAGE_NAME $PACKAGE_VERSION"' _ "$src/dkms.conf")
[ "$got" = "evtrace $version" ] || die "dkms.conf gives '$got', not 'evtrace $version'"
echo "dkms-install: $(files_in "$src" | wc -l) files under /usr/src/evtrace-$version; dkms.conf reads version $version"
echo "install checks passed"
