// SPDX-License-Identifier: MIT
/*
 * usb-bench: what raw libusb asynchronous bulk transfers reach on the
 * simulated Palm, the ceiling pilotd is compared with.  It takes the
 * device from any kernel driver, claims interface 0 and keeps INFLIGHT
 * transfers of SIZE bytes queued on the HotSync pair (0x82 IN, 0x02 OUT).
 *
 *   usb-bench write|read VID:PID SIZE INFLIGHT MIB
 *   usb-bench echo VID:PID BYTES ROUNDS [IN]
 *   usb-bench echo-ipc VID:PID BYTES ROUNDS IN
 *
 * Prints one "RESULT op=... dev=libusb-SIZExINFLIGHT ..." line; echo, the
 * round trip of BYTES through palm-sim's echo with IN (default 1) 64-byte
 * IN transfers always queued (pilotd queues up to 32), "RESULT op=latency
 * dev=raw-libusb" (with IN > 1: dev=raw-libusb-inIN).
 * That is a driver's round trip in user space without CUSE: the floor of
 * pilotd's, with two CUSE requests (bench/report.py).
 *
 * echo-ipc: the same echo with the driver in another process, as pilotd
 * is: the caller asks it over a socket to send (it submits the OUT
 * transfer, then answers) and to receive (it answers with the echo once
 * the IN transfer brought it, resubmitted), so the USB work runs after
 * a switch from the caller's process, as in pilotd.  Then ROUNDS requests
 * the driver answers at once.  "RESULT op=latency dev=ipc-libusb" and
 * "RESULT op=nbread dev=ipc-floor".
 */
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

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

static size_t echoed;
static bool in_cancelled;
static double submit_in_s, submit_out_s; /* time inside the submits, for the breakdown */

static void on_echo(struct libusb_transfer *t)
{
	double t0;

	if (t->status == LIBUSB_TRANSFER_CANCELLED && t->endpoint == EP_IN) {
		in_cancelled = true;
		return;
	}
	if (t->status != LIBUSB_TRANSFER_COMPLETED)
		fail("transfer: %s", libusb_error_name(t->status));
	if (t->endpoint == EP_OUT) {
		busy--;
		return;
	}
	t0 = mono_s();
	echoed += (size_t)t->actual_length;
	if (libusb_submit_transfer(t) < 0) /* the next IN, at once */
		fail("IN resubmit failed");
	submit_in_s += mono_s() - t0;
}

/* The echo's transfers: OUT of BYTES, NIN 64-byte IN ones submitted. */
static struct libusb_transfer *start_echo(libusb_device_handle *h, struct libusb_transfer **in,
					  uint8_t (*inbuf)[64], int nin, uint8_t *obuf, size_t bytes)
{
	struct libusb_transfer *out = libusb_alloc_transfer(0);

	libusb_fill_bulk_transfer(out, h, EP_OUT, obuf, (int)bytes, on_echo, NULL, 0);
	for (int i = 0; i < nin; i++) {
		in[i] = libusb_alloc_transfer(0);
		libusb_fill_bulk_transfer(in[i], h, EP_IN, inbuf[i], 64, on_echo, NULL, 0);
		if (libusb_submit_transfer(in[i]) < 0)
			fail("IN submit failed");
	}
	return out;
}

static void end_echo(struct libusb_transfer **in, int nin, struct libusb_transfer *out,
		     uint8_t *obuf)
{
	for (int i = 0; i < nin; i++) {
		in_cancelled = false;
		libusb_cancel_transfer(in[i]);
		while (!in_cancelled)
			libusb_handle_events(NULL);
		libusb_free_transfer(in[i]);
	}
	libusb_free_transfer(out);
	free(obuf);
}

/* The echo's round trips: OUT submitted, then events until all came back. */
static void echo(libusb_device_handle *h, size_t bytes, int rounds, int nin)
{
	struct libusb_transfer *in[32], *out;
	uint8_t *obuf = calloc(1, bytes), inbuf[32][64];
	double *us = calloc((size_t)rounds, sizeof(double)), start;
	char dev[32] = "raw-libusb";

	if (nin < 1 || nin > 32)
		fail("IN: 1 to 32");
	if (nin > 1)
		snprintf(dev, sizeof(dev), "raw-libusb-in%d", nin);
	palm("mode echo");
	out = start_echo(h, in, inbuf, nin, obuf, bytes);
	start = mono_s();
	for (int i = 0; i < rounds; i++) {
		double t0 = mono_s();

		echoed = 0;
		busy = 1;
		if (libusb_submit_transfer(out) < 0)
			fail("OUT submit failed");
		submit_out_s += mono_s() - t0;
		while (echoed < bytes || busy > 0)
			libusb_handle_events(NULL);
		if (echoed != bytes)
			fail("echo: %zu bytes back for %zu", echoed, bytes);
		us[i] = (mono_s() - t0) * 1e6;
	}
	start = (mono_s() - start) * 1e6 / rounds;
	qsort(us, (size_t)rounds, sizeof(double), cmp_double);
	printf("RESULT op=latency dev=%s bytes=%zu rounds=%d mean_us=%.1f min_us=%.1f "
	       "median_us=%.1f p90_us=%.1f p99_us=%.1f submit_out_us=%.1f submit_in_us=%.1f\n",
	       dev, bytes, rounds, start, us[0], us[rounds / 2], us[rounds * 9 / 10],
	       us[rounds * 99 / 100], submit_out_s * 1e6 / rounds, submit_in_s * 1e6 / rounds);
	end_echo(in, nin, out, obuf);
	free(us);
}

/* echo-ipc's driver: answers the caller's requests on socket sk. */
static void ipc_driver(libusb_device_handle *h, int sk, size_t bytes, int nin)
{
	struct libusb_transfer *in[32], *out;
	uint8_t *obuf = calloc(1, bytes), inbuf[32][64], req;

	if (nin < 1 || nin > 32)
		fail("IN: 1 to 32");
	out = start_echo(h, in, inbuf, nin, obuf, bytes);
	while (read(sk, &req, 1) == 1 && req != 'q') {
		if (req == 's') { /* send: the OUT transfer, then the answer */
			echoed = 0;
			busy = 1;
			if (libusb_submit_transfer(out) < 0)
				fail("OUT submit failed");
		}
		while (req == 'r' && (echoed < bytes || busy > 0)) /* receive */
			libusb_handle_events(NULL);
		if (write(sk, &req, 1) != 1)
			fail("answer: %m");
	}
	end_echo(in, nin, out, obuf);
}

/* A request of echo-ipc's caller: sent, and answered. */
static void ipc_call(int sk, uint8_t req)
{
	if (write(sk, &req, 1) != 1 || read(sk, &req, 1) != 1)
		fail("the driver process: %m");
}

static void ipc_caller(int sk, size_t bytes, int rounds)
{
	double *us = calloc((size_t)rounds, sizeof(double)), start;

	palm("mode echo");
	for (int pass = 0; pass < 2; pass++) { /* the echo, then requests answered at once */
		start = mono_s();
		for (int i = 0; i < rounds; i++) {
			double t0 = mono_s();

			ipc_call(sk, pass ? 'p' : 's');
			if (!pass)
				ipc_call(sk, 'r');
			us[i] = (mono_s() - t0) * 1e6;
		}
		start = (mono_s() - start) * 1e6 / rounds;
		qsort(us, (size_t)rounds, sizeof(double), cmp_double);
		if (pass)
			printf("RESULT op=nbread dev=ipc-floor rounds=%d ", rounds);
		else
			printf("RESULT op=latency dev=ipc-libusb bytes=%zu rounds=%d ", bytes, rounds);
		printf("mean_us=%.1f min_us=%.1f median_us=%.1f p90_us=%.1f p99_us=%.1f\n", start,
		       us[0], us[rounds / 2], us[rounds * 9 / 10], us[rounds * 99 / 100]);
	}
	ipc_call(sk, 'q');
	free(us);
}

/* write|read: INFLIGHT transfers of SIZE until MIB MiB have moved. */
static void stream(libusb_device_handle *h, const char *op, size_t size, size_t inflight)
{
	bool in = strcmp(op, "read") == 0;
	double t0, c0, secs;

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
	       op, size, inflight, size, total >> 20, secs, (double)done / secs / 1e6,
	       (cpu_busy_s() - c0) / ((double)done / 1e6));
}

int main(int argc, char **argv)
{
	libusb_device_handle *h;
	unsigned int vid, pid;
	bool is_echo = (argc == 5 || argc == 6) && strcmp(argv[1], "echo") == 0;
	bool is_ipc = argc == 6 && strcmp(argv[1], "echo-ipc") == 0;
	int sk[2] = { -1, -1 };
	pid_t child = -1;

	guest_test_name("usb-bench");
	if ((argc != 6 && !is_echo) || sscanf(argv[2], "%x:%x", &vid, &pid) != 2)
		fail("usage: usb-bench write|read VID:PID SIZE INFLIGHT MIB, "
		     "usb-bench echo VID:PID BYTES ROUNDS [IN], "
		     "usb-bench echo-ipc VID:PID BYTES ROUNDS IN");
	if (is_ipc) { /* the caller here, the driver (libusb's only user) in a child */
		if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sk) < 0 || (child = fork()) < 0)
			fail("socketpair, fork: %m");
		if (child > 0) {
			close(sk[1]);
			ipc_caller(sk[0], strtoul(argv[3], NULL, 0), (int)strtol(argv[4], NULL, 0));
			waitpid(child, NULL, 0);
			return 0;
		}
		close(sk[0]);
	}
	if (libusb_init(NULL) < 0 ||
	    !(h = libusb_open_device_with_vid_pid(NULL, (uint16_t)vid, (uint16_t)pid)))
		fail("cannot open %04x:%04x", vid, pid);
	libusb_set_auto_detach_kernel_driver(h, 1);
	if (libusb_claim_interface(h, 0) < 0)
		fail("cannot claim interface 0");
	if (is_ipc) {
		ipc_driver(h, sk[1], strtoul(argv[3], NULL, 0), (int)strtol(argv[5], NULL, 0));
	} else if (is_echo) {
		echo(h, strtoul(argv[3], NULL, 0), (int)strtol(argv[4], NULL, 0),
		     argc == 6 ? (int)strtol(argv[5], NULL, 0) : 1);
	} else {
		total = strtoul(argv[5], NULL, 0) << 20;
		stream(h, argv[1], strtoul(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	}
	libusb_release_interface(h, 0);
	libusb_close(h);
	libusb_exit(NULL);
	return 0;
}
