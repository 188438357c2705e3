// SPDX-License-Identifier: MIT
/*
 * The input the kernel keeps (core/port_push.c, kernel-patches/stream-data):
 * when the port pushes a file's received bytes to the kernel's buffer of
 * it, and that the reader gets every byte once, in order, whichever way
 * it comes (the kernel's buffer or a read request), with a fake front
 * whose "kernel" is port_harness.h's kbuf and a fake clock.
 */
#include <asm/ioctls.h>
#include <errno.h>
#include <string.h>

#include "check.h"
#include "port_harness.h"
#include "raw_termios.h"

#define NREQ 512
#define KH   0x4b48 /* the kernel's handle of the file, as FUSE_OPEN carries it */

static struct ph h;

/* A port with a handheld and one open, listening file; keyed: the kernel offered pushes. */
static uint64_t setup(struct port *p, bool keyed)
{
	uint64_t fh;

	CHECK_EQ(ph_init(&h, p, &ph_config_small, NREQ), 0);
	make_raw_termios(&p->tty.termios);
	h.open_input_key = keyed ? KH : 0;
	fh = ph_open(&h, 1000, false, true);
	CHECK(fh != 0);
	port_carrier_up(p);
	return fh;
}

static void teardown(void)
{
	CHECK_EQ(ph_close_all(&h), 0);
	ph_free(&h);
}

static bool answered(void *req, const char *s)
{
	struct ph_answer *a = ph_ans(&h, req);

	return a->count == 1 && a->kind == PH_DATA && a->len == strlen(s) &&
	       memcmp(a->data, s, a->len) == 0;
}

static bool kernel_holds(const char *s)
{
	return h.kbuf_len == strlen(s) && memcmp(h.kbuf, s, h.kbuf_len) == 0;
}

/* The handheld's bytes go to the kernel: read() takes them without a request. */
static void test_pushed_and_read_without_request(void)
{
	struct port p;
	char buf[64];

	setup(&p, true);
	port_rx(&p, "hello", 5, 10);
	port_after_events(&p, 10);
	CHECK(kernel_holds("hello"));
	CHECK_EQ(h.input_key, KH);
	CHECK_EQ(byteq_len(&p.rxq), 0);
	CHECK_EQ(p.stats.rx_pushed, 5);
	CHECK_EQ(p.stats.input_pushes, 1);
	CHECK_EQ(h.rx_room, 2); /* the room the push made is asked for again */
	CHECK_EQ(ph_kernel_read(&h, buf, sizeof(buf)), 5);
	CHECK_EQ(p.stats.read_requests, 0);
	teardown();
}

/* A kernel that offered nothing (6.1, stock 7.3): reads come as requests, as before. */
static void test_not_offered_keeps_requests(void)
{
	struct port p;
	uint64_t fh = setup(&p, false);

	port_rx(&p, "hello", 5, 10);
	port_after_events(&p, 10);
	CHECK_EQ(h.input_push_calls, 0);
	CHECK_EQ(byteq_len(&p.rxq), 5);
	CHECK(answered(ph_read(&h, fh, 64, false, 11), "hello"));
	CHECK_EQ(p.stats.read_requests, 1);
	teardown();
}

/*
 * Order: a parked read is answered from rxq, never passed by a push; a
 * push the kernel has no room for stays first in rxq, and whichever way
 * the bytes go next (a later round's push, a read request once the kernel's
 * buffer is empty) the reader gets them in order, each once.
 */
static void test_order_and_enospc(void)
{
	char got[64], *g = got;
	struct port p;
	uint64_t fh = setup(&p, true);
	void *r;

	h.kbuf_room = 4;
	r = ph_read(&h, fh, 64, false, 0); /* the kernel's buffer was empty: a request */
	/* parked: nothing may pass it (the round serves it before it pushes) */
	CHECK(!port_input_pushable(&p, p.files));
	port_rx(&p, "ab", 2, 1);
	port_after_events(&p, 1);
	CHECK(answered(r, "ab")); /* the parked read took them, no push */
	CHECK_EQ(h.input_push_calls, 0);
	memcpy(g, "ab", 2), g += 2;

	port_rx(&p, "cd", 2, 2);
	port_after_events(&p, 2);
	CHECK(kernel_holds("cd"));
	port_rx(&p, "efg", 3, 3);
	port_after_events(&p, 3); /* 3 do not fit in the 2 left */
	CHECK(kernel_holds("cd"));
	CHECK_EQ(p.stats.input_push_full, 1);
	CHECK_EQ(byteq_len(&p.rxq), 3);
	port_after_events(&p, 4); /* the next round tries again: still no room */
	CHECK_EQ(p.stats.input_push_full, 2);
	/* FIONREAD counts the kernel's bytes too: it waits until they are back */
	{
		void *q = ph_ioctl(&h, fh, FIONREAD, 0, NULL, 0, 4, false);

		CHECK_EQ(ph_ans(&h, q)->count, 0);
		CHECK_EQ(h.take_back_calls, 1);
		port_after_events(&p, 4); /* no push while it is out */
		CHECK_EQ(h.input_push_calls, 3);
		ph_kernel_gives_back(&h);
		CHECK(ph_ans(&h, q)->kind == PH_IOCTL && ph_ans(&h, q)->data[0] == 5);
		CHECK_EQ(p.stats.rx_taken_back, 2);
	}
	/* "cd" back before "efg"; the reader's read() is a request, answered from rxq */
	r = ph_read(&h, fh, 64, false, 5);
	CHECK(answered(r, "cdefg"));
	memcpy(g, "cdefg", 5), g += 5;
	/* more, with room again: a push; then the round after a drained buffer */
	port_rx(&p, "hi", 2, 6);
	port_after_events(&p, 6);
	g += ph_kernel_read(&h, g, 64);
	CHECK_EQ((size_t)(g - got), 9);
	CHECK(memcmp(got, "abcdefghi", 9) == 0);
	CHECK_EQ(p.stats.rx_pushed, 4);
	teardown();
}

/* ENOSPC then room, with no request between: the next round pushes what waited. */
static void test_enospc_retried_next_round(void)
{
	char got[16];
	struct port p;

	setup(&p, true);
	h.kbuf_room = 4;
	port_rx(&p, "abc", 3, 0);
	port_after_events(&p, 0);
	port_rx(&p, "de", 2, 1);
	port_after_events(&p, 1);
	CHECK_EQ(byteq_len(&p.rxq), 2);
	CHECK_EQ(ph_kernel_read(&h, got, 3), 3);
	port_after_events(&p, 2);
	CHECK(kernel_holds("de"));
	CHECK_EQ(byteq_len(&p.rxq), 0);
	teardown();
}

/*
 * EBUSY: a read() found the kernel's buffer empty and its request is on
 * its way here (the kernel refuses pushes until it is answered). The
 * bytes stay first in rxq, that request takes them, and the pushes go on
 * afterwards; every byte once, in order.
 */
static void test_ebusy_kept_for_the_read(void)
{
	char got[16], *g = got;
	struct port p;
	uint64_t fh = setup(&p, true);

	h.input_push_err = -EBUSY;
	port_rx(&p, "abc", 3, 0);
	port_after_events(&p, 0);
	CHECK_EQ(h.input_push_calls, 1);
	CHECK_EQ(h.kbuf_len, 0);
	CHECK_EQ(byteq_len(&p.rxq), 3);
	CHECK_EQ(p.stats.input_push_busy, 1);
	CHECK_EQ(p.stats.input_push_full, 0);
	/* the read in flight arrives and takes the head of what was refused */
	CHECK(answered(ph_read(&h, fh, 2, false, 1), "ab"));
	memcpy(g, "ab", 2), g += 2;
	h.input_push_err = 0; /* its answer is processed: pushes land again */
	port_after_events(&p, 1);
	CHECK(kernel_holds("c"));
	port_rx(&p, "de", 2, 2);
	port_after_events(&p, 2);
	CHECK(kernel_holds("cde"));
	g += ph_kernel_read(&h, g, sizeof(got) - 2);
	CHECK_EQ((size_t)(g - got), 5);
	CHECK(memcmp(got, "abcde", 5) == 0);
	CHECK_EQ(p.stats.read_requests, 1);
	CHECK_EQ(p.stats.rx_pushed, 3);
	teardown();
}

/* The settings under which a read of the kernel's buffer is n_tty's read (port_push.c). */
static void test_settings_rule(void)
{
	static const struct {
		const char *name;
		unsigned int lflag_on, lflag_off;
		int vmin, vtime;
		bool pushable;
	} cases[] = {
		{ .name = "raw, VMIN 1, VTIME 0", .vmin = 1, .pushable = true },
		{ .name = "VMIN 0, VTIME 0: what is there", .vmin = 0, .pushable = true },
		{ .name = "VMIN 1, VTIME 5: the timer only when nothing is there",
		  .vmin = 1,
		  .vtime = 5,
		  .pushable = true },
		{ .name = "VMIN 0, VTIME 5", .vmin = 0, .vtime = 5, .pushable = true },
		{ .name = "VMIN 2: n_tty waits for two", .vmin = 2, .pushable = false },
		{ .name = "ICANON: one line a read, erase takes back",
		  .lflag_on = ICANON,
		  .vmin = 1,
		  .pushable = false },
		{ .name = "ISIG: VINTR flushes the input",
		  .lflag_on = ISIG,
		  .vmin = 1,
		  .pushable = false },
		{ .name = "ISIG with NOFLSH: no flush",
		  .lflag_on = ISIG | NOFLSH,
		  .vmin = 1,
		  .pushable = true },
		{ .name = "ECHO: at arrival, nothing taken back",
		  .lflag_on = ECHO,
		  .vmin = 1,
		  .pushable = true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct port p;

		setup(&p, true);
		p.tty.termios.c_lflag |= cases[i].lflag_on;
		p.tty.termios.c_cc[VMIN] = (uint8_t)cases[i].vmin;
		p.tty.termios.c_cc[VTIME] = (uint8_t)cases[i].vtime;
		if (port_input_pushable(&p, p.files) != cases[i].pushable) {
			fprintf(stderr, "settings rule: %s: expected %s\n", cases[i].name,
				cases[i].pushable ? "pushable" : "not pushable");
			check_failures++;
		}
		teardown();
	}
}

/* Two files: n_tty's input is any file's, a pushed byte its own file's alone. */
static void test_second_open_stops_pushes(void)
{
	struct port p;
	uint64_t fh = setup(&p, true), second;

	second = ph_open(&h, 1000, false, true);
	port_rx(&p, "xy", 2, 0);
	port_after_events(&p, 0);
	CHECK_EQ(h.input_push_calls, 0);
	CHECK(answered(ph_read(&h, second, 64, false, 1), "xy"));
	port_release(&p, second);
	port_rx(&p, "z", 1, 2);
	port_after_events(&p, 2);
	CHECK(kernel_holds("z")); /* one file again */
	(void)fh;
	teardown();
}

/* A hung-up file, and a kernel that refuses after all: requests, as before. */
static void test_hangup_and_refusal(void)
{
	struct port p;
	uint64_t fh = setup(&p, true);

	port_rx(&p, "a", 1, 0);
	port_carrier_down(&p);
	port_after_events(&p, 0);
	CHECK_EQ(h.input_push_calls, 0);
	CHECK(answered(ph_read(&h, fh, 64, false, 1), "a"));
	CHECK(answered(ph_read(&h, fh, 64, false, 1), "")); /* then end of file */
	teardown();

	fh = setup(&p, true);
	h.input_push_err = -EINVAL;
	port_rx(&p, "b", 1, 0);
	port_after_events(&p, 0);
	port_rx(&p, "c", 1, 1);
	port_after_events(&p, 1);
	CHECK_EQ(h.input_push_calls, 1); /* once, then never again */
	CHECK(answered(ph_read(&h, fh, 64, false, 2), "bc"));
	teardown();
}

/* ---- taking bytes back (FUSE_NOTIFY_STREAM_RETRIEVE, port_push.c) ---- */

/* The handheld's "abc" pushed, the reader took "a" from the kernel: it holds "bc". */
static uint64_t setup_held(struct port *p)
{
	uint64_t fh = setup(p, true);
	char c;

	port_rx(p, "abc", 3, 0);
	port_after_events(p, 0);
	CHECK_EQ(ph_kernel_read(&h, &c, 1), 1);
	CHECK(kernel_holds("bc"));
	return fh;
}

static void *do_ioctl(uint64_t fh, unsigned int cmd, uintptr_t arg, const void *in, size_t len)
{
	return ph_ioctl(&h, fh, cmd, arg, in, len, cmd == FIONREAD ? 4 : 0, false);
}

static int fionread(uint64_t fh)
{
	void *q = do_ioctl(fh, FIONREAD, 0, NULL, 0);
	int n;

	if (ph_ans(&h, q)->count != 1 || ph_ans(&h, q)->kind != PH_IOCTL)
		return -1;
	memcpy(&n, ph_ans(&h, q)->data, sizeof(n));
	return n;
}

static bool answered_ioctl(void *req)
{
	return ph_ans(&h, req)->count == 1 && ph_ans(&h, req)->kind == PH_IOCTL;
}

/*
 * tcflush(TCIFLUSH) and (TCIOFLUSH) drop what the kernel holds too, as
 * n_tty's flush drops its whole read buffer: the flush waits until the
 * bytes are back, then they go with rxq; what the handheld sends while it
 * waits comes after them, and goes too.  The bytes sent after the flush
 * are read, alone.
 */
static void test_flush_takes_back(void)
{
	static const unsigned int how[] = { TCIFLUSH, TCIOFLUSH };

	for (size_t i = 0; i < sizeof(how) / sizeof(how[0]); i++) {
		struct port p;
		uint64_t fh = setup_held(&p);
		void *q = do_ioctl(fh, TCFLSH, how[i], NULL, 0);

		CHECK_EQ(ph_ans(&h, q)->count, 0); /* waits for the kernel's bytes */
		CHECK_EQ(h.take_back_calls, 1);
		CHECK_EQ(h.take_back_key, KH);
		port_rx(&p, "x", 1, 1);
		port_after_events(&p, 1);
		CHECK_EQ(h.input_push_calls, 1); /* none while the take-back is out */
		ph_kernel_gives_back(&h);
		CHECK(answered_ioctl(q));
		CHECK_EQ(byteq_len(&p.rxq), 0);
		CHECK_EQ(h.kbuf_len, 0);
		port_rx(&p, "d", 1, 2);
		port_after_events(&p, 2); /* pushes resume */
		CHECK(kernel_holds("d"));
		teardown();
	}
}

/* FIONREAD/TIOCINQ counts the kernel's bytes with rxq's, as n_tty counts its buffer. */
static void test_fionread_counts_kernel_bytes(void)
{
	struct port p;
	uint64_t fh = setup_held(&p);
	void *q;
	int n;

	q = do_ioctl(fh, FIONREAD, 0, NULL, 0);
	CHECK_EQ(ph_ans(&h, q)->count, 0);
	port_rx(&p, "de", 2, 1); /* while it waits: after "bc" */
	port_after_events(&p, 1);
	ph_kernel_gives_back(&h);
	CHECK(answered_ioctl(q));
	memcpy(&n, ph_ans(&h, q)->data, sizeof(n));
	CHECK_EQ(n, 4);
	/* nothing held now: the next FIONREAD is answered at once, before a push */
	CHECK_EQ(fionread(fh), 4);
	CHECK_EQ(h.take_back_calls, 1);
	CHECK(answered(ph_read(&h, fh, 64, false, 2), "bcde"));
	teardown();
}

/*
 * A settings change under which pushed bytes may not be read yet: they
 * come back first, then the settings apply to them as n_tty's would.
 * ICANON on: the unread "bc" are one line (n_tty_set_termios()), and the
 * kernel holds nothing a later line could pass; VMIN 3: a read waits for
 * the third byte, where the kernel's buffer would return two.
 */
static void test_settings_change_takes_back(void)
{
	struct termios t;
	struct port p;
	uint64_t fh = setup_held(&p);
	void *q, *r;

	memcpy(&t, &p.tty.termios, sizeof(t));
	t.c_lflag |= ICANON;
	q = do_ioctl(fh, TCSETS, 0, &t, sizeof(t));
	CHECK_EQ(ph_ans(&h, q)->count, 0);
	CHECK(!(p.tty.termios.c_lflag & ICANON)); /* not yet */
	ph_kernel_gives_back(&h);
	CHECK(answered_ioctl(q));
	CHECK(p.tty.termios.c_lflag & ICANON);
	CHECK_EQ(h.kbuf_len, 0);
	/* n_tty_set_termios(): the unread bytes become one line, "d" the next */
	port_rx(&p, "d\n", 2, 2);
	port_after_events(&p, 2);
	CHECK(answered(ph_read(&h, fh, 64, false, 2), "bc"));
	CHECK(answered(ph_read(&h, fh, 64, false, 2), "d\n"));
	teardown();

	fh = setup_held(&p);
	memcpy(&t, &p.tty.termios, sizeof(t));
	t.c_cc[VMIN] = 3;
	q = do_ioctl(fh, TCSETS, 0, &t, sizeof(t));
	ph_kernel_gives_back(&h);
	CHECK(answered_ioctl(q));
	r = ph_read(&h, fh, 64, false, 1);
	CHECK_EQ(ph_ans(&h, r)->count, 0); /* two of three */
	port_rx(&p, "d", 1, 2);
	port_after_events(&p, 2);
	CHECK(answered(r, "bcd"));
	teardown();

	/* a change that keeps input pushable takes nothing back */
	fh = setup_held(&p);
	memcpy(&t, &p.tty.termios, sizeof(t));
	t.c_cc[VMIN] = 0;
	CHECK(answered_ioctl(do_ioctl(fh, TCSETS, 0, &t, sizeof(t))));
	CHECK_EQ(h.take_back_calls, 0);
	CHECK(kernel_holds("bc"));
	teardown();
}

/*
 * The kernel refuses the take-back: nothing comes, the ioctl is answered
 * at once from rxq, as without the series.  EINVAL: it cannot, and it is
 * not asked again.
 */
static void test_take_back_refused(void)
{
	/*
	 * Then "d" arrives and FIONREAD is asked again, the kernel willing:
	 * ENOENT: the file is gone for pushes, "d" stays in rxq; EBUSY: "d"
	 * is pushed and the take-back tried again (FIONREAD waits); EINVAL:
	 * "d" is pushed, no take-back is tried, FIONREAD counts rxq.
	 */
	static const struct {
		int err;
		int fionread_then; /* -1: it waits for the take-back */
		int calls_then;
	} cases[] = {
		{ .err = -ENOENT, .fionread_then = 1, .calls_then = 1 },
		{ .err = -EBUSY, .fionread_then = -1, .calls_then = 2 },
		{ .err = -EINVAL, .fionread_then = 0, .calls_then = 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct port p;
		uint64_t fh = setup_held(&p);

		h.take_back_err = cases[i].err;
		CHECK_EQ(fionread(fh), 0);
		CHECK_EQ(h.take_back_calls, 1);
		/* nothing held any more, as far as pilotd can tell: answered at once */
		CHECK(answered_ioctl(do_ioctl(fh, TCFLSH, TCIFLUSH, NULL, 0)));
		CHECK_EQ(h.take_back_calls, 1);
		h.take_back_err = 0;
		port_rx(&p, "d", 1, 1);
		port_after_events(&p, 1);
		CHECK_EQ(fionread(fh), cases[i].fionread_then);
		CHECK_EQ(h.take_back_calls, cases[i].calls_then);
		teardown();
	}
}

/*
 * Every ioctl that waits for the bytes is answered exactly once: an
 * interrupt answers EINTR (the bytes still come back, to rxq), a hangup
 * EIO; and with the take-back out a second one waits too, no second
 * take-back is asked, and both are answered when the bytes are back.
 */
static void test_take_back_waiters_answered_once(void)
{
	struct port p;
	uint64_t fh = setup_held(&p);
	void *q, *q2;
	int n;

	q = do_ioctl(fh, FIONREAD, 0, NULL, 0);
	port_interrupt(&p, q);
	port_after_events(&p, 1);
	CHECK(ph_ans(&h, q)->count == 1 && ph_ans(&h, q)->err == EINTR);
	ph_kernel_gives_back(&h);
	CHECK_EQ(ph_ans(&h, q)->count, 1);
	CHECK_EQ(byteq_len(&p.rxq), 2);
	teardown();

	fh = setup_held(&p);
	q = do_ioctl(fh, FIONREAD, 0, NULL, 0);
	q2 = do_ioctl(fh, FIONREAD, 0, NULL, 0);
	CHECK_EQ(h.take_back_calls, 1);
	ph_kernel_gives_back(&h);
	CHECK(answered_ioctl(q) && answered_ioctl(q2));
	memcpy(&n, ph_ans(&h, q2)->data, sizeof(n));
	CHECK_EQ(n, 2);
	teardown();

	fh = setup_held(&p);
	q = do_ioctl(fh, TCFLSH, TCIFLUSH, NULL, 0);
	port_carrier_down(&p);
	CHECK(ph_ans(&h, q)->count == 1 && ph_ans(&h, q)->err == EIO);
	ph_kernel_gives_back(&h); /* the old session's bytes: the hung-up file reads them */
	CHECK_EQ(ph_ans(&h, q)->count, 1);
	CHECK(answered(ph_read(&h, fh, 64, false, 2), "bc"));
	teardown();
}

int main(void)
{
	test_pushed_and_read_without_request();
	test_not_offered_keeps_requests();
	test_order_and_enospc();
	test_enospc_retried_next_round();
	test_ebusy_kept_for_the_read();
	test_settings_rule();
	test_second_open_stops_pushes();
	test_hangup_and_refusal();
	test_flush_takes_back();
	test_fionread_counts_kernel_bytes();
	test_settings_change_takes_back();
	test_take_back_refused();
	test_take_back_waiters_answered_once();
	return check_result("test_port_push");
}
