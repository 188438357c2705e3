#!/bin/sh
# SPDX-License-Identifier: MIT
# What ./demo shows inside the guest.
set -e
echo
echo "== /dev/pilot, created by pilotd through CUSE"
ls -l /dev/pilot
echo
echo "== the simulated Palm echoes: write 'Hello, Palm' to /dev/pilot and read it back"
palmctl mode echo >/dev/null
exec 3<>/dev/pilot
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
