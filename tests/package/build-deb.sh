#!/bin/bash
# SPDX-License-Identifier: MIT
#
# build-deb.sh SRCDIR OUT.deb [DKMS.deb]: build the Debian packages from a
# copy of the source tree (dpkg-buildpackage writes into the tree and its
# parent) and copy pilotd to OUT.deb, pilotd-cuse-dkms to DKMS.deb.  Builds only: nothing is installed or started on
# this machine.  check-deb.sh checks what comes out.
set -euo pipefail
src=$(realpath "$1")
out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
tree=$work/pilotd-$version
mkdir -p "$tree"
# the source without its build directories (they hold build.ninja)
tar -C "$src" --exclude=.git --exclude-tag-all=build.ninja -cf - . | tar -C "$tree" -xf -
(cd "$tree" && dpkg-buildpackage -us -uc -b) > "$work/build.log" 2>&1 || {
	tail -40 "$work/build.log"
	echo "build-deb: dpkg-buildpackage failed"
	exit 1
}
cp "$work"/pilotd_"$version"_*.deb "$out"
[ -z "${3:-}" ] || cp "$work"/pilotd-cuse-dkms_"$version"_all.deb "$3"
