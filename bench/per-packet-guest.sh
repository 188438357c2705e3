#!/bin/sh
# SPDX-License-Identifier: MIT
# What bench/per-packet runs inside the guest (booted without pilotd): for
# ROUNDS rounds, each pilotd named in BINS (/usr/sbin/pilotd-NAME) in turn,
# started with count-calls.so preloaded, does each of OPS (pilot-bench
# operations on 64 KiB calls, MIB MiB each); around each, its counters,
# task-clock and the guest's busy and idle ticks are recorded.
set -u
MIB=${MIB:-2}
ROUNDS=${ROUNDS:-3}
OPS=${OPS:-read}
echo "RESULT op=clock $(clockcheck)"

snap() { # counters of pilotd PID
	od -A n -t u8 -v -j 2048 "/tmp/count-calls.$1" | tr -s ' \n' '  '
}
busy() { # the guest's busy and idle ticks
	awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $5}' /proc/stat
}
start() { # NAME
	LD_PRELOAD=/usr/lib/count-calls.so "/usr/sbin/pilotd-$1" 2> "/tmp/pilotd-$1.log" &
	pid=$!
	i=0
	while [ ! -e /dev/pilot ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	# until it has the handheld: with CLOCAL clear an open waits for one
	stty -F /dev/pilot -clocal
	pilot-bench call /dev/pilot 0 1 > /dev/null
	echo "RESULT names $(head -c 2048 "/tmp/count-calls.$pid" | tr -d '\0')"
}
stop() {
	kill -TERM "$pid"
	wait "$pid"
	i=0
	while [ -e /dev/pilot ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
for r in $(seq "$ROUNDS"); do
	for b in $BINS; do
		start "$b"
		pilot-bench read /dev/pilot 65536 1 > /dev/null # the first IN transfers
		for op in $OPS; do
			c0=$(snap $pid)
			g0=$(busy)
			out=$(task-clock $pid pilot-bench "$op" /dev/pilot 65536 "$MIB" 2>&1)
			g1=$(busy)
			c1=$(snap $pid)
			echo "RESULT bin=$b round=$r op=$op $(echo "$out" | tr '\n' ' ')"
			echo "RESULT bin=$b round=$r op=$op guest $g0 $g1 counts $c0 to $c1"
		done
		stop
	done
done
