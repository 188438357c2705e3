#!/bin/bash
# SPDX-License-Identifier: MIT
#
# dkms-autoinstall.sh DKMS-DEB VERSION: what pilotd-cuse-dkms does when a
# Debian kernel is installed, through DKMS's own autoinstall, in a root of
# the kernel's Debian release (VERSION 6.1: Debian 12, dkms 3.0.10; 6.12:
# Debian 13, dkms 3.2) with the kernel's headers and linux-source of the
# same version installed (build-modules.sh --dkms-root).  Each case runs
# in an overlay of that root (in a mount namespace of its own: the root
# stays as it is), unpacks the package's DKMS source, adds it to DKMS as
# its postinst does, and runs the kernel's postinst hooks as
# linux-image's postinst runs them (Debian 12: run-parts --exit-on-error
# /etc/kernel/postinst.d; Debian 13: linux-run-hooks image postinst),
# then "dkms autoinstall -k KERNEL" again.  Both must succeed (a failure
# here fails the kernel's installation), and:
#   matching      linux-source is the kernel's version: cuse.ko is built
#                 and installed in /lib/modules/KERNEL/updates/dkms
#   older-abi     an older kernel is installed beside it, whose package
#                 version is not linux-source's: skipped, with a message
#                 naming both versions.  Debian's archive keeps only the
#                 current kernel, so the older one is the current headers
#                 package repacked (dpkg-deb -R) under the previous ABI's
#                 name and version (6.1.0-50-amd64 6.1.176-1 becomes
#                 6.1.0-49-amd64 6.1.175-1; 6.12.117+deb13-amd64 6.12.117-1
#                 becomes 6.12.116+deb13-amd64 6.12.116-1) and installed
#                 with dpkg (--force-depends: Debian 13's headers depend
#                 on their image, which is not there): what dpkg's
#                 database says of an older kernel
#   no-source     linux-source removed (dpkg -r): skipped, with a message
#   no-patch      cuse-stream.patch does not apply to the source: skipped,
#                 with a message.  The source is Debian's; the package's
#                 patch is changed instead (the context line above its
#                 second hunk's added lines), which is the mismatch of a
#                 stable update that changes that line of cuse.c
# Builds a module once (matching); nothing is installed or loaded on this
# machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../qemu-usb/lib.sh"
deb=$(realpath "${1:?usage: dkms-autoinstall.sh DKMS-DEB VERSION}")
ver=${2:?usage: dkms-autoinstall.sh DKMS-DEB VERSION}
read -r root release debver < <("$here/../../kernel-patches/build-modules.sh" --dkms-root "$ver")
[ -f "$root/.done" ] || die "no DKMS root for $ver"
pkgver=$(dpkg-deb -f "$deb" Version)
work=$(mktemp -d "$cache/chroot/dkms-autoinstall.XXXXXX")
[ -n "${PILOTD_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
dpkg-deb -x "$deb" "$work/pkg"
# the package with the context line just above its patch's second hunk's
# added lines changed
cp -a "$work/pkg" "$work/pkg-no-patch"
awk '/^@@/ { h++ } h == 2 && /^ / { c = NR } h == 2 && /^\+/ && !done { done = c }
	{ l[NR] = $0 }
	END { for (i = 1; i <= NR; i++) print (i == done ? " pilotd-cuse test: not in cuse.c" : l[i]) }' \
	"$work/pkg/usr/src/pilotd-cuse-$pkgver/cuse-stream.patch" \
	> "$work/pkg-no-patch/usr/src/pilotd-cuse-$pkgver/cuse-stream.patch"
! cmp -s "$work"/pkg{,-no-patch}/usr/src/pilotd-cuse-"$pkgver"/cuse-stream.patch ||
	die "could not change cuse-stream.patch"

# The older kernel: previous ABI name and version (the number before the
# flavour, and the upstream patch level).
n=$(sed -E 's/.*[.-]([0-9]+)(\+deb[0-9]+)?-amd64$/\1/' <<< "$release")
older_release=$(sed -E "s/([.-])$n((\+deb[0-9]+)?-amd64)\$/\1$((n - 1))\2/" <<< "$release")
p=$(cut -d. -f3 <<< "$debver" | cut -d- -f1)
older_version=$(sed -E "s/^([0-9]+\.[0-9]+)\.$p-/\1.$((p - 1))-/" <<< "$debver")
[ "$older_release" != "$release" ] && [ "$older_version" != "$debver" ] ||
	die "cannot name an older kernel than $release $debver"
older_deb=$work/linux-headers-${older_release}_${older_version}_amd64.deb
(
	d=$work/older
	mkdir -p "$d"
	dpkg-deb -R "$(ls "$cache"/debian/*/linux-headers-"$release"_"$debver"_amd64.deb | head -1)" "$d"
	mods=lib/modules
	[ -d "$d/$mods" ] || mods=usr/lib/modules
	mv "$d/$mods/$release" "$d/$mods/$older_release"
	ln -sfn "/usr/src/linux-headers-$older_release" "$d/$mods/$older_release/build"
	mv "$d/usr/src/linux-headers-$release" "$d/usr/src/linux-headers-$older_release"
	mv "$d/usr/share/doc/linux-headers-$release" "$d/usr/share/doc/linux-headers-$older_release"
	[ ! -f "$d/usr/share/lintian/overrides/linux-headers-$release" ] ||
		mv "$d/usr/share/lintian/overrides/linux-headers-$release" \
			"$d/usr/share/lintian/overrides/linux-headers-$older_release"
	# its name in the control file and the maintainer scripts (the
	# postinst runs the headers' hooks: dkms autoinstall on Debian 13)
	sed -i "s/$release/$older_release/g" "$d"/DEBIAN/*
	sed -i "s/^Version: .*/Version: $older_version/" "$d/DEBIAN/control"
	rm -f "$d/DEBIAN/md5sums"
	dpkg-deb -b -Zxz -z0 "$d" "$older_deb" > /dev/null
	rm -rf "$d"
)

# in_case NAME SCRIPT [PKG]: SCRIPT (bash) chrooted into an overlay of the
# root with the package's source (that of PKG, the unpacked package, if
# given) added to DKMS, then the kernel $KERNEL's hooks; the output, with
# the exit statuses, in $work/NAME.log
in_case() {
	local name=$1 script=$2 pkg=${3:-$work/pkg} m=$work/$1
	mkdir -p "$m/up" "$m/wk" "$m/root"
	cp "$older_deb" "$m/up/" 2>/dev/null || true
	unshare --mount --propagation private bash -c '
		set -e
		m=$1
		mount -t overlay overlay -o "lowerdir=$2,upperdir=$m/up,workdir=$m/wk" "$m/root"
		mount -t proc proc "$m/root/proc"
		cp -a "$3/usr/src/." "$m/root/usr/src/"
		exec chroot "$m/root" /bin/bash -c "$4"' \
		sh "$m" "$root" "$pkg" "
		export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
		set -u
		dkms add -m pilotd-cuse -v $pkgver > /dev/null
		$script
		# the kernel's postinst hooks, as linux-image's postinst runs them
		# (without an initramfs: INITRD=No, initramfs-tools' own switch;
		# dkms's hook runs first, and an initramfs takes minutes here)
		export INITRD=No
		if command -v linux-run-hooks > /dev/null; then
			linux-run-hooks image postinst $KERNEL /boot/vmlinuz-$KERNEL -- configure
		else
			run-parts --report --exit-on-error --arg=$KERNEL \\
				--arg=/boot/vmlinuz-$KERNEL /etc/kernel/postinst.d
		fi
		echo \"postinst hooks: exit status \$?\"
		dkms autoinstall -k $KERNEL
		echo \"dkms autoinstall: exit status \$?\"
		ls /lib/modules/$KERNEL/updates/dkms/ 2>/dev/null | sed 's/^/installed: /'
		true" > "$m.log" 2>&1 || true
	sed "s/^/$name: /" "$m.log"
}

fails=0
# expect NAME TEXT [built]: both runs exited with status 0, the log has
# TEXT, and cuse.ko was installed exactly when "built"
expect() {
	local name=$1 pattern=$2 built=${3:-} log=$work/$1.log ok=1
	[ "$(grep -c 'exit status 0$' "$log")" = 2 ] || {
		echo "dkms-autoinstall: $name: the kernel's postinst hooks or dkms autoinstall failed"
		ok=
	}
	grep -F -- "$pattern" "$log" > /dev/null || {
		echo "dkms-autoinstall: $name: no message like: $pattern"
		ok=
	}
	if [ -n "$built" ]; then
		grep -x 'installed: cuse.ko.*' "$log" > /dev/null ||
			{ echo "dkms-autoinstall: $name: cuse.ko was not installed"; ok=; }
	else
		! grep '^installed: ' "$log" > /dev/null ||
			{ echo "dkms-autoinstall: $name: a cuse.ko was installed"; ok=; }
	fi
	if [ -n "$ok" ]; then
		echo "dkms-autoinstall: $name: as expected"
	else
		fails=$((fails + 1))
	fi
}

log "$release ($debver), linux-source-$ver $debver; older kernel $older_release ($older_version)"
KERNEL=$release in_case matching ""
KERNEL=$older_release in_case older-abi \
	"dpkg -i --force-depends /$(basename "$older_deb") > /dev/null 2>&1 ||
		echo 'dpkg -i of the older headers failed'"
KERNEL=$release in_case no-source "dpkg -r linux-source-$ver > /dev/null"
KERNEL=$release in_case no-patch "" "$work/pkg-no-patch"
expect matching "installed: cuse.ko" built
expect older-abi "pilotd-cuse: cuse.ko is not built for $older_release: linux-source-$ver is $debver but the kernel is $older_version"
expect no-source "pilotd-cuse: cuse.ko is not built for $release: /usr/src/linux-source-$ver.tar.xz (package linux-source-$ver $debver) is missing"
expect no-patch "pilotd-cuse: cuse.ko is not built for $release: cuse-stream.patch does not apply"
[ "$fails" = 0 ] || die "$fails of 4 cases failed"
echo "dkms-autoinstall: $release: 4 of 4 cases as expected"
