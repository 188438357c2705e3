#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build the guest's base initramfs: busybox, systemd-udevd, our /init and
# whatever binaries are named, each with the shared libraries it needs.
#
# Usage: mkinitramfs.sh --out FILE --init FILE [--rules FILE]...
#                       [--bin FILE]... [--sbin FILE]... [--prog FILE:DEST]...
#                       [--data-dir DIR] [--data FILE]... [--usbredirect]
# --bin installs into /usr/bin, --sbin into /usr/sbin, --prog at DEST
# (a path in the guest), each with its libraries; --data puts a plain
# file into the last --data-dir given (default /usr/share).  udevd comes
# from Debian's udev package, downloaded (not installed) into
# $PILOTD_CACHE, so the host stays as it is; so does Debian's usbredirect
# with --usbredirect.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

out= init= usbredirect=
rules=() files=() data_dir=/usr/share
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--init) init=$2; shift 2 ;;
	--rules) rules+=("$2"); shift 2 ;;
	--bin) files+=("$2:/usr/bin/$(basename "$2")"); shift 2 ;;
	--sbin) files+=("$2:/usr/sbin/$(basename "$2")"); shift 2 ;;
	--prog) files+=("$2"); shift 2 ;;
	--data-dir) data_dir=$2; shift 2 ;;
	--data) files+=("data=$2:$data_dir"); shift 2 ;;
	--usbredirect) usbredirect=1; shift ;;
	*) die "unknown argument: $1" ;;
	esac
done
[ -n "$out" ] && [ -n "$init" ] || die "usage: mkinitramfs.sh --out FILE --init FILE [--rules FILE]... [--bin FILE]... [--sbin FILE]... [--prog FILE:DEST]... [--data-dir DIR] [--data FILE]... [--usbredirect]"

need_pkgs busybox-static cpio
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,run,tmp,etc,root,lib/udev/rules.d}

cp /bin/busybox "$root/bin/busybox"
install -m 0755 "$init" "$root/init"
# pilotd: the daemon's unprivileged user (pilotd --user pilotd)
write_accounts "$root" 'passwd:pilotd:x:101:101:pilotd:/nonexistent:/bin/false' 'group:pilotd:x:101:'

udev_dir=$(udev_unpacked)
install -D -m 0755 "$udev_dir/bin/udevadm" "$root/bin/udevadm"
ln -s /bin/udevadm "$root/lib/systemd-udevd"
add_libs "$root" "$udev_dir/bin/udevadm"
cp "$udev_dir/lib/udev/rules.d/50-udev-default.rules" "$root/lib/udev/rules.d/"
for r in "${rules[@]}"; do
	cp "$r" "$root/lib/udev/rules.d/"
done

add_files "$root" "${files[@]}"

[ -z "$usbredirect" ] || add_usbredirect "$root"

pack_cpio "$root" > "$out.tmp"
mv "$out.tmp" "$out"
