#!/bin/bash
# SPDX-License-Identifier: MIT
#
# check-deb.sh DEB [DKMS-DEB]: the Debian package is lintian clean, holds
# every file pilotd installs, creates the pilotd user when installed and
# neither starts nor enables the service; pilotd-cuse-dkms is lintian clean
# and holds the DKMS source of cuse.ko and nothing else, which its
# maintainer scripts hand to dkms.  Reads the files only.
set -euo pipefail
# (no grep -q at the end of a pipe: it exits at the first match, the
# writer gets SIGPIPE, and pipefail takes the match for a failure)
deb=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# lintian: clean, or a tag justified in debian/pilotd.lintian-overrides
if ! lintian --fail-on error,warning --info "$deb" > "$work/lintian.log" 2>&1; then
	cat "$work/lintian.log"
	echo "check-deb: lintian found problems"
	exit 1
fi
sed 's/^/lintian: /' "$work/lintian.log"

missing=0
for f in ./usr/sbin/pilotd ./usr/share/man/man8/pilotd.8.gz \
	./usr/lib/udev/rules.d/60-pilotd.rules ./usr/lib/systemd/system/pilotd.service \
	./usr/lib/systemd/system/pilotd@.service ./usr/lib/modules-load.d/pilotd.conf \
	./usr/lib/sysusers.d/pilotd.conf ./usr/bin/pilotd-sync \
	./usr/share/man/man1/pilotd-sync.1.gz ./usr/lib/systemd/system/pilotd-sync@.service; do
	dpkg-deb -c "$deb" | awk '{print $6}' | grep -x "$f" >/dev/null || { echo "check-deb: $f is not in the package"; missing=1; }
done
[ $missing = 0 ] || exit 1
# installing creates the pilotd user, and neither starts nor enables pilotd
postinst=$(dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./postinst 2>/dev/null || true)
if grep -E 'deb-systemd-invoke (start|restart)|deb-systemd-helper enable' <<< "$postinst"; then
	echo "check-deb: postinst starts or enables the service"
	exit 1
fi
grep -q 'systemd-sysusers .*pilotd.conf' <<< "$postinst" ||
	{ echo "check-deb: postinst does not create the pilotd user"; exit 1; }
grep -q 'udevadm control --reload-rules' <<< "$postinst" ||
	{ echo "check-deb: postinst does not make udev reread its rules"; exit 1; }
echo "check-deb: $(dpkg-deb -f "$deb" Package)_$(dpkg-deb -f "$deb" Version)_$(dpkg-deb -f "$deb" Architecture).deb, $(stat -c %s "$deb") bytes, all checks passed"

dkms=${2:-}
[ -n "$dkms" ] || exit 0
if ! lintian --fail-on error,warning --info "$dkms" > "$work/lintian-dkms.log" 2>&1; then
	cat "$work/lintian-dkms.log"
	echo "check-deb: lintian found problems in $dkms"
	exit 1
fi
sed 's/^/lintian: /' "$work/lintian-dkms.log"
v=$(dpkg-deb -f "$dkms" Version)
files=$(dpkg-deb -c "$dkms" | awk '$1 !~ /^d/ {print $6}' | grep -v '^./usr/share/doc/' | sort)
want=$(printf './usr/src/pilotd-cuse-%s/%s\n' "$v" cuse-stream.patch "$v" dkms.conf "$v" prepare.sh)
[ "$files" = "$want" ] || { echo "check-deb: pilotd-cuse-dkms holds:"; echo "$files"; exit 1; }
dpkg-deb --fsys-tarfile "$dkms" | tar -xOf - "./usr/src/pilotd-cuse-$v/dkms.conf" |
	grep -x "PACKAGE_VERSION=\"$v\"" >/dev/null || { echo "check-deb: dkms.conf has no version $v"; exit 1; }
for s in postinst prerm; do
	dpkg-deb --ctrl-tarfile "$dkms" | tar -xOf - "./$s" | grep 'dkms' >/dev/null ||
		{ echo "check-deb: the $s of pilotd-cuse-dkms does not call dkms"; exit 1; }
done
echo "check-deb: pilotd-cuse-dkms_${v}_all.deb: the DKMS source of cuse.ko alone, all checks passed"
