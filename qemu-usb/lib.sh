# SPDX-License-Identifier: MIT
# Shell helpers shared by the qemu-usb scripts.  Sourced, not run.

cache=${PILOTD_CACHE:-/var/cache/pilotd}

die() { echo "${0##*/}: $*" >&2; exit 1; }
log() { echo "${0##*/}: $*" >&2; }

# Install Debian packages that are missing; quiet when nothing is.
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'ok installed' >/dev/null ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	apt-get update -q >&2 &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2 ||
		die "could not install ${missing[*]}"
}

# debs_unpacked NAME FILE PKG...: Debian's packages PKG downloaded (not
# installed) into $cache/NAME once and unpacked into one root there; the
# executable FILE, a path in that root, says it is done.  Prints the root.
debs_unpacked() {
	local dir="$cache/$1" file=$2 p
	shift 2
	if [ ! -x "$dir/root$file" ]; then
		mkdir -p "$dir"
		rm -rf "$dir/root" "$dir"/*.deb
		(cd "$dir" && apt-get -o APT::Sandbox::User=root download "$@" >&2) ||
			(apt-get update -q >&2 && cd "$dir" &&
				apt-get -o APT::Sandbox::User=root download "$@" >&2) ||
			die "cannot download Debian's packages $*"
		for p in "$dir"/*.deb; do
			dpkg-deb -x "$p" "$dir/root"
		done
	fi
	echo "$dir/root"
}

# suite_apt SUITE apt-get|apt-cache ARG...: apt with an apt configuration
# of its own in $cache/debian/SUITE (sources file, lists, package cache,
# an empty dpkg status): this machine's apt sources and state are neither
# read nor changed.  Downloads run as root without apt's sandbox user, who
# could not write into the cache (apt would warn).
suite_apt() {
	local suite=$1 cmd=$2 dir="$cache/debian/$1"
	shift 2
	"$cmd" -q -o Dir::Etc::sourcelist="$dir/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/apt-cache" \
		-o Dir::State::status="$dir/status" -o APT::Architecture=amd64 \
		-o APT::Sandbox::User=root "$@"
}

# suite_lists SUITE: SUITE's package lists, fetched once (again with --update).
suite_lists() {
	local dir="$cache/debian/$1"
	[ "${2:-}" != --update ] && [ -f "$dir/lists/.done" ] && return 0
	mkdir -p "$dir/lists/partial" "$dir/apt-cache/archives/partial"
	echo "deb http://deb.debian.org/debian $1 main" > "$dir/sources.list"
	: > "$dir/status"
	suite_apt "$1" apt-get update >&2 || die "cannot read Debian's $1 package lists"
	touch "$dir/lists/.done"
}

# debian_debs SUITE PKG[=VERSION]...: Debian's packages from SUITE,
# downloaded once into $cache/debian/SUITE; prints their paths, one a line.
# Says what it downloads and how much before it does.
debian_debs() {
	local suite=$1 dir="$cache/debian/$1" spec name ver deb size total=0
	local -a want=() paths=()
	shift
	mkdir -p "$dir"
	{
		flock 8 # one download at a time into $dir
		suite_lists "$suite"
		for spec in "$@"; do
			name=${spec%%=*} ver=
			[ "$name" = "$spec" ] || ver=${spec#*=}
			[ -n "$ver" ] || ver=$(suite_apt "$suite" apt-cache show --no-all-versions \
				"$name" 2>/dev/null | sed -n 's/^Version: //p' | head -1)
			[ -n "$ver" ] || die "Debian's $suite has no package $name"
			deb="$dir/${name}_${ver//:/%3a}_"
			deb=$(ls "$deb"*.deb 2>/dev/null | head -1) || true
			if [ -z "$deb" ]; then
				want+=("$name=$ver")
				size=$(suite_apt "$suite" apt-cache show "$name=$ver" 2>/dev/null |
					sed -n 's/^Size: //p' | head -1)
				total=$((total + ${size:-0}))
				deb="$dir/${name}_${ver//:/%3a}_"
			fi
			paths+=("$deb")
		done
		if [ ${#want[@]} -gt 0 ]; then
			log "downloading $((total / 1000000)) MB from Debian's $suite: ${want[*]}"
			(cd "$dir" && suite_apt "$suite" apt-get download "${want[@]}" >&2) ||
				die "cannot download ${want[*]} from Debian's $suite"
		fi
	} 8> "$dir/lock"
	for deb in "${paths[@]}"; do
		case "$deb" in *.deb) echo "$deb" ;; *) ls "$deb"*.deb | head -1 ;; esac
	done
}

# debian_deb SUITE PKG: the path of Debian's package PKG from SUITE (for
# example trixie-backports), downloaded into $cache/debian/SUITE.
debian_deb() { debian_debs "$@"; }

# kernel_source SUITE VERSION: Debian's linux-source-VERSION of SUITE,
# downloaded once (debian_deb); prints "DEB-VERSION TARBALL" where
# TARBALL is the linux-source-VERSION.tar.xz the package ships, kept
# beside it in the cache.
kernel_source() {
	local suite=$1 ver=$2 deb tarball
	deb=$(debian_deb "$suite" "linux-source-$ver")
	tarball="${deb%/*}/linux-source-$ver.tar.xz"
	if [ ! -f "$tarball" ] || [ "$deb" -nt "$tarball" ]; then
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO "./usr/src/linux-source-$ver.tar.xz" > "$tarball.tmp.$$" ||
			die "no linux-source-$ver.tar.xz in $deb"
		mv "$tarball.tmp.$$" "$tarball"
	fi
	echo "$(dpkg-deb -f "$deb" Version) $tarball"
}

# debian_kernel SUITE SERIES: Debian's kernel SERIES (6.1, 6.12, 7.3) of
# SUITE as a user's machine gets it with linux-image-amd64: the image (and
# the binary and modules packages it is split into from 7.3 on), the
# headers with their common part and kbuild, and linux-source-SERIES of
# the same version, downloaded (never installed) into $cache/debian/SUITE.
# Prints "RELEASE VERSION" (uname -r and the Debian version), then the
# packages' paths: image packages, headers packages, linux-source.
debian_kernel() {
	local suite=$1 series=$2 dep release ver kbuild p
	local -a image=()
	mkdir -p "$cache/debian/$suite"
	{ flock 8; suite_lists "$suite"; } 8> "$cache/debian/$suite/lock"
	dep=$(suite_apt "$suite" apt-cache show --no-all-versions linux-headers-amd64 |
		sed -n 's/^Depends: //p' | tr ',' '\n' | grep -o 'linux-headers-[^ ]*-amd64 (= [^)]*)')
	release=$(sed 's/^linux-headers-\([^ ]*\) .*/\1/' <<< "$dep")
	ver=$(sed 's/.*(= \(.*\))/\1/' <<< "$dep")
	case "$release" in "$series".*) ;; *) die "Debian's $suite has $release, not $series" ;; esac
	kbuild=$(suite_apt "$suite" apt-cache show "linux-headers-$release=$ver" |
		sed -n 's/^Depends: //p' | head -1 | grep -o 'linux-kbuild-[^ ,]*')
	image=("linux-image-$release=$ver")
	for p in $(suite_apt "$suite" apt-cache show "linux-image-$release=$ver" |
		sed -n 's/^Depends: //p' | head -1 | grep -o 'linux-\(binary\|modules\|base\)-[^ ,]*'); do
		image+=("$p=$ver")
	done
	echo "$release $ver"
	debian_debs "$suite" "${image[@]}" "linux-headers-$release=$ver" \
		"linux-headers-${release%-amd64}-common=$ver" "$kbuild=$ver" "linux-source-$series=$ver"
}

# udevd for the guests
udev_unpacked() { debs_unpacked udev /bin/udevadm udev; }
# systemd as PID 1 of the service guest
systemd_unpacked() { debs_unpacked systemd /lib/systemd/systemd systemd libsystemd-shared; }
# usbredirect, the usbredir server of the machine with the cradle; its
# other libraries are QEMU's, so on this machine already
usbredirect_unpacked() {
	debs_unpacked usbredirect /usr/bin/usbredirect usbredirect libusbredirhost1
}

# add_usbredirect ROOT: Debian's usbredirect and its libraries into ROOT.
add_usbredirect() {
	local root=$1 dir libdir=/usr/lib/x86_64-linux-gnu
	dir=$(usbredirect_unpacked)
	install -D -m 0755 "$dir/usr/bin/usbredirect" "$root/usr/bin/usbredirect"
	install -D -m 0644 "$(readlink -f "$dir$libdir/libusbredirhost.so.1")" \
		"$root$libdir/libusbredirhost.so.1"
	LD_LIBRARY_PATH=$root$libdir add_libs "$root" "$root/usr/bin/usbredirect"
}

# Copy the shared libraries an ELF file needs (and the loader) into root.
add_libs() {
	local root=$1 elf=$2 lib
	ldd "$elf" >/dev/null 2>&1 || return 0 # static
	for lib in $(ldd "$elf" | grep -o '/[^ ]*'); do
		case $lib in "$root"/*) continue ;; esac # found in root itself
		[ -e "$root$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$root$lib"
	done
}

# add_bin ROOT SRC[:DEST]: a program and its libraries.
add_bin() {
	local root=$1 src=${2%%:*} dest=${2#*:}
	[ "$dest" = "$2" ] && dest=/usr/bin/$(basename "$src")
	[ -f "$src" ] || die "no such file: $src"
	install -D -m 0755 "$src" "$root$dest"
	add_libs "$root" "$src"
}

# add_files ROOT SPEC...: SRC:DEST programs (with their libraries) and
# FILE:DIR=... plain files into DIR, as mkinitramfs*.sh take them.
add_files() {
	local root=$1 spec
	shift
	for spec in "$@"; do
		case "$spec" in
		data=*) spec=${spec#data=}
			install -D -m 0644 "${spec%:*}" "$root${spec##*:}/$(basename "${spec%:*}")" ;;
		*) add_bin "$root" "$spec" ;;
		esac
	done
}

# write_accounts ROOT [LINE]...: /etc/passwd and /etc/group with root and
# palm, a desktop user in the dialout group (which owns /dev/pilot); each
# LINE "passwd:..." or "group:..." adds an entry.
write_accounts() {
	local root=$1 l
	shift
	printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'palm:x:1000:1000:palm:/tmp:/bin/sh' \
		> "$root/etc/passwd"
	printf '%s\n' 'root:x:0:' 'dialout:x:20:palm' 'palm:x:1000:' > "$root/etc/group"
	for l in "$@"; do
		case "$l" in
		passwd:*) echo "${l#passwd:}" >> "$root/etc/passwd" ;;
		group:*) echo "${l#group:}" >> "$root/etc/group" ;;
		esac
	done
}

# pack_cpio DIR: DIR as a gzipped newc archive on stdout (what the kernel
# unpacks as an initramfs; archives may be concatenated).
pack_cpio() {
	(cd "$1" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1
}

# host_tsc_khz: this host's TSC rate in kHz (qemu-usb/tsc-khz.c), or
# nothing on a host without one.  The helper is compiled once into
# $cache/tsc-khz, keyed by the hash of its source.
host_tsc_khz() {
	local src sum bin
	src=$(dirname "${BASH_SOURCE[0]}")/tsc-khz.c
	sum=$(sha256sum "$src" | cut -c1-16)
	bin=$cache/tsc-khz/tsc-khz-$sum
	if [ ! -x "$bin" ]; then
		mkdir -p "$cache/tsc-khz"
		cc -O2 -o "$bin.tmp.$$" "$src" >&2 && mv "$bin.tmp.$$" "$bin" || return 0
	fi
	"$bin" || true
}
