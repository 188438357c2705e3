#!/bin/sh
# SPDX-License-Identifier: MIT
# What bench/run-bench runs inside the guest: pilotd first (started by the
# guest's /init), then cuse-floor (a CUSE server that answers at once),
# then the visor driver's tty, then raw libusb, on the same simulated Palm
# in one boot.  Argument "hotsync" runs only the HotSync timings (the host
# boots once per stack for those; the installs alternate between pilotd's
# /dev/pilot and palm-sync's own libusb path, BENCH_INSTALLS times each,
# default 3; with BENCH_NOPUSH=1 one more path, "nopush", is pilotd
# --no-stream-data, with BENCH_NOWRITE=1 "nowrite" pilotd --no-stream-write,
# "pilotd" without either: on a kernel that keeps input and takes writes,
# pilotd with and without each), "usbredir" pilotd through usbredirect
# and then on the local bus (a boot of its own).  Every boot first records
# its clock (clockcheck): without microsecond steps the report leaves out
# the per-call figures.
set -u
MIB=${BENCH_MIB:-8}
ROUNDS=${BENCH_ROUNDS:-500}
CALLS=$((ROUNDS * 4)) # calls answered at once: short, so more of them

. /usr/lib/bench-lib.sh # next_sync, pilotd_start/stop, timed_sync, floor_start/stop
echo "RESULT op=clock boot=${1:-main} $(clockcheck)"

INSTALLS=${BENCH_INSTALLS:-3}

# list and backup through /dev/pilot, then INSTALLS installs of the 2 MiB
# database on each path, alternating: /dev/pilot, libusb, /dev/pilot, ...
hotsync() { # STACK
	timed_sync "$1" pilotd list # the first sync is the one started at boot
	next_sync
	timed_sync "$1" pilotd backup
	args=$(cat /job/pilotd-args 2> /dev/null) # run-bench's --pilotd-args, as /init's
	paths="pilotd"
	[ "${BENCH_NOPUSH:-}" = 1 ] && paths="$paths nopush"
	[ "${BENCH_NOWRITE:-}" = 1 ] && paths="$paths nowrite"
	paths="$paths libusb"
	for run in $(seq "$INSTALLS"); do
		for path in $paths; do
			while palmctl hotsync | grep -q 'syncing=1 '; do sleep 0.1; done
			# a pilotd of its own for each install: its exit lines
			# are that install's
			pilotd_stop
			echo "path=$path run=$run" >> /tmp/pilotd-bench.log
			case $path in
			libusb) ;;
			nopush) PILOTD_ARGS="$args --no-stream-data" pilotd_start ;;
			nowrite) PILOTD_ARGS="$args --no-stream-write" pilotd_start ;;
			*) PILOTD_ARGS=$args pilotd_start ;;
			esac
			palmctl sync > /dev/null
			timed_sync "$1" $path install "$run"
		done
	done
	pilotd_stop # the last install's
	# what each install's pilotd said at exit: its read and write
	# requests, the bytes it pushed
	awk '/^path=/ { p = $0 }
	     /^pilotd: (reads|writes): / { sub(/^pilotd: /, ""); print "NOTE pilotd-exit " p, $0 }' \
		/tmp/pilotd-bench.log
	# the floor of a request in this boot: an install's reads and writes
	# through any CUSE driver cost at least this each
	floor_start
	pilot-bench nbread /dev/cuse-floor 0 2000 | sed "s|dev=/dev/cuse-floor|dev=floor-$1|"
	floor_stop
}

# Until pilotd has a handheld: with CLOCAL clear an open waits for one.
wait_for_handheld() {
	stty -F /dev/pilot -clocal
	pilot-bench call /dev/pilot 0 1 > /dev/null # its open_raw sets CLOCAL again
}

# pilotd's throughput and round trips, as LABEL in the dev= field
transport() { # LABEL
	wait_for_handheld
	{
		for size in 1024 65536; do
			pilot-bench write /dev/pilot $size "$MIB"
			pilot-bench read /dev/pilot $size "$MIB"
		done
		for n in 1 64 1024; do
			pilot-bench latency /dev/pilot $n "$ROUNDS"
		done
	} | sed "s|dev=/dev/pilot|dev=$1|"
}

# pilotd stopped, the handheld plugged again: the kernel's visor driver
# takes it (/dev/ttyUSB1)
visor_takes_handheld() {
	pilotd_stop
	palmctl unplug > /dev/null
	palmctl plug > /dev/null
	wait_node /dev/ttyUSB1
}

if [ "${1:-}" = hotsync ]; then
	hotsync "$2"
	exit 0
fi

# The two transports in one boot: the handheld through Debian's usbredirect
# on loopback (pilotd --usbredir, started by /init), then pilotd on the
# local bus once the cradle's usbredirect is gone.
if [ "${1:-}" = usbredir ]; then
	transport usbredir
	pilotd_stop
	kill "$(cat /run/cradle.pid)"
	kill $(pidof usbredirect) 2> /dev/null
	pilotd 2> /tmp/pilotd-local.log &
	while [ ! -e /dev/pilot ]; do sleep 0.1; done
	transport libusb
	kill -TERM $!
	wait
	exit 0
fi

# Under -icount (a boot of its own) the guest's busy time is its
# instructions: 1 KiB writes through pilotd, cuse-floor and the visor tty,
# twice each, give CPU per MB that the host's load and TCG's cost of a
# switch between processes leave alone.
# With BENCH_NOWRITE=1 pilotd --no-stream-write's too, in the same rounds.
if [ "${1:-}" = icount ]; then
	args=$(cat /job/pilotd-args 2> /dev/null)
	wait_for_handheld
	for round in 1 2; do
		pilot-bench write /dev/pilot 1024 "$MIB" | sed "s|dev=/dev/pilot|dev=icount-pilotd|"
		floor_start
		pilot-bench write-floor /dev/cuse-floor 1024 "$MIB" |
			sed "s|dev=/dev/cuse-floor|dev=icount-floor|"
		floor_stop
		[ "${BENCH_NOWRITE:-}" = 1 ] || continue
		pilotd_stop
		PILOTD_ARGS="$args --no-stream-write" pilotd_start
		wait_for_handheld
		pilot-bench write /dev/pilot 1024 "$MIB" | sed "s|dev=/dev/pilot|dev=icount-nowrite|"
		pilotd_stop
		PILOTD_ARGS=$args pilotd_start
		wait_for_handheld
	done
	visor_takes_handheld
	for round in 1 2; do
		pilot-bench write /dev/ttyUSB1 1024 "$MIB" | sed "s|dev=/dev/ttyUSB1|dev=icount-tty|"
	done
	exit 0
fi

# ---- pilotd ----
for size in 1024 65536; do
	pilot-bench write /dev/pilot $size "$MIB"
	pilot-bench read /dev/pilot $size "$MIB"
done
pilot-bench write-cooked /dev/pilot 1024 "$MIB"
pilot-bench read-cooked /dev/pilot 1024 "$MIB"
pilot-bench parked-write /dev/pilot 65536 "$MIB"
for n in 1 64 1024; do
	pilot-bench latency /dev/pilot $n "$ROUNDS"
done
pilot-bench call /dev/pilot 0 "$CALLS"
pilot-bench nbread /dev/pilot 0 "$CALLS"
pid=$(pidof pilotd)
pilot-bench park /dev/pilot 7 &
sleep 1
c0=$(awk '/ctxt_switches/ {s += $2} END {print s}' /proc/$pid/status)
sleep 5
c1=$(awk '/ctxt_switches/ {s += $2} END {print s}' /proc/$pid/status)
rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
echo "RESULT op=idle dev=/dev/pilot wakeups_per_s=$(((c1 - c0) / 5)) rss_kb=$rss"
wait

# ---- the floor: a CUSE server that answers at once, with pilotd's epoll
# loop and with libfuse's own (pilotd idles meanwhile) ----
for loop in epoll libfuse; do
	if [ $loop = libfuse ]; then floor_start --libfuse-loop; else floor_start; fi
	{
		pilot-bench call /dev/cuse-floor 0 "$CALLS"
		pilot-bench nbread /dev/cuse-floor 0 "$CALLS"
		# 1 KiB writes that cost only their requests (no USB)
		if [ $loop = epoll ]; then pilot-bench write-floor /dev/cuse-floor 1024 "$MIB"; fi
	} | sed "s|dev=/dev/cuse-floor|dev=floor-$loop|"
	floor_stop
done

# ---- the visor driver ----
visor_takes_handheld
if [ -e /dev/ttyUSB1 ]; then
	pilot-bench write /dev/ttyUSB1 1024 "$MIB"
	pilot-bench read /dev/ttyUSB1 1024 "$MIB"
	pilot-bench write-cooked /dev/ttyUSB1 1024 "$MIB"
	pilot-bench read-cooked /dev/ttyUSB1 1024 "$MIB"
	for n in 1 64 1024; do
		pilot-bench latency /dev/ttyUSB1 $n "$ROUNDS"
	done
	pilot-bench call /dev/ttyUSB1 0 "$CALLS"
	pilot-bench nbread /dev/ttyUSB1 0 "$CALLS"
else
	echo "bench: the visor driver did not bind (no /dev/ttyUSB1)"
fi

# ---- raw libusb (it detaches visor itself) ----
for op in write read; do
	usb-bench $op 0830:0060 16384 4 "$MIB"
	usb-bench $op 0830:0060 64 4 "$MIB"
done
for n in 1 64; do
	usb-bench echo 0830:0060 $n "$ROUNDS"
done
