#!/bin/sh
# SPDX-License-Identifier: MIT
# What bench/echo-trace runs inside the guest (booted without pilotd): for
# each pilotd named in BINS (/usr/sbin/pilotd-NAME) in turn, ROUNDS times
# interleaved, the 1-byte echo through palm-sim and a non-blocking read (a
# request answered at once), both traced, and 1 KiB writes; then the same
# read of cuse-floor (a CUSE server that answers at once); then the echo
# and 1 KiB writes through the visor tty, and the
# echo through raw libusb (32 IN transfers queued, as pilotd does), in
# one process and with the driver in another (usb-bench echo-ipc).
# count-calls.so is preloaded into the server and the caller (TRACE_CALLS):
# every system call of both, timed on the guest's one clock.  The traces
# leave the guest as TRACE lines: TRACE RUN PROCESS T0 T1 WHAT RESULT.
set -u
ECHOES=${ECHOES:-1000}
ROUNDS=${ROUNDS:-2}
MIB=${MIB:-16} # moved by the 1 KiB writes whose CPU per MB is compared; 0: none
echo "RESULT op=clock $(clockcheck)"

dump() { # LABEL PROCESS PID
	od -A n -t d8 -v -w32 "/tmp/trace-calls.$3" | awk -v l="$1" -v p="$2" \
		'$1 != 0 { print "TRACE", l, p, $1, $2, $3, $4 }'
	rm -f "/tmp/trace-calls.$3"
}
traced() { # LABEL DEV COMMAND...: the caller traced, then its trace dumped
	label=$1 dev=$2
	shift 2
	TRACE_CALLS=$((ECHOES * 8)) LD_PRELOAD=/usr/lib/count-calls.so "$@" &
	cpid=$!
	wait $cpid
	dump "$label" caller $cpid
}
for r in $(seq "$ROUNDS"); do
	for b in $BINS; do
		TRACE_CALLS=$((ECHOES * 40)) LD_PRELOAD=/usr/lib/count-calls.so \
			"/usr/sbin/pilotd-$b" 2> "/tmp/pilotd-$b.log" &
		pid=$!
		i=0
		while [ ! -e /dev/pilot ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		stty -F /dev/pilot -clocal # until it has the handheld
		pilot-bench call /dev/pilot 0 1 > /dev/null
		pilot-bench latency /dev/pilot 1 100 > /dev/null # the IN transfers queued
		traced "$b.$r" /dev/pilot pilot-bench latency /dev/pilot 1 "$ECHOES" |
			sed "s/^RESULT /RESULT run=$b.$r /"
		traced "$b.$r.req" /dev/pilot pilot-bench nbread /dev/pilot 0 "$ECHOES" |
			sed "s/^RESULT /RESULT run=$b.$r.req /"
		[ "$MIB" = 0 ] ||
			pilot-bench write /dev/pilot 1024 "$MIB" | sed "s/^RESULT /RESULT run=$b.$r.write /"
		kill -TERM "$pid"
		wait "$pid"
		dump "$b.$r" pilotd "$pid"
		i=0
		while [ -e /dev/pilot ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	done
done

# the floor of a request: a CUSE server that answers at once, traced too
TRACE_CALLS=$((ECHOES * 8)) LD_PRELOAD=/usr/lib/count-calls.so cuse-floor &
fpid=$!
i=0
while [ ! -e /dev/cuse-floor ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
pilot-bench nbread /dev/cuse-floor 0 100 > /dev/null
traced floor /dev/cuse-floor pilot-bench nbread /dev/cuse-floor 0 "$ECHOES" |
	sed "s/^RESULT /RESULT run=floor /"
kill -TERM $fpid
wait $fpid
dump floor cuse-floor $fpid

# the floors' own round trips: the visor tty, raw libusb
palmctl unplug > /dev/null
palmctl plug > /dev/null
i=0
while [ ! -e /dev/ttyUSB1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
pilot-bench latency /dev/ttyUSB1 1 100 > /dev/null
[ "$MIB" = 0 ] || pilot-bench write /dev/ttyUSB1 1024 "$MIB" | sed "s/^RESULT /RESULT run=tty.write /"
traced tty /dev/ttyUSB1 pilot-bench latency /dev/ttyUSB1 1 "$ECHOES" |
	sed "s/^RESULT /RESULT run=tty /"
usb-bench echo 0830:0060 1 100 32 > /dev/null
traced libusb - usb-bench echo 0830:0060 1 "$ECHOES" 32 | sed "s/^RESULT /RESULT run=libusb /"
usb-bench echo-ipc 0830:0060 1 "$ECHOES" 32 |
	sed "s/^RESULT op=latency dev=ipc-libusb /RESULT run=ipc op=latency /
	     s/^RESULT op=nbread dev=ipc-floor /RESULT run=ipc.floor op=nbread /"
