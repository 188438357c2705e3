// SPDX-License-Identifier: MIT
/*
 * The port's session rules, driven by a fake front and a fake transport
 * with a fake clock: what a program on /dev/pilot sees before, during and
 * after a handheld, and that every request is answered exactly once on
 * every path (data, interrupt, hangup, release, shutdown).
 */
#include <asm/ioctls.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/port.h"

#define NREQ 4096

enum kind { NONE, OPEN, DATA, WRITTEN, IOCTL, FETCH, ERR };

struct answer {
	int count;
	enum kind kind;
	int err;
	uint64_t fh;
	size_t len;
	uint8_t data[64];
	int seq; /* when it was answered, in hook calls */
};

static struct fake {
	struct answer ans[NREQ];
	int next_req;
	int tx_ready, rx_room, last_close, notified, parked, dropped_handles;
	int seq, tx_ready_seq; /* hook calls so far; the last tx_ready's */
	bool opener_gone;
	struct port *port;	  /* for hooks that call back into it */
	bool depart_in_rx_room;	  /* the handheld leaves inside rx_room */
	bool depart_in_tx_ready;  /* ... or inside tx_ready */
	bool take_in_tx_ready;	  /* the transport sends all inside tx_ready */
	int depth, max_depth;	  /* of transport hooks on the stack */
} fk;

static int reqs[NREQ]; /* stand-ins for fuse_req_t */

static struct answer *ans_of(void *req)
{
	struct answer *a = &fk.ans[(int *)req - reqs];

	a->count++;
	a->seq = ++fk.seq;
	return a;
}

static int h_open(void *ctx, void *req, uint64_t fh)
{
	struct answer *a = ans_of(req);

	a->kind = OPEN;
	a->fh = fh;
	return fk.opener_gone ? -ENOENT : 0;
}

static void h_data(void *ctx, void *req, const void *buf, size_t len)
{
	struct answer *a = ans_of(req);

	a->kind = DATA;
	a->len = len;
	if (len) /* end of file comes as NULL, 0 */
		memcpy(a->data, buf, len < sizeof(a->data) ? len : sizeof(a->data));
}

static void h_written(void *ctx, void *req, size_t len)
{
	struct answer *a = ans_of(req);

	a->kind = WRITTEN;
	a->len = len;
}

static void h_ioctl(void *ctx, void *req, const void *out, size_t len)
{
	struct answer *a = ans_of(req);

	a->kind = IOCTL;
	a->len = len;
	if (out)
		memcpy(a->data, out, len < sizeof(a->data) ? len : sizeof(a->data));
}

static void h_fetch(void *ctx, void *req, uintptr_t arg, size_t in, size_t out)
{
	ans_of(req)->kind = FETCH;
}

static void h_err(void *ctx, void *req, int err)
{
	struct answer *a = ans_of(req);

	a->kind = ERR;
	a->err = err;
}

static void h_parked(void *ctx, void *req)
{
	fk.parked++;
}

static void h_notify(void *ctx, void *ph)
{
	fk.notified++;
}

static void h_drop(void *ctx, void *ph)
{
	fk.dropped_handles++;
}

static void hook_enter(void)
{
	if (++fk.depth > fk.max_depth)
		fk.max_depth = fk.depth;
}

static void h_tx_ready(void *ctx)
{
	hook_enter();
	fk.tx_ready++;
	fk.tx_ready_seq = ++fk.seq;
	if (fk.depart_in_tx_ready && fk.port->carrier)
		port_carrier_down(fk.port);
	if (fk.take_in_tx_ready) {
		static char sink[8192];

		port_tx_done(fk.port, port_tx_take(fk.port, sink, sizeof(sink)));
	}
	fk.depth--;
}

static void h_rx_room(void *ctx)
{
	hook_enter();
	fk.rx_room++;
	if (fk.depart_in_rx_room && fk.port->carrier)
		port_carrier_down(fk.port);
	fk.depth--;
}

static void h_last_close(void *ctx)
{
	fk.last_close++;
}

static void setup(struct port *p)
{
	static const struct port_config cfg = { .rxq_size = 4096,
						.txq_size = 4096,
						.read_max = 1024,
						.files_max = 8,
						.parked_max = 64,
						.parked_write_bytes = 8192,
						.closing_wait_ms = 30000 };
	static const struct port_hooks hooks = {
		.answer_open = h_open,
		.answer_data = h_data,
		.answer_written = h_written,
		.answer_ioctl = h_ioctl,
		.answer_ioctl_fetch = h_fetch,
		.answer_err = h_err,
		.parked = h_parked,
		.notify_poll = h_notify,
		.drop_poll_handle = h_drop,
		.tx_ready = h_tx_ready,
		.rx_room = h_rx_room,
		.last_close = h_last_close,
	};

	memset(&fk, 0, sizeof(fk));
	fk.port = p;
	CHECK_EQ(port_init(p, &cfg, &hooks), 0);
}

static void *new_req(void)
{
	return &reqs[fk.next_req++];
}

static struct answer *ans(void *req)
{
	return &fk.ans[(int *)req - reqs];
}

/* Every request issued so far was answered, and exactly once. */
static void check_all_answered_once(void)
{
	for (int i = 0; i < fk.next_req; i++)
		if (fk.ans[i].count != 1) {
			fprintf(stderr, "request %d answered %d times\n", i, fk.ans[i].count);
			check_failures++;
		}
}

static uint64_t do_open(struct port *p, bool nonblock)
{
	struct port_open_args a = { .uid = 1000, .nonblock = nonblock };
	void *req = new_req();

	port_open(p, req, &a);
	CHECK(ans(req)->count == 1 && ans(req)->kind == OPEN);
	return ans(req)->fh;
}

static void *do_read(struct port *p, uint64_t fh, size_t size, bool nonblock, uint64_t now)
{
	void *req = new_req();

	port_read(p, req, fh, size, nonblock, now);
	return req;
}

static void *do_write(struct port *p, uint64_t fh, const char *s, bool nonblock)
{
	void *req = new_req();

	port_write(p, req, fh, s, strlen(s), nonblock);
	return req;
}

static void *do_ioctl(struct port *p, uint64_t fh, unsigned int cmd, const void *in, size_t in_len,
		      size_t out_len)
{
	/* TCSBRK here is tcdrain(), whose argument is 1; 0 would ask for a break */
	struct tty_ioctl io = { .cmd = cmd, .arg = cmd == TCSBRK, .in = in, .in_len = in_len,
				.out_len = out_len };
	void *req = new_req();

	port_ioctl(p, req, fh, &io);
	return req;
}

/* What the handheld would receive now: take and acknowledge it all. */
static size_t handheld_takes(struct port *p, char *buf, size_t size)
{
	size_t n = port_tx_take(p, buf, size);

	port_tx_done(p, n);
	return n;
}

static bool is_data(void *req, const char *s)
{
	struct answer *a = ans(req);

	return a->count == 1 && a->kind == DATA && a->len == strlen(s) &&
	       memcmp(a->data, s, a->len) == 0;
}

static bool is_err(void *req, int err)
{
	return ans(req)->count == 1 && ans(req)->kind == ERR && ans(req)->err == err;
}

/* Rule: bytes that arrive while no file is open are not kept. */
static void test_rx_with_no_file_open(void)
{
	struct port p;
	uint64_t fh;

	setup(&p);
	port_carrier_up(&p);
	CHECK_EQ(port_rx_room(&p), 0); /* the transport does not even read */
	port_rx(&p, "wakeup", 6, 0);   /* a transfer that was already in flight */
	CHECK_EQ(p.stats.rx_discarded, 6);
	fh = do_open(&p, false);
	CHECK(fk.rx_room == 1 && port_rx_room(&p) == 4096); /* reading starts */
	CHECK(is_err(do_read(&p, fh, 64, true, 0), EAGAIN));
	port_rx(&p, "fresh", 5, 1);
	CHECK(is_data(do_read(&p, fh, 64, true, 1), "fresh"));

	/* unread bytes at the last close are gone for the next opener */
	port_rx(&p, "stale", 5, 2);
	port_release(&p, fh);
	CHECK_EQ(fk.last_close, 1);
	CHECK_EQ(port_rx_room(&p), 0);
	fh = do_open(&p, false);
	CHECK(is_err(do_read(&p, fh, 64, true, 3), EAGAIN));
	CHECK_EQ(p.stats.rx_discarded, 11);
	port_release(&p, fh);
	check_all_answered_once();
	port_free(&p);
}

/* Rule: bytes written while no handheld is attached never reach one. */
static void test_tx_without_handheld(void)
{
	static const char kick[] = "\x01\x00\x00\x00\x00\x00";
	struct port p;
	char buf[64];
	void *w, *q;
	uint64_t fh;

	setup(&p);
	fh = do_open(&p, false);
	w = new_req();
	port_write(&p, w, fh, kick, 6, false);
	CHECK(ans(w)->kind == WRITTEN && ans(w)->len == 6); /* accepted, not parked */
	CHECK_EQ(fk.parked, 0);
	CHECK(port_poll(&p, fh, NULL) & POLLOUT);
	q = do_ioctl(&p, fh, TIOCOUTQ, NULL, 0, 4);
	CHECK(ans(q)->kind == IOCTL && ans(q)->len == 4 && ans(q)->data[0] == 0);
	CHECK_EQ(p.stats.tx_discarded, 6);

	port_carrier_up(&p);
	CHECK_EQ(handheld_takes(&p, buf, sizeof(buf)), 0);
	do_write(&p, fh, "hello", false);
	CHECK_EQ(handheld_takes(&p, buf, sizeof(buf)), 5);
	CHECK(memcmp(buf, "hello", 5) == 0);
	port_release(&p, fh);
	check_all_answered_once();
	port_free(&p);
}

/* Rule: the handheld leaving hangs up the files open then, not later ones. */
static void test_hangup(void)
{
	struct port p;
	void *r, *w, *d, *m;
	uint64_t old, fresh;
	char buf[64];

	setup(&p);
	old = do_open(&p, false);
	port_carrier_up(&p);
	r = do_read(&p, old, 64, false, 0);
	m = do_ioctl(&p, old, TIOCMIWAIT, NULL, 0, 0);
	CHECK(ans(r)->count == 0 && ans(m)->count == 0); /* parked */
	/* fill txq so that a write and a drain wait */
	for (int i = 0; i < 4096 / 8; i++)
		do_write(&p, old, "12345678", false);
	w = do_write(&p, old, "parked", false);
	d = do_ioctl(&p, old, TCSBRK, NULL, 0, 0); /* tcdrain */
	CHECK(ans(w)->count == 0 && ans(d)->count == 0);

	port_carrier_down(&p);
	CHECK(is_data(r, ""));		 /* end of file */
	CHECK(is_err(w, EIO));
	CHECK(ans(m)->kind == IOCTL);	 /* TIOCMIWAIT: the carrier changed */
	CHECK(ans(d)->count == 1);	 /* the drain ends, as the queue is gone */
	CHECK_EQ(p.stats.tx_discarded, 4096);
	CHECK_EQ(port_rx_room(&p), 0);
	CHECK(is_err(do_write(&p, old, "x", false), EIO));
	CHECK(is_err(do_ioctl(&p, old, TCGETS, NULL, 0, 36), EIO));
	CHECK(port_poll(&p, old, NULL) & POLLHUP);
	CHECK(is_data(do_read(&p, old, 64, false, 1), ""));

	/* a file opened after the departure waits for the next handheld */
	fresh = do_open(&p, false);
	CHECK(!(port_poll(&p, fresh, NULL) & POLLHUP));
	r = do_read(&p, fresh, 64, false, 2);
	CHECK_EQ(ans(r)->count, 0);
	port_carrier_up(&p);
	port_rx(&p, "next", 4, 3);
	CHECK_EQ(ans(r)->count, 0); /* answered after the round, with all it brought */
	port_after_events(&p, 3);
	CHECK(is_data(r, "next"));
	CHECK(is_data(do_read(&p, old, 64, false, 3), "")); /* still hung up */
	do_write(&p, fresh, "to the next one", false);
	CHECK_EQ(handheld_takes(&p, buf, sizeof(buf)), 15);
	port_release(&p, old);
	port_release(&p, fresh);
	check_all_answered_once();
	port_free(&p);
}

/* A hung-up file still reads what arrived before the hangup, then 0. */
static void test_hung_up_reads_the_rest(void)
{
	struct port p;
	uint64_t fh;

	setup(&p);
	fh = do_open(&p, false);
	port_carrier_up(&p);
	port_rx(&p, "last words", 10, 0);
	port_carrier_down(&p);
	CHECK(is_data(do_read(&p, fh, 5, false, 1), "last "));
	CHECK(is_data(do_read(&p, fh, 64, false, 1), "words"));
	CHECK(is_data(do_read(&p, fh, 64, false, 1), ""));
	port_release(&p, fh);
	check_all_answered_once();
	port_free(&p);
}

/* ... but never the next handheld's bytes. */
static void test_hung_up_does_not_steal(void)
{
	struct port p;
	uint64_t old, fresh;

	setup(&p);
	old = do_open(&p, false);
	port_carrier_up(&p);
	port_carrier_down(&p);
	fresh = do_open(&p, false);
	port_carrier_up(&p);
	port_rx(&p, "for fresh", 9, 1);
	CHECK(is_data(do_read(&p, old, 64, false, 1), ""));
	CHECK(is_data(do_read(&p, fresh, 64, false, 1), "for fresh"));
	port_release(&p, old);
	port_release(&p, fresh);
	check_all_answered_once();
	port_free(&p);
}

static void set_cflag(struct port *p, uint64_t fh, unsigned int set, unsigned int clear)
{
	struct termios t;
	void *req;

	memcpy(&t, &p->tty.termios, sizeof(t));
	t.c_cflag = (t.c_cflag | set) & ~clear;
	req = do_ioctl(p, fh, TCSETS, &t, sizeof(t), 0);
	CHECK(ans(req)->kind == IOCTL);
}

/* Rule: stty -clocal makes a blocking open wait for a handheld. */
static void test_clocal(void)
{
	struct port_open_args blocking = { .uid = 1000 }, nonblocking = { .nonblock = true };
	struct port p;
	void *o1, *o2, *o3;
	uint64_t fh;

	setup(&p);
	fh = do_open(&p, false); /* CLOCAL, as usb-serial starts: opens at once */
	set_cflag(&p, fh, 0, CLOCAL);
	port_release(&p, fh);

	o1 = new_req();
	port_open(&p, o1, &blocking);
	o2 = new_req();
	port_open(&p, o2, &blocking);
	CHECK(ans(o1)->count == 0 && ans(o2)->count == 0 && fk.parked == 2);
	fh = do_open(&p, true); /* O_NONBLOCK does not wait */
	(void)nonblocking;
	port_interrupt(&p, o2);
	port_after_events(&p, 0);
	CHECK(is_err(o2, EINTR));
	CHECK_EQ(ans(o1)->count, 0);
	port_carrier_up(&p);
	CHECK(ans(o1)->kind == OPEN && ans(o1)->fh != fh);

	/* back to CLOCAL: opens never wait */
	set_cflag(&p, fh, CLOCAL, 0);
	port_carrier_down(&p);
	o3 = new_req();
	port_open(&p, o3, &blocking);
	CHECK(ans(o3)->kind == OPEN);

	/* a parked open is answered at shutdown */
	set_cflag(&p, ans(o3)->fh + 100, 0, CLOCAL); /* any file may set termios */
	o3 = new_req();
	port_open(&p, o3, &blocking);
	CHECK_EQ(ans(o3)->count, 0);
	port_shutdown(&p);
	CHECK(is_err(o3, EIO));
	check_all_answered_once();
	port_free(&p);
}

/* An opener interrupted before the answer reached it leaves no file. */
static void test_opener_gone(void)
{
	struct port p;

	setup(&p);
	fk.opener_gone = true;
	do_open(&p, false);
	CHECK(p.files == NULL && p.live_files == 0);
	CHECK_EQ(fk.last_close, 1);
	port_free(&p);
}

/* VMIN/VTIME with the fake clock. */
static void test_vtime(void)
{
	struct port p;
	struct termios t;
	uint64_t fh;
	void *r;

	setup(&p);
	fh = do_open(&p, false);
	port_carrier_up(&p);
	memcpy(&t, &p.tty.termios, sizeof(t));
	t.c_lflag &= ~(unsigned int)ICANON;
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 5; /* 0.5 s */
	do_ioctl(&p, fh, TCSETS, &t, sizeof(t), 0);
	r = do_read(&p, fh, 64, false, 1000);
	CHECK_EQ(port_after_events(&p, 1100), 1500);
	CHECK_EQ(ans(r)->count, 0);
	CHECK_EQ(port_after_events(&p, 1500), 0);
	CHECK(is_data(r, "")); /* the time ran out with nothing */

	r = do_read(&p, fh, 64, false, 2000);
	port_rx(&p, "ab", 2, 2100);
	port_after_events(&p, 2100);
	CHECK(is_data(r, "ab")); /* VMIN 0: the first bytes end it */
	port_release(&p, fh);
	check_all_answered_once();
	port_free(&p);
}

/* An interrupt and data in the same round: one answer, the data. */
static void test_interrupt_races_data(void)
{
	struct port p;
	uint64_t fh;
	void *r;

	setup(&p);
	fh = do_open(&p, false);
	port_carrier_up(&p);
	r = do_read(&p, fh, 64, false, 0);
	port_interrupt(&p, r);
	port_rx(&p, "won", 3, 1);
	port_after_events(&p, 1);
	CHECK(is_data(r, "won"));

	r = do_read(&p, fh, 64, false, 2);
	port_interrupt(&p, r);
	port_after_events(&p, 2);
	CHECK(is_err(r, EINTR));
	port_interrupt(&p, r); /* a late interrupt of an answered request */
	port_after_events(&p, 3);
	port_release(&p, fh);
	check_all_answered_once();
	port_free(&p);
}

/* Backpressure both ways, and tcdrain waiting for the handheld. */
static void test_backpressure_and_drain(void)
{
	struct port p;
	char buf[4096];
	void *w, *d;
	uint64_t fh;

	setup(&p);
	fh = do_open(&p, false);
	port_carrier_up(&p);
	for (int i = 0; i < 4096 / 8; i++)
		do_write(&p, fh, "abcdefgh", false);
	w = do_write(&p, fh, "more", false);
	CHECK(ans(w)->count == 0);
	CHECK(is_err(do_write(&p, fh, "nb", true), EAGAIN));
	CHECK(!(port_poll(&p, fh, NULL) & POLLOUT));
	d = do_ioctl(&p, fh, TCSBRK, NULL, 0, 0);
	CHECK_EQ(port_tx_take(&p, buf, 1000), 1000);
	port_tx_done(&p, 600); /* a short transfer: 400 bytes are sent again */
	CHECK(ans(w)->kind == WRITTEN && ans(w)->len == 4);
	CHECK_EQ(port_tx_queued(&p), 4096 - 600 + 4);
	CHECK_EQ(port_tx_take(&p, buf, 1), 1);
	CHECK_EQ(buf[0], 'a'); /* offset 600 of a repeating "abcdefgh" is 'a' */
	port_tx_done(&p, 1);
	while (port_tx_queued(&p))
		handheld_takes(&p, buf, sizeof(buf));
	CHECK(ans(d)->kind == IOCTL);

	/* rxq full: the transport is told there is no room */
	for (int i = 0; i < 4; i++)
		port_rx(&p, buf, 1024, 5);
	CHECK_EQ(port_rx_room(&p), 0);
	fk.rx_room = 0;
	do_read(&p, fh, 1024, false, 6);
	CHECK(fk.rx_room == 1 && port_rx_room(&p) == 1024);
	port_release(&p, fh);
	check_all_answered_once();
	port_free(&p);
}

/* The transport hears of new bytes before the writer is answered, so the
 * USB transfer starts while the answer travels: also for parked writes. */
static void test_transfer_before_answer(void)
{
	struct port p;
	char buf[4096];
	void *w;
	uint64_t fh;

	setup(&p);
	fh = do_open(&p, false);
	port_carrier_up(&p);
	w = do_write(&p, fh, "abcdefgh", false);
	CHECK(fk.tx_ready == 1 && ans(w)->kind == WRITTEN);
	CHECK(fk.tx_ready_seq < ans(w)->seq);
	for (int i = 0; i < 4096 / 8 - 1; i++)
		do_write(&p, fh, "abcdefgh", false);
	w = do_write(&p, fh, "more", false); /* parks: txq is full */
	CHECK(ans(w)->count == 0);
	fk.tx_ready = 0;
	handheld_takes(&p, buf, sizeof(buf));
	CHECK(fk.tx_ready >= 1 && ans(w)->kind == WRITTEN);
	CHECK(fk.tx_ready_seq < ans(w)->seq);
	port_release(&p, fh);
	check_all_answered_once();
	port_free(&p);
}

/* tcflush(TCOFLUSH) of bytes nothing has taken yet ends a waiting tcdrain. */
static void test_flush_ends_drain(void)
{
	struct port p;
	void *d;
	uint64_t fh;

	setup(&p);
	fh = do_open(&p, false);
	port_carrier_up(&p);
	do_write(&p, fh, "never sent", false); /* the transport took none of it */
	d = do_ioctl(&p, fh, TCSBRK, NULL, 0, 0);
	CHECK_EQ(ans(d)->count, 0);
	{
		struct tty_ioctl io = { .cmd = TCFLSH, .arg = TCOFLUSH };
		void *f = new_req();

		port_ioctl(&p, f, fh, &io);
		CHECK(ans(f)->kind == IOCTL);
	}
	CHECK_EQ(port_tx_queued(&p), 0);
	CHECK(ans(d)->kind == IOCTL); /* the drain is over */
	port_release(&p, fh);
	check_all_answered_once();
	port_free(&p);
}

/* Release and shutdown answer what is parked, each request once. */
static void test_release_and_shutdown(void)
{
	char buf[4096];
	struct port p;
	void *r1, *r2, *w;
	uint64_t a, b;

	setup(&p);
	a = do_open(&p, false);
	b = do_open(&p, false);
	port_carrier_up(&p);
	r1 = do_read(&p, a, 10, false, 0);
	r2 = do_read(&p, b, 10, false, 0);
	for (int i = 0; i < 4096 / 8; i++)
		do_write(&p, a, "abcdefgh", false);
	w = do_write(&p, a, "x", false);
	port_release(&p, a);
	CHECK(is_err(r1, EIO) && is_err(w, EIO));
	CHECK_EQ(ans(r2)->count, 0);
	CHECK_EQ(fk.last_close, 0);
	port_shutdown(&p);
	CHECK(is_err(r2, EIO));
	port_release(&p, b);
	CHECK_EQ(fk.last_close, 0); /* a's bytes drain first */
	while (port_tx_queued(&p))
		handheld_takes(&p, buf, sizeof(buf));
	CHECK_EQ(fk.last_close, 1);
	check_all_answered_once();
	port_free(&p);
}

/* Poll notifications go to pollers whose events changed, and handles are freed. */
static void test_poll_notify(void)
{
	struct port p;
	int handle1, handle2;
	uint64_t fh;

	setup(&p);
	fh = do_open(&p, false);
	port_carrier_up(&p);
	CHECK_EQ(port_poll(&p, fh, &handle1), POLLOUT | POLLWRNORM);
	port_after_events(&p, 0);
	CHECK_EQ(fk.notified, 0);
	port_rx(&p, "x", 1, 1);
	port_after_events(&p, 1);
	CHECK_EQ(fk.notified, 1);
	CHECK_EQ(port_poll(&p, fh, &handle2), POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM);
	CHECK_EQ(fk.dropped_handles, 1); /* the first one */
	port_carrier_down(&p);
	port_after_events(&p, 2);
	CHECK_EQ(fk.notified, 2);
	port_release(&p, fh);
	CHECK_EQ(fk.dropped_handles, 2);
	port_free(&p);
}

/* Bounds: open files, parked requests, bytes of parked writes. */
static void test_bounds(void)
{
	struct port_open_args a = { .uid = 1000 };
	uint64_t fh[8];
	char big[3000], buf[4096];
	void *req, *w1, *w2;
	struct port p;

	setup(&p);
	for (int i = 0; i < 8; i++)
		fh[i] = do_open(&p, false);
	req = new_req();
	port_open(&p, req, &a);
	CHECK(is_err(req, ENFILE)); /* the ninth */
	port_release(&p, fh[7]);
	fh[7] = do_open(&p, false); /* room again */
	port_carrier_up(&p);

	/* 64 requests may wait; the 65th is refused at once */
	for (int i = 0; i < 64; i++)
		do_read(&p, fh[i % 8], 1, false, 0);
	CHECK_EQ(port_parked_count(&p), 64);
	CHECK(is_err(do_read(&p, fh[0], 1, false, 0), ENOBUFS));
	CHECK(is_err(do_ioctl(&p, fh[0], TIOCMIWAIT, NULL, 0, 0), ENOBUFS));
	port_rx(&p, "0123456789012345678901234567890123456789012345678901234567890123", 64, 1);
	port_after_events(&p, 1);
	CHECK_EQ(port_parked_count(&p), 0);

	/* 8192 bytes of parked writes at most, in all */
	memset(big, 'w', sizeof(big));
	for (int i = 0; i < 4096 / 8; i++)
		do_write(&p, fh[0], "abcdefgh", false);
	w1 = new_req();
	port_write(&p, w1, fh[1], big, sizeof(big), false);
	w2 = new_req();
	port_write(&p, w2, fh[2], big, sizeof(big), false);
	CHECK(ans(w1)->count == 0 && ans(w2)->count == 0);
	req = new_req();
	port_write(&p, req, fh[3], big, sizeof(big), false); /* 9000 > 8192 */
	CHECK(is_err(req, ENOBUFS));
	CHECK_EQ(p.parked_write_bytes, 6000);
	while (port_tx_queued(&p))
		handheld_takes(&p, buf, sizeof(buf));
	CHECK(ans(w1)->kind == WRITTEN && ans(w2)->kind == WRITTEN);
	CHECK_EQ(p.parked_write_bytes, 0);
	CHECK(p.stats.refused == 4);
	for (int i = 0; i < 8; i++)
		port_release(&p, fh[i]);
	check_all_answered_once();
	port_free(&p);
}

/* TCOOFF does not outlive the last close (row 5 of issue 17). */
static void test_stopped_output_dropped_at_last_close(void)
{
	struct tty_ioctl off = { .cmd = TCXONC, .arg = TCOOFF };
	struct port p;
	char buf[64];
	uint64_t fh;
	void *req;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(&p, false);
	req = new_req();
	port_ioctl(&p, req, fh, &off);
	CHECK(p.tty.output_stopped);
	do_write(&p, fh, "held", false);
	CHECK_EQ(handheld_takes(&p, buf, sizeof(buf)), 0);
	port_release(&p, fh);
	CHECK(!p.tty.output_stopped && !p.tty.exclusive);
	CHECK_EQ(handheld_takes(&p, buf, sizeof(buf)), 4); /* the closing drain */
	fh = do_open(&p, false);
	do_write(&p, fh, "next", false);
	req = do_ioctl(&p, fh, TCSBRK, NULL, 0, 0); /* tcdrain */
	CHECK_EQ(handheld_takes(&p, buf, sizeof(buf)), 4);
	CHECK(memcmp(buf, "next", 4) == 0 && ans(req)->kind == IOCTL);
	port_release(&p, fh);
	check_all_answered_once();
	port_free(&p);
}

/* A file opened after a departure never reads the departed one's bytes (row 6). */
static void test_departed_bytes_stay_with_their_session(void)
{
	struct port p;
	uint64_t old, fresh;
	void *r, *q;

	setup(&p);
	old = do_open(&p, false);
	port_carrier_up(&p);
	port_rx(&p, "secret", 6, 0);
	port_carrier_down(&p);
	fresh = do_open(&p, false); /* another user, between two handhelds */
	CHECK(is_err(do_read(&p, fresh, 64, true, 1), EAGAIN));
	CHECK(!(port_poll(&p, fresh, NULL) & POLLIN));
	q = do_ioctl(&p, fresh, FIONREAD, NULL, 0, 4);
	CHECK(ans(q)->kind == IOCTL && ans(q)->data[0] == 0);
	r = do_read(&p, fresh, 64, false, 1);
	port_after_events(&p, 1);
	CHECK_EQ(ans(r)->count, 0);
	CHECK(is_data(do_read(&p, old, 3, false, 1), "sec")); /* its own session's */
	port_release(&p, old);
	CHECK_EQ(byteq_len(&p.rxq), 0); /* nobody of that session is left */
	port_carrier_up(&p);
	port_rx(&p, "mine", 4, 2);
	port_after_events(&p, 2);
	CHECK(is_data(r, "mine"));
	port_release(&p, fresh);
	check_all_answered_once();
	port_free(&p);
}

/* Output unsent at the last close drains for the closing wait at most,
 * and never goes out behind the next session's (row 7). */
static void test_closing_wait(void)
{
	struct port_open_args blocking = { .uid = 1000 }, nonblocking = { .nonblock = true };
	struct port p;
	char buf[64];
	uint64_t fh;
	void *o, *n;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(&p, false);
	do_write(&p, fh, "STALE", false); /* the handheld takes nothing */
	port_release(&p, fh);
	CHECK(p.closing && fk.last_close == 0);
	o = new_req();
	port_open(&p, o, &blocking);
	n = new_req();
	port_open(&p, n, &nonblocking);
	CHECK(ans(o)->count == 0 && is_err(n, EAGAIN));
	CHECK_EQ(port_after_events(&p, 1000), 31000);
	CHECK_EQ(port_after_events(&p, 30999), 31000);
	CHECK_EQ(ans(o)->count, 0);
	port_after_events(&p, 31000);
	CHECK(ans(o)->kind == OPEN && !p.closing && fk.last_close == 1);
	CHECK_EQ(p.stats.tx_discarded, 5);
	do_write(&p, ans(o)->fh, "fresh", false);
	CHECK_EQ(handheld_takes(&p, buf, sizeof(buf)), 5);
	CHECK(memcmp(buf, "fresh", 5) == 0);
	port_release(&p, ans(o)->fh);

	/* taken in time: the next open goes ahead once it has gone */
	fh = do_open(&p, false);
	do_write(&p, fh, "hello", false);
	port_release(&p, fh);
	o = new_req();
	port_open(&p, o, &blocking);
	CHECK_EQ(ans(o)->count, 0);
	CHECK_EQ(handheld_takes(&p, buf, sizeof(buf)), 5);
	CHECK(ans(o)->kind == OPEN);
	port_release(&p, ans(o)->fh);

	/* setserial closing_wait none: the rest goes at once */
	p.tty.closing_wait = 65535;
	fh = do_open(&p, false);
	do_write(&p, fh, "dropped", false);
	port_release(&p, fh);
	o = new_req();
	port_open(&p, o, &blocking);
	CHECK_EQ(ans(o)->count, 0);
	port_after_events(&p, 40000);
	CHECK(ans(o)->kind == OPEN && port_tx_queued(&p) == 0);
	port_release(&p, ans(o)->fh);
	p.tty.closing_wait = 3000;

	/* a departure ends the wait too, and the bytes with it */
	fh = do_open(&p, false);
	do_write(&p, fh, "gone", false);
	port_release(&p, fh);
	o = new_req();
	port_open(&p, o, &blocking); /* CLOCAL: opens once nothing drains */
	port_carrier_down(&p);
	CHECK(ans(o)->kind == OPEN && port_tx_queued(&p) == 0);
	port_release(&p, ans(o)->fh);
	check_all_answered_once();
	port_free(&p);
}

/* Hooks that call back: a departure inside rx_room while a TCSETSF's
 * flush runs, and inside tx_ready (row 2); a transport that sends from
 * inside tx_ready.  Every request once, hooks never nested. */
static void test_reentrant_hooks(void)
{
	struct termios t;
	struct port p;
	void *d, *w;
	char buf[4096];
	uint64_t fh;

	setup(&p);
	fh = do_open(&p, false);
	port_carrier_up(&p);
	port_rx(&p, "in", 2, 0);
	do_write(&p, fh, "queued", false);
	memcpy(&t, &p.tty.termios, sizeof(t));
	d = do_ioctl(&p, fh, TCSETSF, &t, sizeof(t), 0); /* waits for the output */
	CHECK_EQ(ans(d)->count, 0);
	fk.depart_in_rx_room = true;
	handheld_takes(&p, buf, sizeof(buf)); /* drained: the flush runs */
	CHECK(ans(d)->count == 1 && !p.carrier);
	fk.depart_in_rx_room = false;

	fh = do_open(&p, false);
	port_carrier_up(&p);
	fk.depart_in_tx_ready = true;
	w = do_write(&p, fh, "bye", false);
	CHECK(ans(w)->kind == WRITTEN && !p.carrier);
	fk.depart_in_tx_ready = false;

	fh = do_open(&p, false);
	port_carrier_up(&p);
	fk.take_in_tx_ready = true;
	for (int i = 0; i < 2000; i++)
		do_write(&p, fh, "abcdefgh", false);
	CHECK_EQ(port_tx_queued(&p), 0);
	CHECK_EQ(p.stats.tx_bytes, 16000);
	CHECK_EQ(fk.max_depth, 1);
	port_shutdown(&p);
	port_free(&p);
	check_all_answered_once();
}

/*
 * Random requests, interrupts, arrivals and departures: no request is
 * ever answered twice, and after shutdown and release every one has been
 * answered.
 */
static void test_random_sessions(void)
{
	struct port p;
	uint64_t files[4] = { 0 };
	uint64_t now = 0;
	char buf[700];
	void *pending[NREQ];
	int npending = 0;

	setup(&p);
	srand(7);
	memset(buf, 'r', sizeof(buf));
	for (int step = 0; step < 20000 && fk.next_req < NREQ - 8; step++) {
		int op = rand() % 12, fi = rand() % 4;
		uint64_t fh = files[fi];
		void *req;

		now += (uint64_t)(rand() % 50);
		switch (op) {
		case 0:
			if (!fh) {
				struct port_open_args a = { .nonblock = rand() % 2 };

				req = new_req();
				port_open(&p, req, &a);
				if (ans(req)->kind == OPEN)
					files[fi] = ans(req)->fh;
			}
			break;
		case 1:
			if (fh) {
				port_release(&p, fh);
				files[fi] = 0;
			}
			break;
		case 2:
		case 3:
			if (fh)
				pending[npending++] = do_read(&p, fh, 1 + (size_t)(rand() % 600),
							      rand() % 3 == 0, now);
			break;
		case 4:
			if (fh) {
				req = new_req();
				port_write(&p, req, fh, buf, 1 + (size_t)(rand() % 700),
					   rand() % 3 == 0);
				pending[npending++] = req;
			}
			break;
		case 5:
			if (fh)
				pending[npending++] = do_ioctl(&p, fh, rand() % 2 ? TCSBRK : TIOCMIWAIT,
							       NULL, 0, 0);
			break;
		case 6:
			if (npending)
				port_interrupt(&p, pending[rand() % npending]);
			break;
		case 7:
			if (rand() % 4 == 0)
				p.carrier ? port_carrier_down(&p) : port_carrier_up(&p);
			break;
		case 8: {
			size_t room = port_rx_room(&p);
			size_t n = 1 + (size_t)(rand() % 300);

			if (room || rand() % 8 == 0)
				port_rx(&p, buf, n < room || !room ? n : room, now);
			break;
		}
		case 9:
		case 10: {
			size_t n = port_tx_take(&p, buf, 1 + (size_t)(rand() % 512));

			port_tx_done(&p, n ? (size_t)rand() % (n + 1) : 0);
			break;
		}
		case 11: port_after_events(&p, now); break;
		}
		for (int i = 0; i < fk.next_req; i++)
			if (fk.ans[i].count > 1) {
				fprintf(stderr, "step %d: request %d answered twice\n", step, i);
				check_failures++;
				goto out;
			}
	}
out:
	port_after_events(&p, now + 100000);
	port_shutdown(&p);
	for (int i = 0; i < 4; i++)
		if (files[i])
			port_release(&p, files[i]);
	CHECK(fk.next_req > 1000);
	check_all_answered_once();
	port_free(&p);
}

int main(void)
{
	test_rx_with_no_file_open();
	test_tx_without_handheld();
	test_hangup();
	test_hung_up_reads_the_rest();
	test_hung_up_does_not_steal();
	test_clocal();
	test_opener_gone();
	test_vtime();
	test_interrupt_races_data();
	test_backpressure_and_drain();
	test_transfer_before_answer();
	test_flush_ends_drain();
	test_release_and_shutdown();
	test_poll_notify();
	test_bounds();
	test_stopped_output_dropped_at_last_close();
	test_departed_bytes_stay_with_their_session();
	test_closing_wait();
	test_reentrant_hooks();
	test_random_sessions();
	return check_result("test_port");
}
