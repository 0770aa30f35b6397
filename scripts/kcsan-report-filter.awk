# SPDX-License-Identifier: GPL-2.0
# Drops from kernel log lines (dmesg, with or without "[  1.234] " stamps) the
# KCSAN reports that scripts/kcsan-kernel-races lists as FUNC<CALLER: those in
# which every racing access's stack starts with FUNC called from CALLER and no
# frame is a module's ("... [evtrace]"). Everything else passes unchanged,
# including a report cut short at the end of the input. KCSAN's own debugfs
# filter only knows a report's top function, which for a library helper such as
# _find_next_and_bit would hide races in every caller, evtrace's included.
#
# usage: awk -v pairs="FUNC<CALLER ..." -f scripts/kcsan-report-filter.awk [FILE]
# Prints one line per dropped report, "vm-run: kernel race ignored ...".

function body(line) {
	sub(/^\[[^]]*\] /, "", line)
	sub(/^\[[^]]*\] /, "", line)	# a caller id after the time (PRINTK_CALLER)
	return line
}
function frame_name(line) {
	sub(/^ +/, "", line)
	sub(/\+0x.*/, "", line)
	return line
}
function flush(   i) {
	for (i = 1; i <= n; i++)
		print held[i]
	n = 0
}
function decide(   i, all) {
	all = accesses > 0 && !module_frame
	for (i = 1; i <= accesses && all; i++)
		all = ((top[i] "<" second[i]) in wanted)
	if (all) {
		print "vm-run: kernel race ignored (scripts/kcsan-kernel-races): " top[1] " called from " second[1]
		n = 0
	} else {
		flush()
	}
	inreport = 0
}
BEGIN {
	np = split(pairs, p, /[ \t\n]+/)
	for (i = 1; i <= np; i++)
		if (p[i] != "")
			wanted[p[i]] = 1
}
{
	b = body($0)
	if (!inreport) {
		if (b ~ /^=+$/) {
			flush()
			held[++n] = $0
			next
		}
		if (b ~ /^BUG: KCSAN: data-race in /) {
			inreport = 1
			accesses = 0
			module_frame = 0
			depth = 0
			held[++n] = $0
			next
		}
		flush()
		print
		next
	}
	held[++n] = $0
	if (b ~ /^=+$/) {
		decide()
		next
	}
	if (b ~ /(^race at unknown origin, with |^(read|write|read-write).* to 0x[0-9a-f]+ of [0-9]+ bytes by ).*:$/) {
		accesses++
		depth = 0
		next
	}
	if (b ~ /^ [^ ].*\+0x[0-9a-f]+\/0x[0-9a-f]+/) {
		if (b ~ /\]$/)
			module_frame = 1
		if (accesses > 0 && depth < 2) {
			depth++
			if (depth == 1)
				top[accesses] = frame_name(b)
			else
				second[accesses] = frame_name(b)
		}
		next
	}
	if (b == "")
		depth = 2	# the stack ended
}
END {
	flush()
}
