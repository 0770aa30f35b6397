#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# DKMS test (host side; root): make dkms-install, then for every installed
# kernel headers package dkms add/build/install, check the module lands in
# /lib/modules/KERNEL/updates/dkms where modprobe finds it (modinfo -k,
# modprobe --show-depends) with the version of VERSION, that it is signed with
# the machine's DKMS key the way bookworm's dkms signs (its MOK pair,
# /var/lib/dkms/mok.key and mok.pub unless /etc/dkms/framework.conf names
# others; the signature checked by openssl: verify-module-sig.py), boot that kernel in the VM
# with the DKMS-built module (it loads, reports its version, records the
# generator's events, unloads), then dkms remove and make dkms-uninstall leave
# nothing behind. Refuses to run when evtrace is already registered with DKMS.
# DKMS_KERNELS="REL ..." narrows the kernels (default: every installed
# linux-headers-REL package with /lib/modules/REL/build).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
version=$(cat VERSION)
tmp=$(mktemp -d)
die() { echo "FAIL: $*"; exit 1; }
cleanup() {
	dkms remove "evtrace/$version" --all > /dev/null 2>&1 || true
	make -s --no-print-directory dkms-uninstall > /dev/null 2>&1 || true
	rm -rf "$tmp"
}
[ "$(id -u)" = 0 ] || die "needs root (dkms install writes /lib/modules)"
command -v dkms > /dev/null || die "dkms missing (make deps)"
[ -z "$(dkms status evtrace 2>/dev/null)" ] ||
	die "evtrace is already registered with DKMS ($(dkms status evtrace | head -n1)): not touching it"
trap cleanup EXIT

if [ -n "${DKMS_KERNELS:-}" ]; then
	kernels=$DKMS_KERNELS
else
	kernels=$(dpkg-query -W -f='${Package} ${Status}\n' 'linux-headers-*' 2>/dev/null |
		awk '$NF == "installed" { sub(/^linux-headers-/, "", $1); print $1 }' |
		while read -r r; do [ -d "/lib/modules/$r/build" ] && echo "$r"; done | sort -V)
fi
[ -n "$kernels" ] || die "no kernel headers installed"
echo "kernels with headers: $(echo $kernels)"

make -s --no-print-directory dkms-install || die "make dkms-install"
[ -f "/usr/src/evtrace-$version/dkms.conf" ] || die "no /usr/src/evtrace-$version/dkms.conf"
dkms add "evtrace/$version" > "$tmp/add.log" 2>&1 || { cat "$tmp/add.log"; die "dkms add"; }
dkms status "evtrace/$version" | grep -q added || die "dkms status after add: $(dkms status evtrace)"
echo "dkms add evtrace/$version: $(dkms status "evtrace/$version")"

rc=0
for k in $kernels; do
	start=$(date +%s)
	if ! dkms build "evtrace/$version" -k "$k" > "$tmp/build-$k.log" 2>&1; then
		tail -n 30 "$tmp/build-$k.log"; cat "/var/lib/dkms/evtrace/$version/build/make.log" 2>/dev/null | tail -n 30
		echo "FAIL: $k: dkms build"; rc=1; continue
	fi
	if ! dkms install "evtrace/$version" -k "$k" > "$tmp/install-$k.log" 2>&1; then
		tail -n 30 "$tmp/install-$k.log"; echo "FAIL: $k: dkms install"; rc=1; continue
	fi
	built=$(( $(date +%s) - start ))
	file=$(modinfo -k "$k" -F filename evtrace 2>/dev/null)
	case "$file" in
	"/lib/modules/$k/updates/dkms/evtrace.ko"*) ;;
	*) echo "FAIL: $k: modinfo -k finds '$file', not the DKMS module in updates/dkms"; rc=1; continue ;;
	esac
	modprobe -S "$k" --show-depends evtrace | grep -q "updates/dkms/evtrace.ko" ||
		{ echo "FAIL: $k: modprobe --show-depends does not name updates/dkms"; rc=1; continue; }
	v=$(modinfo -F version "$file")
	[ "$v" = "$version" ] || { echo "FAIL: $k: module version '$v', VERSION says $version"; rc=1; continue; }
	echo "$k: dkms build + install ${built}s -> $file (version $v; modprobe finds it)"
	# The VM loads what DKMS installed (vm-run wants a plain .ko).
	ko=$tmp/$k/evtrace.ko
	mkdir -p "$tmp/$k/out"
	case "$file" in
	*.xz) xz -dc "$file" > "$ko" ;;
	*.zst) zstd -qdc "$file" > "$ko" ;;
	*.gz) gzip -dc "$file" > "$ko" ;;
	*) cp "$file" "$ko" ;;
	esac
	# Secure Boot machines load only signed modules: dkms signs with its MOK key.
	cert=$(sed -n 's/^mok_certificate=//p' /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf 2>/dev/null | tail -n 1)
	cert=${cert:-/var/lib/dkms/mok.pub}
	cert=${cert//\"/}
	if ! python3 tests/pkg/verify-module-sig.py "$ko" "$cert" > "$tmp/sig-$k.txt" 2>&1; then
		cat "$tmp/sig-$k.txt"; grep -i 'sign' "$tmp/build-$k.log" "$tmp/install-$k.log"
		echo "FAIL: $k: the DKMS module is not signed with $cert"; rc=1; continue
	fi
	echo "$k: $(cat "$tmp/sig-$k.txt")"
	if [ ! -r "/boot/vmlinuz-$k" ]; then
		echo "FAIL: $k: no kernel image /boot/vmlinuz-$k to boot (scripts/kernel-matrix install --images)"
		rc=1; continue
	fi
	start=$(date +%s)
	if scripts/vm-run --kver "$k" --module "$ko" --smp 2 --timeout 300 --out "$tmp/$k/out" \
		tests/pkg/guest-dkms.sh > "$tmp/vm-$k.log" 2>&1 &&
		[ "$(cat "$tmp/$k/out/version")" = "$version" ] && [ "$(cat "$tmp/$k/out/release")" = "$k" ]; then
		echo "$k: VM boot ($(( $(date +%s) - start ))s): the DKMS module loaded (version $(cat "$tmp/$k/out/version")), recorded $(cat "$tmp/$k/out/recorded") events, unloaded"
	else
		tail -n 40 "$tmp/vm-$k.log"; echo "FAIL: $k: the DKMS module in the VM"; rc=1
	fi
done

start=$(date +%s)
dkms remove "evtrace/$version" --all > "$tmp/remove.log" 2>&1 || { cat "$tmp/remove.log"; die "dkms remove"; }
for k in $kernels; do
	ls "/lib/modules/$k/updates/dkms/evtrace.ko"* > /dev/null 2>&1 && die "$k: module left after dkms remove"
	modinfo -k "$k" evtrace > /dev/null 2>&1 && die "$k: modinfo still finds evtrace after dkms remove"
done
[ -z "$(dkms status evtrace)" ] || die "dkms status after remove: $(dkms status evtrace)"
make -s --no-print-directory dkms-uninstall > /dev/null
[ ! -e "/usr/src/evtrace-$version" ] || die "/usr/src/evtrace-$version left"
echo "dkms remove --all ($(( $(date +%s) - start ))s) + make dkms-uninstall: nothing left"
[ $rc = 0 ] && echo "dkms test passed for: $(echo $kernels)"
exit $rc
