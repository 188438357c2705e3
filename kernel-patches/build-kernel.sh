#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the guest kernels for the pilotd QEMU rig, outside the checkout.
#
# Two kernels, each with and without the series: Debian's linux-source-7.3
# (trixie-backports, the base the series is written against; the
# poll-events, stream-data, cdev-order, stream-write and cuse-uring series
# are applied after it; cuse-uring/guest.config's options are turned on in
# the patched build) and
# linux-source-6.1 (Debian 12, this machine's, with the backport in 6.1/,
# whose series also names the backport of the poll-events series,
# poll-events/6.1/).
# Each tree is configured from guest.config and built without the patches
# first (the comparison kernel), then the series is applied and the tree
# rebuilt incrementally, and the series' selftest (cuse_stream_test) is
# compiled from the patched tree.  Everything is cached under keys hashed
# from what went into it, one work tree per kernel version, so a second
# run costs a few hashes.
#
# The test guest boots Debian's own kernel images with the series built as
# modules (build-modules.sh) wherever a test is about the kernel; this
# allnoconfig 6.1 with the series built in stays for the bulk of the guest
# tests, which boot about 140 times and need a kernel that boots in about
# a second under TCG (Debian's image takes 5 s and more): "--only 6.1
# --patched-only" builds just that one.  "--only 7.3 --patched-only" builds
# the 7.3 one with the three series as written for upstream (the guest tests
# kernel-7.3-*: Debian's 7.3 builds FUSE in, so no module can carry
# poll-events there).
#
# Usage: build-kernel.sh [--only VERSION] [--patched-only]
#                        [--install DIR | --checkpatch | --check-apply VERSION]
# Prints, on success, the image paths as "VERSION-patched=PATH" and
# "VERSION-unpatched=PATH".  --install also copies them into DIR:
# bzImage and bzImage-unpatched (6.1), bzImage-7.3 and bzImage-7.3-unpatched,
# cuse_stream_test-6.1 and cuse_stream_test-7.3.  --checkpatch runs
# checkpatch.pl of the 7.3 tree on every patch of the series and of its
# backports (6.1/, 6.12/), and of the poll-events series and its backport
# (poll-events/, poll-events/6.1/), stream-data/, cdev-order/,
# stream-write/ and cuse-uring/.
# --check-apply 6.12 checks that 6.12/series applies to Debian 13's
# linux-source-6.12 without building.
# --only 6.1 or --only 7.3 builds or checks that version alone;
# --patched-only builds and installs only the patched image and selftest
# (cuse_stream_test-guest for 6.1, cuse_stream_test-guest-7.3).
# Cache root: $PILOTD_CACHE (default /var/cache/pilotd).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
jobs=${PILOTD_JOBS:-$(nproc)}
# die, log, need_pkgs, kernel_source and $cache
. "$here/../qemu-usb/lib.sh"

need_pkgs linux-source-6.1 build-essential flex bison bc libelf-dev libssl-dev cpio

ccver=$(${CC:-gcc} --version | head -1)
hash() { sha256sum | cut -c1-16; }

# use_version VERSION: the source, the series and the cache paths of one
# kernel version: $ver $srcver $tarball $patchdir $series $src $tree
# $unpatched $patched $selftest.
use_version() {
	ver=$1
	case "$ver" in
	6.1)
		tarball=/usr/src/linux-source-6.1.tar.xz
		srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
		patchdir=$here/6.1 ;;
	6.12)
		read -r srcver tarball < <(kernel_source trixie 6.12)
		patchdir=$here/6.12 ;;
	7.3)
		read -r srcver tarball < <(kernel_source trixie-backports 7.3)
		patchdir=$here ;;
	*) die "unknown kernel version: $ver" ;;
	esac
	[ -n "$srcver" ] || die "no linux-source-$ver"
	series=$(grep -v '^#' "$patchdir/series" | sed '/^$/d')
	patched_config=
	# 7.3 carries the poll-events series on top, as 6.1/series names its
	# backport; kernel-patches/series stays the first series alone.
	# The stream-data series (issue 41) goes on top of poll-events.
	if [ "$ver" = 7.3 ]; then
		series+=$'\n'$(grep -v '^#' "$here/poll-events/series" | sed '/^$/d; s|^|poll-events/|')
		series+=$'\n'$(grep -v '^#' "$here/stream-data/series" | sed '/^$/d; s|^|stream-data/|')
		# The cdev before the device (cdev-order/): its test needs the others'.
		series+=$'\n'$(grep -v '^#' "$here/cdev-order/series" | sed '/^$/d; s|^|cdev-order/|')
		# Writes taken by the kernel (issue 41 item 2), on top of all.
		series+=$'\n'$(grep -v '^#' "$here/stream-write/series" | sed '/^$/d; s|^|stream-write/|')
		# CUSE over io_uring (issue 41 item 3), last; it needs options
		# of its own (patched_config), set in the patched build alone.
		series+=$'\n'$(grep -v '^#' "$here/cuse-uring/series" | sed '/^$/d; s|^|cuse-uring/|')
		patched_config=$here/cuse-uring/guest.config
	fi
	local base_key patch_key
	base_key=$( { echo "$ver $srcver"; echo "$ccver"; cat "$here/guest.config";
		      sed -n '/^# BEGIN BUILD/,/^# END BUILD/p' "$0"; } | hash)
	patch_key=$( { echo "$base_key"; echo "$series";
		       for p in $series; do cat "$patchdir/$p"; done;
		       [ -z "$patched_config" ] || cat "$patched_config";
		       sed -n '/^# BEGIN PATCHED CONFIG/,/^# END PATCHED CONFIG/p' "$0";
		       sed -n '/^# BEGIN SELFTEST/,/^# END SELFTEST/p' "$0"; } | hash)
	tree="$cache/kernel/$ver/tree-$base_key"
	src="$tree/linux-source-$ver"
	unpatched="$cache/kernel/$ver/unpatched-$base_key/bzImage"
	patched="$cache/kernel/$ver/patched-$patch_key/bzImage"
	selftest="$cache/kernel/$ver/patched-$patch_key/cuse_stream_test"
}

# The pristine tree of $ver, one per version: trees of other
# configurations of the same version only fill the disk.
unpack() {
	[ -f "$tree/.unpacked" ] && return 0
	log "unpacking $tarball into $tree"
	mkdir -p "$cache/kernel/$ver"
	rm -rf "$cache/kernel/$ver"/tree-*
	mkdir -p "$tree"
	tar -xf "$tarball" -C "$tree"
	touch "$tree/.unpacked"
}

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

# apply_series [--dry-run]
# A series may name patches of other directories (../0001-..., or
# ../poll-events/6.1/0001-...): each is kept in $tree/applied under its
# place in the series and its file name, for revert_series.
apply_series() {
	local applied="$tree/applied" n=0 name
	mkdir -p "$applied"
	: > "$applied/series"
	for p in $series; do
		[ -f "$patchdir/$p" ] || die "series names $p, which does not exist"
		patch -d "$src" -p1 -s -N -t --no-backup-if-mismatch --dry-run \
			< "$patchdir/$p" >&2 ||
			die "$p does not apply to linux-source-$ver $srcver"
		[ "${1:-}" = --dry-run ] && continue
		patch -d "$src" -p1 -s -N --no-backup-if-mismatch < "$patchdir/$p" >&2
		n=$((n + 1))
		name=$n-${p##*/}
		cp "$patchdir/$p" "$applied/$name"
		echo "$name" >> "$applied/series"
	done
}

# checkpatch PATCH...: checkpatch.pl --strict of the 7.3 tree, the newest.
# The Debian tarball has no git history, so checkpatch cannot look up the
# commits that a message cites (UNKNOWN_COMMIT_ID); everything else is
# checked.  In a kernel git tree the check passes without that exception.
checkpatch() {
	local rc=0 p
	for p in "$@"; do
		perl "$src/scripts/checkpatch.pl" --no-tree --strict \
			--ignore UNKNOWN_COMMIT_ID "$p" || rc=1
	done
	return $rc
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

# BEGIN PATCHED CONFIG: part of the patched cache key.
# The options a series needs beyond guest.config ($patched_config), turned
# on in the patched tree only: the base key, and so the shared unpatched
# tree and image, stay as they are; kbuild rebuilds what uses them.
configure_patched() {
	[ -n "$patched_config" ] || return 0
	local line missing=0
	grep '^CONFIG_.*=y$' "$patched_config" | sed 's/^CONFIG_//; s/=y$//' |
		xargs -r -n1 "$src/scripts/config" --file "$src/.config" --enable
	make -C "$src" -s olddefconfig >&2
	while IFS= read -r line; do
		case "$line" in CONFIG_*) ;; *) continue ;; esac
		grep -qx "$line" "$src/.config" || { log "not in .config: $line"; missing=1; }
	done < "$patched_config"
	[ $missing -eq 0 ] || die "$patched_config asks for options Kconfig refused"
}
# END PATCHED CONFIG

# BEGIN SELFTEST: part of the patched cache key.
# The series' selftest, compiled as its Makefile would (the kselftest
# harness and, as KHDR_INCLUDES, the uapi headers of the same tree: the
# poll-events tests need its <linux/fuse.h>), for the guest.
build_selftest() {
	local dir="$src/tools/testing/selftests/filesystems/cuse"
	[ -f "$dir/cuse_stream_test.c" ] || die "the series adds no $dir/cuse_stream_test.c"
	make -C "$src" -s headers >&2
	${CC:-gcc} -Wall -O2 -g -isystem "$src/usr/include" -I"$src/tools/testing/selftests" \
		-o "$selftest.tmp" "$dir/cuse_stream_test.c"
	mv "$selftest.tmp" "$selftest"
}
# END SELFTEST

# cached VERSION: whether both images (or the patched one, with
# --patched-only) and the selftest of VERSION are.
cached() {
	use_version "$1"
	[ -f "$patched" ] && { [ -n "$patched_only" ] || [ -f "$unpatched" ]; } && [ -f "$selftest" ]
}

# build_version VERSION: both images and the selftest of VERSION, unless
# cached.
build_version() {
	cached "$1" && return 0
	unpack
	revert_series
	if [ ! -f "$unpatched" ] && [ -z "$patched_only" ]; then
		configure
		build "$unpatched"
	fi
	apply_series
	# a line every 15 s: a full build takes minutes on 2 cores
	local stamp=$tree/.unpacked
	(while sleep 15; do
		log "building the $ver guest kernel: $(find "$src" -name '*.o' -newer "$stamp" |
			wc -l) objects compiled so far"
	done) &
	ticker=$!
	configure
	configure_patched
	build "$patched"
	kill "$ticker"
	ticker=
	build_selftest
}
ticker=
trap '[ -z "$ticker" ] || kill "$ticker" 2>/dev/null' EXIT

# install_if_changed SRC DEST: a copy that keeps DEST's time when equal,
# so that what depends on it is not rebuilt.
install_if_changed() {
	cmp -s "$1" "$2" || cp "$1" "$2"
}

versions="6.1 7.3" install_dir= patched_only=
if [ "${1:-}" = --only ]; then
	versions=${2:?--only needs a kernel version}
	shift 2
fi
if [ "${1:-}" = --patched-only ]; then
	patched_only=1
	shift
fi
case "${1:-}" in
--install) install_dir=${2:?--install needs a directory} ;;
--checkpatch | --check-apply | "") ;;
*) die "unknown argument: $1" ;;
esac

mkdir -p "$cache/kernel"

case "${1:-}" in
--checkpatch)
	# Every patch of the series and of its backports.
	# checkpatch.pl and its data files of the 7.3 tree: its scripts/ alone
	use_version 7.3
	if [ ! -f "$tree/.unpacked" ]; then
		tree=$(mktemp -d "$cache/kernel/checkpatch.XXXXXX")
		src="$tree/linux-source-$ver"
		trap 'rm -rf "$tree"' EXIT
		tar -xf "$tarball" -C "$tree" "linux-source-$ver/scripts"
	fi
	mapfile -t patches < <(for d in "$here" "$here/6.1" "$here/6.12" \
				 "$here/poll-events" "$here/poll-events/6.1" \
				 "$here/stream-data" "$here/cdev-order" \
				 "$here/stream-write" "$here/cuse-uring"; do
		grep -v '^#' "$d/series" | sed "/^\$/d; s|^|$d/|"
	done | xargs realpath | sort -u)
	checkpatch "${patches[@]}"
	exit ;;
--check-apply)
	use_version "${2:?--check-apply needs a kernel version}"
	mkdir -p "$cache/kernel/$ver"
	tree=$(mktemp -d "$cache/kernel/$ver/apply.XXXXXX")
	src="$tree/linux-source-$ver"
	trap 'rm -rf "$tree"' EXIT
	tar -xf "$tarball" -C "$tree" "linux-source-$ver/MAINTAINERS" \
		"linux-source-$ver/fs/fuse" "linux-source-$ver/tools/testing/selftests"
	apply_series --dry-run
	log "the series of $patchdir applies to linux-source-$ver $srcver"
	exit 0 ;;
esac
# One lock per version, as each has its own tree: a 7.3 build (half an
# hour and more) does not hold up a 6.1 one.  6.1's is the kernel/lock
# every earlier copy of this script takes for all versions.  Cached images
# need no lock: a build elsewhere may hold it for long.
for v in $versions; do
	lock=$cache/kernel/$v/lock
	[ "$v" != 6.1 ] || lock=$cache/kernel/lock
	mkdir -p "$cache/kernel/$v"
	exec 9>"$lock"
	cached "$v" || flock 9
	build_version "$v"
	exec 9>&-
	echo "$v-patched=$patched"
	[ -n "$patched_only" ] || echo "$v-unpatched=$unpatched"
	[ -n "$install_dir" ] || continue
	suffix=-$v
	[ "$v" = 6.1 ] && suffix=
	install_if_changed "$patched" "$install_dir/bzImage$suffix"
	[ -n "$patched_only" ] || install_if_changed "$unpatched" "$install_dir/bzImage$suffix-unpatched"
	[ -n "$patched_only" ] || install_if_changed "$selftest" "$install_dir/cuse_stream_test-$v"
	# the guest kernel's own (guest test cuse-selftest)
	[ -z "$patched_only" ] || install_if_changed "$selftest" "$install_dir/cuse_stream_test-guest$suffix"
done
