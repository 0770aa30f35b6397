#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make tools` needs only the packages the README names, and `make` tells the
# truth about the kernel it built for:
# 1. make tools, as it would run in a fresh build directory (make -n): every
#    program and man page, nothing of the tests, sanitizers or benchmarks;
# 2. every header those compiles read (gcc -M) and every library they link
#    comes from the README's build packages (or the compiler's own), and every
#    library the built programs load (ELF NEEDED) from its runtime packages;
# 3. scripts/kdir-check (run by make after the module) warns, naming both
#    releases and insmod, when KDIR is another kernel's, and is quiet when not;
# 4. the built man pages carry the version (man -l build/man/*).
# The kernel headers (the syscall names) count among the build packages.
# No compiler run but gcc -M: a few seconds (a real clean build takes ~50 s).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
version=$(cat VERSION)

# The README's lists: the lines after the markers, up to a blank line.
readme_list() { sed -n "/<!-- $1 -->/,/^\$/p" README | grep -v '^<!--' | grep -oE '[a-z0-9][a-z0-9.+-]+' | sort -u || true; }
build_pkgs=$(readme_list "make tools: build packages")
run_pkgs=$(readme_list "make tools: runtime packages")
[ -n "$build_pkgs" ] && [ -n "$run_pkgs" ] || die "README has no package lists (<!-- make tools: build packages --> / runtime packages)"
echo "README: build packages: $(echo $build_pkgs); runtime packages: $(echo $run_pkgs)"

# 1. What make tools runs from a clean tree.
make -n --no-print-directory tools BUILD="$tmp/b" > "$tmp/dry" 2>&1 || { cat "$tmp/dry"; die "make -n tools"; }
bad=$(grep -nE -- '-fsanitize|-lcheck|tests/|bench' "$tmp/dry" || true)
[ -z "$bad" ] || { echo "$bad"; die "make tools builds tests, sanitizer or benchmark code (above)"; }
progs=$(make -s --no-print-directory -pn 2>/dev/null | sed -n 's/^PROG_NAMES := //p' | head -n1)
[ -n "$progs" ] || die "no PROG_NAMES in the Makefile"
for p in $progs; do grep -q -- "-o $tmp/b/bin/$p " "$tmp/dry" || die "make tools does not build $p"; done
for m in userspace/man/*.[1-8]; do
	grep -q "> $tmp/b/man/${m##*/}.tmp" "$tmp/dry" || die "make tools does not make the man page ${m##*/}"
done
echo "make tools: $(grep -c '^gcc' "$tmp/dry") compiles, programs $(echo $progs), $(ls userspace/man/*.[1-8] | wc -l) man pages; no test, sanitizer or benchmark"

# 2. Headers, libraries and the kernel headers, package by package.
pkg_of() { { dpkg -S "$1" 2>/dev/null || true; } | head -n1 | cut -d: -f1; }
allowed() { # package list: in the list, or the compiler's own headers
	grep -qx "$1" <<<"$2" || [[ $1 == libgcc-*-dev ]]
}
grep '^gcc' "$tmp/dry" | sed -E 's/ -o [^ ]+/ /; s/ -c / /; s/ [^ ]+\.a( |$)/ /g; s/ -l[^ ]+//g; s/$/ -M -MG/' > "$tmp/deps.sh"
(cd "$top" && bash "$tmp/deps.sh") | tr ' \\' '\n\n' | grep '^/' | sort -u > "$tmp/headers" || die "gcc -M over make tools' compiles"
[ -s "$tmp/headers" ] || die "gcc -M found no system header"
# One dpkg -S for them all (one per header takes a minute).
xargs -r realpath -s < "$tmp/headers" | sort -u > "$tmp/headers.n"
{ xargs -r dpkg -S < "$tmp/headers.n" 2> "$tmp/dpkg.err" || true; } |
	sed -n 's/^\([^:]*\):[^ ]* \(.*\)$/\1 \2/p' | sed 's/^[^ ]*:\([a-z0-9]*\) / /' > "$tmp/owners"
while read -r h; do
	p=$(awk -v h="$h" '$2 == h { print $1; exit }' "$tmp/owners")
	[ -n "$p" ] || die "$h (read by make tools) belongs to no package"
	allowed "$p" "$build_pkgs" || die "$h comes from $p, not in the README's build packages"
	echo "$p"
done < "$tmp/headers.n" | sort | uniq -c | sed 's/^ */    /' > "$tmp/hpkgs"
echo "headers: $(wc -l < "$tmp/headers") system headers from:"; cat "$tmp/hpkgs"
for l in $(grep '^gcc' "$tmp/dry" | grep -oE -- ' -l[a-z0-9_-]+' | sed 's/ -l//' | sort -u); do
	f=$(gcc -print-file-name="lib$l.so")
	[ "$f" != "lib$l.so" ] || f=$(gcc -print-file-name="lib$l.a")
	# The -dev package's link (lib.so -> lib.so.N), not the library it names:
	# the path normalised without following links, under /lib or /usr/lib.
	f=$(realpath -s "$f")
	p=$(pkg_of "$f"); [ -n "$p" ] || p=$(pkg_of "*/${f#/usr/}")
	[ -n "$p" ] || die "-l$l ($f) belongs to no package"
	allowed "$p" "$build_pkgs" || die "-l$l comes from $p, not in the README's build packages"
	echo "    -l$l: $p"
done
# The syscall events' names come from the kernel headers (kmod/gen-syscalls
# reads KDIR's syscall tables and KSRC's prototypes, with awk, not gcc): the
# packages of the files it reads are linux-headers-<release>-*, which the
# README's linux-headers-amd64 pulls in.
gen=$(grep -m1 '^kmod/gen-syscalls events ' "$tmp/dry") || die "make tools does not generate the syscall events"
kobj=$(sed 's/^kmod\/gen-syscalls events "\([^"]*\)" "\([^"]*\)".*/\1/' <<<"$gen")
ksrc=$(sed 's/^kmod\/gen-syscalls events "\([^"]*\)" "\([^"]*\)".*/\2/' <<<"$gen")
kobj=$(readlink -f "$kobj") ksrc=$(readlink -f "$ksrc")
for f in "$kobj/arch/x86/include/generated/asm/syscalls_64.h" "$ksrc/include/linux/syscalls.h"; do
	p=$(pkg_of "$f")
	[ -n "$p" ] || die "$f (read by kmod/gen-syscalls) belongs to no package"
	[[ $p == linux-headers-* ]] && grep -qx linux-headers-amd64 <<<"$build_pkgs" ||
		die "$f comes from $p: the README's build packages need linux-headers-amd64"
	echo "    kmod/gen-syscalls reads $f: $p (linux-headers-amd64)"
done
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
for p in $progs; do
	b=build/bin/$p
	[ -x "$b" ] || die "$b not built (make all first)"
	for so in $(readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		pk=$(pkg_of "/*/$arch/$so")
		[ -n "$pk" ] || die "$b needs $so, which belongs to no package"
		grep -qx "$pk" <<<"$run_pkgs" || die "$b needs $so from $pk, not in the README's runtime packages"
		echo "$pk"
	done
done | sort | uniq -c | sed 's/^ */    /' > "$tmp/rpkgs"
echo "the programs load (NEEDED, per program):"; cat "$tmp/rpkgs"

# 3. The KDIR warning, against a made-up tree of another release and of this one.
mkdir -p "$tmp/k-other/include/generated" "$tmp/k-same/include/generated"
echo '#define UTS_RELEASE "0.0.0-not-this-one"' > "$tmp/k-other/include/generated/utsrelease.h"
echo "#define UTS_RELEASE \"$(uname -r)\"" > "$tmp/k-same/include/generated/utsrelease.h"
scripts/kdir-check "$tmp/k-other" > "$tmp/w.out" 2> "$tmp/w.err" || die "kdir-check failed"
grep -q 'WARNING: .*0\.0\.0-not-this-one.*'"$(uname -r | sed 's/[.]/\\./g')" "$tmp/w.err" &&
	grep -q 'insmod.* will fail' "$tmp/w.err" || { cat "$tmp/w.err"; die "kdir-check: no warning naming both kernels and insmod"; }
scripts/kdir-check "$tmp/k-same" > "$tmp/s.out" 2>&1 || die "kdir-check failed"
[ ! -s "$tmp/s.out" ] || { cat "$tmp/s.out"; die "kdir-check warned about the running kernel's own tree"; }
grep -q 'scripts/kdir-check "$(KDIR)"' Makefile || die "make's module target does not run scripts/kdir-check"
echo "kdir-check: warns for another kernel's tree:"; sed 's/^/    /' "$tmp/w.err"

# 4. The built man pages: the version, no placeholder.
for m in build/man/*.[1-8]; do
	MANWIDTH=80 man -l "$m" 2>/dev/null | tail -n1 | grep -q "evtrace $version" || die "man -l $m: no 'evtrace $version' in its footer"
	! grep -q '@[A-Z]*@' "$m" || die "$m: unsubstituted @PLACEHOLDER@"
done
echo "man -l build/man/*: $(ls build/man/*.[1-8] | wc -l) pages, each with 'evtrace $version'"
echo "make tools checks passed"
