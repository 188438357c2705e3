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
		.caller_admin = true, /* as root with its capabilities */
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
		{ TIOCSSERIAL, 72, 0 }, { TIOCGETD, 0, 4 },	{ TIOCSETD, 4, 0 },
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

	/*
	 * As usb-serial keeps them for visor (tty_termios_copy_hw): the
	 * speed, CSIZE, parity and stop bits stay; HUPCL, CREAD and CLOCAL,
	 * the other flag words and c_cc take the new values.
	 */
	s.c_cflag = B57600 | CS7 | PARENB | CSTOPB | CRTSCTS | CREAD;
	s.c_lflag = 0;
	s.c_cc[VMIN] = 5;
	s.c_cc[VTIME] = 3;
	run(&t, TCSETS, 0, &s, 36, 0, &idle, &r);
	CHECK_EQ(r.action, TTY_ANSWER);
	CHECK_EQ(r.err, 0);
	run(&t, TCGETS2, 0, NULL, 0, 44, &idle, &r);
	memcpy(&s, r.out, sizeof(s));
	CHECK_EQ(s.c_cflag, B9600 | CS8 | CREAD);
	CHECK_EQ(s.c_ospeed, 9600);
	CHECK_EQ(s.c_ispeed, 9600);
	CHECK_EQ(s.c_lflag, 0);
	CHECK_EQ(s.c_cc[VMIN], 5);
	CHECK_EQ(s.c_cc[VTIME], 3);

	/* BOTHER through termios2, and a split input speed: kept as well */
	s.c_cflag = BOTHER | (B19200 << IBSHIFT) | CS8 | CREAD | CLOCAL | HUPCL;
	s.c_ospeed = 12345;
	s.c_ispeed = 0;
	run(&t, TCSETS2, 0, &s, 44, 0, &idle, &r);
	run(&t, TCGETS2, 0, NULL, 0, 44, &idle, &r);
	memcpy(&s, r.out, sizeof(s));
	CHECK_EQ(s.c_ospeed, 9600);
	CHECK_EQ(s.c_ispeed, 9600);
	CHECK_EQ(s.c_cflag, B9600 | CS8 | CREAD | CLOCAL | HUPCL);
}

static void test_termio_keeps_high_bits(void)
{
	struct tty t;
	struct tty_reply r;
	uint8_t termio[18] = { 0 };
	uint16_t cflag = B38400 | CS8;

	uint16_t lflag = ECHO;

	tty_init(&t);
	t.termios.c_lflag |= EXTPROC; /* a high bit */
	memcpy(termio + 4, &cflag, 2);
	memcpy(termio + 6, &lflag, 2);
	termio[9 + VMIN] = 7;
	run(&t, TCSETA, 0, termio, 18, 0, &idle, &r);
	CHECK_EQ(t.termios.c_lflag, EXTPROC | ECHO);
	CHECK_EQ(t.termios.c_cc[VMIN], 7);
	/* the hardware bits stay, here too; CREAD, HUPCL and CLOCAL were cleared */
	CHECK_EQ(t.termios.c_cflag, B9600 | CS8);
	CHECK_EQ(t.termios.c_ospeed, 9600);
}

static void test_drain_and_flush(void)
{
	struct tty_context busy = { .drained = false, .tx_queued = 10 };
	struct termios2 s;
	struct tty t;
	struct tty_reply r;

	tty_init(&t);
	s = t.termios;
	s.c_lflag = 0;
	run(&t, TCSETSW, 0, &s, 36, 0, &busy, &r);
	CHECK_EQ(r.action, TTY_WAIT_DRAIN);
	CHECK(t.termios.c_lflag & ICANON); /* not yet */
	run(&t, TCSETSW, 0, &s, 36, 0, &idle, &r);
	CHECK_EQ(r.action, TTY_ANSWER);
	CHECK_EQ(t.termios.c_lflag, 0);
	run(&t, TCSETSF, 0, &s, 36, 0, &idle, &r);
	CHECK_EQ(r.flush, TTY_FLUSH_IN);
	run(&t, TCSBRK, 1, NULL, 0, 0, &busy, &r);
	CHECK_EQ(r.action, TTY_WAIT_DRAIN);
	run(&t, TCSBRK, 1, NULL, 0, 0, &idle, &r);
	CHECK_EQ(r.action, TTY_ANSWER);
	CHECK_EQ(r.err, 0);

	/* a break: usb-serial drains, then visor has no break_ctl (ENOTTY) */
	static const struct {
		unsigned int cmd;
		uintptr_t arg;
		bool drains;
	} breaks[] = {
		{ TCSBRK, 0, true },   { TCSBRKP, 0, true },   { TCSBRKP, 3, true },
		{ TIOCSBRK, 0, true }, { TIOCCBRK, 0, false },
	};
	for (size_t i = 0; i < sizeof(breaks) / sizeof(breaks[0]); i++) {
		run(&t, breaks[i].cmd, breaks[i].arg, NULL, 0, 0, &busy, &r);
		CHECK_EQ(r.action, breaks[i].drains ? TTY_WAIT_DRAIN : TTY_ANSWER);
		run(&t, breaks[i].cmd, breaks[i].arg, NULL, 0, 0, &idle, &r);
		CHECK_EQ(r.action, TTY_ANSWER);
		CHECK_EQ(r.err, ENOTTY);
	}

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

static struct serial_struct get_serial(struct tty *t, bool compat)
{
	struct tty_ioctl io = { .cmd = TIOCGSERIAL, .out_len = compat ? 60 : 72, .compat = compat };
	struct serial_struct ss;
	struct tty_reply r;

	memset(&ss, 0x5a, sizeof(ss));
	tty_ioctl(t, &io, &idle, &r);
	CHECK_EQ(r.action, TTY_ANSWER);
	CHECK_EQ(r.out_len, io.out_len);
	memcpy(&ss, r.out, r.out_len);
	return ss;
}

/* What usb-serial answers: type 0, no FIFO, no baud_base, its two waits. */
static void test_serial(void)
{
	struct tty t;
	struct tty_reply r;
	struct serial_struct ss;

	tty_init(&t);
	for (int compat = 0; compat < 2; compat++) {
		ss = get_serial(&t, compat);
		CHECK_EQ(ss.type, 0);
		CHECK_EQ(ss.line, 0);
		CHECK_EQ(ss.xmit_fifo_size, 0);
		CHECK_EQ(ss.baud_base, 0);
		CHECK_EQ(ss.flags, 0);
		CHECK_EQ(ss.close_delay, 50);
		CHECK_EQ(ss.closing_wait, 3000);
	}

	/* root changes closing_wait; flags are accepted and not kept */
	run(&t, TIOCSSERIAL, 0, NULL, 0, 0, &idle, &r);
	CHECK_EQ(r.action, TTY_FETCH);
	CHECK_EQ(r.fetch_in, 72);
	ss.closing_wait = 100;
	ss.flags = ASYNC_LOW_LATENCY;
	run(&t, TIOCSSERIAL, 0, &ss, 72, 0, &idle, &r);
	CHECK_EQ(r.err, 0);
	ss = get_serial(&t, false);
	CHECK_EQ(ss.closing_wait, 100);
	CHECK_EQ(ss.flags, 0);

	/* anyone else may set what is there already, and nothing new */
	{
		struct tty_ioctl io = { .cmd = TIOCSSERIAL,
					.in = &ss,
					.in_len = 60,
					.compat = true,
					.caller_admin = false };

		ss.flags = ASYNC_LOW_LATENCY;
		tty_ioctl(&t, &io, &idle, &r);
		CHECK_EQ(r.err, 0);
		ss.closing_wait = ASYNC_CLOSING_WAIT_NONE;
		tty_ioctl(&t, &io, &idle, &r);
		CHECK_EQ(r.err, EPERM);
		CHECK_EQ(t.closing_wait, 100);
		ss.closing_wait = 100;
		ss.close_delay = 1;
		tty_ioctl(&t, &io, &idle, &r);
		CHECK_EQ(r.err, EPERM);
		CHECK_EQ(t.close_delay, 50);
	}
}

/* The edge asks for the caller's CAP_SYS_ADMIN for exactly these (finding A2). */
static void test_needs_admin(void)
{
	CHECK(tty_ioctl_needs_admin(TIOCSTI));
	CHECK(tty_ioctl_needs_admin(TIOCSSERIAL));
	CHECK(tty_ioctl_needs_admin(TIOCSLCKTRMIOS));
	CHECK(!tty_ioctl_needs_admin(TCGETS));
	CHECK(!tty_ioctl_needs_admin(TIOCEXCL));
}

static void test_ldisc_and_unknown(void)
{
	struct tty t;
	struct tty_reply r;
	int ldisc = 0;

	tty_init(&t);
	run(&t, TIOCGETD, 0, NULL, 0, 4, &idle, &r);
	CHECK_EQ(answer_int(&r), 0);
	run(&t, TIOCSETD, 0, &ldisc, 4, 0, &idle, &r);
	CHECK_EQ(r.err, 0);
	ldisc = 99;
	run(&t, TIOCSETD, 0, &ldisc, 4, 0, &idle, &r);
	CHECK_EQ(r.err, EINVAL);
	ldisc = 3; /* N_PPP: only N_TTY here */
	run(&t, TIOCSETD, 0, &ldisc, 4, 0, &idle, &r);
	CHECK_EQ(r.err, EINVAL);
	run(&t, 0x54ff, 0, NULL, 0, 0, &idle, &r);
	CHECK_EQ(r.err, ENOTTY);
	run(&t, TIOCSCTTY, 0, NULL, 0, 0, &idle, &r);
	CHECK_EQ(r.err, ENOTTY);
}

/*
 * Issue 26 row 10 and 12(c): the tty layer's TIOCGSOFTCAR/TIOCSSOFTCAR
 * (CLOCAL), TIOCGLCKTRMIOS/TIOCSLCKTRMIOS (root only; locked bits keep
 * their value through TCSETS), and TIOCSETD, which waits until sent.
 */
static void test_softcar_locked_setd(void)
{
	const struct tty_context busy = { .drained = false };
	struct termios2 lock = { 0 }, want;
	struct tty t;
	struct tty_reply r;
	int v = 0;

	tty_init(&t);
	run(&t, TIOCGSOFTCAR, 0, NULL, 0, 4, &idle, &r);
	CHECK(r.err == 0 && answer_int(&r) == 1); /* usb-serial's CLOCAL */
	run(&t, TIOCSSOFTCAR, 0, &v, 4, 0, &idle, &r);
	CHECK(r.err == 0 && !(t.termios.c_cflag & CLOCAL));
	run(&t, TIOCGSOFTCAR, 0, NULL, 0, 4, &idle, &r);
	CHECK_EQ(answer_int(&r), 0);

	lock.c_lflag = ECHO;
	lock.c_cc[VINTR] = 0xff;
	run(&t, TIOCSLCKTRMIOS, 0, &lock, 36, 0, &idle, &r);
	CHECK_EQ(r.err, 0);
	run(&t, TIOCGLCKTRMIOS, 0, NULL, 0, 36, &idle, &r);
	CHECK(r.out_len == 36 && memcmp(r.out, &lock, 36) == 0);
	want = t.termios;
	want.c_lflag &= ~(ECHO | ICANON);
	want.c_cc[VINTR] = 'x';
	want.c_cc[VQUIT] = 'y';
	run(&t, TCSETS, 0, &want, 36, 0, &idle, &r);
	CHECK((t.termios.c_lflag & ECHO) && !(t.termios.c_lflag & ICANON));
	CHECK(t.termios.c_cc[VINTR] == 3 && t.termios.c_cc[VQUIT] == 'y');
	{
		struct tty_ioctl io = {
			.cmd = TIOCSLCKTRMIOS, .in = &lock, .in_len = 36, .caller_admin = false
		};

		tty_ioctl(&t, &io, &idle, &r);
		CHECK_EQ(r.err, EPERM);
	}

	v = 0; /* N_TTY */
	run(&t, TIOCSETD, 0, &v, 4, 0, &busy, &r);
	CHECK_EQ(r.action, TTY_WAIT_DRAIN);
	run(&t, TIOCSETD, 0, &v, 4, 0, &idle, &r);
	CHECK(r.action == TTY_ANSWER && r.err == 0);
}

/* TIOCMIWAIT ends only for a line in its mask that changed. */
static void test_modem_wait_mask(void)
{
	const uint32_t carrier = 0x020 | 0x040 | 0x100; /* CTS, CD, DSR */

	CHECK(tty_modem_wait_wakes(0x040, carrier));
	CHECK(tty_modem_wait_wakes(0x100 | 0x080, carrier));
	CHECK(!tty_modem_wait_wakes(0x080, carrier)); /* RNG never changes */
	CHECK(!tty_modem_wait_wakes(0, carrier));
	CHECK(!tty_modem_wait_wakes(0x040, 0x002));
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
 * TCXONC (n_tty_ioctl_helper()): TCOOFF and TCOON stop and restart output,
 * TCOON forgetting a STOP too, but only after a TCOOFF; TCIOFF and TCION
 * send STOP and START, nothing when the character is disabled (0).
 */
static void test_xonc(void)
{
	static const struct {
		const char *name;
		unsigned int arg;
		uint8_t vstop, vstart;
		bool tco_before, stop_before; /* output_stopped, flow_stopped */
		bool tco_after, stop_after, send;
		uint8_t xchar;
	} cases[] = {
		{ "tcooff", TCOOFF, 023, 021, false, false, true, false, false, 0 },
		{ "tcoon", TCOON, 023, 021, true, false, false, false, false, 0 },
		{ "tcoon_after_stop", TCOON, 023, 021, true, true, false, false, false, 0 },
		{ "tcoon_stop_alone", TCOON, 023, 021, false, true, false, true, false, 0 },
		{ "tcioff", TCIOFF, 023, 021, false, false, false, false, true, 023 },
		{ "tcion", TCION, 023, 021, false, false, false, false, true, 021 },
		{ "tcioff_disabled", TCIOFF, 0, 021, false, false, false, false, false, 0 },
		{ "tcion_disabled", TCION, 023, 0, false, false, false, false, false, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tty t;
		struct tty_reply r;

		tty_init(&t);
		t.termios.c_cc[VSTOP] = cases[i].vstop;
		t.termios.c_cc[VSTART] = cases[i].vstart;
		t.output_stopped = cases[i].tco_before;
		t.flow_stopped = cases[i].stop_before;
		run(&t, TCXONC, cases[i].arg, NULL, 0, 0, &idle, &r);
		if (r.err || t.output_stopped != cases[i].tco_after ||
		    t.flow_stopped != cases[i].stop_after || r.send_xchar != cases[i].send ||
		    (r.send_xchar && r.xchar != cases[i].xchar)) {
			fprintf(stderr, "xonc: %s: stopped %d/%d, sends %d (0x%02x)\n",
				cases[i].name, t.output_stopped, t.flow_stopped, r.send_xchar,
				r.xchar);
			check_failures++;
		}
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
		TCGETS,	    TCSETS,	 TCSETSW,     TCSETSF,	  TCGETS2,     TCSETS2,
		TCSETSW2,   TCSETSF2,	 TCGETA,      TCSETA,	  TCSETAW,     TCSETAF,
		TCSBRK,	    TCSBRKP,	 TIOCSBRK,    TIOCCBRK,	  TCFLSH,      TCXONC,
		TIOCEXCL,   TIOCNXCL,	 TIOCGEXCL,   FIONREAD,	  TIOCOUTQ,    TIOCMGET,
		TIOCMSET,   TIOCMBIS,	 TIOCMBIC,    TIOCMIWAIT, TIOCGICOUNT, TIOCGWINSZ,
		TIOCSWINSZ, TIOCGSERIAL, TIOCSSERIAL, TIOCGETD,	  TIOCSETD,    0,
		0x5400,	    0xffffffffu, 0x802c542a,
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
	test_needs_admin();
	test_softcar_locked_setd();
	test_any_argument();
	test_fetch_sizes();
	test_defaults_and_roundtrip();
	test_termio_keeps_high_bits();
	test_drain_and_flush();
	test_modem_lines_and_counts();
	test_serial();
	test_ldisc_and_unknown();
	test_modem_wait_mask();
	test_read_rules();
	test_xonc();
	return check_result("test_tty");
}
