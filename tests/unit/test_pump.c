// SPDX-License-Identifier: MIT
/*
 * The bulk pump (core/pump.c) against a real port with a fake front:
 * backpressure, the OUT transfer's resend, error counting, halts and
 * their recovery, departure, and a stopped pump's late completions.
 */
#include <string.h>

#include "check.h"
#include "raw_termios.h"
#include "core/pump.h"

static int answers;

static int h_open(void *ctx, void *req, uint64_t fh)
{
	answers++;
	return 0;
}

static void h_data(void *ctx, void *req, const void *buf, size_t len)
{
	answers++;
}

static void h_written(void *ctx, void *req, size_t len)
{
	answers++;
}

static void h_ioctl(void *ctx, void *req, const void *out, size_t len)
{
}

static void h_fetch(void *ctx, void *req, uintptr_t arg, size_t in, size_t out)
{
}

static void h_err(void *ctx, void *req, int err)
{
}

static void nothing(void *ctx, void *p)
{
}

static void none(void *ctx)
{
}

static uint64_t setup(struct port *p, size_t rxq)
{
	const struct port_config cfg = { .rxq_size = rxq,
					 .txq_size = 200000,
					 .read_max = 4096,
					 .files_max = 4,
					 .parked_max = 8,
					 .parked_write_bytes = 4096,
					 .closing_wait_ms = 1000 };
	static const struct port_hooks hooks = {
		.answer_open = h_open,
		.answer_data = h_data,
		.answer_written = h_written,
		.answer_ioctl = h_ioctl,
		.answer_ioctl_fetch = h_fetch,
		.answer_err = h_err,
		.parked = nothing,
		.notify_poll = nothing,
		.drop_poll_handle = nothing,
		.tx_ready = none,
		.rx_room = none,
		.last_close = none,
	};
	static const struct port_open_args a = { .uid = 0 };
	static int req;

	CHECK_EQ(port_init(p, &cfg, &hooks), 0);
	make_raw_termios(&p->tty.termios); /* the tests of lines set ICANON */
	port_carrier_up(p);
	port_open(p, &req, &a);
	port_poll(p, p->next_fh, NULL); /* a desktop that listens */
	return p->next_fh;
}

/* IN requests only while the port has room for all in flight. */
static void test_backpressure(void)
{
	struct port p;
	struct pump pm;
	int n = 0, i;

	setup(&p, 64 * 10);
	pump_start(&pm, &p, "test", 64, 4096);
	while ((i = pump_in_next(&pm)) >= 0) {
		pump_in_submitted(&pm, i);
		n++;
	}
	CHECK_EQ(n, 10); /* 640 bytes of room: 10 packets */
	pump_in_done(&pm, 0, PUMP_OK, "0123456789", 10, 1);
	CHECK_EQ(byteq_len(&p.rxq), 10);
	CHECK_EQ(pump_in_next(&pm), -1); /* 630 bytes of room; 10 in flight would need 640 */
	CHECK_EQ(pm.rx_bytes, 10);
	port_shutdown(&p);
	port_free(&p);
}

/* One OUT transfer at a time; what the device did not take goes again. */
static void test_out_resend(void)
{
	static uint8_t big[100000], buf[65536];
	struct port p;
	struct pump pm;
	uint64_t fh = setup(&p, 4096);
	int w;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i % 251);
	port_write(&p, &w, fh, big, sizeof(big), false);
	pump_start(&pm, &p, "test", 64, 65535); /* a server without 32-bit lengths */
	CHECK_EQ(pump_out_take(&pm, buf), 65535);
	CHECK_EQ(pump_out_take(&pm, buf), 0); /* one at a time */
	pump_out_done(&pm, PUMP_OK, 1000);    /* a short transfer */
	CHECK_EQ(port_tx_queued(&p), sizeof(big) - 1000);
	CHECK_EQ(pump_out_take(&pm, buf), 65535);
	CHECK_EQ(buf[0], 1000 % 251);
	pump_out_done(&pm, PUMP_OK, 70000); /* never more than was sent */
	CHECK_EQ(pm.tx_bytes, 1000 + 65535);
	CHECK_EQ(port_tx_queued(&p), sizeof(big) - 1000 - 65535);
	port_shutdown(&p);
	port_free(&p);
}

/* A stall halts a direction; the halt is cleared once nothing of it flies. */
static void test_halt_and_recovery(void)
{
	struct port p;
	struct pump pm;

	setup(&p, 4096);
	pump_start(&pm, &p, "test", 64, 4096);
	pump_in_submitted(&pm, 0);
	pump_in_submitted(&pm, 1);
	pump_in_done(&pm, 0, PUMP_STALL, NULL, 0, 0);
	CHECK(pm.in_halted && pump_in_next(&pm) == -1);
	CHECK_EQ(pump_recover(&pm), PUMP_CLEAR_NONE); /* slot 1 is still out */
	pump_in_done(&pm, 1, PUMP_STALL, NULL, 0, 0);
	CHECK_EQ(pump_recover(&pm), PUMP_CLEAR_IN);
	pump_halt_cleared(&pm, PUMP_CLEAR_IN, true);
	CHECK(!pm.in_halted && pump_in_next(&pm) >= 0);
	CHECK_EQ(pump_verdict(&pm), PUMP_FINE);

	/* a halt that cannot be cleared gives the handheld up */
	pump_in_submitted(&pm, 0);
	pump_in_done(&pm, 0, PUMP_BABBLE, NULL, 0, 0);
	pump_halt_cleared(&pm, PUMP_CLEAR_IN, false);
	CHECK_EQ(pump_verdict(&pm), PUMP_GIVE_UP);
	CHECK_EQ(pump_in_next(&pm), -1);
	port_shutdown(&p);
	port_free(&p);
}

/* Ten failures in a row may be recovered from; the eleventh gives up,
 * unless a success came between. */
static void test_errors_in_a_row(void)
{
	struct port p;
	struct pump pm;

	setup(&p, 4096);
	pump_start(&pm, &p, "test", 64, 4096);
	for (int i = 0; i < 10; i++) {
		pump_in_submitted(&pm, 0);
		pump_in_done(&pm, 0, PUMP_ERROR, NULL, 0, 0);
		pump_halt_cleared(&pm, pump_recover(&pm), true);
	}
	CHECK_EQ(pump_verdict(&pm), PUMP_FINE);
	pump_in_submitted(&pm, 0);
	pump_in_done(&pm, 0, PUMP_OK, "x", 1, 0); /* a success: the count starts over */
	for (int i = 0; i < 10; i++) {
		pump_in_submitted(&pm, 0);
		pump_in_done(&pm, 0, PUMP_ERROR, NULL, 0, 0);
		pump_halt_cleared(&pm, pump_recover(&pm), true);
	}
	CHECK_EQ(pump_verdict(&pm), PUMP_FINE);
	pump_in_submitted(&pm, 0);
	pump_in_done(&pm, 0, PUMP_ERROR, NULL, 0, 0);
	CHECK_EQ(pump_verdict(&pm), PUMP_GIVE_UP);
	port_shutdown(&p);
	port_free(&p);
}

/* "No device" is a departure; a stopped pump's completions reach no port. */
static void test_gone_and_stopped(void)
{
	struct port p;
	struct pump pm;
	uint8_t buf[64];
	uint64_t fh = setup(&p, 4096);
	int w;

	port_write(&p, &w, fh, "abc", 3, false);
	pump_start(&pm, &p, "test", 64, 4096);
	pump_in_submitted(&pm, 3);
	CHECK_EQ(pump_out_take(&pm, buf), 3);
	pump_out_done(&pm, PUMP_GONE, 0);
	CHECK_EQ(pump_verdict(&pm), PUMP_DEPARTED);
	CHECK_EQ(pump_out_take(&pm, buf), 0);
	pump_stop(&pm);
	pump_in_done(&pm, 3, PUMP_CANCELLED, "late", 4, 0);
	CHECK_EQ(byteq_len(&p.rxq), 0);
	CHECK_EQ(pump_busy(&pm), 0);
	port_shutdown(&p);
	port_free(&p);
}

int main(void)
{
	test_backpressure();
	test_out_resend();
	test_halt_and_recovery();
	test_errors_in_a_row();
	test_gone_and_stopped();
	return check_result("test_pump");
}
