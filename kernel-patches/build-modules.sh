#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The CUSE series as modules for the kernels Debian ships, for the pilotd
# QEMU rig.  For each kernel (6.1: bookworm, 6.12: trixie, 7.3:
# trixie-backports) Debian's linux-image (with its modules), the matching
# linux-headers and linux-source of the same version are downloaded
# (never installed) into the cache; fs/fuse of that source, with the
# series applied, is built out of tree against the headers as Debian
# builds it (CONFIG_FUSE_FS=m, CONFIG_CUSE=m): fuse.ko and cuse.ko, the
# two modules the patch changes.  The series' selftest is compiled from
# the same patched source.  The patched guest is the stock image with
# these two modules in updates/ (where DKMS puts them), the unpatched
# guest the stock image as shipped.
#
# Usage: build-modules.sh [--dkms DEB] [--install DIR] VERSION...
#        build-modules.sh --fetch VERSION...
#        build-modules.sh --dkms-root VERSION
# --install DIR writes, for each VERSION:
#   vmlinuz-VERSION                  Debian's kernel image
#   modules-VERSION.cpio.gz          its modules for the guest (USB host
#                                    controller, usbserial, visor, fuse,
#                                    cuse and what they need) with
#                                    Debian's kmod, depmod'ed, and udev's
#                                    rule that loads modules
#   modules-VERSION-patched.cpio.gz  the same with the patched fuse.ko and
#                                    cuse.ko in updates/
#   cuse_stream_test-VERSION         the series' selftest
# --dkms DEB has Debian's dkms build the DKMS package DEB (pilotd-cuse-dkms)
# for each VERSION instead, in VERSION's DKMS root (build only: nothing is
# installed or loaded here) and writes modules-VERSION-dkms.cpio.gz, the
# guest's modules with what DKMS built.
# --dkms-root makes VERSION's DKMS root (dkms_root()) and prints "ROOT
# RELEASE DEBIAN-VERSION" (tests/package/dkms-autoinstall.sh).
# --fetch only downloads the packages and makes the build root (fetch()).
# Everything is cached under keys hashed from what went into it.
# Cache root: $PILOTD_CACHE (default /var/cache/pilotd).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
jobs=${PILOTD_JOBS:-$(nproc)}
. "$here/../qemu-usb/lib.sh"

need_pkgs build-essential bc libelf-dev cpio kmod xz-utils zstd

hash() { sha256sum | cut -c1-16; }

# The modules the guest loads, as udev and modules-load.d load them on a
# user's machine: the host controller QEMU offers, usb-serial's visor for
# the handheld, fuse and cuse for pilotd; modprobe adds what they need.
guest_modules="xhci_pci usbserial visor fuse cuse"

# use_version VERSION: $suite $patchdir $release $debver and the paths of
# Debian's packages ($image_debs $header_debs $source_deb).
use_version() {
	ver=$1
	case "$ver" in
	6.1) suite=bookworm patchdir=$here/6.1 ;;
	6.12) suite=trixie patchdir=$here/6.12 ;;
	7.3) suite=trixie-backports patchdir=$here ;;
	*) die "unknown kernel version: $ver (6.1, 6.12 or 7.3)" ;;
	esac
	local -a debs
	mapfile -t debs < <(debian_kernel "$suite" "$ver")
	read -r release debver <<< "${debs[0]}"
	image_debs=() header_debs=()
	local d
	for d in "${debs[@]:1}"; do
		case "${d##*/}" in
		linux-source-*) source_deb=$d ;;
		linux-headers-* | linux-kbuild-*) header_debs+=("$d") ;;
		*) image_debs+=("$d") ;;
		esac
	done
	kdir=$cache/debian-kernel/$release
	# Not the poll-events backport that 6.1/series names for our guest
	# kernel: it changes include/uapi/linux/fuse.h, which a module build
	# takes from Debian's headers; Debian's kernels get the stream series.
	series=$(grep -v '^#' "$patchdir/series" | sed '/^$/d' | grep -v '^\.\./poll-events/')
}

# module_series: what is built, from the headers' configuration.  Where
# Debian builds FUSE as a module (6.1) the series as it is: fuse.ko and
# cuse.ko.  Where FUSE is built in (Debian 13's 6.12 and 7.3:
# CONFIG_FUSE_FS=y, CONFIG_CUSE=m) the fix confined to cuse.c
# (modules/cuse-stream.patch) and cuse.ko alone; the series' patch 2 (the
# selftest) in both cases.  Sets $mseries (paths) and $built.
module_series() {
	local config
	config=$(dpkg-deb --fsys-tarfile "$(printf '%s\n' "${header_debs[@]}" | grep -- '-amd64_')" |
		tar -xO "./usr/src/linux-headers-$release/.config")
	if grep -qx 'CONFIG_FUSE_FS=m' <<< "$config"; then
		built="fuse cuse"
		mseries=$(for p in $series; do echo "$patchdir/$p"; done)
	else
		grep -qx 'CONFIG_CUSE=m' <<< "$config" || die "$release has no CUSE module"
		built="cuse"
		mseries=$(echo "$here/modules/cuse-stream.patch"
			  for p in $series; do echo "$patchdir/$p"; done | grep -v '/0001-')
	fi
}

# unpack_debs DIR DEB...: the packages unpacked into DIR once.
unpack_debs() {
	local dir=$1 d
	shift
	[ -f "$dir/.unpacked-$debver" ] && return 0
	rm -rf "$dir"
	mkdir -p "$dir"
	for d in "$@"; do
		dpkg-deb -x "$d" "$dir"
	done
	touch "$dir/.unpacked-$debver"
}

# The image and its modules, and the headers, each in a root of its own.
# The headers' Makefile includes its common part by an absolute path.
unpack_kernel() {
	if [ ! -f "$kdir/image/.unpacked-$debver" ]; then
		log "unpacking Debian's $release image and modules"
		unpack_debs "$kdir/image" "${image_debs[@]}"
		# merged /usr from Debian 13 on: the modules are in /usr/lib/modules
		[ -d "$kdir/image/lib" ] || ln -s usr/lib "$kdir/image/lib"
		depmod -b "$kdir/image" "$release"
	fi
	if [ "$suite" = bookworm ] && [ ! -f "$kdir/headers/.unpacked-$debver" ]; then
		unpack_debs "$kdir/headers" "${header_debs[@]}"
		sed -i "s|^include /usr/src/|include $kdir/headers/usr/src/|" \
			"$kdir/headers/usr/src/linux-headers-$release/Makefile"
	fi
}

# build_root: where the modules are built, with the compiler Debian built
# the kernel with.  This machine (Debian 12, gcc-12) for bookworm's 6.1;
# for trixie's kernels, which name gcc-14 (not in Debian 12), a Debian 13
# root made with mmdebstrap in the cache, with gcc-14, make and dkms,
# entered with chroot, the headers unpacked in it at their own paths as
# on a Debian 13 machine.  Sets $broot ("" for this machine) and $headers.
build_root() {
	broot=
	if [ "$suite" = bookworm ]; then
		headers=$kdir/headers/usr/src/linux-headers-$release
		return 0
	fi
	local pkgs="gcc-14 make libc6-dev kmod dkms patch bc libelf-dev dwarves" key d
	need_pkgs mmdebstrap
	key=$(echo "trixie $pkgs" | hash)
	broot=$cache/chroot/trixie-$key
	if [ ! -f "$broot/.done" ]; then
		log "making a Debian 13 build root with gcc-14 and dkms in $broot (mmdebstrap: about 150 MB, 2 minutes)"
		rm -rf "$broot"
		mkdir -p "$broot"
		mmdebstrap -q --variant=apt --include="${pkgs// /,}" \
			--aptopt='APT::Sandbox::User "root"' trixie "$broot" \
			http://deb.debian.org/debian >&2 || die "mmdebstrap failed"
		touch "$broot/.done"
	fi
	if [ ! -f "$broot/.headers-$release-$debver" ]; then
		for d in "${header_debs[@]}"; do
			dpkg-deb -x "$d" "$broot"
		done
		touch "$broot/.headers-$release-$debver"
	fi
	headers=/usr/src/linux-headers-$release
}

# dkms_root: a root of the kernel's Debian release as a user's machine
# that runs DKMS has it: dkms and the kernel's compiler installed, and
# Debian's kernel's headers and linux-source of the same version
# installed with dpkg from the packages in the cache, so that dpkg's
# database holds their versions (prepare.sh compares them).  Made once
# with mmdebstrap in $PILOTD_CACHE/chroot (about 400 MB, 2 to 3 minutes);
# nothing changes it afterwards (builds use --dkmstree, the autoinstall
# test an overlay).  Sets $droot.
dkms_root() {
	local release_suite cc key d
	local -a inc=() mirrors=()
	case "$suite" in
	bookworm) release_suite=bookworm cc=gcc-12 ;;
	*) release_suite=trixie cc="gcc-14 linux-base" ;; # linux-run-hooks
	esac
	local pkgs="dkms $cc make libc6-dev patch xz-utils kmod"
	for d in "${header_debs[@]}" "$source_deb"; do
		inc+=(--include="$d")
	done
	mirrors=("deb http://deb.debian.org/debian $release_suite main")
	[ "$suite" = trixie-backports ] &&
		mirrors+=("deb http://deb.debian.org/debian trixie-backports main")
	key=$({ echo "$release_suite $pkgs ${mirrors[*]}"; printf '%s\n' "${header_debs[@]##*/}" \
		"${source_deb##*/}"; } | hash)
	droot=$cache/chroot/dkms-$ver-$key
	[ -f "$droot/.done" ] && return 0
	need_pkgs mmdebstrap
	log "making a Debian $release_suite root with dkms and linux-headers-$release and linux-source-$ver $debver installed in $droot (mmdebstrap: about 400 MB, 2 to 3 minutes)"
	rm -rf "$droot"
	mkdir -p "$droot"
	mmdebstrap -q --variant=apt --include="${pkgs// /,}" "${inc[@]}" \
		--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
		--aptopt='APT::Sandbox::User "root"' "$release_suite" "$droot" "${mirrors[@]}" >&2 ||
		die "mmdebstrap failed"
	touch "$droot/.done"
}

# in_build_root COMMAND...: COMMAND in the build root (with a /proc of
# its own, which objtool reads, mounted in a mount namespace of its own).
in_build_root() {
	if [ -n "$broot" ]; then
		unshare --mount --propagation private sh -c \
			'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$broot" "$@"
	else
		"$@"
	fi
}

# The parts of linux-source the series touches, pristine: fs/fuse, the
# kselftest harness, MAINTAINERS.
unpack_source() {
	src=$kdir/source/linux-source-$ver
	[ -f "$kdir/source/.unpacked-$debver" ] && return 0
	log "unpacking fs/fuse and the kselftest harness from ${source_deb##*/} (about 20 s)"
	rm -rf "$kdir/source"
	mkdir -p "$kdir/source"
	dpkg-deb --fsys-tarfile "$source_deb" | tar -xO "./usr/src/linux-source-$ver.tar.xz" |
		tar -xJ -C "$kdir/source" --wildcards "linux-source-$ver/fs/fuse" \
			"linux-source-$ver/MAINTAINERS" "linux-source-$ver/tools/testing/selftests/Makefile" \
			"linux-source-$ver/tools/testing/selftests/kselftest*"
	touch "$kdir/source/.unpacked-$debver"
}

# BEGIN BUILD: part of the modules' cache key.
# build_modules OUT: fs/fuse with the series, out of tree against Debian's
# headers, as Debian configures it; then the selftest from the same tree.
build_modules() {
	local out=$1 work t0=$SECONDS p
	mkdir -p "${broot:-$kdir}/build"
	work=$(mktemp -d "${broot:-$kdir}/build/$release.XXXXXX")
	cp -a "$src" "$work/"
	for p in $mseries; do
		patch -d "$work/linux-source-$ver" -p1 -s -N --no-backup-if-mismatch \
			< "$p" >&2 || die "${p#"$here"/} does not apply to linux-source-$ver $debver"
	done
	local fuse=m m
	[ "$built" = cuse ] && fuse=
	log "building ${built// /.ko and }.ko for $release (about a minute on 2 cores)"
	in_build_root make -C "$headers" M="${work#"$broot"}/linux-source-$ver/fs/fuse" -j"$jobs" \
		CONFIG_FUSE_FS=$fuse CONFIG_CUSE=m CONFIG_VIRTIO_FS= modules >&2 ||
		die "the patched fs/fuse does not build against linux-headers-$release"
	mkdir -p "$out.tmp"
	for m in $built; do
		cp "$work/linux-source-$ver/fs/fuse/$m.ko" "$out.tmp/"
		strip --strip-debug "$out.tmp/$m.ko" # as Debian ships its modules
	done
	gcc -Wall -O2 -g -I"$work/linux-source-$ver/tools/testing/selftests" \
		-o "$out.tmp/cuse_stream_test" \
		"$work/linux-source-$ver/tools/testing/selftests/filesystems/cuse/cuse_stream_test.c"
	rm -rf "$work" "$out"
	mv "$out.tmp" "$out"
	log "built ${built// /.ko, }.ko and the selftest for $release in $((SECONDS - t0)) s"
}
# END BUILD

modules_key() {
	{ echo "$release $debver"; [ "$suite" = bookworm ] && gcc --version | head -1
	  echo "$built"; cat $mseries
	  sed -n '/^# BEGIN BUILD/,/^# END BUILD/p' "$0"; } | hash
}

# module_closure ROOT: the guest's modules and what they depend on, as
# paths relative to ROOT/lib/modules/RELEASE.
module_closure() {
	local m
	for m in $guest_modules; do
		modprobe -d "$1" -S "$release" --show-depends "$m" |
			sed -n "s|^insmod $1/lib/modules/$release/||p" | sed 's/ *$//'
	done | sort -u
}

# guest_cpio OUT [MODDIR]: the modules' archive for the guest; the modules of
# $built from MODDIR go to updates/dkms/, ahead of the stock ones.
guest_cpio() {
	local out=$1 moddir=${2:-} root m
	root=$(mktemp -d)
	local mods=$root/lib/modules/$release
	for m in $(module_closure "$kdir/image"); do
		install -D -m 0644 "$kdir/image/lib/modules/$release/$m" "$mods/$m"
	done
	cp "$kdir/image/lib/modules/$release"/modules.{order,builtin,builtin.modinfo} "$mods/" \
		2>/dev/null || true
	for m in $built; do
		[ -z "$moddir" ] || install -D -m 0644 "$moddir/$m.ko" "$mods/updates/dkms/$m.ko"
	done
	depmod -b "$root" "$release"
	# Debian's kmod and udev's rule that loads a device's modules
	add_bin "$root" "$(command -v kmod):/usr/bin/kmod"
	for m in modprobe insmod rmmod lsmod modinfo; do
		ln -s /usr/bin/kmod "$root/usr/bin/$m"
	done
	mkdir -p "$root/sbin" "$root/lib/udev/rules.d"
	ln -s /usr/bin/kmod "$root/sbin/modprobe" # the kernel's modprobe_path
	cp "$(udev_unpacked)/lib/udev/rules.d/80-drivers.rules" "$root/lib/udev/rules.d/"
	pack_cpio "$root" > "$out.tmp"
	rm -rf "$root"
	mv "$out.tmp" "$out"
}

# build_version VERSION: everything of VERSION, unless cached.
build_version() {
	use_version "$1"
	module_series
	local key
	key=$(modules_key)
	mods=$kdir/modules-$key
	if [ ! -f "$mods/cuse_stream_test" ]; then
		unpack_kernel
		unpack_source
		build_root
		build_modules "$mods"
	else
		unpack_kernel
	fi
	# /boot up to Debian 13's 6.12; in the modules' directory from 7.3 on
	vmlinuz=$(ls "$kdir/image/boot/vmlinuz-$release" "$kdir/image/lib/modules/$release/vmlinuz" \
		2>/dev/null | head -1) || true
	[ -n "$vmlinuz" ] || die "no vmlinuz in Debian's $release packages"
	local cpio_key
	cpio_key=$({ echo "$key $guest_modules"; kmod --version | head -1
		     sed -n '/^guest_cpio()/,/^}/p' "$0"; } | hash)
	stock_cpio=$kdir/guest-$cpio_key.cpio.gz
	patched_cpio=$kdir/guest-$cpio_key-patched.cpio.gz
	[ -f "$stock_cpio" ] || guest_cpio "$stock_cpio"
	[ -f "$patched_cpio" ] || guest_cpio "$patched_cpio" "$mods"
}

# dkms_build VERSION DEB: Debian's dkms of the kernel's own release, in
# its DKMS root (dkms_root: the headers and linux-source of the kernel's
# version installed, as on a user's machine), builds the module of the
# DKMS package DEB for Debian's VERSION kernel.  Builds only: nothing is
# installed or loaded here, and the root is not changed (the package,
# DKMS's tree and /run are mounts of a namespace of its own).  Sets
# $dkms_cpio, the guest's modules with what DKMS built in updates/dkms.
dkms_build() {
	local deb=$2 tree pkgver m t0=$SECONDS
	use_version "$1"
	module_series
	unpack_kernel
	dkms_root
	mkdir -p "$kdir/build"
	tree=$(mktemp -d "$kdir/build/dkms.XXXXXX")
	dpkg-deb -x "$deb" "$tree/root"
	mkdir -p "$tree/dkms"
	pkgver=$(dpkg-deb -f "$deb" Version)
	log "dkms build of $(dpkg-deb -f "$deb" Package) $pkgver for $release (about a minute)"
	unshare --mount --propagation private sh -c '
		mount --bind "$1" "$2/mnt" && mount -t tmpfs tmpfs "$2/run" &&
		mount -t proc proc "$2/proc" && r=$2 && shift 2 && exec chroot "$r" "$@"' \
		sh "$tree" "$droot" \
		dkms build -m pilotd-cuse -v "$pkgver" -k "$release" \
		--dkmstree /mnt/dkms --sourcetree /mnt/root/usr/src >&2 || {
		cat "$tree"/dkms/pilotd-cuse/"$pkgver"/build/make.log >&2 2>/dev/null
		die "dkms build failed for $release"
	}
	m=$(find "$tree/dkms/pilotd-cuse/$pkgver/$release" -name 'cuse.ko*' | head -1)
	[ -n "$m" ] || die "dkms built no cuse.ko for $release"
	log "dkms built ${m#"$tree"/} for $release in $((SECONDS - t0)) s"
	mkdir -p "$tree/mods"
	cp "$m" "$tree/mods/cuse.ko"
	dkms_cpio=$tree/guest.cpio.gz
	built=cuse guest_cpio "$dkms_cpio" "$tree/mods"
}

install_if_changed() {
	cmp -s "$1" "$2" || cp "$1" "$2"
}

# fetch VERSION...: Debian's packages of each kernel downloaded, and the
# Debian 13 build root made, ahead of the builds that need them: run-tests
# starts this beside the guest kernel's build, so that the network's time
# and the kernel's CPU time overlap.  Downloads take their suite's lock,
# the build root the cache's.
fetch() {
	local v
	exec 9>"$cache/debian-kernel/lock"
	for v in "$@"; do
		use_version "$v"
		flock 9
		build_root
		flock -u 9
	done
}

install_dir= dkms_deb=
if [ "${1:-}" = --fetch ]; then
	shift
	mkdir -p "$cache/debian-kernel"
	fetch "$@"
	exit 0
fi
if [ "${1:-}" = --dkms-root ]; then
	mkdir -p "$cache/debian-kernel"
	exec 9>"$cache/debian-kernel/lock"
	flock 9
	use_version "${2:?--dkms-root needs a VERSION}"
	dkms_root
	echo "$droot $release $debver"
	exit 0
fi
if [ "${1:-}" = --dkms ]; then
	dkms_deb=$(realpath "${2:?--dkms needs the DKMS package}")
	shift 2
fi
if [ "${1:-}" = --install ]; then
	install_dir=${2:?--install needs a directory}
	shift 2
fi
[ $# -gt 0 ] || die "usage: build-modules.sh [--install DIR] VERSION... (6.1, 6.12, 7.3)"
mkdir -p "$cache/debian-kernel"
exec 9>"$cache/debian-kernel/lock"
flock 9
if [ -n "$dkms_deb" ]; then
	for v in "$@"; do
		dkms_build "$v" "$dkms_deb"
		cp "$dkms_cpio" "$install_dir/modules-$v-dkms.cpio.gz"
		rm -rf "${dkms_cpio%/*}"
	done
	exit 0
fi
for v in "$@"; do
	build_version "$v"
	echo "$v: Debian's $release ($debver)"
	[ -n "$install_dir" ] || continue
	install_if_changed "$vmlinuz" "$install_dir/vmlinuz-$v"
	install_if_changed "$stock_cpio" "$install_dir/modules-$v.cpio.gz"
	install_if_changed "$patched_cpio" "$install_dir/modules-$v-patched.cpio.gz"
	install_if_changed "$mods/cuse_stream_test" "$install_dir/cuse_stream_test-$v"
	install_if_changed "$mods/cuse.ko" "$install_dir/cuse-$v.ko"
done
