// SPDX-License-Identifier: MIT
/*
 * The pump (core/pump.c), the transports' driving loop, against a real
 * port with port_harness.h's fake front (every request answered exactly
 * once), the port's hooks wired to the pump as main.c wires them, a fake
 * transport below the pump (struct pump_io that records each call) and a
 * fake clock: backpressure, the OUT transfer's resend,
 * halts cleared asynchronously and the bound on halts, the IN requests
 * cancelled when nobody listens, the close notification, departure,
 * that completions only record (no hook runs inside one), and the log
 * line that says which stack the handheld speaks (pilotd_log() wrapped).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "raw_termios.h"
#include "core/pump.h"
#include "kept_log.h"
#include "port_harness.h"

/* ---- the fake transport ---- */

static struct fake {
	int in_submitted, in_cancelled, out_submitted, out_cancelled;
	int clears, clear_in, closes;
	bool flying[PUMP_IN_MAX];
	size_t out_len;
	uint8_t out_first;
	int fail; /* what the next submission returns */
} fk;

static int fk_submit_in(void *ctx, int slot, uint8_t *buf, size_t len)
{
	if (fk.fail)
		return fk.fail;
	CHECK(!fk.flying[slot]);
	fk.flying[slot] = true;
	fk.in_submitted++;
	return 0;
}

static int fk_submit_out(void *ctx, const uint8_t *buf, size_t len)
{
	if (fk.fail)
		return fk.fail;
	fk.out_submitted++;
	fk.out_len = len;
	fk.out_first = buf[0];
	return 0;
}

static void fk_cancel_in(void *ctx, int slot)
{
	fk.in_cancelled++;
}

static void fk_cancel_out(void *ctx)
{
	fk.out_cancelled++;
}

static int fk_clear_halt(void *ctx, bool in)
{
	fk.clears++;
	fk.clear_in = in;
	return 0;
}

static int fk_close(void *ctx)
{
	fk.closes++;
	return 0;
}

static const struct pump_io fake_io = {
	.submit_in = fk_submit_in,
	.submit_out = fk_submit_out,
	.cancel_in = fk_cancel_in,
	.cancel_out = fk_cancel_out,
	.clear_halt = fk_clear_halt,
	.close_notification = fk_close,
};

/* ---- the port, with the harness's front, its hooks wired to the pump ---- */

#define NREQ 64

static struct pump pm;
static uint8_t out_buf[256 * 1024];
static struct ph h; /* port_harness.h: the hooks drive pm at h.now */

static uint64_t setup(struct port *p, size_t rxq)
{
	const struct port_config cfg = { .rxq_size = rxq,
					 .txq_size = 200000,
					 .read_max = 4096,
					 .files_max = 4,
					 .parked_max = 8,
					 .parked_write_bytes = 4096,
					 .closing_wait_ms = 1000 };
	uint64_t fh;

	memset(&fk, 0, sizeof(fk));
	CHECK_EQ(ph_init(&h, p, &cfg, NREQ), 0);
	make_raw_termios(&p->tty.termios); /* the tests of lines set ICANON */
	pump_init(&pm, &fake_io, NULL, p, out_buf, sizeof(out_buf));
	h.pump = &pm;
	fh = ph_open(&h, 1000, false, true); /* a desktop that listens */
	CHECK(fh != 0);
	return fh;
}

/* A handheld arrives: the carrier and the stream start at the next drive. */
static void start(struct port *p, size_t in_size, size_t out_max)
{
	const struct palm_hotsync hs = { .in_ep = 0x82, .out_ep = 0x02 };

	pump_start(&pm, "test", &hs, in_size, out_max);
	CHECK(!p->carrier);
	pump_drive(&pm, h.now);
	CHECK(p->carrier);
}

/* The handheld answers IN slot i (in_completion: as inside its callback). */
static void in_reply(int i, enum pump_status st, const char *data)
{
	CHECK(fk.flying[i]);
	fk.flying[i] = false;
	h.in_completion = 1;
	pump_in_done(&pm, i, st, data, data ? strlen(data) : 0);
	h.in_completion = 0;
}

/* The end: after shutdown and release every request was answered exactly once. */
static void done(struct port *p)
{
	CHECK_EQ(ph_close_all(&h), 0);
	ph_free(&h);
}

/* IN requests only while the port has room for all in flight. */
static void test_backpressure(void)
{
	struct port p;

	setup(&p, 64 * 10);
	start(&p, 64, 4096);
	CHECK_EQ(fk.in_submitted, 10); /* 640 bytes of room: 10 packets */
	in_reply(0, PUMP_OK, "0123456789");
	CHECK_EQ(byteq_len(&p.rxq), 0); /* recorded only */
	pump_drive(&pm, h.now);
	CHECK_EQ(byteq_len(&p.rxq), 10);
	CHECK_EQ(fk.in_submitted, 10); /* 630 bytes of room; 10 in flight would need 640 */
	CHECK_EQ(pm.rx_bytes, 10);
	done(&p);
}

/* Bytes of the requests reach the port in the order they completed. */
static void test_in_order(void)
{
	struct port p;
	void *r;

	setup(&p, 4096);
	start(&p, 64, 4096);
	in_reply(5, PUMP_OK, "c");
	in_reply(2, PUMP_OK, "a");
	in_reply(9, PUMP_OK, "t");
	pump_drive(&pm, h.now);
	r = ph_read(&h, p.next_fh, 16, true, h.now);
	CHECK_EQ(ph_ans(&h, r)->len, 3);
	CHECK(memcmp(ph_ans(&h, r)->data, "cat", 3) == 0);
	done(&p);
}

/* One OUT transfer at a time; what the device did not take goes again. */
static void test_out_resend(void)
{
	static uint8_t big[100000];
	struct port p;
	uint64_t fh = setup(&p, 4096);

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i % 251);
	start(&p, 64, 65535); /* a server without 32-bit lengths */
	ph_write(&h, fh, big, sizeof(big), false);
	CHECK_EQ(fk.out_submitted, 1);
	CHECK_EQ(fk.out_len, 65535);
	pump_drive(&pm, h.now);
	CHECK_EQ(fk.out_submitted, 1);		   /* one at a time */
	pump_out_done(&pm, PUMP_OK, 1000);	   /* a short transfer */
	CHECK_EQ(port_tx_queued(&p), sizeof(big)); /* recorded only */
	pump_drive(&pm, h.now);
	CHECK_EQ(port_tx_queued(&p), sizeof(big) - 1000);
	CHECK_EQ(fk.out_submitted, 2);
	CHECK_EQ(fk.out_first, 1000 % 251);
	pump_out_done(&pm, PUMP_OK, 70000); /* never more than was sent */
	pump_drive(&pm, h.now);
	CHECK_EQ(pm.tx_bytes, 1000 + 65535);
	CHECK_EQ(port_tx_queued(&p), sizeof(big) - 1000 - 65535);
	done(&p);
}

/*
 * A stall halts a direction; once nothing of it flies the halt is
 * cleared by a control request the transport completes later: the drive
 * never waits for it, and nothing of that direction goes meanwhile.
 */
static void test_halt_cleared_asynchronously(void)
{
	struct port p;

	setup(&p, 4096);
	start(&p, 64, 4096);
	CHECK_EQ(fk.in_submitted, PUMP_IN_MAX);
	in_reply(0, PUMP_STALL, NULL);
	pump_drive(&pm, h.now);
	CHECK_EQ(fk.clears, 0); /* 31 are still out */
	for (int i = 1; i < PUMP_IN_MAX; i++)
		in_reply(i, PUMP_STALL, NULL);
	pump_drive(&pm, h.now);
	CHECK_EQ(fk.clears, 1);
	CHECK(fk.clear_in);
	CHECK_EQ(fk.in_submitted, PUMP_IN_MAX); /* halted until cleared */
	pump_drive(&pm, h.now);
	CHECK_EQ(fk.clears, 1); /* one request at a time */
	pump_ctrl_done(&pm, PUMP_OK);
	CHECK_EQ(fk.in_submitted, PUMP_IN_MAX);
	pump_drive(&pm, h.now);
	CHECK_EQ(fk.in_submitted, 2 * PUMP_IN_MAX);
	CHECK_EQ(pump_verdict(&pm), PUMP_FINE);

	/* a halt that cannot be cleared gives the handheld up */
	in_reply(0, PUMP_BABBLE, "x");
	for (int i = 1; i < PUMP_IN_MAX; i++)
		in_reply(i, PUMP_CANCELLED, NULL);
	pump_drive(&pm, h.now);
	CHECK_EQ(byteq_len(&p.rxq), 1); /* what it carried still counts */
	CHECK_EQ(fk.clears, 2);
	pump_ctrl_done(&pm, PUMP_TIMEOUT);
	pump_drive(&pm, h.now);
	CHECK_EQ(pump_verdict(&pm), PUMP_GIVE_UP);
	CHECK_EQ(fk.in_submitted, 2 * PUMP_IN_MAX);
	done(&p);
}

/* One OUT halt, cleared, and the bytes go again from where they stopped. */
static void halt_out_once(void)
{
	pump_out_done(&pm, PUMP_STALL, 0);
	pump_drive(&pm, h.now);
	pump_ctrl_done(&pm, PUMP_OK);
	pump_drive(&pm, h.now);
	pump_out_done(&pm, PUMP_OK, 1); /* a success between halts */
	pump_drive(&pm, h.now);
}

/*
 * A device that halts, works, halts again (row 5): the PUMP_HALTS_MAX-th
 * halt within PUMP_HALTS_WINDOW_MS gives it up, whatever succeeded
 * between; halts further apart never do.
 */
static void test_halts_bound(void)
{
	static uint8_t many[20000];
	struct port p;
	uint64_t fh = setup(&p, 4096);
	int n = 0;

	memset(many, 'h', sizeof(many));
	start(&p, 64, 4096);
	ph_write(&h, fh, many, sizeof(many), false);
	while (pump_verdict(&pm) == PUMP_FINE && n < 100) {
		halt_out_once();
		n++;
		h.now += 1000;
	}
	CHECK_EQ(n, PUMP_HALTS_MAX);
	CHECK_EQ(pump_verdict(&pm), PUMP_GIVE_UP);
	CHECK_EQ(fk.clears, PUMP_HALTS_MAX - 1); /* the last one is not cleared */
	done(&p);

	/* one halt every 7 s: ten span 63 s, above the window */
	fh = setup(&p, 4096);
	start(&p, 64, 4096);
	ph_write(&h, fh, many, sizeof(many), false);
	for (n = 0; n < 3 * PUMP_HALTS_MAX; n++) {
		halt_out_once();
		h.now += PUMP_HALTS_WINDOW_MS / (PUMP_HALTS_MAX - 1) + 400;
	}
	CHECK_EQ(pump_verdict(&pm), PUMP_FINE);
	CHECK_EQ(fk.clears, 3 * PUMP_HALTS_MAX);
	done(&p);
}

/*
 * Row 2: after the last close the IN requests in flight are cancelled
 * (the port's rx_stop hook), so what the handheld says next stays in it
 * and reaches the next desktop's first read.
 */
static void test_rx_stop(void)
{
	struct port p;
	uint64_t a = setup(&p, 64 * 1024), b;
	void *r;

	start(&p, 64, 4096);
	CHECK_EQ(fk.in_submitted, PUMP_IN_MAX);
	port_release(&p, a); /* desktop A exits: the port's rx_stop hook */
	CHECK_EQ(fk.in_cancelled, PUMP_IN_MAX);
	for (int i = 0; i < PUMP_IN_MAX; i++)
		in_reply(i, PUMP_CANCELLED, NULL); /* they come back empty */
	pump_drive(&pm, h.now);
	CHECK_EQ(fk.in_submitted, PUMP_IN_MAX); /* nobody listens: none out */
	CHECK_EQ(p.stats.rx_discarded, 0);

	b = ph_open(&h, 1000, false, false); /* desktop B opens; the handheld's wakeup waits */
	CHECK_EQ(fk.in_submitted, PUMP_IN_MAX);
	r = ph_read(&h, b, 4096, false, h.now); /* and B reads: it listens */
	CHECK_EQ(fk.in_submitted, 2 * PUMP_IN_MAX);
	in_reply(0, PUMP_OK, "wakeup");
	pump_drive(&pm, h.now);
	port_after_events(&p, h.now);
	CHECK_EQ(ph_ans(&h, r)->len, 6);
	CHECK(memcmp(ph_ans(&h, r)->data, "wakeup", 6) == 0);
	CHECK_EQ(p.stats.rx_discarded, 0);
	done(&p);
}

/*
 * A cancel that crosses a completion carrying bytes (the handheld had
 * answered desktop A; a usbredir server replied before it read the
 * cancel): desktop B, opened and reading before that reply came back,
 * never gets A's bytes; they are counted as discarded, and B's own come.
 */
static void test_stale_in_after_last_close(void)
{
	struct port p;
	uint64_t a = setup(&p, 64 * 1024), b;
	void *r;

	start(&p, 64, 4096);
	CHECK_EQ(fk.in_submitted, PUMP_IN_MAX);
	port_release(&p, a); /* A's last close: every IN cancelled */
	CHECK_EQ(fk.in_cancelled, PUMP_IN_MAX);
	b = ph_open(&h, 1000, false, false);
	r = ph_read(&h, b, 4096, false, h.now); /* B listens before the replies */
	in_reply(0, PUMP_OK, "A-reply");
	for (int i = 1; i < PUMP_IN_MAX; i++)
		in_reply(i, PUMP_CANCELLED, NULL);
	pump_drive(&pm, h.now);
	port_after_events(&p, h.now);
	CHECK_EQ(ph_ans(&h, r)->count, 0);
	CHECK_EQ(p.stats.rx_discarded, 7);
	CHECK_EQ(fk.in_submitted, 2 * PUMP_IN_MAX); /* B's own */
	in_reply(0, PUMP_OK, "B-data");
	pump_drive(&pm, h.now);
	port_after_events(&p, h.now);
	CHECK_EQ(ph_ans(&h, r)->len, 6);
	CHECK(memcmp(ph_ans(&h, r)->data, "B-data", 6) == 0);
	done(&p);
}

/*
 * Row 14: completions only record.  The OUT completion that empties txq
 * after a last close would have run the port's hooks (tx_ready,
 * last_close) inside it; now they run at the next drive, outside.
 */
static void test_no_hook_inside_a_completion(void)
{
	struct port p;
	uint64_t a = setup(&p, 4096);

	start(&p, 64, 4096);
	ph_write(&h, a, "hello", 5, false);
	CHECK_EQ(fk.out_len, 5);
	port_release(&p, a); /* the last close, with output unsent: closing */
	port_after_events(&p, h.now);
	CHECK_EQ(h.last_close, 0);
	h.in_completion = 1; /* as inside the transport's callback */
	pump_out_done(&pm, PUMP_OK, 5);
	in_reply(1, PUMP_OK, "late");
	h.in_completion = 0;
	CHECK_EQ(h.hooks_in_completion, 0);
	CHECK_EQ(h.last_close, 0);
	pump_drive(&pm, h.now); /* after the batch of events */
	CHECK_EQ(h.last_close, 1);
	CHECK_EQ(port_tx_queued(&p), 0);
	CHECK_EQ(fk.closes, 1); /* the close notification */
	done(&p);
}

/* The close notification waits for a halt's clear, on the one control request. */
static void test_close_after_clear(void)
{
	struct port p;
	uint64_t a = setup(&p, 4096);

	start(&p, 64, 4096);
	ph_write(&h, a, "x", 1, false);
	pump_out_done(&pm, PUMP_STALL, 0);
	pump_drive(&pm, h.now);
	CHECK_EQ(fk.clears, 1);
	pump_last_close(&pm, h.now);
	CHECK_EQ(fk.closes, 0);
	pump_ctrl_done(&pm, PUMP_OK);
	pump_drive(&pm, h.now);
	CHECK_EQ(fk.closes, 1);
	CHECK_EQ(fk.out_submitted, 2); /* and the byte went again */
	done(&p);
}

/* "No device" is a departure, so is a submission that says so; a
 * stopped pump cancels what flies and its completions reach no port. */
static void test_gone_and_stopped(void)
{
	struct port p;
	uint64_t fh = setup(&p, 4096);

	start(&p, 64, 4096);
	ph_write(&h, fh, "abc", 3, false);
	CHECK_EQ(fk.out_len, 3);
	pump_out_done(&pm, PUMP_GONE, 0);
	pump_drive(&pm, h.now);
	CHECK_EQ(pump_verdict(&pm), PUMP_DEPARTED);
	CHECK_EQ(fk.out_submitted, 1);
	pump_stop(&pm);
	CHECK_EQ(fk.in_cancelled, PUMP_IN_MAX);
	CHECK_EQ(pump_verdict(&pm), PUMP_FINE); /* acted on */
	in_reply(3, PUMP_CANCELLED, "late");
	pump_drive(&pm, h.now);
	CHECK_EQ(byteq_len(&p.rxq), 0);
	for (int i = 0; i < PUMP_IN_MAX; i++)
		if (fk.flying[i])
			in_reply(i, PUMP_CANCELLED, NULL);
	CHECK_EQ(pump_busy(&pm), 0);
	done(&p);

	setup(&p, 4096);
	fk.fail = -ENODEV;
	start(&p, 64, 4096);
	CHECK_EQ(pump_verdict(&pm), PUMP_DEPARTED);
	done(&p);
	setup(&p, 4096);
	fk.fail = -EAGAIN; /* the transport cannot now: asked again later */
	start(&p, 64, 4096);
	CHECK_EQ(pump_verdict(&pm), PUMP_FINE);
	fk.fail = 0;
	pump_drive(&pm, h.now);
	CHECK_EQ(fk.in_submitted, PUMP_IN_MAX);
	done(&p);
}

/* The first bytes tell the stack (palm-protocol.md section 4), said once,
 * also when they come in pieces. */
static void stack_case(const uint8_t *b, size_t len, size_t first_piece, const char *want)
{
	struct port p;

	setup(&p, 4096);
	start(&p, 64, 4096);
	kept_log_reset();
	fk.flying[0] = fk.flying[1] = fk.flying[2] = false;
	pump_in_done(&pm, 0, PUMP_OK, b, first_piece);
	pump_drive(&pm, h.now);
	if (first_piece < 7)
		CHECK(!strstr(kept_log, "first bytes")); /* not yet */
	pump_in_done(&pm, 1, PUMP_OK, b + first_piece, len - first_piece);
	pump_in_done(&pm, 2, PUMP_OK, b, len); /* more: no second line */
	pump_drive(&pm, h.now);
	if (!strstr(kept_log, want))
		fprintf(stderr, "wanted '%s' in:\n%s", want, kept_log);
	CHECK(strstr(kept_log, want) != NULL);
	CHECK(strstr(kept_log, "first bytes") &&
	      !strstr(strstr(kept_log, "first bytes") + 1, "first bytes")); /* once */
	pump_stop(&pm);
	done(&p);
}

static void test_stack_told(void)
{
	static const uint8_t net[] = { 0x01, 0xff, 0x00, 0x00, 0x00, 0x16, 0x90, 0x01, 0x00 };
	static const uint8_t slp[] = { 0xbe, 0xef, 0xed, 0x03, 0x03, 0x02, 0x00, 0x0e };
	static const uint8_t junk[] = { 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };

	stack_case(net, sizeof(net), 3,
		   "test speaks NetSync: its first bytes are 01 ff 00 00 00 16 90 (the NET "
		   "handshake)");
	stack_case(slp, sizeof(slp), 8, "test speaks SLP: its first bytes are be ef ed");
	stack_case(junk, sizeof(junk), 2,
		   "test: its first bytes (01 00 00 00 00 00 00) are neither an SLP frame nor "
		   "the NET handshake");
}

int main(void)
{
	test_backpressure();
	test_in_order();
	test_out_resend();
	test_halt_cleared_asynchronously();
	test_halts_bound();
	test_rx_stop();
	test_stale_in_after_last_close();
	test_no_hook_inside_a_completion();
	test_close_after_clear();
	test_gone_and_stopped();
	test_stack_told();
	return check_result("test_pump");
}
