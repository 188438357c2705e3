#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the guest kernels for the pilotd QEMU rig, outside the checkout.
#
# Unpacks Debian's linux-source-6.1 into a cache directory, configures it
# from guest.config, builds bzImage without our patches (the comparison
# kernel), then applies the series and rebuilds incrementally.  Both images
# are cached under keys hashed from everything that went into them, so a
# second run costs a few hashes.
#
# Usage: build-kernel.sh [--install DIR | --checkpatch]
# Prints, on success, the two image paths as "patched=PATH" and
# "unpatched=PATH"; --install also copies them to DIR/bzImage and
# DIR/bzImage-unpatched.  --checkpatch runs the tree's checkpatch.pl on
# every patch of the series instead.
# Cache root: $PILOTD_CACHE (default /var/cache/pilotd).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tarball=/usr/src/linux-source-6.1.tar.xz
jobs=${PILOTD_JOBS:-$(nproc)}
# die, log, need_pkgs and $cache
. "$here/../qemu-usb/lib.sh"

need_pkgs linux-source-6.1 build-essential flex bison bc libelf-dev libssl-dev cpio

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
ccver=$(${CC:-gcc} --version | head -1)
series=$(grep -v '^#' "$here/series" | sed '/^$/d')

hash() { sha256sum | cut -c1-16; }
base_key=$( { echo "$srcver"; echo "$ccver"; cat "$here/guest.config";
	      sed -n '/^# BEGIN BUILD/,/^# END BUILD/p' "$0"; } | hash)
patch_key=$( { echo "$base_key"; echo "$series";
	       for p in $series; do cat "$here/$p"; done; } | hash)

unpatched="$cache/kernel/unpatched-$base_key/bzImage"
patched="$cache/kernel/patched-$patch_key/bzImage"

install_dir=
case "${1:-}" in
--install) install_dir=${2:?--install needs a directory} ;;
--checkpatch) ;;
"") ;;
*) die "unknown argument: $1" ;;
esac

emit() {
	echo "patched=$patched"
	echo "unpatched=$unpatched"
	if [ -n "$install_dir" ]; then
		cp "$patched" "$install_dir/bzImage"
		cp "$unpatched" "$install_dir/bzImage-unpatched"
	fi
}

# The Debian tarball has no git history, so checkpatch cannot look up the
# commits that a message cites (UNKNOWN_COMMIT_ID); everything else is
# checked.  In a kernel git tree the check passes without that exception.
checkpatch() {
	local tree=$1 rc=0 p
	for p in $series; do
		perl "$tree/scripts/checkpatch.pl" --no-tree --strict --ignore UNKNOWN_COMMIT_ID \
			"$here/$p" || rc=1
	done
	return $rc
}

if [ "${1:-}" != --checkpatch ] && [ -f "$patched" ] && [ -f "$unpatched" ]; then
	emit
	exit 0
fi

mkdir -p "$cache/kernel"
exec 9>"$cache/kernel/lock"
flock 9
tree="$cache/kernel/tree-$base_key"
src="$tree/linux-source-6.1"
if [ ! -f "$tree/.unpacked" ]; then
	log "unpacking $tarball into $tree"
	# One work tree at a time: trees of other configurations only fill the disk.
	rm -rf "$cache"/kernel/tree-*
	mkdir -p "$tree"
	tar -xf "$tarball" -C "$tree"
	touch "$tree/.unpacked"
fi

# Return the tree to the pristine source: reverse whatever was applied.
revert_series() {
	local applied="$tree/applied"
	[ -d "$applied" ] || return 0
	for p in $(tac "$applied/series" 2>/dev/null); do
		patch -d "$src" -p1 -R -s --no-backup-if-mismatch < "$applied/$p" ||
			die "cannot reverse $p in $src; delete $tree and rerun"
	done
	rm -rf "$applied"
}

apply_series() {
	local applied="$tree/applied"
	mkdir -p "$applied"
	: > "$applied/series"
	for p in $series; do
		[ -f "$here/$p" ] || die "series names $p, which does not exist"
		patch -d "$src" -p1 -s -N --no-backup-if-mismatch --dry-run < "$here/$p" >&2 ||
			die "$p does not apply to linux-source-6.1 $srcver"
		patch -d "$src" -p1 -s -N --no-backup-if-mismatch < "$here/$p" >&2
		cp "$here/$p" "$applied/$p"
		echo "$p" >> "$applied/series"
	done
}

# BEGIN BUILD: configure() and build() are part of the base cache key.
configure() {
	make -C "$src" -s KCONFIG_ALLCONFIG="$here/guest.config" allnoconfig >&2
	local missing=0
	while IFS= read -r line; do
		case "$line" in CONFIG_*) ;; *) continue ;; esac
		grep -qx "$line" "$src/.config" || { log "not in .config: $line"; missing=1; }
	done < "$here/guest.config"
	[ $missing -eq 0 ] || die "guest.config asks for options Kconfig refused"
}

build() {
	local out=$1 t0=$SECONDS
	make -C "$src" -s -j"$jobs" bzImage >&2
	mkdir -p "$(dirname "$out")"
	cp "$src/arch/x86/boot/bzImage" "$out.tmp"
	mv "$out.tmp" "$out"
	log "built $out in $((SECONDS - t0)) s"
}
# END BUILD

if [ "${1:-}" = --checkpatch ]; then
	checkpatch "$src"
	exit
fi

revert_series
if [ ! -f "$unpatched" ]; then
	configure
	build "$unpatched"
fi
apply_series
configure
build "$patched"
emit
