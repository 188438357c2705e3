#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Boot the pilotd test guest with a simulated Palm on usb-redir and run one
# command in it.  Exits with the command's status; fails when pilotd did
# not exit cleanly, or the guest did not finish within --timeout.
#
# usage: run-guest.sh --kernel BZIMAGE --initramfs CPIO.GZ [--modules CPIO.GZ]
#                     --sim PALM-SIM
#                     [--profile NAME] [--sim-arg ARG]... [--no-pilotd]
#                     [--extra-device PROFILE]...
#                     [--pilotd-args "ARGS"] [--sanitized] [--add FILE[:DEST]]...
#                     [--usbredir VID:PID] [--docked] [--icount SHIFT]
#                     [--timeout SECONDS] [--keep-logs DIR] -- COMMAND [ARG]...
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

kernel= initramfs= modules= sim= timeout=300 keep= pilotd=1 pilotd_args= pilotd_bin= usbredir=
docked= icount=()
sim_args=() adds=() extras=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--initramfs) initramfs=$2; shift 2 ;;
	# a Debian kernel's modules for the guest (build-modules.sh), appended
	--modules) modules=$2; shift 2 ;;
	--sim) sim=$2; shift 2 ;;
	--profile) sim_args+=(--profile "$2"); shift 2 ;;
	--sim-arg) sim_args+=("$2"); shift 2 ;;
	--no-pilotd) pilotd=; shift ;;
	--extra-device) extras+=("$2"); shift 2 ;;
	--pilotd-args) pilotd_args=$2; shift 2 ;;
	# pilotd built with AddressSanitizer and UBSan (the initramfs has it)
	--sanitized) pilotd_bin=/usr/lib/pilotd-sanitized/pilotd; shift ;;
	--add) adds+=("$2"); shift 2 ;;
	# the handheld VID:PID through usbredir: the guest runs Debian's
	# usbredirect on 127.0.0.1:4000 (tests/guest/cradle), pilotd --usbredir
	--usbredir) usbredir=$2; shift 2 ;;
	# docked before boot: pilotd starts once the handheld is on the bus
	# and udev has loaded and bound its drivers, as on a desktop
	--docked) docked=1; shift ;;
	# QEMU's -icount shift=SHIFT: while the guest runs, its clock advances
	# 2^SHIFT ns per instruction (CPU times count instructions)
	--icount) icount=(-icount "shift=$2"); shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--keep-logs) keep=$2; shift 2 ;;
	--) shift; break ;;
	*) die "unknown argument: $1 (see the header of $0)" ;;
	esac
done
[ $# -gt 0 ] || die "no command given; usage: run-guest.sh [options] -- COMMAND [ARG]..."
for f in "$kernel" "$initramfs" "$sim"; do
	[ -f "$f" ] || die "missing --kernel, --initramfs or --sim file: '$f'"
done
need_pkgs qemu-system-x86 cpio

work=$(mktemp -d /tmp/pilotd-guest.XXXXXX)
sim_pid= qemu_pid= extra_pids=()
cleanup() {
	local rc=$?
	set +e
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null
	[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null
	for p in "${extra_pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$keep" ] && mkdir -p "$keep" && cp "$work"/*.log "$keep"/ 2>/dev/null
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT

# The per-run part of the initramfs: the job, appended as a second archive.
job=$work/job-root
mkdir -p "$job/job"
printf '%q ' "$@" > "$job/job/run"
echo >> "$job/job/run"
[ -n "$usbredir" ] && echo "$usbredir" > "$job/job/usbredir" &&
	pilotd_args="--usbredir 127.0.0.1:4000 $pilotd_args"
[ -n "$pilotd" ] && echo "$pilotd_args" > "$job/job/pilotd-args"
[ -n "$pilotd_bin" ] && echo "$pilotd_bin" > "$job/job/pilotd-bin"
[ -n "$docked" ] && touch "$job/job/docked"
for a in "${adds[@]}"; do
	add_bin "$job" "$a"
done
cp "$initramfs" "$work/initrd"
[ -z "$modules" ] || cat "$modules" >> "$work/initrd"
pack_cpio "$job" >> "$work/initrd"

"$sim" --usbredir "$work/usb.sock" --control "$work/ctl.sock" "${sim_args[@]}" \
	2> "$work/sim.log" &
sim_pid=$!
for _ in $(seq 100); do
	[ -S "$work/usb.sock" ] && [ -S "$work/ctl.sock" ] && break
	kill -0 "$sim_pid" 2>/dev/null || { cat "$work/sim.log" >&2; die "palm-sim exited"; }
	sleep 0.05
done

# More devices on the bus: further simulated handhelds, or a non-Palm.
extra_qemu=()
for i in "${!extras[@]}"; do
	"$sim" --usbredir "$work/usb$i.sock" --profile "${extras[$i]}" 2> "$work/sim$i.log" &
	extra_pids+=($!)
	for _ in $(seq 100); do
		[ -S "$work/usb$i.sock" ] && break
		sleep 0.05
	done
	[ -S "$work/usb$i.sock" ] || die "palm-sim for ${extras[$i]} did not start"
	extra_qemu+=(-chardev "socket,id=extra$i,path=$work/usb$i.sock"
		-device "usb-redir,chardev=extra$i,bus=xhci.0")
done

: > "$work/console.log"
# no_timer_check: under TCG on a loaded host the kernel's check that the
# IO-APIC timer ticks can fail, and it panics at boot ("IO-APIC + timer
# doesn't work"; seen with a load of 11 on 2 cores)
# The clock: the TSC, whose steps are fractions of a microsecond.  Under
# TCG the guest's jiffies lose ticks when the host is busy, and two things
# then took the TSC away, leaving refined-jiffies (4 ms steps): the
# calibration against the PIT failing ("Unable to calibrate against PIT",
# and the guest kernel has no ACPI, so no HPET or PM timer to fall back
# on), or the clocksource watchdog, which checks the TSC against those
# jiffies ("Marking clocksource 'tsc-early' as unstable because the skew
# is too large").  The guest's TSC is the host's (QEMU reads the host's
# under TCG), so its rate is measured here and given to the kernel
# (tsc_early_khz), and tsc=reliable turns the watchdog off.  The guest's
# /init reports the clock it got (GUEST-CLOCK=).  Under -icount the TSC
# counts the virtual clock's nanoseconds instead (1 GHz, whatever the
# shift), so the guest's clock then reads the virtual time itself.
clock="tsc=reliable"
khz=$(host_tsc_khz)
[ ${#icount[@]} -eq 0 ] || khz=1000000
[ -n "$khz" ] && clock="$clock tsc_early_khz=$khz" ||
	log "cannot measure this host's TSC rate: the guest calibrates its own"
timeout --kill-after=5 "$timeout" qemu-system-x86_64 \
	-nodefaults -display none -no-reboot -m 512 "${icount[@]}" \
	-kernel "$kernel" -initrd "$work/initrd" \
	-append "console=ttyS0 panic=-1 loglevel=4 no_timer_check $clock" \
	-chardev file,id=con,path="$work/console.log" -serial chardev:con \
	-chardev socket,id=ctl,path="$work/ctl.sock" -serial chardev:ctl \
	-device qemu-xhci,id=xhci \
	-chardev socket,id=palm,path="$work/usb.sock" \
	-device usb-redir,chardev=palm,bus=xhci.0 \
	"${extra_qemu[@]}" \
	> "$work/qemu.log" 2>&1 &
qemu_pid=$!
tail -f --pid="$qemu_pid" "$work/console.log" 2>/dev/null | tr -d '\r' &
wait "$qemu_pid" && qemu_rc=0 || qemu_rc=$?
qemu_pid=
sleep 0.2 # let tail print the last lines

status=$(tr -d '\r' < "$work/console.log" | sed -n 's/^GUEST-EXIT=\([0-9]*\)$/\1/p' | tail -1)
clock_line=$(tr -d '\r' < "$work/console.log" | sed -n 's/^GUEST-CLOCK=//p' | head -1)
# (the service guest's /init is systemd, which does not report it)
case "$clock_line" in
'' | *microsecond=yes*) ;;
*) log "this boot's clock cannot time one call: $clock_line" ;;
esac
pstatus=$(tr -d '\r' < "$work/console.log" | sed -n 's/^GUEST-PILOTD-EXIT=\([0-9]*\)$/\1/p' | tail -1)
if [ -z "$status" ]; then
	[ "$qemu_rc" = 124 ] && log "guest did not finish within $timeout s" ||
		log "guest stopped without reporting a result (qemu exit $qemu_rc)"
	sed 's/^/qemu: /' "$work/qemu.log" >&2
	sed 's/^/palm-sim: /' "$work/sim.log" >&2
	exit 1
fi
if [ -n "$pilotd" ] && [ "$pstatus" != 0 ]; then
	log "pilotd exited with status ${pstatus:-unknown} (command status $status)"
	sed 's/^/palm-sim: /' "$work/sim.log" >&2
	exit 1
fi
exit "$status"
