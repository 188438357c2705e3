#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build the service guest's initramfs: Debian's systemd as PID 1 (with
# udev and busybox for the shell tools), pilotd's Debian package unpacked
# as dpkg would (its maintainer scripts kept for the test to run), and
# the named test programs.  systemd boots into guest.target, whose one
# job runs run-guest.sh's command (/job/run) and reports GUEST-EXIT=N on
# the console, as the plain guest's /init does.  The packages are
# downloaded (not installed) into $PILOTD_CACHE.
#
# Usage: mkinitramfs-systemd.sh --out FILE --deb FILE [--bin FILE]...
#                               [--data-dir DIR] [--data FILE]...
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

out= deb= files=() data_dir=/usr/share
while [ $# -gt 0 ]; do
	case "$1" in
	--out | --deb) declare "${1#--}=$2" ;;
	--bin) files+=("$2:/usr/bin/$(basename "$2")") ;;
	--data-dir) data_dir=$2 ;;
	--data) files+=("data=$2:$data_dir") ;;
	*) die "unknown argument: $1" ;;
	esac
	shift 2
done
[ -n "$out" ] && [ -f "$deb" ] || die "usage: mkinitramfs-systemd.sh --out FILE --deb FILE [--bin FILE]... [--data-dir DIR] [--data FILE]..."

need_pkgs busybox-static cpio
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
# merged /usr, as Debian 12 installs it
mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{dev,proc,sys,run,tmp,root,var/tmp}
for d in bin sbin lib lib64; do ln -s usr/$d "$root/$d"; done
chmod 1777 "$root/tmp" "$root/var/tmp"

# unpack a tree over root, through its /usr symlinks
merge() { tar -C "$1" -cf - . | tar -C "$root" --keep-directory-symlink -xf -; }
merge "$(udev_unpacked)"
merge "$(systemd_unpacked)"
dpkg-deb -x "$deb" "$root"
mkdir -p "$root/usr/lib/pilotd-guest/deb"
dpkg-deb -e "$deb" "$root/usr/lib/pilotd-guest/deb"

# every program of the packages with its libraries (from this machine,
# which runs the same Debian release)
while IFS= read -r -d '' f; do
	if head -c 4 "$f" | grep 'ELF' >/dev/null; then add_libs "$root" "$f"; fi
done < <(find "$root/usr" -type f -perm -u+x -print0)

install -m 0755 /bin/busybox "$root/usr/bin/busybox"
for a in $(busybox --list); do
	[ -e "$root/usr/bin/$a" ] || [ -e "$root/usr/sbin/$a" ] || ln -s busybox "$root/usr/bin/$a"
done
ln -sf /lib/systemd/systemd "$root/init"

write_accounts "$root" # pilotd's user comes from the package (sysusers.d)
cat > "$root/etc/os-release" <<'OS'
NAME="pilotd service guest"
ID=debian
VERSION_ID=12
OS
: > "$root/etc/machine-id"

# boot into guest.target: the job, nothing else of multi-user
sd=$root/etc/systemd/system
mkdir -p "$sd"
cat > "$sd/guest.target" <<'EOF'
[Unit]
Description=the run-guest.sh job
Requires=guest-job.service
After=guest-job.service
EOF
cat > "$sd/guest-job.service" <<'EOF'
[Unit]
Description=run-guest.sh's command
Wants=systemd-udevd.service systemd-udev-trigger.service systemd-journald.service
After=systemd-udev-trigger.service systemd-journald.service

[Service]
Type=oneshot
ExecStart=/usr/lib/pilotd-guest/job
StandardOutput=tty
StandardError=tty
TTYPath=/dev/console
EOF
ln -s guest.target "$sd/default.target"
cat > "$root/usr/lib/pilotd-guest/job" <<'EOF'
#!/bin/sh
# The service guest's job: run-guest.sh's command, then its status, then off.
export PATH=/usr/local/bin:/usr/bin:/usr/sbin
stty -F /dev/ttyS1 raw -echo 115200 2>/dev/null # the simulated Palm's control channel
udevadm settle --timeout=20
sh /job/run
echo "GUEST-EXIT=$?"
sync
systemctl reboot --force --force
EOF
chmod 0755 "$root/usr/lib/pilotd-guest/job"

add_files "$root" "${files[@]}"
add_usbredirect "$root" # pilotd@.service with --usbredir

pack_cpio "$root" > "$out.tmp"
mv "$out.tmp" "$out"
