// SPDX-License-Identifier: MIT
/*
 * The terminal core: what each ioctl asks of the edge (fetch, wait,
 * flush, answer), that settings are stored exactly with the kernel's
 * speed fields, and how VMIN/VTIME turn into read rules.
 */
#include <asm/ioctls.h>
#include <errno.h>
#include <linux/serial.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/tty.h"

static const struct tty_context idle = { .drained = true };

static void run(struct tty *t, unsigned int cmd, uintptr_t arg, const void *in, size_t in_len,
		size_t out_len, const struct tty_context *ctx, struct tty_reply *r)
{
	struct tty_ioctl io = {
		.cmd = cmd,
		.arg = arg,
		.in = in,
		.in_len = in_len,
		.out_len = out_len,
	};

	tty_ioctl(t, &io, ctx, r);
}

/* Each ioctl first asks for exactly the argument bytes it needs. */
static void test_fetch_sizes(void)
{
	static const struct {
		unsigned int cmd;
		size_t in, out;
	} cases[] = {
		{ TCGETS, 0, 36 },	{ TCSETS, 36, 0 },	{ TCSETSW, 36, 0 },
		{ TCSETSF, 36, 0 },	{ TCGETS2, 0, 44 },	{ TCSETS2, 44, 0 },
		{ TCGETA, 0, 18 },	{ TCSETA, 18, 0 },	{ TIOCMGET, 0, 4 },
		{ TIOCMSET, 4, 0 },	{ TIOCMBIS, 4, 0 },	{ FIONREAD, 0, 4 },
		{ TIOCOUTQ, 0, 4 },	{ TIOCGWINSZ, 0, 8 },	{ TIOCSWINSZ, 8, 0 },
		{ TIOCGSERIAL, 0, 72 }, { TIOCGICOUNT, 0, 80 }, { TIOCGEXCL, 0, 4 },
	};
	struct tty t;
	struct tty_reply r;

	tty_init(&t);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run(&t, cases[i].cmd, 0x1000, NULL, 0, 0, &idle, &r);
		if (r.action != TTY_FETCH || r.fetch_in != cases[i].in ||
		    r.fetch_out != cases[i].out) {
			fprintf(stderr, "ioctl 0x%x: action %d fetch %zu/%zu, expected %zu/%zu\n",
				cases[i].cmd, r.action, r.fetch_in, r.fetch_out, cases[i].in,
				cases[i].out);
			check_failures++;
		}
	}
}

static void test_defaults_and_roundtrip(void)
{
	struct tty t;
	struct tty_reply r;
	struct termios2 s;

	tty_init(&t);
	run(&t, TCGETS2, 0, NULL, 0, 44, &idle, &r);
	CHECK_EQ(r.action, TTY_ANSWER);
	CHECK_EQ(r.out_len, 44);
	memcpy(&s, r.out, sizeof(s));
	CHECK_EQ(s.c_cflag, B9600 | CS8 | CREAD | HUPCL | CLOCAL);
	CHECK(s.c_lflag & ICANON);
	CHECK_EQ(s.c_cc[VMIN], 1);
	CHECK_EQ(s.c_ospeed, 9600);

	/* stored exactly, including what a UART-less pty would refuse */
	s.c_cflag = B57600 | CS7 | PARENB | CREAD;
	s.c_lflag = 0;
	s.c_cc[VMIN] = 5;
	s.c_cc[VTIME] = 3;
	run(&t, TCSETS, 0, &s, 36, 0, &idle, &r);
	CHECK_EQ(r.action, TTY_ANSWER);
	CHECK_EQ(r.err, 0);
	run(&t, TCGETS2, 0, NULL, 0, 44, &idle, &r);
	memcpy(&s, r.out, sizeof(s));
	CHECK_EQ(s.c_cflag, B57600 | CS7 | PARENB | CREAD);
	CHECK_EQ(s.c_ospeed, 57600);
	CHECK_EQ(s.c_ispeed, 57600); /* CIBAUD 0: input follows output */
	CHECK_EQ(s.c_cc[VTIME], 3);

	/* BOTHER through termios2 */
	s.c_cflag = BOTHER | CS8 | CREAD;
	s.c_ospeed = 12345;
	s.c_ispeed = 0;
	run(&t, TCSETS2, 0, &s, 44, 0, &idle, &r);
	run(&t, TCGETS2, 0, NULL, 0, 44, &idle, &r);
	memcpy(&s, r.out, sizeof(s));
	CHECK_EQ(s.c_ospeed, 12345);
	CHECK_EQ(s.c_ispeed, 12345);
	CHECK_EQ(s.c_cflag & CBAUD, BOTHER);
}

static void test_termio_keeps_high_bits(void)
{
	struct tty t;
	struct tty_reply r;
	uint8_t termio[18] = { 0 };
	uint16_t cflag = B38400 | CS8;

	tty_init(&t);
	t.termios.c_cflag |= CRTSCTS; /* a high bit */
	memcpy(termio + 4, &cflag, 2);
	termio[9 + VMIN] = 7;
	run(&t, TCSETA, 0, termio, 18, 0, &idle, &r);
	CHECK_EQ(t.termios.c_cflag, CRTSCTS | B38400 | CS8);
	CHECK_EQ(t.termios.c_cc[VMIN], 7);
	CHECK_EQ(t.termios.c_ospeed, 38400);
}

static void test_drain_and_flush(void)
{
	struct tty_context busy = { .drained = false, .tx_queued = 10 };
	struct termios2 s;
	struct tty t;
	struct tty_reply r;

	tty_init(&t);
	s = t.termios;
	s.c_cflag = B115200 | CS8 | CREAD;
	run(&t, TCSETSW, 0, &s, 36, 0, &busy, &r);
	CHECK_EQ(r.action, TTY_WAIT_DRAIN);
	CHECK_EQ(t.termios.c_ospeed, 9600); /* not yet */
	run(&t, TCSETSW, 0, &s, 36, 0, &idle, &r);
	CHECK_EQ(r.action, TTY_ANSWER);
	CHECK_EQ(t.termios.c_ospeed, 115200);
	run(&t, TCSETSF, 0, &s, 36, 0, &idle, &r);
	CHECK_EQ(r.flush, TTY_FLUSH_IN);
	run(&t, TCSBRK, 1, NULL, 0, 0, &busy, &r);
	CHECK_EQ(r.action, TTY_WAIT_DRAIN);
	run(&t, TCSBRK, 1, NULL, 0, 0, &idle, &r);
	CHECK_EQ(r.action, TTY_ANSWER);

	static const struct {
		uintptr_t arg;
		unsigned int flush;
		int err;
	} flushes[] = {
		{ TCIFLUSH, TTY_FLUSH_IN, 0 },
		{ TCOFLUSH, TTY_FLUSH_OUT, 0 },
		{ TCIOFLUSH, TTY_FLUSH_IN | TTY_FLUSH_OUT, 0 },
		{ 3, 0, EINVAL },
	};
	for (size_t i = 0; i < sizeof(flushes) / sizeof(flushes[0]); i++) {
		run(&t, TCFLSH, flushes[i].arg, NULL, 0, 0, &idle, &r);
		CHECK_EQ(r.flush, flushes[i].flush);
		CHECK_EQ(r.err, flushes[i].err);
	}
	run(&t, TCXONC, TCOOFF, NULL, 0, 0, &idle, &r);
	CHECK(t.output_stopped && r.output_changed);
	run(&t, TCXONC, TCOON, NULL, 0, 0, &idle, &r);
	CHECK(!t.output_stopped && r.output_changed);
	run(&t, TCXONC, 9, NULL, 0, 0, &idle, &r);
	CHECK_EQ(r.err, EINVAL);
}

static int answer_int(struct tty_reply *r)
{
	int v = -1;

	CHECK_EQ(r->out_len, sizeof(int));
	memcpy(&v, r->out, sizeof(v));
	return v;
}

static void test_modem_lines_and_counts(void)
{
	struct tty_context on = { .drained = true, .carrier = true, .rx_queued = 42 };
	struct tty t;
	struct tty_reply r;
	int dtr = 0x002, lines;

	tty_init(&t);
	run(&t, TIOCMGET, 0, NULL, 0, 4, &idle, &r);
	CHECK_EQ(answer_int(&r), 0x002 | 0x004); /* DTR, RTS; no carrier */
	run(&t, TIOCMGET, 0, NULL, 0, 4, &on, &r);
	lines = answer_int(&r);
	CHECK_EQ(lines, 0x002 | 0x004 | 0x020 | 0x040 | 0x100); /* + CTS, CD, DSR */
	run(&t, TIOCMBIC, 0, &dtr, 4, 0, &on, &r);
	run(&t, TIOCMGET, 0, NULL, 0, 4, &on, &r);
	CHECK_EQ(answer_int(&r) & 0x002, 0);
	run(&t, FIONREAD, 0, NULL, 0, 4, &on, &r);
	CHECK_EQ(answer_int(&r), 42);
	run(&t, TIOCEXCL, 0, NULL, 0, 0, &on, &r);
	CHECK(t.exclusive);
	run(&t, TIOCNXCL, 0, NULL, 0, 0, &on, &r);
	CHECK(!t.exclusive);
}

static void test_serial_and_unknown(void)
{
	struct tty t;
	struct tty_reply r;
	struct tty_ioctl io = { .cmd = TIOCGSERIAL, .out_len = 60, .compat = true };
	struct serial_struct ss;

	tty_init(&t);
	tty_ioctl(&t, &io, &idle, &r);
	CHECK_EQ(r.out_len, 60);
	run(&t, TIOCGSERIAL, 0, NULL, 0, 72, &idle, &r);
	CHECK_EQ(r.out_len, 72);
	memcpy(&ss, r.out, sizeof(ss));
	CHECK_EQ(ss.type, PORT_16550A);
	run(&t, 0x54ff, 0, NULL, 0, 0, &idle, &r);
	CHECK_EQ(r.err, ENOTTY);
	run(&t, TIOCSCTTY, 0, NULL, 0, 0, &idle, &r);
	CHECK_EQ(r.err, ENOTTY);
}

static void test_read_rules(void)
{
	static const struct {
		bool canonical;
		uint8_t vmin, vtime;
		size_t size, min;
		unsigned int timeout_ms;
		bool interbyte, never_wait;
	} cases[] = {
		{ .canonical = true, .vmin = 0, .vtime = 0, .size = 10, .min = 1 },
		{ .vmin = 1, .vtime = 0, .size = 10, .min = 1 },
		{ .vmin = 0, .vtime = 0, .size = 10, .min = 0, .never_wait = true },
		{ .vmin = 0, .vtime = 5, .size = 10, .min = 1, .timeout_ms = 500 },
		{ .vmin = 5, .vtime = 0, .size = 10, .min = 5 },
		{ .vmin = 5, .vtime = 0, .size = 3, .min = 3 },
		{ .vmin = 5,
		  .vtime = 2,
		  .size = 10,
		  .min = 5,
		  .timeout_ms = 200,
		  .interbyte = true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tty t;
		struct tty_read_rule rule;

		tty_init(&t);
		if (!cases[i].canonical)
			t.termios.c_lflag &= ~(unsigned int)ICANON;
		t.termios.c_cc[VMIN] = cases[i].vmin;
		t.termios.c_cc[VTIME] = cases[i].vtime;
		rule = tty_read_rule(&t, cases[i].size);
		CHECK_EQ(rule.min, cases[i].min);
		CHECK_EQ(rule.timeout_ms, cases[i].timeout_ms);
		CHECK_EQ(rule.interbyte, cases[i].interbyte);
		CHECK_EQ(rule.never_wait, cases[i].never_wait);
	}
}

/*
 * Any command with any argument size: the core reads no more than it was
 * given (the input is an exactly-sized heap block, so ASan sees an
 * over-read) and never answers with more than the room it was given.
 */
static void test_any_argument(void)
{
	static const unsigned int cmds[] = {
		TCGETS,	    TCSETS,	 TCSETSW,   TCSETSF,	TCGETS2,     TCSETS2,
		TCSETSW2,   TCSETSF2,	 TCGETA,    TCSETA,	TCSETAW,     TCSETAF,
		TCSBRK,	    TCSBRKP,	 TIOCSBRK,  TIOCCBRK,	TCFLSH,	     TCXONC,
		TIOCEXCL,   TIOCNXCL,	 TIOCGEXCL, FIONREAD,	TIOCOUTQ,    TIOCMGET,
		TIOCMSET,   TIOCMBIS,	 TIOCMBIC,  TIOCMIWAIT, TIOCGICOUNT, TIOCGWINSZ,
		TIOCSWINSZ, TIOCGSERIAL, 0,	    0x5400,	0xffffffffu, 0x802c542a,
	};
	uint32_t x = 1;

	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		for (size_t in_len = 0; in_len <= 96; in_len++) {
			struct tty t;
			struct tty_reply r;
			uint8_t *in = malloc(in_len ? in_len : 1);
			struct tty_ioctl io = {
				.cmd = cmds[c],
				.in = in_len ? in : NULL,
				.in_len = in_len,
			};

			for (size_t i = 0; i < in_len; i++) {
				x = x * 1103515245u + 12345u;
				in[i] = (uint8_t)(x >> 16);
			}
			io.arg = x;
			io.out_len = (x >> 8) % 100;
			io.compat = x & 1;
			tty_init(&t);
			tty_ioctl(&t, &io, &idle, &r);
			if (r.action == TTY_ANSWER && r.out_len > io.out_len) {
				fprintf(stderr, "ioctl 0x%x answered %zu bytes into %zu\n", cmds[c],
					r.out_len, io.out_len);
				check_failures++;
			}
			CHECK(r.out_len <= TTY_OUT_MAX);
			free(in);
		}
	}
}

int main(void)
{
	test_any_argument();
	test_fetch_sizes();
	test_defaults_and_roundtrip();
	test_termio_keeps_high_bits();
	test_drain_and_flush();
	test_modem_lines_and_counts();
	test_serial_and_unknown();
	test_read_rules();
	return check_result("test_tty");
}
