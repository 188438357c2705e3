#!/bin/sh
# SPDX-License-Identifier: MIT
# What bench/slp-trace runs inside the guest (booted as run-bench's SLP
# HotSync boot, without pilotd): the sync started at boot is a list through
# an untraced pilotd; then INSTALLS installs of the 2 MiB database on each
# path, alternating as the bench does: through /dev/pilot with
# count-calls.so preloaded into a fresh pilotd and into palm-sync
# (TRACE_CALLS), and over palm-sync's own libusb path (pilotd stopped) with
# palm-sync's calls traced, and the CPU time of pilotd and palm-sync
# during each (task-clock); then the floor of a request (cuse-floor's
# non-blocking read), traced.  The traces leave the guest at the end, as
# TRACE lines: TRACE RUN PROCESS T0 T1 WHAT RESULT, with RUN pilotd.N or
# libusb.N and PROCESS caller (palm-sync) or pilotd.
set -u
INSTALLS=${INSTALLS:-2}
FLOOR=${FLOOR:-2000}
. /usr/lib/bench-lib.sh # next_sync, pilotd_start/stop, timed_sync, dump, floor_trace
echo "RESULT op=clock $(clockcheck)"

# the traces of this sync, kept by name until the end: palm-sync's is the
# one file that is not pilotd's
keep() { # RUN PILOTD-PID
	for f in /tmp/trace-calls.[0-9]*; do
		[ -e "$f" ] || continue
		if [ "${f##*.}" = "$2" ]; then
			mv "$f" "/tmp/trace-calls.pilotd-$1"
		else
			mv "$f" "/tmp/trace-calls.caller-$1"
		fi
	done
}

pilotd_start
timed_sync slp pilotd list # the sync started at boot
pilotd_stop
# how the lib's pilotd_start and timed_sync run them from here on: traced,
# and palm-sync under task-clock, which gives its CPU time and pilotd's
# shellcheck disable=SC2034
PILOTD_WRAP="env LD_PRELOAD=/usr/lib/count-calls.so TRACE_CALLS=200000"
runs=
for run in $(seq "$INSTALLS"); do
	for path in pilotd libusb; do
		while palmctl hotsync | grep -q 'syncing=1 '; do sleep 0.1; done
		pilotd_stop
		tpid=
		if [ $path = pilotd ]; then
			pilotd_start
			tpid=$(pidof pilotd)
		fi
		# shellcheck disable=SC2034
		SYNC_WRAP="task-clock ${tpid:-$$} env LD_PRELOAD=/usr/lib/count-calls.so"
		SYNC_WRAP="$SYNC_WRAP TRACE_CALLS=100000"
		palmctl sync > /dev/null
		timed_sync slp $path install "$run"
		pilotd_stop
		keep "$path.$run" "$tpid"
		runs="$runs $path.$run"
	done
done
echo "RESULT op=guest-load $(cat /proc/loadavg)"
floor_trace "$FLOOR"
for run in $runs; do
	dump "$run" caller "caller-$run"
	[ -e "/tmp/trace-calls.pilotd-$run" ] && dump "$run" pilotd "pilotd-$run"
done
