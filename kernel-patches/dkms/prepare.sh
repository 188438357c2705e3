#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# prepare.sh KERNELVER: DKMS's PRE_BUILD.  Takes fs/fuse of Debian's
# linux-source for the kernel's series (6.1.0-50-amd64: 6.1;
# 6.12.117+deb13-amd64: 6.12; 7.3.4+deb13-amd64: 7.3) into ./fuse and
# applies cuse-stream.patch, which confines the fix to cuse.c: Debian 13
# builds FUSE into the kernel, so only cuse.ko can be replaced.
# PILOTD_CUSE_SOURCE names another linux-source tarball (the tests).
set -eu
kernelver=$1
case "$kernelver" in
[0-9]*.[0-9]*.0-*) series=${kernelver%%.0-*} ;; # Debian 12's ABI names
*) series=$(echo "$kernelver" | cut -d. -f1-2) ;;
esac
tarball=${PILOTD_CUSE_SOURCE:-/usr/src/linux-source-$series.tar.xz}
if [ ! -f "$tarball" ]; then
	echo "pilotd-cuse: $tarball is missing: apt install linux-source-$series" >&2
	exit 1
fi
echo "pilotd-cuse: fs/fuse of $tarball for $kernelver"
rm -rf fuse linux-source-"$series"
tar -xJf "$tarball" --wildcards "linux-source-$series/fs/fuse/*.[ch]" \
	"linux-source-$series/fs/fuse/Makefile"
mv "linux-source-$series/fs/fuse" fuse
rm -rf "linux-source-$series"
patch -d fuse -p3 -s -N --no-backup-if-mismatch < cuse-stream.patch
# cuse.ko alone, against the running kernel's built-in or modular FUSE
echo 'obj-m := cuse.o' > fuse/Kbuild
