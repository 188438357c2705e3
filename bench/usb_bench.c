// SPDX-License-Identifier: MIT
/*
 * usb-bench: what raw libusb asynchronous bulk transfers reach on the
 * simulated Palm, the ceiling pilotd is compared with.  It takes the
 * device from any kernel driver, claims interface 0 and keeps INFLIGHT
 * transfers of SIZE bytes queued on the HotSync pair (0x82 IN, 0x02 OUT).
 *
 *   usb-bench write|read VID:PID SIZE INFLIGHT MIB
 *
 * Prints one "RESULT op=... dev=libusb-SIZExINFLIGHT ..." line.
 */
#include <libusb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "guestlib.h"

#define EP_IN  0x82
#define EP_OUT 0x02

static size_t done, submitted, total;
static int busy;

static void on_done(struct libusb_transfer *t)
{
	busy--;
	if (t->status != LIBUSB_TRANSFER_COMPLETED)
		fail("transfer: %s", libusb_error_name(t->status));
	done += (size_t)t->actual_length;
	if (submitted < total) {
		submitted += (size_t)t->length;
		if (libusb_submit_transfer(t) == 0)
			busy++;
	}
}

int main(int argc, char **argv)
{
	libusb_device_handle *h;
	unsigned int vid, pid;
	size_t size, inflight;
	bool in;
	double t0, c0, secs;

	guest_test_name("usb-bench");
	if (argc != 6 || sscanf(argv[2], "%x:%x", &vid, &pid) != 2)
		fail("usage: usb-bench write|read VID:PID SIZE INFLIGHT MIB");
	in = strcmp(argv[1], "read") == 0;
	size = strtoul(argv[3], NULL, 0);
	inflight = strtoul(argv[4], NULL, 0);
	total = strtoul(argv[5], NULL, 0) << 20;
	if (libusb_init(NULL) < 0 ||
	    !(h = libusb_open_device_with_vid_pid(NULL, (uint16_t)vid, (uint16_t)pid)))
		fail("cannot open %04x:%04x", vid, pid);
	libusb_set_auto_detach_kernel_driver(h, 1);
	if (libusb_claim_interface(h, 0) < 0)
		fail("cannot claim interface 0");
	palm("mode sink");
	palm("reset-stats");
	if (in)
		palm("send-pattern 4 %zu", total);
	t0 = mono_s();
	c0 = cpu_busy_s();
	for (size_t i = 0; i < inflight && submitted < total; i++) {
		struct libusb_transfer *t = libusb_alloc_transfer(0);

		libusb_fill_bulk_transfer(t, h, in ? EP_IN : EP_OUT, calloc(1, size), (int)size,
					  on_done, NULL, 0);
		submitted += size;
		if (libusb_submit_transfer(t) < 0)
			fail("submit failed");
		busy++;
	}
	while (busy > 0)
		libusb_handle_events(NULL);
	if (!in)
		palm_wait_stat("out_bytes", total, 600);
	secs = mono_s() - t0;
	printf("RESULT op=%s dev=libusb-%zux%zu call=%zu mib=%zu secs=%.4f mbps=%.3f "
	       "cpu_per_mb=%.4f\n",
	       argv[1], size, inflight, size, total >> 20, secs, (double)done / secs / 1e6,
	       (cpu_busy_s() - c0) / ((double)done / 1e6));
	libusb_release_interface(h, 0);
	libusb_close(h);
	libusb_exit(NULL);
	return 0;
}
