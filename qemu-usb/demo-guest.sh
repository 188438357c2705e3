#!/bin/sh
# SPDX-License-Identifier: MIT
# What ./demo shows inside the guest.
set -e
echo
echo "== Debian's kernel $(uname -r), as a desktop runs it"
echo "udev loaded, when the handheld came onto the bus, and modules-load.d (cuse):"
lsmod | awk 'NR > 1 { print "  " $1 }' | sort | tr -d '\n'; echo
echo "visor took the handheld first, then pilotd took it from visor:"
dmesg | grep -E 'visor|ttyUSB' | sed 's/^\[[^]]*\] /  /'
echo "the handheld saw $(palmctl stats | tr ' ' '\n' | sed -n 's/^conninfo_requests=//p') connection-information requests (visor's, pilotd's)"
modinfo -n cuse | sed 's/^/cuse: /'
echo
echo "== /dev/pilot, created by pilotd through CUSE"
ls -l /dev/pilot
echo
echo "== the simulated Palm echoes: write 'Hello, Palm' to /dev/pilot and read it back"
palmctl mode echo >/dev/null
# Bytes written while no handheld is attached are lost, as on a serial
# line: with CLOCAL clear, the open waits for the handheld (carrier).
stty -F /dev/pilot -clocal
exec 3<>/dev/pilot
stty -F /dev/pilot clocal
printf 'Hello, Palm\n' >&3
dd bs=12 count=1 <&3 2>/dev/null
exec 3>&-
echo
echo "== a write completing while another thread's read is still waiting"
headline
echo
echo "== 1 MiB each way, byte for byte"
roundtrip
echo
echo "== the simulated Palm's counters"
palmctl stats
echo
echo "== HotSync: the simulated Palm now plays a Tungsten T pressing its HotSync button"
# A handheld leaves the bus when its sync is over; the next needs a button press.
next_sync() {
	while palmctl hotsync | grep -q 'syncing=1 '; do sleep 0.1; done
	palmctl sync >/dev/null
}
palmctl mode hotsync >/dev/null
palmctl sync >/dev/null
echo "\$ palm-sync list"
palm-sync list
next_sync
echo
echo "\$ palm-sync backup /tmp/backup"
mkdir -p /tmp/backup
palm-sync backup /tmp/backup
next_sync
echo
echo "\$ palm-sync install NotesToGo.pdb ToolBox.prc"
palm-sync install /usr/share/palm-db/NotesToGo.pdb /usr/share/palm-db/ToolBox.prc
echo
echo "== the handheld's view"
palmctl hotsync
palmctl synclog
