#!/bin/busybox sh
# SPDX-License-Identifier: MIT
#
# /init of the pilotd test guest.  Brings up /proc, /sys, /dev and udevd,
# starts the cradle's usbredirect and pilotd (each unless the job says
# not to), runs /job/run, stops pilotd
# and reports both exit statuses on the console for run-guest.sh:
#   GUEST-CLOCK=source=... (clockcheck, at boot)
#   GUEST-PILOTD-EXIT=N   (only when pilotd ran)
#   GUEST-EXIT=N
/bin/busybox --install -s /bin
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /run /tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
# the kernel's boot time, in the guest's clock (TCG: slow, machine-bound)
echo "guest: kernel $(uname -r), /init at $(cut -d' ' -f1 /proc/uptime) s"
# The clock this boot keeps time with (run-guest.sh sets it up; the bench
# needs microsecond steps): source, clock_getres, smallest step seen.
echo "GUEST-CLOCK=$(clockcheck)"

/lib/systemd-udevd --daemon 2>/dev/null || echo "guest: udevd did not start"
udevadm trigger --action=add
udevadm settle --timeout=20
# On Debian's kernel (the guest has its modules): udev has loaded the
# drivers of the devices present (the USB host controller, usbserial and
# visor for the handheld); the modules that modules-load.d names
# (pilotd's: cuse) are loaded as systemd-modules-load loads them at boot.
if [ -d "/lib/modules/$(uname -r)" ]; then
	for m in $(cat /usr/lib/modules-load.d/*.conf 2>/dev/null | sed 's/#.*//'); do
		modprobe "$m" || echo "guest: cannot load $m"
	done
fi
# Docked before boot: the handheld enumerates on its own time (USB, and
# QEMU's usb-redir behind it), maybe after the settle above, and udev
# loads its driver (usbserial, visor) some seconds later on a loaded
# machine; a settle may come before its event is queued.  Wait (20 s at
# most) until an interface of a device other than a root hub (1-0:1.0)
# has a driver: pilotd then starts as on a desktop that was up first.
if [ -f /job/docked ]; then
	i=0
	while ! ls -d /sys/bus/usb/devices/[0-9]-[1-9]*:*/driver >/dev/null 2>&1 &&
		[ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	udevadm settle --timeout=20
	[ $i -lt 200 ] || echo "guest: no driver took the docked handheld within 20 s"
fi
echo "guest: devices and modules settled at $(cut -d' ' -f1 /proc/uptime) s"

# The control channel of the simulated Palm is the second serial port.
stty -F /dev/ttyS1 raw -echo 115200 2>/dev/null
ifconfig lo 127.0.0.1 up

# The handheld through usbredir: the guest is also the machine with the
# cradle, and Debian's usbredirect serves it on loopback (cradle).
cradle_pid=
if [ -f /job/usbredir ]; then
	cradle $(cat /job/usbredir) 127.0.0.1:4000 2> /tmp/cradle.log &
	cradle_pid=$!
	echo $cradle_pid > /run/cradle.pid # for jobs that end it
fi

pilotd_pid=
pilotd_bin=pilotd
[ -f /job/pilotd-bin ] && pilotd_bin=$(cat /job/pilotd-bin)
# A sanitized pilotd: any report ends it with a status of its own.
export ASAN_OPTIONS=exitcode=66:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=67
if [ -f /job/pilotd-args ]; then
	# shellcheck disable=SC2046
	"$pilotd_bin" $(cat /job/pilotd-args) &
	pilotd_pid=$!
	i=0
	while [ ! -e /dev/pilot ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e /dev/pilot ] || echo "guest: /dev/pilot did not appear within 10 s"
fi

sh /job/run
rc=$?

if [ -n "$pilotd_pid" ]; then
	kill -TERM "$pilotd_pid" 2>/dev/null
	i=0
	while kill -0 "$pilotd_pid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$pilotd_pid" 2>/dev/null; then
		echo "guest: pilotd ignored SIGTERM for 10 s"
		kill -KILL "$pilotd_pid"
	fi
	wait "$pilotd_pid"
	echo "GUEST-PILOTD-EXIT=$?"
fi
if [ -n "$cradle_pid" ]; then
	kill "$cradle_pid" 2>/dev/null
	sed 's/^/guest: /' /tmp/cradle.log
fi
echo "GUEST-EXIT=$rc"
sync
reboot -f
