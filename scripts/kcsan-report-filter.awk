# SPDX-License-Identifier: GPL-2.0
# Drops from kernel log lines (dmesg, with or without "[  1.234] " stamps) the
# KCSAN reports that are the kernel's own: a whole report in which no frame of
# any racing access's stack is a module's ("... [evtrace]", "... [evt_fault]",
# the tests' scratch module) or an address the kernel could not name (module
# text it no longer knows). The guest kernels build what they boot with in, so
# a module frame is evtrace's or one a test loaded. evtrace's code is on
# one side of every race it takes part in: its probes, work, timers, file,
# splice and netlink handlers all run as its own frames, and a kernel helper it
# calls has its caller below. Debian's 6.1 kernel reports dozens of its own
# races per boot under KCSAN (dcache, scheduler masks, the tick): listing them
# one by one failed CI on a new one each run. Everything else passes
# unchanged, including a report cut short at the end of the input.
#
# usage: awk -f scripts/kcsan-report-filter.awk [FILE]
# Prints one line per dropped report, "vm-run: kernel race ignored ...".

function body(line) {
	sub(/^\[[^]]*\] /, "", line)
	sub(/^\[[^]]*\] /, "", line)	# a caller id after the time (PRINTK_CALLER)
	return line
}
function flush(   i) {
	for (i = 1; i <= n; i++)
		print held[i]
	n = 0
}
function decide() {
	if (accesses > 0 && !own_frame) {
		print "vm-run: kernel race ignored (no module frame, scripts/kcsan-report-filter.awk): " title
		n = 0
	} else {
		flush()
	}
	inreport = 0
}
{
	b = body($0)
	if (!inreport) {
		if (b ~ /^=+$/) {
			flush()
			held[++n] = $0
			next
		}
		if (b ~ /^BUG: KCSAN: /) {
			inreport = 1
			accesses = 0
			own_frame = 0
			title = b
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
		next
	}
	if (accesses > 0 && b ~ /^ [^ ]/) {
		# A frame: "name+0x../0x.. [module]", or a bare address.
		if (b ~ /\[[A-Za-z0-9_]+\]$/ || b ~ /^ +(0x)?[0-9a-f]+$/)
			own_frame = 1
	}
}
END {
	flush()
}
