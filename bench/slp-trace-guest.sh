#!/bin/sh
# SPDX-License-Identifier: MIT
# What bench/slp-trace runs inside the guest (booted as run-bench's SLP
# HotSync boot, without pilotd): the sync started at boot is a list through
# an untraced pilotd; then INSTALLS installs of the 2 MiB database on each
# path, alternating as the bench does: through /dev/pilot with
# count-calls.so preloaded into a fresh pilotd and into palm-sync
# (TRACE_CALLS), and over palm-sync's own libusb path (pilotd stopped) with
# palm-sync's calls traced, and the CPU time of pilotd and palm-sync
# during each (task-clock); then one untraced install on each path; then
# the floor of a request (cuse-floor's
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
# One install on PATH as run RUN, pilotd started afresh; palm-sync under
# task-clock (its CPU time and pilotd's); with TRACE, both traced
one_install() { # PATH RUN [TRACE]
	while palmctl hotsync | grep -q 'syncing=1 '; do sleep 0.1; done
	pilotd_stop
	# shellcheck disable=SC2034 # the lib's pilotd_start and timed_sync use them
	PILOTD_WRAP=${3:+env LD_PRELOAD=/usr/lib/count-calls.so TRACE_CALLS=200000}
	tpid=
	if [ "$1" = pilotd ]; then
		pilotd_start
		tpid=$(pidof pilotd)
	fi
	SYNC_WRAP="task-clock ${tpid:-$$}"
	[ -z "${3:-}" ] || SYNC_WRAP="$SYNC_WRAP env LD_PRELOAD=/usr/lib/count-calls.so TRACE_CALLS=100000"
	palmctl sync > /dev/null
	timed_sync slp "$1" install "$2"
	pilotd_stop
	[ -z "${3:-}" ] || keep "$1.$2" "$tpid"
}

runs=
for run in $(seq "$INSTALLS"); do
	for path in pilotd libusb; do
		one_install $path "$run" trace
		runs="$runs $path.$run"
	done
done
# the same untraced: what the tracing costs
one_install pilotd plain
one_install libusb plain
echo "RESULT op=guest-load $(cat /proc/loadavg)"
floor_trace "$FLOOR"
for run in $runs; do
	dump "$run" caller "caller-$run"
	[ -e "/tmp/trace-calls.pilotd-$run" ] && dump "$run" pilotd "pilotd-$run"
done
