// SPDX-License-Identifier: MIT
/*
 * The port's session rules, driven by a fake front and a fake transport
 * with a fake clock: what a program on /dev/pilot sees before, during and
 * after a handheld, and that every request is answered exactly once on
 * every path (data, interrupt, hangup, release, shutdown).
 */
#include <asm/ioctls.h>
#include <errno.h>
#include <linux/serial.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "raw_termios.h"
#include "port_harness.h"

#define NREQ 4096

static struct ph h; /* the fake front and transport (port_harness.h) */

static void setup_with(struct port *p, const struct port_config *cfg)
{
	CHECK_EQ(ph_init(&h, p, cfg, NREQ), 0);
	make_raw_termios(&p->tty.termios); /* the tests of lines set ICANON */
}

static void setup(struct port *p)
{
	setup_with(p, &ph_config_small);
}

/* Every request issued so far was answered, and exactly once. */
static void check_all_answered_once(void)
{
	check_failures += ph_unanswered_or_twice(&h);
}

/* The end of a test: after shutdown and the last release too, every
 * request answered exactly once. */
static void teardown(void)
{
	CHECK_EQ(ph_close_all(&h), 0);
	ph_free(&h);
}

static void *new_req(void)
{
	return ph_req(&h);
}

static struct ph_answer *ans(void *req)
{
	return ph_ans(&h, req);
}

static uint64_t do_open_as(uint32_t uid, bool nonblock)
{
	/* uid 0 stands for root with its capabilities (test_privilege: without);
	 * a desktop listens: bytes are taken */
	uint64_t fh = ph_open(&h, uid, nonblock, true);

	CHECK(fh != 0); /* answered OPEN, once */
	return fh;
}

/* An open by a user of its own: no quarter of a bound is reached. */
static uint64_t do_open(bool nonblock)
{
	return do_open_as(1000 + (uint32_t)h.nreq, nonblock);
}

static void *do_write(uint64_t fh, const char *s, bool nonblock)
{
	return ph_write(&h, fh, s, strlen(s), nonblock);
}

static void *do_ioctl(uint64_t fh, unsigned int cmd, const void *in, size_t in_len, size_t out_len)
{
	/* TCSBRK here is tcdrain(), whose argument is 1; 0 would ask for a break */
	return ph_ioctl(&h, fh, cmd, cmd == TCSBRK, in, in_len, out_len, false);
}

static bool is_data(void *req, const char *s)
{
	struct ph_answer *a = ans(req);

	return a->count == 1 && a->kind == PH_DATA && a->len == strlen(s) &&
	       memcmp(a->data, s, a->len) == 0;
}

static bool is_err(void *req, int err)
{
	return ph_is_err(&h, req, err);
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
	fh = do_open(false);
	CHECK(h.rx_room == 1 && port_rx_room(&p) == 4096); /* reading starts */
	CHECK(is_err(ph_read(&h, fh, 64, true, 0), EAGAIN));
	port_rx(&p, "fresh", 5, 1);
	CHECK(is_data(ph_read(&h, fh, 64, true, 1), "fresh"));

	/* unread bytes at the last close are gone for the next opener */
	port_rx(&p, "stale", 5, 2);
	port_release(&p, fh);
	CHECK_EQ(h.last_close, 1);
	CHECK_EQ(port_rx_room(&p), 0);
	fh = do_open(false);
	CHECK(is_err(ph_read(&h, fh, 64, true, 3), EAGAIN));
	CHECK_EQ(p.stats.rx_discarded, 11);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* Bytes are taken from the handheld once a file listens (reads, polls,
 * FIONREAD), not at open: a tcflush() right after open cannot discard
 * what the handheld said first (issue 19 item 4). */
static void test_listening_starts_at_first_read(void)
{
	struct tty_ioctl flush = { .cmd = TCFLSH, .arg = TCIOFLUSH };
	struct port_open_args a = { .uid = 1000 };
	struct port p;
	void *req, *q;
	uint64_t fh;

	setup(&p);
	port_carrier_up(&p);
	req = new_req();
	port_open(&p, req, &a);
	fh = ans(req)->fh;
	CHECK(port_rx_room(&p) == 0 && h.rx_room == 0); /* the wakeup waits in the handheld */
	req = new_req();
	port_ioctl(&p, req, fh, &flush);
	CHECK(ans(req)->kind == PH_IOCTL);
	q = do_ioctl(fh, FIONREAD, NULL, 0, 4); /* a first question: now it listens */
	CHECK(ans(q)->kind == PH_IOCTL && ans(q)->data[0] == 0);
	CHECK(port_rx_room(&p) == 4096 && h.rx_room == 1);
	port_rx(&p, "wakeup", 6, 1);
	CHECK(is_data(ph_read(&h, fh, 64, true, 1), "wakeup"));
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* A hung-up file with unread bytes polls POLLIN | POLLHUP; POLLERR once
 * they are read (issue 19 item 4: libuv closes on POLLERR). */
static void test_hung_up_poll(void)
{
	struct port p;
	uint64_t fh;

	setup(&p);
	fh = do_open(false);
	port_carrier_up(&p);
	port_rx(&p, "bye", 3, 0);
	port_carrier_down(&p);
	CHECK_EQ(port_poll(&p, fh, NULL, 0),
		 POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM | POLLHUP);
	CHECK(is_data(ph_read(&h, fh, 64, false, 1), "bye"));
	CHECK(port_poll(&p, fh, NULL, 0) & POLLERR);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
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
	fh = do_open(false);
	w = new_req();
	port_write(&p, w, fh, kick, 6, false);
	CHECK(ans(w)->kind == PH_WRITTEN && ans(w)->len == 6); /* accepted, not parked */
	CHECK_EQ(h.parked, 0);
	CHECK(port_poll(&p, fh, NULL, 0) & POLLOUT);
	q = do_ioctl(fh, TIOCOUTQ, NULL, 0, 4);
	CHECK(ans(q)->kind == PH_IOCTL && ans(q)->len == 4 && ans(q)->data[0] == 0);
	CHECK_EQ(p.stats.tx_discarded, 6);

	port_carrier_up(&p);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 0);
	do_write(fh, "hello", false);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 5);
	CHECK(memcmp(buf, "hello", 5) == 0);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* Rule: the handheld leaving hangs up the files open then, not later ones. */
static void test_hangup(void)
{
	struct port p;
	void *r, *w, *d, *m;
	uint64_t old, fresh;
	char buf[64];

	setup(&p);
	old = do_open(false);
	port_carrier_up(&p);
	r = ph_read(&h, old, 64, false, 0);
	m = do_ioctl(old, TIOCMIWAIT, NULL, 0, 0);
	CHECK(ans(r)->count == 0 && ans(m)->count == 0); /* parked */
	/* fill txq so that a write and a drain wait */
	for (int i = 0; i < 4096 / 8; i++)
		do_write(old, "12345678", false);
	w = do_write(old, "parked", false);
	d = do_ioctl(old, TCSBRK, NULL, 0, 0); /* tcdrain */
	CHECK(ans(w)->count == 0 && ans(d)->count == 0);

	port_carrier_down(&p);
	CHECK(is_data(r, ""));		 /* end of file */
	CHECK(is_err(w, EIO));
	CHECK(is_err(m, EIO));		 /* TIOCMIWAIT: as usb-serial's, the device is gone */
	CHECK(ans(d)->count == 1);	 /* the drain ends, as the queue is gone */
	CHECK_EQ(p.stats.tx_discarded, 4096);
	CHECK_EQ(port_rx_room(&p), 0);
	CHECK(is_err(do_write(old, "x", false), EIO));
	CHECK(is_err(do_ioctl(old, TCGETS, NULL, 0, 36), EIO));
	CHECK(port_poll(&p, old, NULL, 0) & POLLHUP);
	CHECK(is_data(ph_read(&h, old, 64, false, 1), ""));

	/* a file opened after the departure waits for the next handheld */
	fresh = do_open(false);
	CHECK(!(port_poll(&p, fresh, NULL, 0) & POLLHUP));
	r = ph_read(&h, fresh, 64, false, 2);
	CHECK_EQ(ans(r)->count, 0);
	port_carrier_up(&p);
	port_rx(&p, "next", 4, 3);
	CHECK_EQ(ans(r)->count, 0); /* answered after the round, with all it brought */
	port_after_events(&p, 3);
	CHECK(is_data(r, "next"));
	CHECK(is_data(ph_read(&h, old, 64, false, 3), "")); /* still hung up */
	do_write(fresh, "to the next one", false);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 15);
	port_release(&p, old);
	port_release(&p, fresh);
	check_all_answered_once();
	teardown();
}

/* A hung-up file still reads what arrived before the hangup, then 0. */
static void test_hung_up_reads_the_rest(void)
{
	struct port p;
	uint64_t fh;

	setup(&p);
	fh = do_open(false);
	port_carrier_up(&p);
	port_rx(&p, "last words", 10, 0);
	port_carrier_down(&p);
	CHECK(is_data(ph_read(&h, fh, 5, false, 1), "last "));
	CHECK(is_data(ph_read(&h, fh, 64, false, 1), "words"));
	CHECK(is_data(ph_read(&h, fh, 64, false, 1), ""));
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* ... but never the next handheld's bytes. */
static void test_hung_up_does_not_steal(void)
{
	struct port p;
	uint64_t old, fresh;

	setup(&p);
	old = do_open(false);
	port_carrier_up(&p);
	port_carrier_down(&p);
	fresh = do_open(false);
	port_carrier_up(&p);
	port_rx(&p, "for fresh", 9, 1);
	CHECK(is_data(ph_read(&h, old, 64, false, 1), ""));
	CHECK(is_data(ph_read(&h, fresh, 64, false, 1), "for fresh"));
	port_release(&p, old);
	port_release(&p, fresh);
	check_all_answered_once();
	teardown();
}

static void set_cflag(struct port *p, uint64_t fh, unsigned int set, unsigned int clear)
{
	struct termios t;
	void *req;

	memcpy(&t, &p->tty.termios, sizeof(t));
	t.c_cflag = (t.c_cflag | set) & ~clear;
	req = do_ioctl(fh, TCSETS, &t, sizeof(t), 0);
	CHECK(ans(req)->kind == PH_IOCTL);
}

/* Rule: stty -clocal makes a blocking open wait for a handheld. */
static void test_clocal(void)
{
	struct port_open_args blocking = { .uid = 1000 }, nonblocking = { .nonblock = true };
	struct port p;
	void *o1, *o2, *o3;
	uint64_t fh;

	setup(&p);
	fh = do_open(false); /* CLOCAL, as usb-serial starts: opens at once */
	set_cflag(&p, fh, 0, CLOCAL);
	port_release(&p, fh);

	o1 = new_req();
	port_open(&p, o1, &blocking);
	o2 = new_req();
	port_open(&p, o2, &blocking);
	CHECK(ans(o1)->count == 0 && ans(o2)->count == 0 && h.parked == 2);
	fh = do_open(true); /* O_NONBLOCK does not wait */
	(void)nonblocking;
	port_interrupt(&p, o2);
	port_after_events(&p, 0);
	CHECK(is_err(o2, EINTR));
	CHECK_EQ(ans(o1)->count, 0);
	port_carrier_up(&p);
	CHECK(ans(o1)->kind == PH_OPEN && ans(o1)->fh != fh);

	/* back to CLOCAL: opens never wait */
	set_cflag(&p, fh, CLOCAL, 0);
	port_carrier_down(&p);
	o3 = new_req();
	port_open(&p, o3, &blocking);
	CHECK(ans(o3)->kind == PH_OPEN);

	/* a parked open is answered at shutdown */
	set_cflag(&p, ans(o3)->fh + 100, 0, CLOCAL); /* any file may set termios */
	o3 = new_req();
	port_open(&p, o3, &blocking);
	CHECK_EQ(ans(o3)->count, 0);
	port_shutdown(&p);
	CHECK(is_err(o3, EIO));
	check_all_answered_once();
	teardown();
}

/* TIOCMIWAIT wakes only for the lines its mask names; a departure is EIO. */
static void test_modem_wait_mask(void)
{
	struct tty_ioctl cd = { .cmd = TIOCMIWAIT, .arg = 0x040 }, ring = { .cmd = TIOCMIWAIT,
									   .arg = 0x080 };
	struct port p;
	void *a, *b;
	uint64_t fh;

	setup(&p);
	fh = do_open(false);
	a = new_req();
	port_ioctl(&p, a, fh, &cd);
	b = new_req();
	port_ioctl(&p, b, fh, &ring);
	port_carrier_up(&p);
	CHECK(ans(a)->kind == PH_IOCTL && ans(b)->count == 0); /* RI never changes */
	port_carrier_down(&p);
	CHECK(is_err(b, EIO));
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* An opener interrupted before the answer reached it leaves no file. */
static void test_opener_gone(void)
{
	struct port p;

	setup(&p);
	h.opener_gone = true;
	do_open(false);
	CHECK(p.files == NULL && p.live_files == 0);
	CHECK_EQ(h.last_close, 1);
	teardown();
}

/* VMIN/VTIME with the fake clock. */
static void test_vtime(void)
{
	struct port p;
	struct termios t;
	uint64_t fh;
	void *r;

	setup(&p);
	fh = do_open(false);
	port_carrier_up(&p);
	memcpy(&t, &p.tty.termios, sizeof(t));
	t.c_lflag &= ~(unsigned int)ICANON;
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 5; /* 0.5 s */
	do_ioctl(fh, TCSETS, &t, sizeof(t), 0);
	r = ph_read(&h, fh, 64, false, 1000);
	CHECK_EQ(port_after_events(&p, 1100), 1500);
	CHECK_EQ(ans(r)->count, 0);
	CHECK_EQ(port_after_events(&p, 1500), 0);
	CHECK(is_data(r, "")); /* the time ran out with nothing */

	r = ph_read(&h, fh, 64, false, 2000);
	port_rx(&p, "ab", 2, 2100);
	port_after_events(&p, 2100);
	CHECK(is_data(r, "ab")); /* VMIN 0: the first bytes end it */
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* An interrupt and data in the same round: one answer, the data. */
static void test_interrupt_races_data(void)
{
	struct port p;
	uint64_t fh;
	void *r;

	setup(&p);
	fh = do_open(false);
	port_carrier_up(&p);
	r = ph_read(&h, fh, 64, false, 0);
	port_interrupt(&p, r);
	port_rx(&p, "won", 3, 1);
	port_after_events(&p, 1);
	CHECK(is_data(r, "won"));

	r = ph_read(&h, fh, 64, false, 2);
	port_interrupt(&p, r);
	port_after_events(&p, 2);
	CHECK(is_err(r, EINTR));
	port_interrupt(&p, r); /* a late interrupt of an answered request */
	port_after_events(&p, 3);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* Backpressure both ways, and tcdrain waiting for the handheld. */
static void test_backpressure_and_drain(void)
{
	struct port p;
	char buf[4096];
	void *w, *d;
	uint64_t fh;

	setup(&p);
	fh = do_open(false);
	port_carrier_up(&p);
	for (int i = 0; i < 4096 / 8; i++)
		do_write(fh, "abcdefgh", false);
	w = do_write(fh, "more", false);
	CHECK(ans(w)->count == 0);
	CHECK(is_err(do_write(fh, "nb", true), EAGAIN));
	CHECK(!(port_poll(&p, fh, NULL, 0) & POLLOUT));
	d = do_ioctl(fh, TCSBRK, NULL, 0, 0);
	CHECK_EQ(port_tx_take(&p, buf, 1000), 1000);
	port_tx_done(&p, 600); /* a short transfer: 400 bytes are sent again */
	CHECK(ans(w)->kind == PH_WRITTEN && ans(w)->len == 4);
	CHECK_EQ(port_tx_queued(&p), 4096 - 600 + 4);
	CHECK_EQ(port_tx_take(&p, buf, 1), 1);
	CHECK_EQ(buf[0], 'a'); /* offset 600 of a repeating "abcdefgh" is 'a' */
	port_tx_done(&p, 1);
	while (port_tx_queued(&p))
		ph_handheld_takes_into(&h, buf, sizeof(buf));
	CHECK(ans(d)->kind == PH_IOCTL);

	/* rxq full: the transport is told there is no room */
	for (int i = 0; i < 4; i++)
		port_rx(&p, buf, 1024, 5);
	CHECK_EQ(port_rx_room(&p), 0);
	h.rx_room = 0;
	ph_read(&h, fh, 1024, false, 6);
	CHECK(h.rx_room == 1 && port_rx_room(&p) == 1024);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
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
	fh = do_open(false);
	port_carrier_up(&p);
	w = do_write(fh, "abcdefgh", false);
	CHECK(h.tx_ready == 1 && ans(w)->kind == PH_WRITTEN);
	CHECK(h.tx_ready_seq < ans(w)->seq);
	for (int i = 0; i < 4096 / 8 - 1; i++)
		do_write(fh, "abcdefgh", false);
	w = do_write(fh, "more", false); /* parks: txq is full */
	CHECK(ans(w)->count == 0);
	h.tx_ready = 0;
	ph_handheld_takes_into(&h, buf, sizeof(buf));
	CHECK(h.tx_ready >= 1 && ans(w)->kind == PH_WRITTEN);
	CHECK(h.tx_ready_seq < ans(w)->seq);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* tcflush(TCOFLUSH) of bytes nothing has taken yet ends a waiting tcdrain. */
static void test_flush_ends_drain(void)
{
	struct port p;
	void *d;
	uint64_t fh;

	setup(&p);
	fh = do_open(false);
	port_carrier_up(&p);
	do_write(fh, "never sent", false); /* the transport took none of it */
	d = do_ioctl(fh, TCSBRK, NULL, 0, 0);
	CHECK_EQ(ans(d)->count, 0);
	{
		struct tty_ioctl io = { .cmd = TCFLSH, .arg = TCOFLUSH };
		void *f = new_req();

		port_ioctl(&p, f, fh, &io);
		CHECK(ans(f)->kind == PH_IOCTL);
	}
	CHECK_EQ(port_tx_queued(&p), 0);
	CHECK(ans(d)->kind == PH_IOCTL); /* the drain is over */
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * A port whose txq is full but for 8 bytes, a drain of the kernel's write
 * buffer *d of 12 bytes parked with 8 of them queued, and a blocking
 * write() *w of 6 parked behind it: returns the file.
 */
static uint64_t park_kernel_drain(struct port *p, void **d, void **w)
{
	uint64_t fh;

	setup(p);
	fh = do_open(false);
	port_carrier_up(p);
	for (int i = 0; i < 4096 / 8 - 1; i++)
		do_write(fh, "abcdefgh", false);
	*d = ph_req(&h);
	port_write_buffered(p, *d, fh, "kernelbuffer", 12); /* 8 fit, 4 park */
	*w = do_write(fh, "writer", false);		     /* parks behind it */
	return fh;
}

/*
 * After an output flush of park_kernel_drain()'s port: the drain answered
 * whole, its 12 bytes and txq's dropped, the writer's 6 sent; the file is
 * released and the port torn down.
 */
static void check_kernel_drain_flushed(struct port *p, uint64_t fh, void *d, void *w)
{
	char buf[4096];
	size_t n;

	CHECK(ans(d)->kind == PH_WRITTEN && ans(d)->len == 12);
	CHECK(ans(w)->kind == PH_WRITTEN && ans(w)->len == 6);
	CHECK_EQ(p->stats.tx_flushed, 4096 - 8 + 12);
	n = ph_handheld_takes_into(&h, buf, sizeof(buf));
	CHECK(n == 6 && memcmp(buf, "writer", 6) == 0);
	CHECK_EQ(port_tx_queued(p), 0);
	port_release(p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * A drain of the kernel's write buffer (kernel-patches/stream-write) holds
 * bytes whose write() returned, as a tty driver's buffer: tcflush(TCOFLUSH)
 * drops what of it waits for room and answers it whole, where a blocking
 * write() parked behind it is a writer still in n_tty_write(), whose bytes
 * go on after the flush.  Neither the drain's queued part nor its rest
 * reaches the handheld.
 */
static void test_flush_drops_kernel_buffer(void)
{
	struct tty_ioctl io = { .cmd = TCFLSH, .arg = TCOFLUSH };
	struct port p;
	void *d, *w, *f;
	uint64_t fh;

	fh = park_kernel_drain(&p, &d, &w);
	CHECK_EQ(ans(d)->count, 0);
	CHECK_EQ(ans(w)->count, 0);
	/* the kernel counts the drain's 12 bytes itself until answered */
	f = do_ioctl(fh, TIOCOUTQ, NULL, 0, sizeof(int));
	CHECK(ans(f)->kind == PH_IOCTL && ans(f)->len == sizeof(int) &&
	      *(int *)ans(f)->data == 4096 - 8);
	f = new_req();
	port_ioctl(&p, f, fh, &io);
	CHECK(ans(f)->kind == PH_IOCTL);
	/*
	 * The drain before the flush: the kernel counts it in TIOCOUTQ until
	 * it is answered, and the caller of tcflush() may ask at once.
	 */
	CHECK(ans(d)->count == 1 && ans(d)->seq < ans(f)->seq);
	check_kernel_drain_flushed(&p, fh, d, w);
}

/*
 * The kernel interrupts a drain of its write buffer that waits for room at
 * the release of its file, once the closing wait is over: the drain is
 * answered whole, its bytes not queued dropped, and a blocking writer
 * behind it still waits for room (it is a writer in n_tty_write()).
 */
static void test_interrupted_drain_drops_kernel_buffer(void)
{
	char buf[4096];
	struct port p;
	void *d, *w;
	uint64_t fh;
	size_t n;

	fh = park_kernel_drain(&p, &d, &w);
	port_interrupt(&p, d);
	port_after_events(&p, 0);
	CHECK(ans(d)->kind == PH_WRITTEN && ans(d)->len == 12);
	CHECK_EQ(ans(w)->count, 0);
	CHECK_EQ(p.stats.tx_flushed, 4);
	n = ph_handheld_takes_into(&h, buf, sizeof(buf));
	CHECK_EQ(n, 4096);
	CHECK(memcmp(buf + 4096 - 8, "kernelbu", 8) == 0);
	n = ph_handheld_takes_into(&h, buf, sizeof(buf));
	CHECK(n == 6 && memcmp(buf, "writer", 6) == 0);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* Release and shutdown answer what is parked, each request once. */
static void test_release_and_shutdown(void)
{
	char buf[4096];
	struct port p;
	void *r1, *r2, *w;
	uint64_t a, b;

	setup(&p);
	a = do_open(false);
	b = do_open(false);
	port_carrier_up(&p);
	r1 = ph_read(&h, a, 10, false, 0);
	r2 = ph_read(&h, b, 10, false, 0);
	for (int i = 0; i < 4096 / 8; i++)
		do_write(a, "abcdefgh", false);
	w = do_write(a, "x", false);
	port_release(&p, a);
	CHECK(is_err(r1, EIO) && is_err(w, EIO));
	CHECK_EQ(ans(r2)->count, 0);
	CHECK_EQ(h.last_close, 0);
	port_shutdown(&p);
	CHECK(is_err(r2, EIO));
	port_release(&p, b);
	CHECK_EQ(h.last_close, 0); /* a's bytes drain first */
	while (port_tx_queued(&p))
		ph_handheld_takes_into(&h, buf, sizeof(buf));
	CHECK_EQ(h.last_close, 1);
	check_all_answered_once();
	teardown();
}

/* Poll notifications go to pollers whose events changed, and handles are freed. */
static void test_poll_notify(void)
{
	struct port p;
	int handle1, handle2;
	uint64_t fh;

	setup(&p);
	fh = do_open(false);
	port_carrier_up(&p);
	CHECK_EQ(port_poll(&p, fh, &handle1, 0), POLLOUT | POLLWRNORM);
	port_after_events(&p, 0);
	CHECK_EQ(h.notified, 0);
	port_rx(&p, "x", 1, 1);
	port_after_events(&p, 1);
	CHECK_EQ(h.notified, 1);
	CHECK_EQ(port_poll(&p, fh, &handle2, 0), POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM);
	CHECK_EQ(h.dropped_handles, 1); /* the first one */
	port_carrier_down(&p);
	port_after_events(&p, 2);
	CHECK_EQ(h.notified, 2);
	port_release(&p, fh);
	CHECK_EQ(h.dropped_handles, 2);
	teardown();
}

/*
 * A notification wakes a poller only for what it waits for (and hangups):
 * select() for reading is not woken by its own write filling txq and the
 * handheld emptying it, nor by the byte it read going away.  Each such
 * notification cost a write to /dev/cuse, 2 per PADP fragment of an SLP
 * install (docs/performance.md).
 */
static void test_poll_notify_wanted(void)
{
	char big[PORT_WAKEUP_CHARS + 50], buf[512];
	int handle1, handle2, handle3;
	struct port p;
	uint64_t fh;

	memset(big, 'w', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	setup(&p);
	fh = do_open(false);
	port_carrier_up(&p);
	CHECK_EQ(port_poll(&p, fh, &handle1, POLLIN), POLLOUT | POLLWRNORM);
	do_write(fh, big, false); /* POLLOUT goes */
	CHECK(!(port_poll(&p, fh, NULL, 0) & POLLOUT));
	port_after_events(&p, 0);
	while (port_tx_queued(&p)) /* and comes back */
		ph_handheld_takes_into(&h, buf, sizeof(buf));
	port_after_events(&p, 1);
	CHECK_EQ(h.notified, 0);
	port_rx(&p, "x", 1, 2); /* what it waits for */
	port_after_events(&p, 2);
	CHECK_EQ(h.notified, 1);
	ph_read(&h, fh, 1, false, 3); /* nobody polled since: nobody to wake */
	port_after_events(&p, 3);
	port_rx(&p, "y", 1, 4);
	port_after_events(&p, 4);
	CHECK_EQ(h.notified, 1);
	/* a poller for writing is woken when room comes back */
	CHECK(port_poll(&p, fh, &handle2, POLLOUT) & POLLOUT);
	do_write(fh, big, false);
	port_after_events(&p, 5);
	CHECK_EQ(h.notified, 1);
	while (port_tx_queued(&p))
		ph_handheld_takes_into(&h, buf, sizeof(buf));
	port_after_events(&p, 6);
	CHECK_EQ(h.notified, 2);
	/* a poll without a handle (nobody waits then, or the kernel would
	 * ask for a notification) does not hide what came from a sleeper */
	CHECK(is_data(ph_read(&h, fh, 1, false, 6), "y"));
	CHECK(!(port_poll(&p, fh, &handle2, POLLIN) & POLLIN));
	port_rx(&p, "z", 1, 6);
	CHECK(port_poll(&p, fh, NULL, 0) & POLLIN);
	port_after_events(&p, 6);
	CHECK_EQ(h.notified, 3);
	/* a hangup wakes a poller whatever it waits for */
	port_poll(&p, fh, &handle3, POLLPRI);
	port_carrier_down(&p);
	port_after_events(&p, 7);
	CHECK_EQ(h.notified, 4);
	port_release(&p, fh);
	CHECK_EQ(h.dropped_handles, 4);
	check_all_answered_once();
	teardown();
}

/* An open file of a port with its handheld there. */
static uint64_t setup_live(struct port *p)
{
	uint64_t fh;

	setup(p);
	fh = do_open(false);
	port_carrier_up(p);
	return fh;
}

/* ... and polled, keyed and pushed once, as the kernel polls a file once. */
static uint64_t setup_keyed(struct port *p, unsigned int wanted)
{
	static int handle;
	uint64_t fh = setup_live(p);

	port_poll(p, fh, &handle, wanted);
	port_poll_key(p, fh, 9);
	port_after_events(p, 0);
	CHECK_EQ(h.pushes, 1);
	return fh;
}

/*
 * With a kernel that keeps the events pilotd pushes (FUSE_NOTIFY_POLL_EVENTS,
 * kernel-patches/poll-events), every change reaches it as a push and no
 * notification is sent; what an answer changes is pushed before the answer,
 * since the caller it wakes may poll before the round ends (on one CPU it
 * runs inside the answer's write).
 */
static void test_push_events(void)
{
	const unsigned int out = POLLOUT | POLLWRNORM, in = POLLIN | POLLRDNORM;
	struct ph_answer *a;
	int handle;
	struct port p;
	uint64_t fh;
	void *req;

	fh = setup_live(&p);
	CHECK_EQ(port_poll(&p, fh, &handle, POLLIN), out);
	port_poll_key(&p, fh, 77);
	port_after_events(&p, 0);
	CHECK_EQ(h.pushes, 1);
	CHECK_EQ(h.push_key, 77);
	CHECK_EQ(h.push_events, out);
	/* the poller was told POLLOUT: waking it would show an epoll ET
	 * waiter POLLOUT again, which a tty never does */
	CHECK_EQ(h.push_wake, 0u);
	port_after_events(&p, 1); /* nothing changed: nothing to say */
	CHECK_EQ(h.pushes, 1);
	port_rx(&p, "ab", 2, 2);
	port_after_events(&p, 2);
	CHECK_EQ(h.pushes, 2);
	CHECK_EQ(h.push_events, out | in);
	CHECK_EQ(h.push_wake, in);
	/* the read that takes the last byte: POLLIN goes before its answer */
	req = ph_read(&h, fh, 2, false, 3);
	a = ans(req);
	CHECK(is_data(req, "ab"));
	CHECK_EQ(h.pushes, 3);
	CHECK_EQ(h.push_events, out);
	CHECK(h.push_seq < a->seq);
	/* a write that fills the queue: POLLOUT goes before the write's answer */
	{
		char big[PORT_WAKEUP_CHARS + 50];

		memset(big, 'w', sizeof(big) - 1);
		big[sizeof(big) - 1] = 0;
		req = do_write(fh, big, false);
		CHECK_EQ(ans(req)->kind, PH_WRITTEN);
		CHECK_EQ(h.push_events, 0u);
		CHECK(h.push_seq < ans(req)->seq);
	}
	CHECK_EQ(h.notified, 0);
	/* the kernel asked again (it holds nothing): the next round tells it */
	port_after_events(&p, 4);
	CHECK_EQ(h.pushes, 4);
	port_poll(&p, fh, &handle, POLLIN);
	port_after_events(&p, 5);
	CHECK_EQ(h.pushes, 5);
	CHECK_EQ(h.push_events, 0u);
	/* a hangup is pushed, with what a hung-up tty reports */
	port_carrier_down(&p);
	port_after_events(&p, 6);
	CHECK_EQ(h.pushes, 6);
	CHECK(h.push_events & POLLHUP);
	CHECK_EQ(h.notified, 0);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * Two pollers of one file before its first push: one was told "no POLLIN"
 * and sleeps, the other, in the same round, POLLIN.  The push wakes for
 * POLLIN: what one answer said is no news to the other's poller.
 */
static void test_push_wakes_who_was_not_told(void)
{
	int handle;
	struct port p;
	uint64_t fh;

	fh = setup_live(&p);
	CHECK(!(port_poll(&p, fh, &handle, POLLIN) & POLLIN));
	port_poll_key(&p, fh, 1);
	port_rx(&p, "x", 1, 0);
	CHECK(port_poll(&p, fh, &handle, POLLIN) & POLLIN);
	port_after_events(&p, 0);
	CHECK_EQ(h.pushes, 1);
	CHECK(h.push_wake & POLLIN);
	CHECK(!(h.push_wake & POLLOUT)); /* both were told POLLOUT */
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * n_tty wakes its readers at every arrival of input (n_tty.c
 * __receive_buf(), and each complete line in canonical mode), POLLIN set
 * before or not: an epoll ET waiter that left bytes unread is told of the
 * new ones.  A push names POLLIN in wake for such an arrival although the
 * events did not change; a round without input pushes nothing.
 */
static void test_push_wakes_for_new_input(void)
{
	const unsigned int in = POLLIN | POLLRDNORM;
	int handle;
	struct port p;
	uint64_t fh;

	fh = setup_live(&p);
	port_poll(&p, fh, &handle, POLLIN);
	port_poll_key(&p, fh, 3);
	port_rx(&p, "ab", 2, 0);
	port_after_events(&p, 0);
	CHECK_EQ(h.pushes, 1);
	CHECK_EQ(h.push_wake, in);
	CHECK(is_data(ph_read(&h, fh, 1, false, 1), "a")); /* "b" is left */
	port_after_events(&p, 1);
	CHECK_EQ(h.pushes, 1);
	port_rx(&p, "c", 1, 2);
	port_after_events(&p, 2);
	CHECK_EQ(h.pushes, 2);
	CHECK(h.push_events & POLLIN);
	CHECK_EQ(h.push_wake, in);
	port_after_events(&p, 3); /* nothing came: nobody to wake */
	CHECK_EQ(h.pushes, 2);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * tcsetattr() wakes every poller of an n_tty (n_tty_set_termios()), the
 * settings changed or not: the push before its answer names every event.
 */
static void test_push_wakes_for_settings(void)
{
	struct termios t;
	struct port p;
	uint64_t fh;
	void *req;

	fh = setup_keyed(&p, POLLIN);
	CHECK_EQ(h.push_wake, 0u);
	memcpy(&t, &p.tty.termios, sizeof(t));
	req = do_ioctl(fh, TCSETS, &t, sizeof(t), 0);
	CHECK_EQ(ans(req)->kind, PH_IOCTL);
	CHECK_EQ(h.pushes, 2);
	CHECK(h.push_seq < ans(req)->seq);
	CHECK_EQ(h.push_wake, POLLOUT | POLLWRNORM);
	port_after_events(&p, 1);
	CHECK_EQ(h.pushes, 2);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * usb-serial wakes its writers at each completed transfer (tty_wakeup()),
 * POLLOUT set before or not: a push names POLLOUT again.
 */
static void test_push_wakes_for_written(void)
{
	char buf[16];
	struct port p;
	uint64_t fh;

	fh = setup_keyed(&p, POLLOUT);
	do_write(fh, "abc", false);
	port_after_events(&p, 1);
	CHECK_EQ(h.pushes, 1); /* POLLOUT stays: nothing yet */
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 3u);
	port_after_events(&p, 2);
	CHECK_EQ(h.pushes, 2);
	CHECK_EQ(h.push_wake, POLLOUT | POLLWRNORM);
	port_after_events(&p, 3);
	CHECK_EQ(h.pushes, 2);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * The same without pushes: an epoll ET waiter polls (the kernel asks, with
 * a handle, at every epoll_wait) and is told POLLIN, reads a part and
 * waits again; new input notifies it, as n_tty wakes it.
 */
static void test_poll_notify_new_input(void)
{
	int handle;
	struct port p;
	uint64_t fh;

	fh = setup_live(&p);
	port_rx(&p, "ab", 2, 0);
	port_after_events(&p, 0);
	CHECK(port_poll(&p, fh, &handle, POLLIN) & POLLIN);
	CHECK(is_data(ph_read(&h, fh, 1, false, 1), "a"));
	port_after_events(&p, 1);
	CHECK_EQ(h.notified, 0);
	port_rx(&p, "c", 1, 2);
	port_after_events(&p, 2);
	CHECK_EQ(h.notified, 1);
	port_after_events(&p, 3);
	CHECK_EQ(h.notified, 1);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * A push refused after others were taken (the kernel keeps file a's
 * events, then refuses b's): from then on nothing is pushed, so a
 * notification must make the kernel forget a's, or a's pollers are
 * answered a stale mask for good.
 */
static int notified_a;
static void *handle_a;
static void count_a(void *handle)
{
	notified_a += handle == handle_a;
}

static void test_push_refused_later_forgets(void)
{
	int ha, hb;
	struct port p;
	uint64_t a, b;

	a = setup_live(&p);
	b = do_open(false);
	handle_a = &ha;
	h.on_notify = count_a;
	port_poll(&p, a, &ha, POLLOUT);
	port_poll_key(&p, a, 1);
	port_after_events(&p, 0);
	CHECK_EQ(h.pushes, 1);
	h.push_refused = true;
	port_poll(&p, b, &hb, POLLIN);
	port_poll_key(&p, b, 2);
	port_after_events(&p, 1);
	CHECK_EQ(h.pushes, 2);
	CHECK_EQ(notified_a, 1);
	port_rx(&p, "x", 1, 2); /* b waits for it; a, told, asks again */
	port_after_events(&p, 2);
	CHECK_EQ(h.pushes, 2);
	port_release(&p, a);
	port_release(&p, b);
	check_all_answered_once();
	teardown();
}

/* A kernel without the notification: the first push fails, and pollers are notified. */
static void test_push_refused_notifies(void)
{
	int handle;
	struct port p;
	uint64_t fh;

	setup(&p);
	h.push_refused = true;
	fh = do_open(false);
	port_carrier_up(&p);
	port_poll(&p, fh, &handle, POLLIN);
	port_poll_key(&p, fh, 5);
	port_after_events(&p, 0);
	CHECK_EQ(h.pushes, 1);
	port_rx(&p, "x", 1, 1);
	port_after_events(&p, 1);
	CHECK_EQ(h.notified, 1);
	CHECK(is_data(ph_read(&h, fh, 1, false, 2), "x"));
	port_poll(&p, fh, &handle, POLLIN);
	port_poll_key(&p, fh, 5);
	port_rx(&p, "y", 1, 3);
	port_after_events(&p, 3);
	CHECK_EQ(h.notified, 2);
	CHECK_EQ(h.pushes, 1); /* asked once */
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * Two pollers of one open file (a reader thread in select() for reading,
 * a writer thread polling for room, as pyserial's miniterm; or one poll()
 * with the fd twice): the reader was told "no POLLIN" and sleeps.  In one
 * round of the loop the handheld's byte comes (its USB fd first in the
 * epoll batch) and then the writer's FUSE_POLL, whose answer has POLLIN.
 * The reader must still be notified: the writer's answer woke nobody else.
 */
static void test_poll_notify_two_pollers_one_round(void)
{
	int handle1, handle2;
	struct port p;
	uint64_t fh;

	setup(&p);
	fh = do_open(false);
	port_carrier_up(&p);
	port_after_events(&p, 0);
	CHECK(!(port_poll(&p, fh, &handle1, POLLIN | POLLRDNORM | POLLHUP | POLLERR) & POLLIN));
	port_after_events(&p, 0);
	CHECK_EQ(h.notified, 0);
	/* one round: the byte, then the writer's poll */
	port_rx(&p, "x", 1, 1);
	CHECK(port_poll(&p, fh, &handle2, POLLOUT | POLLWRNORM | POLLERR) & POLLIN);
	port_after_events(&p, 1);
	CHECK_EQ(h.notified, 1); /* else the reader sleeps with "x" unread */

	/* the same with a poll without handle (poll() with timeout 0) */
	CHECK(is_data(ph_read(&h, fh, 64, true, 2), "x"));
	port_after_events(&p, 2);
	CHECK(!(port_poll(&p, fh, &handle1, POLLIN | POLLRDNORM | POLLHUP | POLLERR) & POLLIN));
	port_after_events(&p, 2);
	port_rx(&p, "y", 1, 3);
	CHECK(port_poll(&p, fh, NULL, POLLOUT) & POLLIN);
	port_after_events(&p, 3);
	CHECK_EQ(h.notified, 2);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * An epoll ET reader was told POLLIN, read a part and sleeps.  In one round
 * of the loop new input comes and then a second poller of the same file (a
 * writer thread) polls: its answer wakes nobody else, so the new input is
 * still news to the sleeping reader, as n_tty wakes it at every arrival.
 */
static void test_poll_notify_new_input_other_poller(void)
{
	int handle1, handle2;
	struct port p;
	uint64_t fh;

	fh = setup_live(&p);
	port_rx(&p, "ab", 2, 0);
	port_after_events(&p, 0);
	CHECK(port_poll(&p, fh, &handle1, POLLIN | POLLRDNORM) & POLLIN);
	CHECK(is_data(ph_read(&h, fh, 1, false, 1), "a"));
	port_after_events(&p, 1);
	CHECK_EQ(h.notified, 0);
	/* one round: the byte, then the writer's poll */
	port_rx(&p, "c", 1, 2);
	CHECK(port_poll(&p, fh, &handle2, POLLOUT | POLLWRNORM) & POLLIN);
	port_after_events(&p, 2);
	CHECK_EQ(h.notified, 1); /* else the reader sleeps with "bc" unread */
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * A hung-up file belongs to a tty that is gone: the kernel's hung-up file
 * waits on nothing (hung_up_tty_poll()), so nothing of the next handheld's
 * session (its input, its transfers, its settings) wakes its pollers, with
 * notifications or with pushes.
 */
static void test_hung_up_not_woken_by_next_session(void)
{
	int handle_old, handle_new;
	struct termios t;
	struct port p;
	uint64_t old, fh;
	char buf[8];

	for (int push = 0; push < 2; push++) {
		old = setup_live(&p);
		port_poll(&p, old, &handle_old, POLLIN);
		if (push)
			port_poll_key(&p, old, 1);
		port_after_events(&p, 0);
		port_carrier_down(&p);
		port_after_events(&p, 1);
		port_poll(&p, old, &handle_old, POLLIN); /* woken by the hangup: polls again */
		port_after_events(&p, 2);
		h.notified = h.pushes = 0;
		/* the next handheld, and a desktop that reads, writes and sets */
		port_carrier_up(&p);
		fh = do_open(false);
		port_poll(&p, fh, &handle_new, POLLIN);
		port_after_events(&p, 3);
		h.notified = h.pushes = 0;
		port_rx(&p, "x", 1, 4);
		do_write(fh, "y", false);
		CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 1u);
		memcpy(&t, &p.tty.termios, sizeof(t));
		do_ioctl(fh, TCSETS, &t, sizeof(t), 0);
		port_after_events(&p, 5);
		/* only the new file's poller hears (its POLLIN) */
		CHECK_EQ(h.notified + h.pushes, 1);
		port_release(&p, fh);
		port_release(&p, old);
		check_all_answered_once();
		teardown();
	}
}

/* Bounds: open files, parked requests, bytes of parked writes. */
static void test_bounds(void)
{
	struct port_open_args a = { .uid = 0, .admin = true };
	uint64_t fh[8], mine[2];
	char big[3000], buf[4096];
	void *req, *w1, *w2;
	struct port p;

	setup(&p);
	/* one user other than root: a quarter of the 8 files */
	mine[0] = do_open_as(1000, false);
	mine[1] = do_open_as(1000, false);
	a = (struct port_open_args){ .uid = 1000 };
	req = new_req();
	port_open(&p, req, &a);
	CHECK(is_err(req, ENFILE));
	port_release(&p, mine[0]);
	port_release(&p, mine[1]);
	a = (struct port_open_args){ .uid = 0, .admin = true };
	for (int i = 0; i < 8; i++)
		fh[i] = do_open_as(0, false);
	req = new_req();
	port_open(&p, req, &a);
	CHECK(is_err(req, ENFILE)); /* the ninth */
	port_release(&p, fh[7]);
	fh[7] = do_open_as(0, false); /* room again */
	port_carrier_up(&p);

	/* 64 requests may wait; the 65th is refused at once */
	for (int i = 0; i < 64; i++)
		ph_read(&h, fh[i % 8], 1, false, 0);
	CHECK_EQ(port_parked_count(&p), 64);
	CHECK(is_err(ph_read(&h, fh[0], 1, false, 0), ENOBUFS));
	CHECK(is_err(do_ioctl(fh[0], TIOCMIWAIT, NULL, 0, 0), ENOBUFS));
	port_rx(&p, "0123456789012345678901234567890123456789012345678901234567890123", 64, 1);
	port_after_events(&p, 1);
	CHECK_EQ(port_parked_count(&p), 0);

	/* 8192 bytes of parked writes at most, in all */
	memset(big, 'w', sizeof(big));
	for (int i = 0; i < 4096 / 8; i++)
		do_write(fh[0], "abcdefgh", false);
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
		ph_handheld_takes_into(&h, buf, sizeof(buf));
	CHECK(ans(w1)->kind == PH_WRITTEN && ans(w2)->kind == PH_WRITTEN);
	CHECK_EQ(p.parked_write_bytes, 0);
	CHECK_EQ(p.stats.refused, 5);
	for (int i = 0; i < 8; i++)
		port_release(&p, fh[i]);

	/* one user other than root: a quarter of the waiting requests and bytes */
	mine[0] = do_open_as(1000, false);
	mine[1] = do_open_as(1001, false);
	for (int i = 0; i < 16; i++)
		ph_read(&h, mine[0], 1, false, 0);
	CHECK(is_err(ph_read(&h, mine[0], 1, false, 0), ENOBUFS));
	req = ph_read(&h, mine[1], 1, false, 0); /* another user still waits */
	CHECK_EQ(ans(req)->count, 0);
	for (int i = 0; i < 4096 / 8; i++)
		do_write(mine[1], "abcdefgh", false);
	w1 = new_req();
	port_write(&p, w1, mine[1], big, 2000, false);
	req = new_req();
	port_write(&p, req, mine[1], big, 100, false); /* 2100 > 8192 / 4 */
	CHECK(ans(w1)->count == 0 && is_err(req, ENOBUFS));
	port_release(&p, mine[0]);
	port_release(&p, mine[1]);
	check_all_answered_once();
	teardown();
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
	fh = do_open(false);
	req = new_req();
	port_ioctl(&p, req, fh, &off);
	CHECK(p.tty.output_stopped);
	do_write(fh, "held", false);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 0);
	port_release(&p, fh);
	CHECK(!p.tty.output_stopped && !p.tty.exclusive);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 4); /* the closing drain */
	fh = do_open(false);
	do_write(fh, "next", false);
	req = do_ioctl(fh, TCSBRK, NULL, 0, 0); /* tcdrain */
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 4);
	CHECK(memcmp(buf, "next", 4) == 0 && ans(req)->kind == PH_IOCTL);
	port_release(&p, fh);

	/* nor the departure of the handheld, with the file kept open */
	fh = do_open(false);
	req = new_req();
	port_ioctl(&p, req, fh, &off);
	do_ioctl(fh, TIOCEXCL, NULL, 0, 0);
	port_carrier_down(&p);
	port_carrier_up(&p);
	CHECK(!p.tty.output_stopped && !p.tty.exclusive);
	{
		uint64_t other = do_open(false); /* not EBUSY */

		do_write(other, "out", false);
		CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 3);
		port_release(&p, other);
	}
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* A file opened after a departure never reads the departed one's bytes (row 6). */
static void test_departed_bytes_stay_with_their_session(void)
{
	struct port p;
	uint64_t old, fresh;
	void *r, *q;

	setup(&p);
	old = do_open(false);
	port_carrier_up(&p);
	port_rx(&p, "secret", 6, 0);
	port_carrier_down(&p);
	fresh = do_open(false); /* another user, between two handhelds */
	CHECK(is_err(ph_read(&h, fresh, 64, true, 1), EAGAIN));
	CHECK(!(port_poll(&p, fresh, NULL, 0) & POLLIN));
	q = do_ioctl(fresh, FIONREAD, NULL, 0, 4);
	CHECK(ans(q)->kind == PH_IOCTL && ans(q)->data[0] == 0);
	r = ph_read(&h, fresh, 64, false, 1);
	port_after_events(&p, 1);
	CHECK_EQ(ans(r)->count, 0);
	CHECK(is_data(ph_read(&h, old, 3, false, 1), "sec")); /* its own session's */
	port_release(&p, old);
	CHECK_EQ(byteq_len(&p.rxq), 0); /* nobody of that session is left */
	port_carrier_up(&p);
	port_rx(&p, "mine", 4, 2);
	port_after_events(&p, 2);
	CHECK(is_data(r, "mine"));
	port_release(&p, fresh);
	check_all_answered_once();
	teardown();
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
	fh = do_open(false);
	do_write(fh, "STALE", false); /* the handheld takes nothing */
	port_release(&p, fh);
	CHECK(p.closing && h.last_close == 0);
	o = new_req();
	port_open(&p, o, &blocking);
	n = new_req();
	port_open(&p, n, &nonblocking);
	/* O_NONBLOCK waits too, as tty_open() waits for the closer (row 11) */
	CHECK(ans(o)->count == 0 && ans(n)->count == 0);
	CHECK_EQ(port_after_events(&p, 1000), 31000);
	CHECK_EQ(port_after_events(&p, 30999), 31000);
	CHECK(ans(o)->count == 0 && ans(n)->count == 0);
	port_after_events(&p, 31000);
	CHECK(ans(o)->kind == PH_OPEN && !p.closing && h.last_close == 1);
	CHECK(ans(n)->kind == PH_OPEN);
	port_release(&p, ans(n)->fh);
	CHECK_EQ(p.stats.tx_discarded, 5);
	do_write(ans(o)->fh, "fresh", false);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 5);
	CHECK(memcmp(buf, "fresh", 5) == 0);
	port_release(&p, ans(o)->fh);

	/* taken in time: the next open goes ahead once it has gone */
	fh = do_open(false);
	do_write(fh, "hello", false);
	port_release(&p, fh);
	o = new_req();
	port_open(&p, o, &blocking);
	CHECK_EQ(ans(o)->count, 0);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 5);
	CHECK(ans(o)->kind == PH_OPEN);
	port_release(&p, ans(o)->fh);

	/* a transfer still in flight when the wait ends is never sent again */
	fh = do_open(false);
	do_write(fh, "A-SECRET", false);
	CHECK_EQ(port_tx_take(&p, buf, sizeof(buf)), 8); /* in flight */
	port_release(&p, fh);
	port_after_events(&p, 50000);
	port_after_events(&p, 80000);
	CHECK(!p.closing);
	fh = do_open(false);
	do_write(fh, "B", false);
	port_tx_done(&p, 0); /* the transfer failed, or was cancelled */
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 1);
	CHECK_EQ(buf[0], 'B');
	port_release(&p, fh);

	/* setserial closing_wait none: the rest goes at once */
	p.tty.closing_wait = 65535;
	fh = do_open(false);
	do_write(fh, "dropped", false);
	port_release(&p, fh);
	o = new_req();
	port_open(&p, o, &blocking);
	CHECK_EQ(ans(o)->count, 0);
	port_after_events(&p, 40000);
	CHECK(ans(o)->kind == PH_OPEN && port_tx_queued(&p) == 0);
	port_release(&p, ans(o)->fh);
	p.tty.closing_wait = 3000;

	/* a departure ends the wait too, and the bytes with it */
	fh = do_open(false);
	do_write(fh, "gone", false);
	port_release(&p, fh);
	o = new_req();
	port_open(&p, o, &blocking); /* CLOCAL: opens once nothing drains */
	port_carrier_down(&p);
	CHECK(ans(o)->kind == PH_OPEN && port_tx_queued(&p) == 0);
	port_release(&p, ans(o)->fh);
	check_all_answered_once();
	teardown();
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
	fh = do_open(false);
	port_carrier_up(&p);
	port_rx(&p, "in", 2, 0);
	do_write(fh, "queued", false);
	memcpy(&t, &p.tty.termios, sizeof(t));
	d = do_ioctl(fh, TCSETSF, &t, sizeof(t), 0); /* waits for the output */
	CHECK_EQ(ans(d)->count, 0);
	h.depart_in_rx_room = true;
	ph_handheld_takes_into(&h, buf, sizeof(buf)); /* drained: the flush runs */
	CHECK(ans(d)->count == 1 && !p.carrier);
	h.depart_in_rx_room = false;

	fh = do_open(false);
	port_carrier_up(&p);
	h.depart_in_tx_ready = true;
	w = do_write(fh, "bye", false);
	CHECK(ans(w)->kind == PH_WRITTEN && !p.carrier);
	h.depart_in_tx_ready = false;

	fh = do_open(false);
	port_carrier_up(&p);
	h.take_in_tx_ready = true;
	for (int i = 0; i < 2000; i++)
		do_write(fh, "abcdefgh", false);
	CHECK_EQ(port_tx_queued(&p), 0);
	CHECK_EQ(p.stats.tx_bytes, 16000);
	CHECK_EQ(h.max_depth, 1);
	port_shutdown(&p);
	check_all_answered_once();
	teardown();
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
	for (int step = 0; step < 20000 && h.nreq < NREQ - 8; step++) {
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
				if (ans(req)->kind == PH_OPEN)
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
				pending[npending++] = ph_read(&h, fh, 1 + (size_t)(rand() % 600),
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
				pending[npending++] =
					do_ioctl(fh, rand() % 2 ? TCSBRK : TIOCMIWAIT, NULL, 0, 0);
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
		for (int i = 0; i < h.nreq; i++)
			if (h.ans[i].count > 1) {
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
	CHECK(h.nreq > 1000);
	check_all_answered_once();
	teardown();
}

/* ---- the data path through n_tty's processing (core/ldisc.c) ---- */

#define IF_STD (ICRNL | IXON)
#define OF_STD (OPOST | ONLCR)
#define LF_STD (ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN)

/* Settings through TCSETS, as a program makes them (the rest as they are). */
static void set_flags(struct port *p, uint64_t fh, unsigned int iflag, unsigned int oflag,
		      unsigned int lflag)
{
	struct termios t;

	memcpy(&t, &p->tty.termios, sizeof(t));
	t.c_iflag = iflag;
	t.c_oflag = oflag;
	t.c_lflag = lflag;
	CHECK(ans(do_ioctl(fh, TCSETS, &t, sizeof(t), 0))->kind == PH_IOCTL);
}

static int fionread(struct port *p, uint64_t fh)
{
	int n = -1;
	void *q = do_ioctl(fh, FIONREAD, NULL, 0, sizeof(int));

	memcpy(&n, ans(q)->data, sizeof(n));
	return n;
}

static bool handheld_got(struct port *p, const char *s)
{
	char buf[256];
	size_t n = ph_handheld_takes_into(&h, buf, sizeof(buf));

	return n == strlen(s) && memcmp(buf, s, n) == 0;
}

/* Canonical mode: a line per read, FIONREAD and poll count complete lines. */
static void test_canonical_lines(void)
{
	struct port p;
	uint64_t fh;
	void *r;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	set_flags(&p, fh, 0, 0, ICANON);
	port_rx(&p, "ab\ncd\nef", 8, 1);
	CHECK_EQ(fionread(&p, fh), 6); /* "ef" is not a line yet */
	CHECK(port_poll(&p, fh, NULL, 0) & POLLIN);
	CHECK(is_data(ph_read(&h, fh, 64, true, 1), "ab\n"));
	CHECK(is_data(ph_read(&h, fh, 2, true, 1), "cd")); /* the rest comes next */
	CHECK(is_data(ph_read(&h, fh, 64, true, 1), "\n"));
	CHECK(is_err(ph_read(&h, fh, 64, true, 1), EAGAIN));
	CHECK(!(port_poll(&p, fh, NULL, 0) & POLLIN));
	r = ph_read(&h, fh, 64, false, 2); /* a blocking read waits for the end */
	port_rx(&p, "gh", 2, 3);
	port_after_events(&p, 3);
	CHECK_EQ(ans(r)->count, 0);
	port_rx(&p, "\n", 1, 4);
	port_after_events(&p, 4);
	CHECK(is_data(r, "efgh\n"));

	/* the editing characters, and VEOF: a line without its end, then end of file */
	set_flags(&p, fh, 0, 0, ICANON | IEXTEN);
	port_rx(&p, "abc\177\027xy\025z\004\004", 11, 5);
	CHECK(is_data(ph_read(&h, fh, 64, true, 5), "z"));
	CHECK(is_data(ph_read(&h, fh, 64, true, 5), "")); /* VEOF alone: end of file */
	CHECK(is_err(ph_read(&h, fh, 64, true, 5), EAGAIN));

	/* a line longer than n_tty's buffer: the rest of it is dropped, and counted */
	{
		static char xs[2500];
		uint64_t before = p.stats.rx_discarded;

		memset(xs, 'x', sizeof(xs));
		port_rx(&p, xs, sizeof(xs), 6);
		port_rx(&p, xs, sizeof(xs), 6);
		port_rx(&p, "\n", 1, 6);
		CHECK_EQ(p.stats.rx_discarded - before, 5000 - (LDISC_LINE_MAX - 1));
		CHECK_EQ(fionread(&p, fh), LDISC_LINE_MAX);
		r = ph_read(&h, fh, 8192, true, 6);
		CHECK(ans(r)->kind == PH_DATA && ans(r)->len == 1024); /* read_max */
	}
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* The fresh settings: `cat` sees lines, CR becomes NL, and the handheld gets the echo. */
static void test_cooked_defaults(void)
{
	struct port p;
	uint64_t fh;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	set_flags(&p, fh, IF_STD, OF_STD, LF_STD);
	port_rx(&p, "hi\rjo\r", 6, 1);
	port_after_events(&p, 1);
	CHECK(is_data(ph_read(&h, fh, 64, true, 1), "hi\n"));
	CHECK(is_data(ph_read(&h, fh, 64, true, 1), "jo\n"));
	CHECK(handheld_got(&p, "hi\r\njo\r\n")); /* ECHO through ONLCR */
	CHECK(ans(do_write(fh, "a\nb\n", false))->len == 4);
	CHECK(handheld_got(&p, "a\r\nb\r\n"));
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* A write whose output outgrows txq goes in parts; a signal ends it with what went. */
static void test_cooked_write_in_parts(void)
{
	static char nl[3001];
	struct port p;
	uint64_t fh;
	char buf[8192];
	void *w;

	memset(nl, '\n', sizeof(nl) - 1);
	setup(&p);
	port_carrier_up(&p);
	fh = do_open_as(0, false); /* a user's quarter of parked bytes is smaller */
	set_flags(&p, fh, 0, OF_STD, 0);
	w = do_write(fh, nl, false); /* 6000 bytes out, txq holds 4096 */
	CHECK_EQ(ans(w)->count, 0);
	CHECK_EQ(port_tx_queued(&p), 4096);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 4096);
	CHECK(ans(w)->kind == PH_WRITTEN && ans(w)->len == 3000);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 6000 - 4096);
	CHECK(buf[0] == '\r' && buf[1] == '\n');

	/* non-blocking: what fits, a count short of the write */
	w = do_write(fh, nl, true);
	CHECK(ans(w)->kind == PH_WRITTEN && ans(w)->len == 2048);
	CHECK(is_err(do_write(fh, "x", true), EAGAIN));
	/* blocking, interrupted after a part went: that part's count */
	ph_handheld_takes_into(&h, buf, 1000);
	w = do_write(fh, nl, false);
	port_interrupt(&p, w);
	port_after_events(&p, 1);
	CHECK(ans(w)->kind == PH_WRITTEN && ans(w)->len == 500);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* Switching ICANON keeps every byte: unread bytes become a line, a line being edited becomes bytes. */
static void test_mode_switch_keeps_bytes(void)
{
	struct port p;
	uint64_t fh;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	port_rx(&p, "abc", 3, 1);
	set_flags(&p, fh, 0, 0, ICANON);
	CHECK(is_data(ph_read(&h, fh, 64, true, 1), "abc"));
	port_rx(&p, "xy", 2, 2);
	CHECK(is_err(ph_read(&h, fh, 64, true, 2), EAGAIN));
	CHECK(port_rx_room(&p) == 4096 - 2); /* the line being edited takes its room */
	set_flags(&p, fh, 0, 0, 0);
	CHECK(is_data(ph_read(&h, fh, 64, true, 2), "xy"));

	/* a departure leaves the line being edited to the hung-up file, as a last line */
	set_flags(&p, fh, 0, 0, ICANON);
	port_rx(&p, "last", 4, 3);
	port_carrier_down(&p);
	CHECK(port_poll(&p, fh, NULL, 0) & POLLIN);
	CHECK(is_data(ph_read(&h, fh, 64, true, 3), "last"));
	CHECK(is_data(ph_read(&h, fh, 64, true, 3), ""));
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* IXON: STOP from the handheld holds the output, START lets it go; TCIOFF sends STOP first. */
static void test_software_flow_control(void)
{
	struct tty_ioctl ooff = { .cmd = TCXONC, .arg = TCOOFF }, ioff = { .cmd = TCXONC, .arg = TCIOFF },
			 ion = { .cmd = TCXONC, .arg = TCION };
	struct port p;
	uint64_t fh;
	char buf[64];

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	set_flags(&p, fh, IXON, 0, 0);
	port_rx(&p, "a\023b", 3, 1);
	do_write(fh, "held", false);
	CHECK_EQ(port_tx_take(&p, buf, sizeof(buf)), 0);
	port_rx(&p, "\021", 1, 2);
	port_after_events(&p, 2);
	CHECK(is_data(ph_read(&h, fh, 64, true, 2), "ab")); /* STOP and START are not data */
	CHECK(handheld_got(&p, "held"));

	/* IXON off lets output a STOP held go */
	port_rx(&p, "\023", 1, 3);
	do_write(fh, "go", false);
	CHECK_EQ(port_tx_take(&p, buf, sizeof(buf)), 0);
	set_flags(&p, fh, 0, 0, 0);
	CHECK(handheld_got(&p, "go"));

	/* TCIOFF: the STOP character goes out ahead of output, even stopped output */
	port_ioctl(&p, new_req(), fh, &ooff);
	do_write(fh, "later", false);
	port_ioctl(&p, new_req(), fh, &ioff);
	port_ioctl(&p, new_req(), fh, &ion);
	CHECK_EQ(port_tx_queued(&p), 7);
	CHECK(handheld_got(&p, "\023\021")); /* both, in order, as usb-serial writes them */
	CHECK_EQ(port_tx_queued(&p), 5);
	for (int i = 0; i < 20; i++) /* bounded: the latest state wins */
		port_ioctl(&p, new_req(), fh, i % 2 ? &ion : &ioff);
	CHECK_EQ(port_tx_queued(&p), 5 + PORT_XCHARS_MAX);
	CHECK_EQ(p.xchars[PORT_XCHARS_MAX - 1], '\021');
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * A START inside a batch of the handheld's bytes lets out what waits, even
 * when the batch ends with STOP: n_tty_receive_char_flow_ctrl() runs
 * process_echoes() at the START, which hands the echoes to the driver
 * before the STOP comes.  A signal character in a later batch then cannot
 * take them back (fuzz_ntty: seeds tcooff-kept-start-stop-intr and
 * tcooff-flushed-write-tab-column; pilotd held them to the batch's end and
 * the INTR dropped them).  What comes after the STOP stays held.
 */
static void test_start_in_batch_lets_queued_go(void)
{
	struct port p;
	uint64_t fh;
	char buf[64];

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	set_flags(&p, fh, IXON, 0, ECHO | ISIG);
	port_rx(&p, "\023", 1, 1);
	do_write(fh, "w", false);
	port_rx(&p, "ab\021cd\023", 6, 2);
	port_after_events(&p, 2);
	CHECK(handheld_got(&p, "wab")); /* the write and the echoes before the START */
	CHECK_EQ(port_tx_queued(&p), 0); /* "cd" held in the echo ring, as n_tty's */
	port_rx(&p, "\003", 1, 3); /* INTR: drops "cd", restarts (IXON), echoes itself */
	port_after_events(&p, 3);
	CHECK(handheld_got(&p, "\003"));

	/* output ran at the batch's end: a STOP in a later batch holds all again */
	do_write(fh, "later", false);
	port_rx(&p, "\023", 1, 5);
	port_after_events(&p, 5);
	CHECK_EQ(port_tx_take(&p, buf, sizeof(buf)), 0);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * Echoes that n_tty's commit_echoes() processes inside a batch (256 entries
 * wait: a line's echo_set_canon_col() and 254 bytes) go to the driver there,
 * with output running, as a START's process_echoes() does: a STOP later in
 * the batch holds only what comes after it.  (fuzz_ntty: seed
 * start-kill-commit-block-then-stop, a KILL's erases reaching 256 entries
 * after a START; pilotd held them to the batch's end, the STOP with them.)
 */
static void test_commit_block_in_batch_goes(void)
{
	static char batch[257], buf[512];
	struct port p;
	uint64_t fh;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	set_flags(&p, fh, IXON, 0, ICANON | ECHO);
	memset(batch, 'a', 254);
	memcpy(batch + 254, "b\023c", 3);
	port_rx(&p, batch, sizeof(batch), 1);
	port_after_events(&p, 1);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 254);
	CHECK(memcmp(buf, batch, 254) == 0);
	port_rx(&p, "\021", 1, 2); /* START: what the STOP held */
	port_after_events(&p, 2);
	CHECK(handheld_got(&p, "bc"));
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* ISIG: INTR flushes both ways (nobody's controlling terminal, so no signal). */
static void test_isig_flushes(void)
{
	struct port p;
	uint64_t fh;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	set_flags(&p, fh, 0, 0, ISIG);
	do_write(fh, "unsent", false);
	port_rx(&p, "ab\003cd", 5, 1);
	port_after_events(&p, 1);
	CHECK(is_data(ph_read(&h, fh, 64, true, 1), "cd"));
	CHECK_EQ(port_tx_queued(&p), 0);

	/* a writer waiting for room gets it from the flush, after the round */
	{
		static char full[4097];
		void *w;

		memset(full, 'f', sizeof(full) - 1);
		do_write(fh, full, false);
		w = do_write(fh, "next", false);
		CHECK_EQ(ans(w)->count, 0);
		port_rx(&p, "\003", 1, 2);
		CHECK_EQ(ans(w)->count, 0); /* not inside the transport's call */
		port_after_events(&p, 2);
		CHECK(ans(w)->kind == PH_WRITTEN && ans(w)->len == 4);
		CHECK_EQ(port_tx_queued(&p), 4);
	}
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * A signal character's flush (ISIG without NOFLSH: isig() runs
 * tty_driver_flush_buffer() as tcflush(TCOFLUSH) does) drops a drain of
 * the kernel's write buffer parked for room, its queued part and its rest
 * alike, and answers it whole after the round; a blocking writer behind it
 * goes on.  A TIOCOUTQ in the same round counts none of the drain: the
 * kernel counts it until it is answered.
 */
static void test_isig_flush_drops_kernel_buffer(void)
{
	struct port p;
	void *d, *w, *q;
	uint64_t fh;

	fh = park_kernel_drain(&p, &d, &w);
	set_flags(&p, fh, 0, 0, ISIG);
	port_rx(&p, "\003", 1, 1);
	CHECK_EQ(ans(d)->count, 0); /* not inside the transport's call */
	q = do_ioctl(fh, TIOCOUTQ, NULL, 0, sizeof(int));
	CHECK(ans(q)->kind == PH_IOCTL && ans(q)->len == sizeof(int) && *(int *)ans(q)->data == 0);
	port_after_events(&p, 1);
	check_kernel_drain_flushed(&p, fh, d, w);
}

/* TIOCSTI: root's byte is input; anyone else's is refused, as for a tty that is not theirs. */
static void test_tiocsti(void)
{
	struct port p;
	uint64_t fh;
	struct tty_ioctl sti = { .cmd = TIOCSTI, .in = "z", .in_len = 1, .caller_admin = true };
	void *q;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	q = new_req();
	port_ioctl(&p, q, fh, &sti);
	CHECK(ans(q)->kind == PH_IOCTL);
	CHECK(is_data(ph_read(&h, fh, 64, true, 1), "z"));
	sti.caller_admin = false;
	q = new_req();
	port_ioctl(&p, q, fh, &sti);
	CHECK(is_err(q, EPERM));
	CHECK(is_err(ph_read(&h, fh, 64, true, 1), EAGAIN));
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* A read short of VMIN that a signal ends returns the bytes that came (n_tty). */
static void test_vmin_interrupted_returns_bytes(void)
{
	struct port p;
	struct termios t;
	uint64_t fh;
	void *r1, *r2;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	memcpy(&t, &p.tty.termios, sizeof(t));
	t.c_cc[VMIN] = 5;
	do_ioctl(fh, TCSETS, &t, sizeof(t), 0);
	r1 = ph_read(&h, fh, 64, false, 0);
	r2 = ph_read(&h, fh, 64, false, 0);
	port_rx(&p, "abc", 3, 1);
	port_after_events(&p, 1);
	CHECK_EQ(ans(r1)->count, 0);
	port_interrupt(&p, r2);
	port_interrupt(&p, r1);
	port_after_events(&p, 2);
	CHECK(is_data(r1, "abc"));
	CHECK(is_err(r2, EINTR)); /* it waited behind the first */
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* The sum of the lines is what rxq holds, in canonical mode. */
static bool lines_add_up(const struct port *p)
{
	size_t sum = 0;

	for (unsigned int i = 0; i < p->lines.count; i++)
		sum += p->lines.len[(p->lines.head + i) % PORT_LINES_MAX];
	return sum == byteq_len(&p->rxq);
}

/* Edges an attacker's review found in the line discipline's wiring. */
static void test_ldisc_edges(void)
{
	struct tty_ioctl ioff = { .cmd = TCXONC, .arg = TCIOFF }, ion = { .cmd = TCXONC, .arg = TCION };
	static char big[4000], nl[5000];
	struct port p;
	char buf[64];
	uint64_t fh;

	/* a departure with more than rxq holds: the lines still add up, POLLERR at the end */
	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	set_flags(&p, fh, 0, 0, ICANON);
	memset(big, 'x', sizeof(big));
	port_rx(&p, big, sizeof(big), 1);
	port_rx(&p, "\n", 1, 1);
	port_rx(&p, big, 200, 1); /* past the room: a transfer already in flight */
	port_carrier_down(&p);
	CHECK(lines_add_up(&p));
	while (port_poll(&p, fh, NULL, 0) & POLLIN && !(port_poll(&p, fh, NULL, 0) & POLLERR) &&
	       h.nreq < NREQ - 8)
		ph_read(&h, fh, 1024, true, 2);
	CHECK(port_poll(&p, fh, NULL, 0) & POLLERR);
	port_release(&p, fh);
	teardown();

	/* ICANON on under transfers sized for raw mode: more line ends than the ring holds */
	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	set_flags(&p, fh, 0, 0, ICANON);
	memset(nl, '\004', sizeof(nl)); /* VEOF: lines that take no byte of rxq */
	port_rx(&p, nl, sizeof(nl), 1);
	port_rx(&p, "abc\n", 4, 1);
	CHECK_EQ(p.lines.count, PORT_LINES_MAX);
	/* issue 26 row 12(d): the ends of file beyond the ring are counted lost, not
	 * silently dropped; abc joined the last line */
	CHECK_EQ(p.stats.rx_discarded, sizeof(nl) - PORT_LINES_MAX);
	CHECK(lines_add_up(&p));
	CHECK_EQ(port_rx_room(&p), 0);
	port_carrier_down(&p);
	port_release(&p, fh);
	teardown();

	/* OPOST: no POLLOUT while a newline's output (2 bytes) or a tab's (8) may not fit */
	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	set_flags(&p, fh, 0, OF_STD, 0);
	memset(nl, 'a', sizeof(nl));
	nl[4093] = '\0';
	do_write(fh, nl, true); /* 4093 of 4096 */
	CHECK(!(port_poll(&p, fh, NULL, 0) & POLLOUT));
	/* and, as n_tty_poll(), only once fewer than WAKEUP_CHARS wait to go */
	while (port_tx_queued(&p) > PORT_WAKEUP_CHARS) {
		size_t want = port_tx_queued(&p) - PORT_WAKEUP_CHARS;

		port_tx_done(&p, port_tx_take(&p, buf, want < sizeof(buf) ? want : sizeof(buf)));
	}
	CHECK(!(port_poll(&p, fh, NULL, 0) & POLLOUT));
	CHECK_EQ(port_tx_queued(&p), PORT_WAKEUP_CHARS);
	port_tx_done(&p, port_tx_take(&p, buf, 1));
	CHECK(port_poll(&p, fh, NULL, 0) & POLLOUT);

	/* a STOP of a closed session never reaches the next one */
	while (port_tx_queued(&p))
		ph_handheld_takes_into(&h, big, sizeof(big));
	port_ioctl(&p, new_req(), fh, &ioff);
	port_release(&p, fh);
	CHECK(p.closing); /* the STOP is output: the closing wait covers it */
	port_after_events(&p, 10);
	port_after_events(&p, 10 + 30000);
	CHECK(!p.closing && port_tx_queued(&p) == 0);
	fh = do_open(false);
	CHECK_EQ(port_tx_take(&p, buf, sizeof(buf)), 0);

	/* with PORT_XCHARS_MAX - 1 in flight, the last TCIOFF/TCION still goes */
	for (unsigned int i = 0; i < PORT_XCHARS_MAX; i++)
		port_ioctl(&p, new_req(), fh, i % 2 ? &ion : &ioff);
	CHECK_EQ(port_tx_take(&p, buf, sizeof(buf)), PORT_XCHARS_MAX - 1);
	port_ioctl(&p, new_req(), fh, &ioff);
	port_tx_done(&p, PORT_XCHARS_MAX - 1);
	CHECK_EQ(port_tx_take(&p, buf, sizeof(buf)), 1);
	CHECK_EQ(buf[0], '\023'); /* the state asked last */
	port_tx_done(&p, 1);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* ---- any settings, any order: the invariants hold ---- */

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)rand() % n;
}

static void random_settings(struct port *p, uint64_t fh)
{
	static const unsigned int iflags[] = { ICRNL, INLCR, IGNCR, ISTRIP, IXON, IXANY, PARMRK, IUCLC };
	static const unsigned int oflags[] = { OPOST, ONLCR, OCRNL, ONOCR, ONLRET, OLCUC, XTABS };
	static const unsigned int lflags[] = { ICANON, ECHO,	ECHOE, ECHOK,  ECHOKE,
					       ECHOCTL, IEXTEN, ISIG,  NOFLSH, ECHONL };
	static const unsigned int cmds[] = { TCSETS, TCSETSW, TCSETSF };
	struct termios t;

	memcpy(&t, &p->tty.termios, sizeof(t));
	t.c_iflag = t.c_oflag = t.c_lflag = 0;
	for (size_t i = 0; i < sizeof(iflags) / sizeof(iflags[0]); i++)
		t.c_iflag |= rnd(3) ? 0 : iflags[i];
	for (size_t i = 0; i < sizeof(oflags) / sizeof(oflags[0]); i++)
		t.c_oflag |= rnd(3) ? 0 : oflags[i];
	for (size_t i = 0; i < sizeof(lflags) / sizeof(lflags[0]); i++)
		t.c_lflag |= rnd(2) ? 0 : lflags[i];
	t.c_cflag |= CLOCAL;
	t.c_cc[VMIN] = (cc_t)rnd(4);
	t.c_cc[VTIME] = (cc_t)rnd(3);
	do_ioctl(fh, cmds[rnd(3)], &t, sizeof(t), 0);
}

/*
 * Random requests, settings (every input, output and local flag the line
 * discipline knows), bytes full of special characters, arrivals and
 * departures, with the transport keeping port_rx_room()'s rule.  After
 * every step: the lines add up to rxq, the STOP/START queue is in bounds.
 * At the end of each run the handheld takes everything: no write or
 * drain is left waiting unless output is stopped, and every request is
 * answered exactly once.
 */
static void test_random_settings(void)
{
	static const char alphabet[] = "ab \t\r\n\003\004\010\021\023\025\026\027\177\377\222x";
	static char txbuf[16384], w[3000];

	for (unsigned int seed = 1; seed <= 200; seed++) {
		uint64_t files[4] = { 0 }, now = 0;
		bool out_busy = false;
		size_t taken = 0;
		struct port p;

		srand(seed);
		setup(&p);
		for (int step = 0; step < 3000 && h.nreq < NREQ - 100; step++) {
			int fi = (int)rnd(4);
			uint64_t fh = files[fi];
			uint8_t b[512];
			size_t n;

			switch (rnd(20)) {
			case 0:
				if (!fh) {
					struct port_open_args a = { .uid = rnd(2) ? 0 : 1000u + (unsigned)fi,
								    .nonblock = true };
					void *r = new_req();

					port_open(&p, r, &a);
					if (ans(r)->kind == PH_OPEN)
						files[fi] = ans(r)->fh;
				}
				break;
			case 1:
				if (fh && !rnd(4)) {
					port_release(&p, fh);
					files[fi] = 0;
				}
				break;
			case 2:
			case 3:
				if (fh)
					ph_read(&h, fh, 1 + rnd(300), rnd(2), now);
				break;
			case 4:
			case 5:
				n = 1 + rnd(sizeof(w));
				for (size_t i = 0; fh && i < n; i++)
					w[i] = alphabet[rnd(sizeof(alphabet) - 1)];
				if (fh)
					port_write(&p, new_req(), fh, w, n, rnd(2));
				break;
			case 6:
				if (fh)
					port_poll(&p, fh, NULL, 0);
				break;
			case 7:
				if (fh)
					random_settings(&p, fh);
				break;
			case 8: port_interrupt(&p, &h.reqs[rnd((unsigned)h.nreq + 1)]); break;
			case 9:
				if (rnd(5))
					break;
				if (p.carrier)
					port_carrier_down(&p);
				else
					port_carrier_up(&p);
				out_busy = false;
				break;
			case 10:
			case 11:
				n = 1 + rnd(sizeof(b));
				if (n > port_rx_room(&p))
					n = port_rx_room(&p); /* the transport keeps the rule */
				for (size_t i = 0; i < n; i++)
					b[i] = (uint8_t)alphabet[rnd(sizeof(alphabet) - 1)];
				if (p.carrier)
					port_rx(&p, b, n, now);
				break;
			case 12:
			case 13:
				if (p.carrier && !out_busy) {
					taken = port_tx_take(&p, txbuf, 1 + rnd(sizeof(txbuf)));
					out_busy = taken > 0;
				} else if (p.carrier) {
					port_tx_done(&p, rnd(2) ? taken : rnd((unsigned)taken + 1));
					out_busy = false;
				}
				break;
			case 14:
				now += rnd(200);
				port_after_events(&p, now);
				break;
			case 15:
			case 16:
				if (fh) {
					struct tty_ioctl io = { .cmd = rnd(2) ? TCXONC : TCFLSH, .arg = rnd(4) };

					port_ioctl(&p, new_req(), fh, &io);
				}
				break;
			case 17:
				if (fh) {
					struct tty_ioctl io = { .cmd = TIOCSTI, .in = &alphabet[rnd(8)], .in_len = 1 };

					port_ioctl(&p, new_req(), fh, &io);
				}
				break;
			default:
				if (fh)
					do_ioctl(fh,
						 rnd(2)	  ? TCSBRK
						 : rnd(2) ? FIONREAD
							  : TIOCOUTQ,
						 NULL, 0, 4);
				break;
			}
			if (p.tty.termios.c_lflag & ICANON)
				CHECK(lines_add_up(&p));
			else
				CHECK(p.lines.count == 0);
			CHECK(p.xchar_count <= PORT_XCHARS_MAX && p.xchar_inflight <= p.xchar_count);
			CHECK(p.tx_inflight <= byteq_len(&p.txq));
		}
		if (p.carrier) { /* the handheld takes everything */
			if (out_busy)
				port_tx_done(&p, taken);
			for (int i = 0; i < 50; i++) {
				port_tx_done(&p, port_tx_take(&p, txbuf, sizeof(txbuf)));
				now += 100000;
				port_after_events(&p, now);
			}
			if (!p.tty.output_stopped && !p.tty.flow_stopped)
				CHECK(p.writes.count == 0 && port_tx_queued(&p) == 0);
		}
		port_after_events(&p, now + 1000000);
		port_shutdown(&p);
		for (int i = 0; i < 4; i++)
			if (files[i])
				port_release(&p, files[i]);
		port_shutdown(&p);
		check_all_answered_once();
		teardown();
	}
}


/*
 * A file hung up by a departure and kept open belongs to the old
 * handheld's session: the next session's last close is still the last
 * (row 1, findings r7 and r7b).  On 45b2186 no close was the last one:
 * TIOCEXCL refused the next user, TCOOFF stalled the next writer, and a
 * killed desktop's unsent bytes went out ahead of the next one's.
 */
static void test_hung_up_file_holds_no_session(void)
{
	struct tty_ioctl off = { .cmd = TCXONC, .arg = TCOOFF };
	struct port p;
	char buf[64];
	uint64_t kept, b, c;
	void *req, *drain;

	setup(&p);
	port_carrier_up(&p);
	kept = do_open(false); /* one user keeps this across the departure */
	port_carrier_down(&p);
	port_carrier_up(&p);
	b = do_open(false);
	do_ioctl(b, TIOCEXCL, NULL, 0, 0);
	req = new_req();
	port_ioctl(&p, req, b, &off);
	port_release(&p, b);
	CHECK_EQ(h.last_close, 1); /* the handheld is told */
	CHECK_EQ(h.rx_stop, 2);	   /* at the departure, and at this close */
	c = do_open(false);	   /* another user: not EBUSY */
	do_write(c, "hello", false);
	drain = do_ioctl(c, TCSBRK, NULL, 0, 0);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 5);
	CHECK(memcmp(buf, "hello", 5) == 0 && ans(drain)->kind == PH_IOCTL);
	port_release(&p, c);

	/* a killed desktop's unsent bytes: the closing wait, then discarded */
	b = do_open(false);
	do_write(b, "STALE", false);
	port_release(&p, b);
	CHECK(p.closing);
	port_after_events(&p, 1000);
	port_after_events(&p, 31000);
	CHECK(!p.closing && h.last_close == 3);
	c = do_open(false);
	do_write(c, "hello", false);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 5);
	CHECK(memcmp(buf, "hello", 5) == 0);
	port_release(&p, c);
	/* the kept file's close is no session's last */
	port_release(&p, kept);
	CHECK_EQ(h.last_close, 4);
	check_all_answered_once();
	teardown();
}

/*
 * A lock (TIOCSLCKTRMIOS) is the tty's, as its termios_locked in the
 * tty_struct: it ends at the session's last close and at a departure,
 * so a later user's settings take (attacker round 3, B4).
 */
static void test_lock_ends_with_its_session(void)
{
	struct termios lock = { 0 }, got;
	struct port p;
	uint64_t a, b;
	void *q;

	setup(&p);
	port_carrier_up(&p);
	a = do_open(false);
	set_flags(&p, a, 0, 0, ICANON);
	lock.c_lflag = ICANON;
	q = ph_ioctl(&h, a, TIOCSLCKTRMIOS, 0, &lock, sizeof(lock), 0, true);
	CHECK(ans(q)->kind == PH_IOCTL);
	set_flags(&p, a, 0, 0, 0);
	CHECK(p.tty.termios.c_lflag & ICANON); /* locked: kept */
	port_release(&p, a);
	b = do_open(false);
	set_flags(&p, b, 0, 0, 0);
	CHECK(!(p.tty.termios.c_lflag & ICANON));
	q = do_ioctl(b, TIOCGLCKTRMIOS, NULL, 0, sizeof(got));
	memcpy(&got, ans(q)->data, sizeof(got));
	CHECK_EQ(got.c_lflag, 0);
	/* and at a departure, with the file kept open */
	set_flags(&p, b, 0, 0, ICANON);
	q = ph_ioctl(&h, b, TIOCSLCKTRMIOS, 0, &lock, sizeof(lock), 0, true);
	set_flags(&p, b, 0, 0, 0);
	CHECK(p.tty.termios.c_lflag & ICANON);
	port_carrier_down(&p);
	port_carrier_up(&p);
	a = do_open(false);
	set_flags(&p, a, 0, 0, 0);
	CHECK(!(p.tty.termios.c_lflag & ICANON));
	port_release(&p, a);
	port_release(&p, b);
	check_all_answered_once();
	teardown();
}

/* Other user namespaces, as the front names them (port.h PORT_USERNS_*). */
#define NS_A 0x5a5a0001ull
#define NS_B 0x5a5a0002ull

/* An open by uid in userns, without CAP_SYS_ADMIN; fh, or 0 with *err (may be NULL). */
static uint64_t open_in(uint32_t uid, uint64_t userns, int *err)
{
	struct port_open_args a = { .uid = uid, .userns = userns };
	void *req = new_req();

	port_open(h.port, req, &a);
	if (err)
		*err = ans(req)->kind == PH_ERR ? ans(req)->err : 0;
	return ans(req)->kind == PH_OPEN ? ans(req)->fh : 0;
}

/* A blocking read that waits: true if it was parked, not refused. */
static bool read_waits(uint64_t fh)
{
	return ans(ph_read(&h, fh, 1, false, 0))->count == 0;
}

/* A blocking write of n bytes that waits behind a full txq: true if parked. */
static bool write_waits(uint64_t fh, size_t n)
{
	static char bytes[8192];

	memset(bytes, 'q', sizeof(bytes));
	return ans(ph_write(&h, fh, bytes, n, false))->count == 0;
}

/*
 * A user is one user in every user namespace: uid 1000 with files and
 * waiting requests as itself, from its own `unshare -U` namespace and from
 * another stops at its quarter of each (ph_config_small: 2 of 8 files, 16
 * of 64 requests, 2048 of 8192 write bytes), and another user's sandbox
 * still opens (finding 2 of review 96c7d05: uid 1000 held half the node,
 * a sandboxed uid 1001 got ENFILE).
 */
static void test_user_is_one_in_every_namespace(void)
{
	uint64_t own, in_a, other, host;
	struct port p;
	int err;

	setup(&p);
	port_carrier_up(&p);
	in_a = open_in(1000, NS_A, NULL);
	own = open_in(1000, PORT_USERNS_OWN, NULL);
	CHECK(in_a && own);
	CHECK(!open_in(1000, NS_B, &err) && err == ENFILE);
	CHECK(!open_in(1000, PORT_USERNS_UNSEEN, &err) && err == ENFILE);
	CHECK(!open_in(1000, PORT_USERNS_OWN, &err) && err == ENFILE);
	other = open_in(1001, NS_B, NULL); /* a desktop in a Flatpak of another user */
	host = open_in(1002, PORT_USERNS_OWN, NULL);
	CHECK(other && host);

	/* waiting requests: 16 of uid 1000's, on its files in either namespace */
	for (int i = 0; i < 16; i++)
		CHECK(read_waits(i % 2 ? in_a : own));
	CHECK(!read_waits(in_a) && !read_waits(own));
	CHECK(read_waits(other) && read_waits(host));
	port_release(&p, in_a);
	port_release(&p, own);

	/* bytes of waiting writes: 2048 of uid 1000's, in either namespace */
	in_a = open_in(1000, NS_A, NULL);
	own = open_in(1000, PORT_USERNS_OWN, NULL);
	CHECK(!write_waits(host, 4096)); /* fills txq: later writes wait */
	CHECK(write_waits(in_a, 1024) && write_waits(own, 1024));
	CHECK(!write_waits(in_a, 1) && !write_waits(own, 1));
	CHECK(write_waits(other, 1024));
	port_release(&p, in_a);
	port_release(&p, own);
	port_release(&p, other);
	port_release(&p, host);
	check_all_answered_once();
	teardown();
}

/*
 * One user namespace cannot lock another out, nor pilotd's own users:
 * one with many kuids (a user's subordinate ids) has a quarter of each
 * bound, and so has the bucket of callers pilotd cannot see; uid 1001's
 * sandbox and a user of pilotd's namespace still open, wait and write.
 */
static void test_one_namespace_cannot_lock_out_another(void)
{
	uint64_t a[2], b, host, unseen[2];
	struct port p;
	int err;

	setup(&p);
	port_carrier_up(&p);
	a[0] = open_in(100000, NS_A, NULL);
	a[1] = open_in(100001, NS_A, NULL);
	CHECK(a[0] && a[1]);
	CHECK(!open_in(100002, NS_A, &err) && err == ENFILE); /* the namespace's quarter */
	b = open_in(1001, NS_B, NULL);
	host = open_in(1002, PORT_USERNS_OWN, NULL);
	CHECK(b && host);

	/* 16 of 64 waiting requests: the namespace's, whatever its kuids */
	for (int i = 0; i < 16; i++)
		CHECK(read_waits(a[i % 2]));
	CHECK(!read_waits(a[0]) && !read_waits(a[1]));
	CHECK(read_waits(b) && read_waits(host));
	port_release(&p, a[0]);
	port_release(&p, a[1]);

	/* 2048 of 8192 bytes of waiting writes */
	a[0] = open_in(100000, NS_A, NULL);
	a[1] = open_in(100001, NS_A, NULL);
	CHECK(!write_waits(host, 4096)); /* fills txq: later writes wait */
	CHECK(write_waits(a[0], 1024) && write_waits(a[1], 1024));
	CHECK(!write_waits(a[0], 1) && !write_waits(a[1], 1));
	CHECK(write_waits(b, 1024));
	while (port_tx_queued(&p)) /* no closing wait: the next opens go at once */
		ph_handheld_takes(&h, SIZE_MAX);
	port_release(&p, a[0]);
	port_release(&p, a[1]);
	port_release(&p, b);
	port_release(&p, host);

	/* callers pilotd cannot see: a bucket of their own, a quarter, whoever they are */
	unseen[0] = open_in(1003, PORT_USERNS_UNSEEN, NULL);
	unseen[1] = open_in(1003, PORT_USERNS_UNSEEN, NULL);
	CHECK(unseen[0] && unseen[1]);
	CHECK(!open_in(1004, PORT_USERNS_UNSEEN, &err) && err == ENFILE);
	b = open_in(1001, NS_B, NULL);
	host = open_in(1002, PORT_USERNS_OWN, NULL);
	CHECK(b && host);
	CHECK(!open_in(1003, PORT_USERNS_OWN, &err) && err == ENFILE); /* charged as uid 1003 */
	port_release(&p, unseen[0]);
	port_release(&p, unseen[1]);
	port_release(&p, b);
	port_release(&p, host);
	check_all_answered_once();
	teardown();
}

/*
 * However many user namespaces a user makes (with subordinate ids, each
 * caller another kuid), all other namespaces and the unseen callers
 * together hold half of each bound; pilotd's own users keep the rest.
 */
static void test_namespaces_together_keep_half(void)
{
	uint64_t fh[16], host[4];
	unsigned int n = 0;
	struct port p;
	int err = 0;

	setup(&p);
	port_carrier_up(&p);
	/* namespaces of one file each, kuids 100000...: 4 of the 8 files */
	for (uint32_t i = 0; i < 8; i++) {
		uint64_t f = open_in(100000 + i, NS_A + 16 + i, &err);

		if (f)
			fh[n++] = f;
	}
	CHECK_EQ(n, 4);
	CHECK_EQ(err, ENFILE);
	CHECK(!open_in(100020, PORT_USERNS_UNSEEN, &err) && err == ENFILE);
	for (int i = 0; i < 4; i++) /* four users of pilotd's namespace: the other half */
		host[i] = open_in(1000 + (uint32_t)i, PORT_USERNS_OWN, NULL);
	CHECK(host[0] && host[1] && host[2] && host[3]);
	for (int i = 0; i < 4; i++)
		port_release(&p, host[i]);

	/* waiting requests: 32 of 64 for the namespaces together */
	for (int i = 0; i < 32; i++)
		CHECK(read_waits(fh[i % 4]));
	for (int i = 0; i < 4; i++)
		CHECK(!read_waits(fh[i]));
	host[0] = open_in(1000, PORT_USERNS_OWN, NULL);
	host[1] = open_in(1001, PORT_USERNS_OWN, NULL);
	for (int i = 0; i < 32; i++) /* the host's half, 16 a user */
		CHECK(read_waits(host[i % 2]));
	CHECK_EQ(port_parked_count(&p), 64);
	for (unsigned int i = 0; i < n; i++)
		port_release(&p, fh[i]);
	port_release(&p, host[0]);
	port_release(&p, host[1]);
	check_all_answered_once();
	teardown();
}

/*
 * CAP_SYS_ADMIN passes the shares only for the caller that has it, at
 * that request, as capable() asks: a file root opened and then handed to
 * a process without it (fork and a privilege drop, SCM_RIGHTS) waits at a
 * quarter, and a capable caller on anyone's file passes it while capable
 * (finding 6 of review 96c7d05: the opener's privilege followed the file).
 */
static void test_admin_is_the_callers_not_the_openers(void)
{
	struct tty_ioctl miwait = { .cmd = TIOCMIWAIT, .arg = 0x040 }; /* TIOCM_CD */
	uint64_t roots, users;
	struct port p;
	void *req;

	setup(&p);
	port_carrier_up(&p);
	roots = do_open_as(0, false); /* opened with CAP_SYS_ADMIN */
	users = do_open_as(1000, false);

	/* root's file in the hands of a caller without it: a quarter */
	h.caller = PH_CALLER_INCAPABLE;
	for (int i = 0; i < 16; i++)
		CHECK(read_waits(roots));
	CHECK_EQ(h.admin_asked, 0); /* within the quarter: not asked */
	CHECK(!read_waits(roots));
	req = new_req();
	port_ioctl(&p, req, roots, &miwait);
	CHECK(is_err(req, ENOBUFS));
	CHECK(h.admin_asked >= 2);
	/* the same file, a caller with it: passes, while it has it */
	h.caller = PH_CALLER_CAPABLE;
	CHECK(read_waits(roots) && read_waits(roots));
	req = new_req();
	port_ioctl(&p, req, roots, &miwait);
	CHECK_EQ(ans(req)->count, 0);
	h.caller = PH_CALLER_INCAPABLE; /* it dropped it */
	CHECK(!read_waits(roots));

	/* a user's file in a capable caller's hands: it passes the quarter */
	for (int i = 0; i < 16; i++)
		CHECK(read_waits(users));
	CHECK(!read_waits(users));
	h.caller = PH_CALLER_CAPABLE;
	CHECK(read_waits(users));

	/* write bytes: 2048 of 8192, but for a capable caller */
	port_release(&p, users);
	users = do_open_as(1000, false);
	CHECK(!write_waits(roots, 4096)); /* fills txq: later writes wait */
	CHECK(write_waits(roots, 3000));  /* capable: past uid 0's quarter */
	h.caller = PH_CALLER_INCAPABLE;
	CHECK(!write_waits(roots, 1));
	CHECK(write_waits(users, 2048) && !write_waits(users, 1));
	h.caller = PH_CALLER_CAPABLE;
	CHECK(write_waits(users, 1024));
	port_release(&p, roots);
	port_release(&p, users);
	check_all_answered_once();
	teardown();
}

/*
 * Echo takes the room first (ECHO on, OPOST off, a handheld that sends
 * as fast as it takes): a blocking write still goes out, in parts as
 * room comes, as n_tty_write() does (row 3, finding r4; on 45b2186 it
 * waited for room for all of it, for ever).
 */
static void test_echo_cannot_starve_a_writer(void)
{
	static char big[2000], echo[512], out[512]; /* within a user's quarter */
	struct port p;
	uint64_t fh;
	size_t sent = 0;
	void *w;
	int round;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	set_flags(&p, fh, 0, 0, ECHO);
	memset(echo, 'e', sizeof(echo));
	memset(big, 'w', sizeof(big));
	for (int i = 0; i < 8; i++) { /* the echo fills txq */
		port_rx(&p, echo, sizeof(echo), 1);
		CHECK(ans(ph_read(&h, fh, sizeof(echo), true, 1))->len == sizeof(echo));
	}
	CHECK_EQ(byteq_space(&p.txq), 0);
	w = new_req();
	port_write(&p, w, fh, big, sizeof(big), false);
	for (round = 0; round < 100 && !ans(w)->count; round++) {
		size_t n = port_tx_take(&p, out, sizeof(out)); /* the handheld takes 512 */

		for (size_t i = 0; i < n; i++)
			sent += out[i] == 'w';
		port_tx_done(&p, n);
		port_rx(&p, echo, sizeof(echo), 2); /* ... and says 512 more */
		port_after_events(&p, 2);
		ph_read(&h, fh, sizeof(echo), true, 2);
	}
	CHECK(ans(w)->kind == PH_WRITTEN && ans(w)->len == sizeof(big));
	CHECK(round < 20);
	while (port_tx_queued(&p)) {
		size_t n = port_tx_take(&p, out, sizeof(out));

		for (size_t i = 0; i < n; i++)
			sent += out[i] == 'w';
		port_tx_done(&p, n);
	}
	CHECK_EQ(sent, sizeof(big));
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * Room promised to the transport holds whatever the settings become while
 * its transfers fly (row 4, finding r2): PARMRK doubles each 0xff, ICANON
 * makes each byte a line.  On 45b2186 half of the handheld's bytes were
 * dropped, and lines beyond the ring's bound lost their boundaries.
 */
static void test_promised_room_survives_new_settings(void)
{
	struct port_config cfg = ph_config_small;
	static uint8_t ff[2048], got[1024];
	struct port p;
	uint64_t fh;
	size_t promised, total = 0;

	cfg.rxq_size = 4096;
	cfg.rx_inflight_max = 2048;
	setup_with(&p, &cfg);
	port_carrier_up(&p);
	fh = do_open(false);
	memset(ff, 0xff, sizeof(ff));
	port_rx(&p, ff, 2048, 1); /* unread */
	promised = port_rx_room(&p);
	CHECK_EQ(promised, 2048); /* the transport asks the handheld for these */
	set_flags(&p, fh, PARMRK, 0, 0);
	CHECK(port_rx_room(&p) < promised); /* the pump asks for no more meanwhile */
	port_rx(&p, ff, promised, 2);	     /* they come, doubled */
	CHECK_EQ(p.stats.rx_discarded, 0);
	CHECK_EQ(port_rx_room(&p), 0);
	for (int i = 0; i < 16 && total < 2048 + 2 * promised; i++) {
		void *r = ph_read(&h, fh, sizeof(got), true, 2);

		CHECK(ans(r)->kind == PH_DATA && ans(r)->data[0] == 0xff);
		total += ans(r)->len;
	}
	CHECK_EQ(total, 2048 + 2 * promised);
	port_release(&p, fh);
	teardown();

	/* ICANON: more lines than PORT_LINES_MAX, each kept apart */
	cfg.rxq_size = 65536;
	cfg.rx_inflight_max = 8192;
	setup_with(&p, &cfg);
	port_carrier_up(&p);
	fh = do_open(false);
	promised = port_rx_room(&p);
	CHECK(promised >= 8192);
	set_flags(&p, fh, 0, 0, ICANON);
	for (int i = 0; i < 5000; i++)
		port_rx(&p, "\n", 1, 3);
	CHECK_EQ(p.stats.rx_discarded, 0);
	CHECK_EQ(p.lines.count, 5000);
	CHECK_EQ(port_rx_room(&p), 0); /* past the ring's bound: no more promises */
	for (int i = 0; i < 3; i++)
		CHECK(is_data(ph_read(&h, fh, 64, true, 3), "\n"));
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * O_NONBLOCK does not skip a closing wait: tty_open() waits for the
 * closer, whatever the flags (row 11, finding r9: EAGAIN for up to 30 s
 * on 45b2186).  It still skips the wait for a carrier (no CLOCAL).
 */
static void test_nonblocking_open_waits_for_the_closer(void)
{
	struct port_open_args nb = { .uid = 1000, .nonblock = true };
	struct port p;
	char buf[64];
	uint64_t fh;
	void *o;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	do_write(fh, "bye", false);
	port_release(&p, fh);
	o = new_req();
	port_open(&p, o, &nb);
	CHECK_EQ(ans(o)->count, 0);
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 3); /* drained: the open goes */
	CHECK(ans(o)->kind == PH_OPEN);
	port_release(&p, ans(o)->fh);
	port_carrier_down(&p);
	p.tty.termios.c_cflag &= ~(tcflag_t)CLOCAL;
	o = new_req();
	port_open(&p, o, &nb); /* no handheld, no CLOCAL: at once all the same */
	CHECK(ans(o)->kind == PH_OPEN);
	port_release(&p, ans(o)->fh);
	check_all_answered_once();
	teardown();
}

/*
 * What the kernel lets only capable(CAP_SYS_ADMIN) do needs it here too,
 * not uid 0 (row 6): a container's root without it may not TIOCSTI into
 * others' input, set closing_wait, open past TIOCEXCL or pass a user's
 * quarter; a request on a file the port does not know has nobody's rights.
 */
static void test_privilege_is_a_capability(void)
{
	struct tty_ioctl sti = { .cmd = TIOCSTI, .in = "x", .in_len = 1 };
	struct port_open_args root = { .uid = 0 }, admin = { .uid = 0, .admin = true };
	struct serial_struct ss;
	char big[4096];
	struct port p;
	uint64_t fh[4], excl;
	void *req;

	setup(&p);
	port_carrier_up(&p);
	for (int i = 0; i < 2; i++) { /* a quarter of the 8 files */
		req = new_req();
		port_open(&p, req, &root);
		CHECK(ans(req)->kind == PH_OPEN);
		fh[i] = ans(req)->fh;
	}
	req = new_req();
	port_open(&p, req, &root);
	CHECK(is_err(req, ENFILE));
	req = new_req();
	port_open(&p, req, &admin);
	CHECK(ans(req)->kind == PH_OPEN);
	fh[2] = ans(req)->fh;
	req = new_req();
	port_ioctl(&p, req, fh[0], &sti);
	CHECK(is_err(req, EPERM));
	sti.caller_admin = true;
	req = new_req();
	port_ioctl(&p, req, fh[0], &sti);
	CHECK(ans(req)->kind == PH_IOCTL);
	CHECK(is_data(ph_read(&h, fh[0], 64, true, 1), "x"));

	memset(&ss, 0, sizeof(ss));
	ss.closing_wait = ASYNC_CLOSING_WAIT_INF;
	{
		struct tty_ioctl set = { .cmd = TIOCSSERIAL, .in = &ss, .in_len = sizeof(ss) };

		req = new_req();
		port_ioctl(&p, req, fh[0], &set);
		CHECK(is_err(req, EPERM));
		CHECK(p.tty.closing_wait != ASYNC_CLOSING_WAIT_INF);
	}

	excl = fh[2];
	do_ioctl(excl, TIOCEXCL, NULL, 0, 0);
	req = new_req();
	port_open(&p, req, &root);
	CHECK(is_err(req, EBUSY));
	req = new_req();
	port_open(&p, req, &admin);
	CHECK(ans(req)->kind == PH_OPEN);
	fh[3] = ans(req)->fh;
	do_ioctl(excl, TIOCNXCL, NULL, 0, 0);

	/* a file nobody knows: no share but nobody's quarter (fail closed) */
	memset(big, 'x', sizeof(big));
	port_write(&p, new_req(), fh[2], big, sizeof(big), false); /* txq full */
	for (int i = 0; i < 16; i++)
		port_read(&p, new_req(), 999999, 1, false, 1);
	req = new_req();
	port_read(&p, req, 999999, 1, false, 1);
	CHECK(is_err(req, ENOBUFS)); /* 64 / 4 */
	port_shutdown(&p);
	for (int i = 0; i < 4; i++)
		port_release(&p, fh[i]);
	check_all_answered_once();
	teardown();
}

/*
 * A departed handheld's unread bytes stay for its hung-up files until the
 * next handheld arrives, then they go: one receive queue holds one
 * session's input (the kernel's hung-up tty reads none at all).  The next
 * session's files never read them (row 13, port.h says so now).
 */
static void test_departed_bytes_until_the_next_arrival(void)
{
	struct port p;
	uint64_t old, fresh;

	setup(&p);
	port_carrier_up(&p);
	old = do_open(false);
	port_rx(&p, "last words", 10, 1);
	port_carrier_down(&p);
	CHECK(is_data(ph_read(&h, old, 4, true, 2), "last"));
	port_carrier_up(&p);
	CHECK(is_data(ph_read(&h, old, 64, true, 3), "")); /* then end of file */
	CHECK_EQ(p.stats.rx_discarded, 6);
	fresh = do_open(false);
	port_rx(&p, "new", 3, 4);
	CHECK(is_data(ph_read(&h, fresh, 64, true, 4), "new"));
	port_release(&p, old);
	port_release(&p, fresh);
	check_all_answered_once();
	teardown();
}

/*
 * Issue 26 row 8: poll reports POLLIN, with VTIME 0, only once VMIN bytes
 * are there (n_tty's input_available_p(tty, 1)): a desktop's event loop
 * would wake and its blocking read block.
 */
static void test_poll_vmin(void)
{
	struct port p;
	uint64_t fh;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	p.tty.termios.c_cc[VMIN] = 5;
	port_rx(&p, "x", 1, 0);
	CHECK(!(port_poll(&p, fh, NULL, 0) & POLLIN));
	port_rx(&p, "yzvw", 4, 0);
	CHECK(port_poll(&p, fh, NULL, 0) & POLLIN);
	p.tty.termios.c_cc[VTIME] = 1; /* with a timer one byte is news */
	CHECK(is_data(ph_read(&h, fh, 4, true, 0), "xyzv"));
	CHECK(port_poll(&p, fh, NULL, 0) & POLLIN);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * Issue 26 row 12(e): end-of-file lines queued when ICANON goes off read
 * as NUL bytes, as n_tty keeps a VEOF in its buffer; and a NUL that ends
 * bytes queued when ICANON comes on is taken for such a VEOF.
 */
static void test_eof_across_icanon(void)
{
	struct port p;
	uint64_t fh;
	void *r;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	set_flags(&p, fh, 0, 0, ICANON);
	port_rx(&p, "ab\004\004c\n", 6, 0);
	set_flags(&p, fh, 0, 0, 0);
	CHECK_EQ(fionread(&p, fh), 6);
	r = ph_read(&h, fh, 64, true, 1);
	CHECK(ans(r)->kind == PH_DATA && ans(r)->len == 6 && !memcmp(ans(r)->data, "ab\0\0c\n", 6));
	port_rx(&p, "de\0", 3, 1);
	set_flags(&p, fh, 0, 0, ICANON);
	CHECK_EQ(fionread(&p, fh), 2);
	set_flags(&p, fh, 0, 0, 0); /* and the NUL is a byte again */
	r = ph_read(&h, fh, 64, true, 2);
	CHECK(ans(r)->kind == PH_DATA && ans(r)->len == 3 && !memcmp(ans(r)->data, "de\0", 3));

	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/* ---- callers without CAP_SYS_ADMIN, opens that do not listen at once (issue 26 row 20) ---- */

/* An open by uid, without CAP_SYS_ADMIN, that neither reads nor polls yet. */
static uint64_t open_unheard(struct port *p, uint32_t uid, bool nonblock, void **req)
{
	struct port_open_args a = { .uid = uid, .nonblock = nonblock };

	*req = new_req();
	port_open(p, *req, &a);
	return ans(*req)->kind == PH_OPEN ? ans(*req)->fh : 0;
}

/*
 * The last close with transfers in flight: the transport cancels them at
 * once (rx_stop), before the closing wait; what one brought meanwhile is
 * discarded; the next desktop's open waits for the closer (O_NONBLOCK
 * too) and takes nothing from the handheld until it listens, so its
 * tcflush() right after open discards nothing.  And a file hung up by a
 * departure, kept open, makes no later close less the last (rows 1, 2).
 */
static void test_last_close_in_flight_unheard(void)
{
	struct tty_ioctl flush = { .cmd = TCFLSH, .arg = TCIFLUSH };
	struct port p;
	char buf[64];
	uint64_t a, b, kept;
	void *o, *req;

	setup(&p);
	port_carrier_up(&p);
	a = open_unheard(&p, 1000, false, &o);
	CHECK_EQ(port_rx_room(&p), 0); /* opened, not listening: nothing asked of the handheld */
	CHECK(is_err(ph_read(&h, a, 64, true, 1), EAGAIN));
	CHECK(port_rx_room(&p) > 0); /* it listens: the transport submits IN transfers */
	do_write(a, "bye", false);
	port_release(&p, a);
	CHECK(p.closing);
	CHECK_EQ(h.rx_stop, 1);	   /* cancelled at the close, not after the closing wait */
	CHECK_EQ(h.last_close, 0); /* the notification comes once the output is out */
	CHECK_EQ(port_rx_room(&p), 0);
	port_rx(&p, "late", 4, 2); /* one transfer completed before the cancel took */
	CHECK_EQ(p.stats.rx_discarded, 4);
	b = open_unheard(&p, 1001, true, &o);
	CHECK(b == 0 && ans(o)->count == 0); /* O_NONBLOCK too waits for the closer */
	CHECK_EQ(ph_handheld_takes_into(&h, buf, sizeof(buf)), 3);
	CHECK(ans(o)->kind == PH_OPEN && h.last_close == 1);
	b = ans(o)->fh;
	CHECK_EQ(port_rx_room(&p), 0); /* B has not listened: the handheld keeps its bytes */
	req = new_req();
	port_ioctl(&p, req, b, &flush); /* a desktop's tcflush() right after open */
	CHECK(ans(req)->kind == PH_IOCTL);
	CHECK_EQ(fionread(&p, b), 0); /* FIONREAD listens */
	CHECK(port_rx_room(&p) > 0);
	port_rx(&p, "hello", 5, 3);
	CHECK(is_data(ph_read(&h, b, 64, true, 3), "hello"));
	CHECK_EQ(p.stats.rx_discarded, 4);
	port_release(&p, b); /* nothing unsent: told at once */
	CHECK(h.rx_stop == 2 && h.last_close == 2);

	/* a hung-up file kept open across the departure holds nothing of the next session */
	kept = open_unheard(&p, 1002, false, &o);
	port_poll(&p, kept, NULL, 0);
	port_carrier_down(&p);
	CHECK_EQ(h.rx_stop, 3);
	port_carrier_up(&p);
	b = open_unheard(&p, 0, false, &o); /* uid 0 without CAP_SYS_ADMIN */
	CHECK_EQ(port_rx_room(&p), 0);
	port_poll(&p, b, NULL, 0);
	CHECK(port_rx_room(&p) > 0);
	port_release(&p, b);
	CHECK(h.rx_stop == 4 && h.last_close == 3 && port_rx_room(&p) == 0);
	port_release(&p, kept); /* the old session's file: no last close of this one */
	CHECK(h.rx_stop == 4 && h.last_close == 3);
	check_all_answered_once();
	teardown();
}

/* Settings under which bytes pass unchanged on the way in: raw, or lines split by '\n' alone. */
static bool plain_settings(struct port *p, uint64_t fh, void **req)
{
	static const unsigned int cmds[] = { TCSETS, TCSETSW, TCSETSF };
	unsigned int cmd = cmds[rnd(3)];
	struct termios t;

	memcpy(&t, &p->tty.termios, sizeof(t));
	t.c_iflag = rnd(2) ? IUTF8 : 0;
	t.c_oflag = rnd(2) ? OPOST | (rnd(2) ? ONLCR : 0) : 0;
	t.c_lflag = (rnd(2) ? ICANON : 0) | (rnd(2) ? ECHO : 0) | (rnd(2) ? ECHOCTL : 0);
	t.c_cc[VERASE] = t.c_cc[VKILL] = t.c_cc[VEOF] = t.c_cc[VEOL] = 0;
	t.c_cflag |= CLOCAL;
	t.c_cc[VMIN] = (cc_t)rnd(4);
	t.c_cc[VTIME] = (cc_t)rnd(3);
	*req = do_ioctl(fh, cmd, &t, sizeof(t), 0);
	return cmd == TCSETSF; /* it flushes the input */
}

/* The read-back model: what rxq and the line being edited hold, of one session. */
static struct {
	uint8_t b[1 << 16];
	size_t head, len, line;
	uint64_t session;
} rb;

static void rb_clear(void)
{
	rb.len = rb.line = 0;
}

struct rb_pending {
	void *req;
	int file;
	bool flushes; /* an ioctl that flushes the input when answered */
};

struct rb_file {
	uint64_t fh, session;
	bool open, hung_up;
	void *open_req; /* an open still waiting */
};

/* Nobody of rxq's session is left to read it: the port drops it. */
static void rb_orphaned(const struct rb_file *files, int n)
{
	for (int i = 0; i < n; i++)
		if (files[i].open && files[i].session == rb.session)
			return;
	rb_clear();
}

/* Answers that came in the last call, in their order: reads return rb's head. */
static void rb_answers(struct rb_pending *pend, int *npend, struct rb_file *files, bool carrier,
		       uint64_t session)
{
	for (;;) {
		int first = -1;

		for (int i = 0; i < *npend; i++)
			if (ans(pend[i].req)->count &&
			    (first < 0 || ans(pend[i].req)->seq < ans(pend[first].req)->seq))
				first = i;
		if (first < 0)
			break;
		struct ph_answer *a = ans(pend[first].req);
		struct rb_file *f = &files[pend[first].file];

		if (pend[first].file >= 0 && f->open_req == pend[first].req) {
			f->open_req = NULL;
			f->open = a->kind == PH_OPEN;
			f->fh = a->fh;
			f->session = carrier ? session : session + 1;
		} else if (pend[first].flushes && a->kind == PH_IOCTL && f->session == rb.session) {
			rb_clear();
		} else if (a->kind == PH_DATA && a->len) {
			CHECK(f->session == rb.session && a->len <= rb.len);
			for (size_t i = 0; i < a->len && i < rb.len; i++)
				CHECK(a->data[i] == rb.b[(rb.head + i) % sizeof(rb.b)]);
			rb.head = (rb.head + a->len) % sizeof(rb.b);
			rb.len -= a->len < rb.len ? a->len : rb.len;
		}
		pend[first] = pend[--*npend];
	}
}

/* The handheld's bytes within the room, into the port and the model. */
static void rb_receive(struct port *p, uint8_t *counter, uint64_t now)
{
	uint8_t b[300];
	size_t n = 1 + rnd(sizeof(b));
	bool canon = p->tty.termios.c_lflag & ICANON;

	if (n > port_rx_room(p))
		n = port_rx_room(p);
	for (size_t i = 0; i < n; i++) {
		b[i] = rnd(6) ? (*counter)++ : '\n';
		if (canon && b[i] != '\n' && rb.line + 1 >= LDISC_LINE_MAX)
			continue; /* n_tty's full line drops it */
		rb.b[(rb.head + rb.len++) % sizeof(rb.b)] = b[i];
		if (canon)
			rb.line = b[i] == '\n' ? 0 : rb.line + 1;
	}
	port_rx(p, b, n, now);
}

/*
 * Random sessions of users without CAP_SYS_ADMIN (uid 0 among them), whose
 * opens do not listen at once, under settings that change between and
 * under the bytes (TCSETS, TCSETSW, TCSETSF, flushes, TCOOFF, TIOCSTI
 * refused): every read returns exactly the next bytes of its own session,
 * nothing lost, duplicated or reordered.  At the end, output restarted
 * (TCOON), the handheld takes everything: nothing waits.
 */
static void test_random_read_back(void)
{
	static char w[600];
	static char txbuf[16384];
	int failures = check_failures;

	for (unsigned int seed = 1; seed <= 60; seed++) {
		struct rb_file files[4] = { 0 };
		struct rb_pending pend[NREQ];
		int npend = 0;
		uint64_t now = 0, session = 0;
		uint8_t counter = 0;
		struct port p;

		srand(seed);
		setup(&p);
		memset(&rb, 0, sizeof(rb));
		for (int step = 0; step < 1500 && h.nreq < NREQ - 40; step++) {
			int fi = (int)rnd(4);
			struct rb_file *f = &files[fi];
			bool live = f->open && !f->hung_up;
			void *req = NULL;

			switch (rnd(16)) {
			case 0:
				if (!f->open && !f->open_req) {
					open_unheard(&p, rnd(3) ? 1000u + (unsigned int)fi : 0, rnd(2),
						     &f->open_req);
					pend[npend++] = (struct rb_pending){ f->open_req, fi, false };
				}
				break;
			case 1:
				if (f->open && !rnd(3)) {
					f->open = false;
					port_release(&p, f->fh);
					rb_orphaned(files, 4);
				}
				break;
			case 2:
			case 3:
				if (f->open) {
					req = ph_read(&h, f->fh, 1 + rnd(64), rnd(2), now);
					pend[npend++] = (struct rb_pending){ req, fi, false };
				}
				break;
			case 4:
				if (live) {
					memset(w, 'w', sizeof(w));
					port_write(&p, new_req(), f->fh, w, 1 + rnd(sizeof(w)), rnd(2));
				}
				break;
			case 5:
				if (f->open)
					port_poll(&p, f->fh, NULL, 0);
				break;
			case 6:
				if (live) {
					bool flushes = plain_settings(&p, f->fh, &req);

					pend[npend++] = (struct rb_pending){ req, fi, flushes };
				}
				break;
			case 7:
				if (live) {
					struct tty_ioctl io = { .cmd = rnd(2) ? TCXONC : TCFLSH,
								.arg = rnd(4) };

					req = new_req();
					port_ioctl(&p, req, f->fh, &io);
					if (io.cmd == TCFLSH && io.arg != TCOFLUSH)
						pend[npend++] = (struct rb_pending){ req, fi, true };
				}
				break;
			case 8:
				if (live) { /* without CAP_SYS_ADMIN: refused, nothing injected */
					struct tty_ioctl sti = { .cmd = TIOCSTI, .in = "!",
								 .in_len = 1 };

					CHECK(is_err((req = new_req(), port_ioctl(&p, req, f->fh, &sti), req),
						     EPERM));
				}
				break;
			case 9:
				if (npend)
					port_interrupt(&p, pend[rnd((unsigned int)npend)].req);
				break;
			case 10:
				if (rnd(4))
					break;
				if (p.carrier) {
					for (int i = 0; i < 4; i++)
						files[i].hung_up |= files[i].open;
					rb_orphaned(files, 4);
					rb.line = 0; /* the line being edited became the last */
					port_carrier_down(&p);
				} else {
					if (rb.session != session + 1)
						rb_clear();
					rb.session = ++session;
					port_carrier_up(&p);
				}
				break;
			case 11:
			case 12:
				if (p.carrier)
					rb_receive(&p, &counter, now);
				break;
			case 13:
			case 14: ph_handheld_takes_into(&h, txbuf, 1 + rnd(sizeof(txbuf))); break;
			default:
				now += rnd(300);
				port_after_events(&p, now);
				break;
			}
			if (!(p.tty.termios.c_lflag & ICANON))
				rb.line = 0; /* switched off: the line became bytes */
			rb_answers(pend, &npend, files, p.carrier, session);
			CHECK_EQ(byteq_len(&p.rxq) + p.ldisc.line_len, rb.len);
			if (check_failures > failures)
				break;
		}
		/* the handheld takes everything, once a live file restarted the output */
		for (int i = 0; i < 4 && p.carrier; i++) {
			struct tty_ioctl on = { .cmd = TCXONC, .arg = TCOON };

			if (files[i].open && !files[i].hung_up) {
				port_ioctl(&p, new_req(), files[i].fh, &on);
				break;
			}
		}
		for (int i = 0; i < 20 && p.carrier; i++) {
			ph_handheld_takes_into(&h, txbuf, sizeof(txbuf));
			now += 100000;
			port_after_events(&p, now);
		}
		if (p.carrier)
			CHECK(p.writes.count == 0 && port_tx_queued(&p) == 0);
		rb_answers(pend, &npend, files, p.carrier, session);
		port_after_events(&p, now + 1000000);
		port_shutdown(&p);
		for (int i = 0; i < 4; i++)
			if (files[i].open)
				port_release(&p, files[i].fh);
		port_shutdown(&p);
		check_all_answered_once();
		teardown();
		if (check_failures > failures) {
			fprintf(stderr, "test_random_read_back: seed %u\n", seed);
			break;
		}
	}
}

/*
 * TCOFLUSH lets a waiting writer go; the transport's hooks that its bytes
 * bring due run after the flush is answered, never with it in hand
 * (port.h "Re-entry"; fuzz_port found tx_ready and rx_room running inside
 * the ioctl, before its answer).
 */
static void test_flush_answered_before_hooks(void)
{
	static char full[4097];
	struct tty_ioctl flush = { .cmd = TCFLSH, .arg = TCOFLUSH };
	struct port p;
	uint64_t fh;
	void *w, *req;

	setup(&p);
	port_carrier_up(&p);
	fh = do_open(false);
	memset(full, 'f', sizeof(full) - 1);
	do_write(fh, full, false);
	w = do_write(fh, "next", false);
	CHECK_EQ(ans(w)->count, 0);
	req = new_req();
	port_ioctl(&p, req, fh, &flush);
	CHECK(ans(req)->kind == PH_IOCTL && ans(w)->kind == PH_WRITTEN);
	CHECK(ans(req)->seq < h.tx_ready_seq); /* answered, then the transfer starts */
	CHECK(ans(w)->seq > h.tx_ready_seq);   /* and the writer after it */
	CHECK_EQ(port_tx_queued(&p), 4);
	port_release(&p, fh);
	check_all_answered_once();
	teardown();
}

/*
 * VMIN > 0 with VTIME > 0 (n_tty_read()): no timer before the first byte,
 * then VTIME from the latest byte; VMIN 0: VTIME from the read.  A read of
 * 64 at 1000 ms, a byte at rx_ms (0: none), looked at when at_ms.
 */
static void test_vmin_vtime_timers(void)
{
	static const struct {
		const char *name;
		uint8_t vmin, vtime;
		uint64_t rx_ms, at_ms;
		const char *answer; /* NULL: still waiting */
	} cases[] = {
		{ "no timer before the first byte", 5, 1, 0, 9000, NULL },
		{ "the timer runs from the last byte", 5, 1, 1500, 1550, NULL },
		{ "the timer ends after the last byte", 5, 1, 1500, 1600, "a" },
		{ "VMIN 0: the timer runs from the read", 0, 5, 0, 1499, NULL },
		{ "VMIN 0: nothing when it ends", 0, 5, 0, 1500, "" },
		{ "VTIME 0: VMIN bytes or nothing", 2, 0, 1100, 9000, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct port p;
		struct termios t;
		uint64_t fh;
		void *r;

		setup(&p);
		port_carrier_up(&p);
		fh = do_open(false);
		memcpy(&t, &p.tty.termios, sizeof(t));
		t.c_cc[VMIN] = cases[i].vmin;
		t.c_cc[VTIME] = cases[i].vtime;
		do_ioctl(fh, TCSETS, &t, sizeof(t), 0);
		r = ph_read(&h, fh, 64, false, 1000);
		if (cases[i].rx_ms) {
			port_rx(&p, "a", 1, cases[i].rx_ms);
			port_after_events(&p, cases[i].rx_ms);
		}
		port_after_events(&p, cases[i].at_ms);
		if (cases[i].answer ? !is_data(r, cases[i].answer) : ans(r)->count != 0) {
			fprintf(stderr, "vmin_vtime_timers: %s: answered %d times\n", cases[i].name,
				ans(r)->count);
			check_failures++;
		}
		port_release(&p, fh);
		check_all_answered_once();
		teardown();
	}
}

/*
 * What stopped output and what restarts it (n_tty's stop_tty(),
 * start_tty(), TCXONC): TCOON forgets a STOP too, START does not undo
 * TCOOFF, TCOON alone does not undo a STOP; a departure forgets a STOP (the
 * next handheld gets a new tty) even while a hung-up file stays open.
 */
enum stop_step { STOP_RX, START_RX, TCOOFF_IO, TCOON_IO, DEPART_ARRIVE, STEPS_END };

static void test_what_restarts_output(void)
{
	static const struct {
		const char *name;
		enum stop_step steps[4];
		bool goes;
	} cases[] = {
		{ "STOP, TCOOFF, TCOON", { STOP_RX, TCOOFF_IO, TCOON_IO, STEPS_END }, true },
		{ "STOP, TCOON", { STOP_RX, TCOON_IO, STEPS_END }, false },
		{ "TCOOFF, START", { TCOOFF_IO, START_RX, STEPS_END }, false },
		{ "STOP, START", { STOP_RX, START_RX, STEPS_END }, true },
		{ "STOP, a departure", { STOP_RX, DEPART_ARRIVE, STEPS_END }, true },
		{ "TCOOFF, a departure", { TCOOFF_IO, DEPART_ARRIVE, STEPS_END }, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tty_ioctl on = { .cmd = TCXONC, .arg = TCOON },
				 off = { .cmd = TCXONC, .arg = TCOOFF };
		struct port p;
		uint64_t fh, writer;
		char buf[64];
		size_t n;

		setup(&p);
		port_carrier_up(&p);
		writer = fh = do_open(false);
		set_flags(&p, fh, IXON, 0, 0);
		for (int k = 0; cases[i].steps[k] != STEPS_END; k++) {
			switch (cases[i].steps[k]) {
			case STOP_RX: port_rx(&p, "\023", 1, 1); break;
			case START_RX: port_rx(&p, "\021", 1, 1); break;
			case TCOOFF_IO: port_ioctl(&p, new_req(), fh, &off); break;
			case TCOON_IO: port_ioctl(&p, new_req(), fh, &on); break;
			case DEPART_ARRIVE:
				port_carrier_down(&p);
				port_carrier_up(&p);
				writer = do_open(false); /* fh stays open, hung up */
				break;
			case STEPS_END: break;
			}
		}
		port_after_events(&p, 1);
		do_write(writer, "out", false);
		n = ph_handheld_takes_into(&h, buf, sizeof(buf));
		if (n != (cases[i].goes ? 3 : 0)) {
			fprintf(stderr, "what_restarts_output: %s: %zu bytes went\n", cases[i].name,
				n);
			check_failures++;
		}
		if (writer != fh)
			port_release(&p, writer);
		port_release(&p, fh);
		check_all_answered_once();
		teardown();
	}
}

/*
 * A port with ph_config_small's transmit queue (4096 bytes) and room for
 * every byte the handheld sends, carrier up, a file open with iflag and
 * lflag set: the echo floods below.
 */
static uint64_t echo_flood_port(struct port *p, unsigned int iflag, unsigned int lflag)
{
	struct port_config cfg = ph_config_small;
	uint64_t fh;

	cfg.rxq_size = 64 * 1024; /* every byte read, none refused */
	setup_with(p, &cfg);
	port_carrier_up(p);
	fh = do_open(false);
	set_flags(p, fh, iflag, 0, lflag);
	return fh;
}

/* The handheld's bytes as USB packets come, 64 at a time. */
static void rx_packets(struct port *p, const uint8_t *in, size_t len)
{
	for (size_t k = 0; k < len; k += 64)
		port_rx(p, in + k, len - k < 64 ? len - k : 64, 1);
}

/*
 * Echoes while output is stopped (a STOP from the handheld, or TCOOFF) wait
 * as n_tty's wait in its echo ring: not in the output queue (TIOCOUTQ does
 * not count them), and of a flood only the newest are kept, whole
 * operations of fewer than 3808 entries (__process_echoes()'s
 * ECHO_DISCARD_WATERMARK), which go at the START (after a TCOON, which
 * sends none of them, test_held_echoes_wait_over_tcoon(): at the START's
 * process_echoes() there too).  Before, the
 * queue kept the oldest 4096 bytes and dropped the newest (fuzz_ntty's
 * finds tcooff-vreprint-flood-held and stop-vreprint-flood-write).
 */
static void test_held_echoes_keep_the_newest(void)
{
	static const struct {
		const char *name;
		bool tcooff; /* else STOP and START from the handheld */
		bool ctl;    /* ^A and ^B, 2 entries each: 1903 kept, 3806 bytes */
	} cases[] = {
		{ "STOP, letters", false, false },
		{ "TCOOFF, letters", true, false },
		{ "STOP, control characters", false, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tty_ioctl on = { .cmd = TCXONC, .arg = TCOON },
				 off = { .cmd = TCXONC, .arg = TCOOFF };
		static uint8_t in[5000], out[8192], want[8192];
		size_t n = 0, k, nwant = 0, keep = cases[i].ctl ? 1903 : 3807;
		struct port p;
		uint64_t fh = echo_flood_port(&p, IXON, ECHO | (cases[i].ctl ? ECHOCTL : 0));

		for (k = 0; k < sizeof(in); k++)
			in[k] = cases[i].ctl ? (uint8_t)(1 + k % 2) : (uint8_t)('a' + k % 26);
		for (k = sizeof(in) - keep; k < sizeof(in); k++) {
			if (cases[i].ctl)
				want[nwant++] = '^';
			want[nwant++] = cases[i].ctl ? (uint8_t)(in[k] ^ 0100) : in[k];
		}
		if (cases[i].tcooff)
			port_ioctl(&p, new_req(), fh, &off);
		else
			port_rx(&p, "\023", 1, 1);
		rx_packets(&p, in, sizeof(in));
		port_after_events(&p, 1);
		CHECK_EQ(port_tx_queued(&p), 0); /* n_tty's TIOCOUTQ counts no echo */
		CHECK_EQ(ph_handheld_takes_into(&h, out, sizeof(out)), 0);
		if (cases[i].tcooff) {
			port_ioctl(&p, new_req(), fh, &on);
			port_after_events(&p, 1);
			CHECK_EQ(ph_handheld_takes_into(&h, out, sizeof(out)), 0);
		}
		port_rx(&p, "\021", 1, 1);
		port_after_events(&p, 1);
		while ((k = ph_handheld_takes_into(&h, out + n, sizeof(out) - n)) > 0)
			n += k;
		if (n != nwant || memcmp(out, want, n) != 0) {
			fprintf(stderr,
				"held_echoes_keep_the_newest: %s: %zu bytes went, %zu wanted\n",
				cases[i].name, n, nwant);
			check_failures++;
		}
		port_release(&p, fh);
		check_all_answered_once();
		teardown();
	}
}

/*
 * Echoes that found no room in the output queue wait in the echo ring with
 * output running too (a flood of them), and a tcsetattr() that turns IXON
 * off sends them: n_tty_set_termios() runs start_tty() and process_echoes()
 * there unless TCOOFF stopped output, whether a STOP had stopped it or not
 * (drivers/tty/n_tty.c).  Before, pilotd did so only after a STOP, and kept
 * them until its next write or batch (fuzz_ntty's find
 * stop-vreprint-flood-held-at-end).  Under TCOOFF they stay.
 */
static void test_ixon_off_sends_echoes_waiting_for_room(void)
{
	for (int tcooff = 0; tcooff <= 1; tcooff++) {
		struct tty_ioctl off = { .cmd = TCXONC, .arg = TCOOFF };
		static uint8_t in[4200], out[8192];
		size_t n = 0, k, room;
		struct port p;
		uint64_t fh = echo_flood_port(&p, IXON, ECHO);

		for (k = 0; k < sizeof(in); k++)
			in[k] = (uint8_t)('a' + k % 26);
		rx_packets(&p, in, sizeof(in));
		port_after_events(&p, 1);
		while ((k = ph_handheld_takes_into(&h, out + n, sizeof(out) - n)) > 0)
			n += k;
		room = n; /* the queue's room: the rest wait in the echo ring */
		CHECK(room < sizeof(in));
		CHECK(memcmp(out, in, room) == 0);
		if (tcooff)
			port_ioctl(&p, new_req(), fh, &off);
		set_flags(&p, fh, 0, 0, ECHO);
		port_after_events(&p, 1);
		while ((k = ph_handheld_takes_into(&h, out + n, sizeof(out) - n)) > 0)
			n += k;
		if (n != (tcooff ? room : sizeof(in)) || memcmp(out, in, n) != 0) {
			fprintf(stderr,
				"ixon_off_sends_echoes_waiting_for_room: %s: %zu bytes went, %zu wanted\n",
				tcooff ? "TCOOFF" : "output running", n - room,
				tcooff ? 0 : sizeof(in) - room);
			check_failures++;
		}
		port_release(&p, fh);
		check_all_answered_once();
		teardown();
	}
}

/*
 * Echoes that TCOOFF held stay held over the TCOON: n_tty's TCOON
 * (tty_ioctl.c TCXONC) is __start_tty(), which runs no process_echoes()
 * (tty_io.c; n_tty_write_wakeup() only signals), so they wait in its echo
 * ring for its next process_echoes(): a batch that echoes (flush_echoes()
 * at its end), a START, a signal character without ECHO, a write
 * (n_tty_write(), before the written bytes), IXON turned off
 * (n_tty_set_termios()); a batch that echoes nothing (a VEOF at the start
 * of a line: flush_echoes() finds echo_commit at echo_head) sends none.
 * pilotd sent them at the TCOON; n_tty, holding them, later discarded the
 * oldest of them under a second TCOOFF (ECHO_DISCARD_WATERMARK) and sent
 * other bytes than pilotd (fuzz_ntty's finds
 * tcooff-tcoon-lag-held-echoes-discarded, -2, -3,
 * tcooff-tcoon-held-echoes-kill-wraps-ring).  The last case is that: 3000
 * letters held, TCOON, TCOOFF, 1000 more: only the newest 3807 go.
 */
static void test_held_echoes_wait_over_tcoon(void)
{
	enum next { BATCH, VEOF_ONLY, START, QUIT, WRITE, IXON_OFF, TCOOFF_MORE };
	static const struct {
		const char *name;
		enum next next;
		const char *want; /* after the held "ab", or NULL: the newest 3807 letters */
	} cases[] = {
		{ "a batch that echoes", BATCH, "abc" },
		{ "a VEOF (no echo), then a write", VEOF_ONLY, "abW" },
		{ "a START", START, "ab" },
		{ "a QUIT without ECHO", QUIT, "ab" },
		{ "a write", WRITE, "abW" },
		{ "IXON turned off", IXON_OFF, "ab" },
		{ "TCOOFF again, more echoes", TCOOFF_MORE, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tty_ioctl on = { .cmd = TCXONC, .arg = TCOON },
				 off = { .cmd = TCXONC, .arg = TCOOFF };
		static uint8_t in[4000], out[8192]; /* one line: it holds 4095 */
		const size_t keep = 3807, held = cases[i].next == TCOOFF_MORE ? 3000 : 2;
		size_t n = 0, k;
		struct port p;
		uint64_t fh = echo_flood_port(&p, IXON, ICANON | ECHO | ISIG);

		for (k = 0; k < sizeof(in); k++)
			in[k] = (uint8_t)('a' + k % 26);
		port_ioctl(&p, new_req(), fh, &off);
		for (k = 0; k < held; k += 64)
			port_rx(&p, in + k, held - k < 64 ? held - k : 64, 1);
		port_after_events(&p, 1);
		CHECK_EQ(ph_handheld_takes_into(&h, out, sizeof(out)), 0);
		port_ioctl(&p, new_req(), fh, &on);
		port_after_events(&p, 1);
		n = ph_handheld_takes_into(&h, out, sizeof(out));
		if (n != 0) {
			fprintf(stderr, "held_echoes_wait_over_tcoon: %s: %zu bytes at the TCOON\n",
				cases[i].name, n);
			check_failures++;
		}
		switch (cases[i].next) {
		case BATCH: port_rx(&p, "c", 1, 1); break;
		case VEOF_ONLY:
			port_rx(&p, "\004", 1, 1); /* in a line: no echo, nothing delivered */
			port_after_events(&p, 1);
			CHECK_EQ(ph_handheld_takes_into(&h, out, sizeof(out)), 0);
			do_write(fh, "W", false);
			break;
		case START: port_rx(&p, "\021", 1, 1); break;
		case QUIT:
			set_flags(&p, fh, IXON, 0, ICANON | ISIG | NOFLSH);
			port_rx(&p, "\034", 1, 1);
			break;
		case WRITE: do_write(fh, "W", false); break;
		case IXON_OFF: set_flags(&p, fh, 0, 0, ICANON | ECHO | ISIG); break;
		case TCOOFF_MORE:
			port_ioctl(&p, new_req(), fh, &off);
			for (k = held; k < sizeof(in); k += 64)
				port_rx(&p, in + k, sizeof(in) - k < 64 ? sizeof(in) - k : 64, 1);
			port_ioctl(&p, new_req(), fh, &on);
			port_after_events(&p, 1);
			CHECK_EQ(ph_handheld_takes_into(&h, out, sizeof(out)), 0);
			port_rx(&p, "\021", 1, 1);
			break;
		}
		port_after_events(&p, 1);
		n = 0;
		while ((k = ph_handheld_takes_into(&h, out + n, sizeof(out) - n)) > 0)
			n += k;
		if (cases[i].want ? n != strlen(cases[i].want) || memcmp(out, cases[i].want, n) != 0
				  : n != keep || memcmp(out, in + sizeof(in) - keep, n) != 0) {
			fprintf(stderr,
				"held_echoes_wait_over_tcoon: %s: %zu bytes went, \"%.*s\"\n",
				cases[i].name, n, (int)(n < 16 ? n : 16), (const char *)out);
			check_failures++;
		}
		port_release(&p, fh);
		check_all_answered_once();
		teardown();
	}
}

/*
 * A canonical ERASE, KILL or WERASE commits the echoes whatever ECHO:
 * n_tty_receive_char_canon() runs eraser() and then commit_echoes() (Linux
 * 6.1 and 7.3 n_tty.c), and with 256 entries or more held and none added
 * since, commit_echoes() processes them.  So echoes held over a TCOON
 * (test_held_echoes_wait_over_tcoon()) go at an ERASE that echoes nothing:
 * ECHO off, or a line already empty.  pilotd committed only after a byte
 * that echoed, and kept them (fuzz_ntty's find
 * tcooff-tcoon-held-echoes-erase-commit-no-echo: 692 bytes).  No commit:
 * fewer than 256 held, WERASE without IEXTEN (data), ERASE outside ICANON.
 */
static void test_erase_commits_held_echoes(void)
{
	static const struct {
		const char *name;
		const char *c;	    /* the byte after the TCOON */
		unsigned int lflag; /* then, with IXON */
		size_t held;	    /* letters held, a newline after them if ECHO */
		bool sent;	    /* the held letters go */
	} cases[] = {
		{ "ERASE without ECHO", "\177", ICANON | IEXTEN, 300, true },
		{ "KILL without ECHO", "\025", ICANON | IEXTEN, 300, true },
		{ "WERASE without ECHO", "\027", ICANON | IEXTEN, 300, true },
		{ "ERASE on an empty line", "\177", ICANON | IEXTEN | ECHO, 300, true },
		{ "ERASE, 255 held", "\177", ICANON | IEXTEN, 255, false },
		{ "WERASE without IEXTEN", "\027", ICANON, 300, false },
		{ "ERASE without ICANON", "\177", IEXTEN, 300, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tty_ioctl on = { .cmd = TCXONC, .arg = TCOON },
				 off = { .cmd = TCXONC, .arg = TCOOFF };
		uint8_t in[301], out[1024];
		size_t len = cases[i].held, n = 0, k, want;
		struct port p;
		uint64_t fh = echo_flood_port(&p, IXON, ICANON | IEXTEN | ECHO);

		for (k = 0; k < len; k++)
			in[k] = (uint8_t)('a' + k % 26);
		if (cases[i].lflag & ECHO)
			in[len++] = '\n'; /* the line ends: nothing to erase */
		want = cases[i].sent ? len : 0;
		port_ioctl(&p, new_req(), fh, &off);
		rx_packets(&p, in, len);
		port_ioctl(&p, new_req(), fh, &on);
		port_after_events(&p, 1);
		CHECK_EQ(ph_handheld_takes_into(&h, out, sizeof(out)), 0);
		set_flags(&p, fh, IXON, 0, cases[i].lflag);
		port_rx(&p, cases[i].c, 1, 1);
		port_after_events(&p, 1);
		while ((k = ph_handheld_takes_into(&h, out + n, sizeof(out) - n)) > 0)
			n += k;
		if (n != want || memcmp(out, in, n) != 0) {
			fprintf(stderr,
				"erase_commits_held_echoes: %s: %zu bytes went, %zu wanted\n",
				cases[i].name, n, want);
			check_failures++;
		}
		port_release(&p, fh);
		check_all_answered_once();
		teardown();
	}
}

/*
 * A hung-up file stays hung up when the next handheld comes
 * (hung_up_tty_fops): writes and ioctls fail with EIO, reads end, poll
 * says POLLHUP; the next handheld's files are not hung up.
 */
static void test_hung_up_after_the_next_arrival(void)
{
	static const struct {
		const char *name;
		int what; /* 0 write, 1 ioctl, 2 read, 3 poll */
	} cases[] = {
		{ "write", 0 },
		{ "ioctl", 1 },
		{ "read", 2 },
		{ "poll", 3 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct port p;
		uint64_t old, fresh;
		bool ok = false;

		setup(&p);
		port_carrier_up(&p);
		old = do_open(false);
		port_carrier_down(&p);
		port_carrier_up(&p);
		fresh = do_open(false);
		switch (cases[i].what) {
		case 0: ok = is_err(do_write(old, "x", false), EIO); break;
		case 1: ok = is_err(do_ioctl(old, TCGETS, NULL, 0, 36), EIO); break;
		case 2: ok = is_data(ph_read(&h, old, 64, false, 1), ""); break;
		case 3: ok = port_poll(&p, old, NULL, 0) & POLLHUP; break;
		}
		ok = ok && !(port_poll(&p, fresh, NULL, 0) & POLLHUP);
		if (!ok) {
			fprintf(stderr, "hung_up_after_the_next_arrival: %s: not as hung up\n",
				cases[i].name);
			check_failures++;
		}
		port_release(&p, fresh);
		port_release(&p, old);
		check_all_answered_once();
		teardown();
	}
}

int main(void)
{
	test_rx_with_no_file_open();
	test_tx_without_handheld();
	test_listening_starts_at_first_read();
	test_hung_up_poll();
	test_hangup();
	test_hung_up_reads_the_rest();
	test_hung_up_does_not_steal();
	test_clocal();
	test_opener_gone();
	test_modem_wait_mask();
	test_vtime();
	test_interrupt_races_data();
	test_backpressure_and_drain();
	test_transfer_before_answer();
	test_flush_ends_drain();
	test_flush_drops_kernel_buffer();
	test_interrupted_drain_drops_kernel_buffer();
	test_release_and_shutdown();
	test_poll_notify();
	test_poll_notify_wanted();
	test_poll_notify_two_pollers_one_round();
	test_push_events();
	test_push_wakes_who_was_not_told();
	test_push_wakes_for_new_input();
	test_push_wakes_for_settings();
	test_push_wakes_for_written();
	test_poll_notify_new_input();
	test_poll_notify_new_input_other_poller();
	test_hung_up_not_woken_by_next_session();
	test_push_refused_notifies();
	test_push_refused_later_forgets();
	test_bounds();
	test_stopped_output_dropped_at_last_close();
	test_departed_bytes_stay_with_their_session();
	test_closing_wait();
	test_reentrant_hooks();
	test_random_sessions();
	test_canonical_lines();
	test_cooked_defaults();
	test_cooked_write_in_parts();
	test_mode_switch_keeps_bytes();
	test_software_flow_control();
	test_start_in_batch_lets_queued_go();
	test_commit_block_in_batch_goes();
	test_isig_flushes();
	test_isig_flush_drops_kernel_buffer();
	test_tiocsti();
	test_vmin_interrupted_returns_bytes();
	test_ldisc_edges();
	test_random_settings();
	test_hung_up_file_holds_no_session();
	test_lock_ends_with_its_session();
	test_user_is_one_in_every_namespace();
	test_one_namespace_cannot_lock_out_another();
	test_namespaces_together_keep_half();
	test_admin_is_the_callers_not_the_openers();
	test_echo_cannot_starve_a_writer();
	test_promised_room_survives_new_settings();
	test_nonblocking_open_waits_for_the_closer();
	test_privilege_is_a_capability();
	test_departed_bytes_until_the_next_arrival();
	test_poll_vmin();
	test_eof_across_icanon();
	test_last_close_in_flight_unheard();
	test_random_read_back();
	test_flush_answered_before_hooks();
	test_vmin_vtime_timers();
	test_what_restarts_output();
	test_held_echoes_keep_the_newest();
	test_ixon_off_sends_echoes_waiting_for_room();
	test_held_echoes_wait_over_tcoon();
	test_erase_commits_held_echoes();
	test_hung_up_after_the_next_arrival();
	return check_result("test_port");
}
