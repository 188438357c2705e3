# SPDX-License-Identifier: MIT
# Shell functions of the bench's guest scripts (bench-guest.sh,
# echo-trace-guest.sh, slp-trace-guest.sh), sourced from
# /usr/lib/bench-lib.sh in the guest.

wait_node() { # PATH: until it exists, 10 s at most
	i=0
	while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
wait_gone() { # PATH: until it is gone, 10 s at most
	i=0
	while [ -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

# count-calls.so's trace of process PID as TRACE lines: TRACE LABEL
# PROCESS T0 T1 WHAT RESULT (bench/echo_trace.py reads them)
dump() { # LABEL PROCESS PID
	od -A n -t d8 -v -w32 "/tmp/trace-calls.$3" | awk -v l="$1" -v p="$2" \
		'$1 != 0 { print "TRACE", l, p, $1, $2, $3, $4 }'
	rm -f "/tmp/trace-calls.$3"
}
traced() { # LABEL N COMMAND...: the caller's first N calls traced, then dumped
	label=$1 n=$2
	shift 2
	TRACE_CALLS=$n LD_PRELOAD=/usr/lib/count-calls.so "$@" &
	cpid=$!
	wait $cpid
	dump "$label" caller $cpid
}

# The handheld leaves the bus after a sync; the next one starts here.
next_sync() {
	while palmctl hotsync | grep -q 'syncing=1 '; do sleep 0.1; done
	palmctl sync > /dev/null
}

# With the handheld off the bus: pilotd stopped (the desktop then takes the
# handheld itself over libusb, from the visor driver), or started again
# (as $PILOTD_WRAP pilotd: e.g. "env LD_PRELOAD=...").
pilotd_stop() {
	pid=$(pidof pilotd) || return 0
	kill -TERM "$pid"
	while kill -0 "$pid" 2> /dev/null; do sleep 0.1; done
}
pilotd_start() {
	pidof pilotd > /dev/null && return 0
	${PILOTD_WRAP:-} pilotd ${PILOTD_ARGS:-} 2>> /tmp/pilotd-bench.log &
	while [ ! -e /dev/pilot ]; do sleep 0.1; done
}

# One sync of palm-sync OP on PATH (pilotd: /dev/pilot, libusb: --port
# usb:), run as $SYNC_WRAP palm-sync; a wrapper's TASK-CLOCK line
# (task-clock's CPU times) joins the RESULT line
timed_sync() { # STACK PATH OP [RUN]
	port=/dev/pilot
	[ "$2" = libusb ] && port=usb:
	rm -rf /tmp/b && mkdir -p /tmp/b
	case $3 in
	list) ${SYNC_WRAP:-} palm-sync --port $port list > /dev/null 2> /tmp/err ;;
	backup) ${SYNC_WRAP:-} palm-sync --port $port backup /tmp/b > /dev/null 2> /tmp/err ;;
	install) ${SYNC_WRAP:-} palm-sync --port $port install \
		/usr/share/palm-db/Big2MiB.pdb > /dev/null 2> /tmp/err ;;
	esac
	secs=$(sed -n 's/^palm-sync: .* done in \([0-9.]*\) s .*/\1/p' /tmp/err)
	out=$(sed -n 's/^palm-sync: .* done in .* bytes in, \([0-9]*\) out;.*/\1/p' /tmp/err)
	reads=$(sed -n 's/^palm-sync: .* done in .* out; \([0-9]*\) reads, .*/\1/p' /tmp/err)
	writes=$(sed -n 's/^palm-sync: .* done in .* reads, \([0-9]*\) writes)$/\1/p' /tmp/err)
	cpu=$(sed -n 's/^TASK-CLOCK //p' /tmp/err)
	[ -n "$secs" ] || sed 's/^/bench: /' /tmp/err
	echo "RESULT op=hotsync-$3 stack=$1 path=$2 run=${4:-1} secs=${secs:-failed}" \
		"bytes_out=${out:-0} reads=${reads:-0} writes=${writes:-0}${cpu:+ $cpu}"
}

# cuse-floor (a CUSE server that answers at once) on /dev/cuse-floor, with
# pilotd's epoll loop or (--libfuse-loop) libfuse's own, and gone again
floor_start() { # [--libfuse-loop]
	cuse-floor "$@" &
	fpid=$!
	wait_node /dev/cuse-floor
}
floor_stop() {
	kill -TERM "$fpid"
	wait "$fpid"
	wait_gone /dev/cuse-floor
}

# The floor of a request, traced: N non-blocking reads of cuse-floor, its
# calls and the caller's as run "floor"
floor_trace() { # N
	TRACE_CALLS=$(($1 * 8)) LD_PRELOAD=/usr/lib/count-calls.so cuse-floor &
	fpid=$!
	wait_node /dev/cuse-floor
	pilot-bench nbread /dev/cuse-floor 0 100 > /dev/null
	traced floor $(($1 * 8)) pilot-bench nbread /dev/cuse-floor 0 "$1" |
		sed "s/^RESULT /RESULT run=floor /"
	floor_stop
	dump floor cuse-floor $fpid
}
