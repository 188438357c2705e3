#!/bin/sh
# SPDX-License-Identifier: MIT
# What bench/echo-trace runs inside the guest (booted without pilotd): for
# each pilotd named in BINS (/usr/sbin/pilotd-NAME) in turn, ROUNDS times
# interleaved, the 1-byte echo through palm-sim and a non-blocking read (a
# request answered at once), both traced, and 1 KiB and 64 KiB writes;
# then the same read of cuse-floor (a CUSE server that answers at once);
# then the echo and 1 KiB writes through the visor tty, and the echo
# through raw libusb (32 IN transfers queued, as pilotd does), in
# one process and with the driver in another (usb-bench echo-ipc).
# count-calls.so is preloaded into the server and the caller (TRACE_CALLS):
# every system call of both, timed on the guest's one clock.  The traces
# leave the guest as TRACE lines: TRACE RUN PROCESS T0 T1 WHAT RESULT.
set -u
ECHOES=${ECHOES:-1000}
ROUNDS=${ROUNDS:-2}
MIB=${MIB:-16} # moved by the 1 KiB writes whose CPU per MB is compared; 0: none
. /usr/lib/bench-lib.sh # wait_node, wait_gone, dump, traced, floor_trace
echo "RESULT op=clock $(clockcheck)"

for r in $(seq "$ROUNDS"); do
	for b in $BINS; do
		TRACE_CALLS=$((ECHOES * 40)) LD_PRELOAD=/usr/lib/count-calls.so \
			"/usr/sbin/pilotd-$b" 2> "/tmp/pilotd-$b.log" &
		pid=$!
		wait_node /dev/pilot
		stty -F /dev/pilot -clocal # until it has the handheld
		pilot-bench call /dev/pilot 0 1 > /dev/null
		pilot-bench latency /dev/pilot 1 100 > /dev/null # the IN transfers queued
		traced "$b.$r" $((ECHOES * 8)) pilot-bench latency /dev/pilot 1 "$ECHOES" |
			sed "s/^RESULT /RESULT run=$b.$r /"
		traced "$b.$r.req" $((ECHOES * 8)) pilot-bench nbread /dev/pilot 0 "$ECHOES" |
			sed "s/^RESULT /RESULT run=$b.$r.req /"
		[ "$MIB" = 0 ] ||
			pilot-bench write /dev/pilot 1024 "$MIB" | sed "s/^RESULT /RESULT run=$b.$r.write /"
		# and in 64 KiB calls, which a kernel that takes writes into a
		# 4 KiB ring drains in 4 KiB steps
		[ "$MIB" = 0 ] || pilot-bench write /dev/pilot 65536 "$MIB" |
			sed "s/^RESULT /RESULT run=$b.$r.write64k /"
		kill -TERM "$pid"
		wait "$pid"
		dump "$b.$r" pilotd "$pid"
		wait_gone /dev/pilot
		# its requests over the echoes, the reads and the writes above
		sed -n -e "s/^pilotd: reads: /RESULT pilotd-exit=$b.$r reads: /p" \
			-e "s/^pilotd: writes: /RESULT pilotd-exit=$b.$r writes: /p" "/tmp/pilotd-$b.log"
	done
done

# the floor of a request: a CUSE server that answers at once, traced too
floor_trace "$ECHOES"

# the floors' own round trips: the visor tty, raw libusb
palmctl unplug > /dev/null
palmctl plug > /dev/null
wait_node /dev/ttyUSB1
pilot-bench latency /dev/ttyUSB1 1 100 > /dev/null
[ "$MIB" = 0 ] || pilot-bench write /dev/ttyUSB1 1024 "$MIB" | sed "s/^RESULT /RESULT run=tty.write /"
traced tty $((ECHOES * 8)) pilot-bench latency /dev/ttyUSB1 1 "$ECHOES" |
	sed "s/^RESULT /RESULT run=tty /"
usb-bench echo 0830:0060 1 100 32 > /dev/null
traced libusb $((ECHOES * 8)) usb-bench echo 0830:0060 1 "$ECHOES" 32 | sed "s/^RESULT /RESULT run=libusb /"
usb-bench echo-ipc 0830:0060 1 "$ECHOES" 32 |
	sed "s/^RESULT op=latency dev=ipc-libusb /RESULT run=ipc op=latency /
	     s/^RESULT op=nbread dev=ipc-floor /RESULT run=ipc.floor op=nbread /"
