#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# prepare.sh KERNELVER: DKMS's PRE_BUILD.  Takes fs/fuse of Debian's
# linux-source of the kernel's own version into ./fuse and applies
# cuse-stream.patch, which confines the fix to cuse.c: Debian 13 builds
# FUSE into the kernel, so only cuse.ko can be replaced.
# prepare.sh --check [--patch] KERNELVER: whether that can be done, for
# dkms.conf, which excludes the kernel otherwise; --patch also tries the
# patch on the source's cuse.c (its answer is kept in /run/pilotd-cuse,
# as reading the tarball takes 10 to 20 s).
#
# cuse.c uses fs/fuse/fuse_i.h's private structures of the kernel's own
# FUSE, which a stable update may change without modversions noticing:
# the source must be the kernel's exact Debian version.  The kernel's
# version is its installed linux-headers-KERNELVER package's (the headers
# DKMS builds against; linux-image-KERNELVER, where installed, must agree),
# the source's the installed linux-source-SERIES package's, which owns
# /usr/src/linux-source-SERIES.tar.xz.  Anything else (no such packages,
# other versions, a missing tarball, a patch that no longer applies) is a
# skip: a message and exit status 77, never a failed kernel installation.
set -u
check='' trypatch=''
[ "${1:-}" = --check ] && { check=1; shift; }
[ "${1:-}" = --patch ] && { trypatch=1; shift; }
kernelver=${1:?usage: prepare.sh [--check [--patch]] KERNELVER}
here=$(cd "$(dirname "$0")" && pwd)

skip() {
	echo "pilotd-cuse: cuse.ko is not built for $kernelver: $*" >&2
	exit 77
}

# installed PACKAGE: its version if dpkg has it installed
installed() {
	dpkg-query -W -f='${db:Status-Status} ${Version}\n' "$1" 2>/dev/null |
		sed -n 's/^installed //p'
}

case "$kernelver" in
6.1.* | 6.12.* | 7.3.*) ;;
*) skip "it is built for Debian's 6.1, 6.12 and 7.3 only" ;;
esac
case "$kernelver" in
[0-9]*.[0-9]*.0-*) series=${kernelver%%.0-*} ;; # Debian 12's ABI names
*) series=$(echo "$kernelver" | cut -d. -f1-2) ;;
esac
source=linux-source-$series
tarball=/usr/src/$source.tar.xz

kversion=$(installed "linux-headers-$kernelver")
[ -n "$kversion" ] ||
	skip "linux-headers-$kernelver is not installed (cuse.ko is built only for Debian's kernels, from the linux-source of their own version)"
for image in "linux-image-$kernelver" "linux-image-$kernelver-unsigned"; do
	v=$(installed "$image")
	[ -z "$v" ] || [ "$v" = "$kversion" ] ||
		skip "$image is $v but linux-headers-$kernelver is $kversion"
done
sversion=$(installed "$source")
if [ -z "$sversion" ] || [ ! -f "$tarball" ]; then
	skip "$tarball (package $source $kversion) is missing: apt install $source=$kversion, then dkms autoinstall -k $kernelver"
fi
[ "$sversion" = "$kversion" ] ||
	skip "$source is $sversion but the kernel is $kversion: cuse.c built from another version's fs/fuse/fuse_i.h could corrupt the kernel's memory; install $source $kversion (apt install $source=$kversion, if the archive still has it), or remove this kernel"

# patch_fails DIR: patch's complaint when cuse-stream.patch does not apply
# to the fs/fuse in DIR
patch_fails() {
	msg=$(patch -d "$1" -p3 -F0 -s -N --dry-run --no-backup-if-mismatch \
		< "$here/cuse-stream.patch" 2>&1) && return 0
	echo "${msg:-it does not apply}" | tr '\n' ' ' | sed 's/ $//'
}

if [ -n "$check" ]; then
	[ -n "$trypatch" ] || exit 0
	key=$( { ls -l --time-style=+%s "$tarball"; echo "$sversion"; cat "$here/cuse-stream.patch"; } |
		sha256sum | cut -c1-16)
	answer=/run/pilotd-cuse/$key
	if [ ! -f "$answer" ]; then
		work=$(mktemp -d) || exit 77
		# the files the patch changes (cuse.c), not the whole tree
		files=$(sed -n 's|^+++ b/\(fs/fuse/[^[:space:]]*\).*|linux-source-'"$series"'/\1|p' \
			"$here/cuse-stream.patch")
		# shellcheck disable=SC2086 # one word a file
		if tar -xJf "$tarball" -C "$work" --occurrence=1 $files 2>/dev/null; then
			out=$(patch_fails "$work/linux-source-$series/fs/fuse")
		else
			out="$tarball has no fs/fuse/cuse.c"
		fi
		rm -rf "$work"
		mkdir -p /run/pilotd-cuse 2>/dev/null &&
			printf '%s' "$out" > "$answer.$$" 2>/dev/null && mv "$answer.$$" "$answer"
	else
		out=$(cat "$answer")
	fi
	[ -z "$out" ] || skip "cuse-stream.patch does not apply to $source $sversion ($out): wait for a pilotd-cuse-dkms that carries the fix for it"
	exit 0
fi

echo "pilotd-cuse: fs/fuse of $tarball ($source $sversion) for $kernelver"
rm -rf fuse "linux-source-$series"
tar -xJf "$tarball" --wildcards "linux-source-$series/fs/fuse/*.[ch]" \
	"linux-source-$series/fs/fuse/Makefile" ||
	skip "$tarball has no fs/fuse"
mv "linux-source-$series/fs/fuse" fuse
rm -rf "linux-source-$series"
out=$(patch_fails fuse)
[ -z "$out" ] ||
	skip "cuse-stream.patch does not apply to $source $sversion ($out): wait for a pilotd-cuse-dkms that carries the fix for it"
patch -d fuse -p3 -F0 -s -N --no-backup-if-mismatch < cuse-stream.patch || exit 1
# cuse.ko alone, against the running kernel's built-in or modular FUSE
echo 'obj-m := cuse.o' > fuse/Kbuild
