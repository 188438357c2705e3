// SPDX-License-Identifier: MIT
/*
 * The line discipline's byte processing against what n_tty did with the
 * same bytes on the visor tty in the guest (tests/guest/ttyprobe.c's
 * in_* and out_* probes), plus the edges a probe cannot reach: a full
 * line, the last bytes of room, erasing tabs and control characters.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/ldisc.h"

/* What the callbacks saw: reads as "line|line|" (an end of file is "|"). */
struct seen {
	char reads[8192];
	size_t reads_len;
	char echo[1024];
	size_t echo_len;
	char flow[16]; /* 'S' stop, 'G' go */
	int signals, flushes;
};

static void on_deliver(void *ctx, const uint8_t *bytes, size_t len)
{
	struct seen *s = ctx;

	if (s->reads_len + len + 1 >= sizeof(s->reads))
		abort();
	memcpy(s->reads + s->reads_len, bytes, len);
	s->reads_len += len;
	s->reads[s->reads_len++] = '|';
}

static void on_echo(void *ctx, const uint8_t *bytes, size_t len)
{
	struct seen *s = ctx;

	if (s->echo_len + len >= sizeof(s->echo))
		abort();
	memcpy(s->echo + s->echo_len, bytes, len);
	s->echo_len += len;
}

static bool on_flow(void *ctx, bool stop)
{
	struct seen *s = ctx;
	size_t n = strlen(s->flow);

	if (n + 1 < sizeof(s->flow))
		s->flow[n] = stop ? 'S' : 'G';
	return !stop;
}

static void on_signal(void *ctx, uint8_t c, bool flush)
{
	struct seen *s = ctx;

	(void)c;
	s->signals++;
	if (flush) { /* the caller drops what readers had not read */
		s->flushes++;
		s->reads_len = 0;
	}
}

/* A fresh ttyUSB's settings (tty_std_termios), then the case's flags. */
static struct termios2 settings(uint32_t iflag, uint32_t oflag, uint32_t lflag)
{
	static const uint8_t std_cc[NCCS] =
		"\003\034\177\025\004\0\1\0\021\023\032\0\022\017\027\026\0";
	struct termios2 t;

	memset(&t, 0, sizeof(t));
	t.c_iflag = iflag;
	t.c_oflag = oflag;
	t.c_cflag = B9600 | CS8 | CREAD | HUPCL | CLOCAL;
	t.c_lflag = lflag;
	memcpy(t.c_cc, std_cc, sizeof(t.c_cc));
	return t;
}

static struct seen receive(const struct termios2 *t, const char *in, size_t len)
{
	struct seen s;
	struct ldisc l;
	struct ldisc_ops ops = { .ctx = &s,
				 .deliver = on_deliver,
				 .echo = on_echo,
				 .flow = on_flow,
				 .signal = on_signal };

	memset(&s, 0, sizeof(s));
	ldisc_init(&l);
	ldisc_receive(&l, t, (const uint8_t *)in, len, &ops);
	return s;
}

static void check_bytes(const char *what, const char *got, size_t got_len, const char *want)
{
	if (got_len != strlen(want) || memcmp(got, want, got_len) != 0) {
		fprintf(stderr, "%s: got \"%.*s\" (%zu bytes), expected \"%s\"\n", what,
			(int)got_len, got, got_len, want);
		check_failures++;
	}
}

#define LF_CANON (ICANON | IEXTEN)
#define OF_ONLCR (OPOST | ONLCR)
#define IF_STD	 (ICRNL | IXON)
#define LF_STD	 (ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN)
#define S(lit)	 lit, sizeof(lit) - 1

/* The guest's probes, each with n_tty's answer on /dev/ttyUSB1. */
static void test_input_as_n_tty(void)
{
	static const struct {
		const char *name;
		uint32_t iflag, oflag, lflag;
		const char *in;
		size_t len;
		const char *reads, *echo, *flow;
	} cases[] = {
		{ "in_raw", 0, OF_ONLCR, 0, S("a\rb\nc\x7f"), "a\rb\nc\x7f|", "", "" },
		{ "in_canon_line", 0, OF_ONLCR, ICANON, S("ab\ncd\n"), "ab\n|cd\n|", "", "" },
		{ "in_canon_partial", 0, OF_ONLCR, ICANON, S("abc"), "", "", "" },
		{ "in_canon_erase", 0, OF_ONLCR, ICANON, S("abc\x7f\n"), "ab\n|", "", "" },
		{ "in_canon_kill", 0, OF_ONLCR, ICANON,
		  S("abc\x15"
		    "de\n"),
		  "de\n|", "", "" },
		{ "in_canon_werase", 0, OF_ONLCR, LF_CANON, S("ab cd\x17pq\n"), "ab pq\n|", "",
		  "" },
		{ "in_canon_eof", 0, OF_ONLCR, ICANON,
		  S("ab\x04\x04"
		    "c"),
		  "ab||", "", "" },
		{ "in_canon_lnext", 0, OF_ONLCR, LF_CANON, S("a\x16\x7f\n"), "a\x7f\n|", "", "" },
		{ "in_icrnl", ICRNL, OF_ONLCR, ICANON, S("ab\r"), "ab\n|", "", "" },
		{ "in_inlcr", INLCR, OF_ONLCR, 0, S("a\nb"), "a\rb|", "", "" },
		{ "in_igncr", IGNCR, OF_ONLCR, 0, S("a\rb\n"), "ab\n|", "", "" },
		{ "in_istrip", ISTRIP, OF_ONLCR, 0, S("\xc1\xe2\xff"), "Ab\x7f|", "", "" },
		{ "in_iuclc", IUCLC, OF_ONLCR, 0, S("AB"), "AB|", "", "" }, /* needs IEXTEN */
		{ "in_echo", ICRNL, OF_ONLCR, ICANON | ECHO, S("hi\r"), "hi\n|", "hi\r\n", "" },
		{ "in_echo_raw", 0, OF_ONLCR, ECHO, S("hi"), "hi|", "hi", "" },
		{ "in_echoctl", 0, OF_ONLCR, ICANON | ECHO | ECHOCTL,
		  S("\x01"
		    "a\n"),
		  "\x01"
		  "a\n|",
		  "^Aa\r\n", "" },
		{ "in_echoe", 0, OF_ONLCR, ICANON | ECHO | ECHOE, S("ab\x7f\n"), "a\n|",
		  "ab\b \b\r\n", "" },
		{ "in_echonl", 0, OF_ONLCR, ICANON | ECHONL, S("ab\n"), "ab\n|", "\r\n", "" },
		{ "in_isig", 0, OF_ONLCR, ISIG,
		  S("a\x03"
		    "bc"),
		  "bc|", "", "" },
		{ "in_initial", IF_STD, OF_ONLCR, LF_STD, S("hi\rj\r"), "hi\n|j\n|", "hi\r\nj\r\n",
		  "" },
		{ "in_ixon", IXON, 0, 0, S("\x13\x11"), "", "", "SG" },
		/* beyond the probes */
		/* isig()'s flush clears the echo buffer: a's echo, in the same batch, goes too */
		{ "isig_echo", 0, OF_ONLCR, ISIG | ECHO | ECHOCTL, S("a\x03"), "", "^C", "" },
		{ "isig_noflsh", 0, OF_ONLCR, ISIG | NOFLSH,
		  S("a\x03"
		    "b"),
		  "a|b|", "", "" },
		/* ICRNL's newline echoes as one, a newline that came as such as ^J */
		{ "echo_nl", ICRNL, OF_ONLCR, ECHO | ECHOCTL, S("\r\n"), "\n\n|", "\r\n^J", "" },
		{ "ixany", IXON | IXANY, 0, 0,
		  S("\x13"
		    "x"),
		  "x|", "", "SG" },
		{ "kill_echok", 0, 0, ICANON | ECHO | ECHOK, S("ab\x15"), "", "ab\x15\n", "" },
		{ "kill_echoke", 0, 0, ICANON | ECHO | ECHOK | ECHOKE | ECHOE, S("ab\x15"), "",
		  "ab\b \b\b \b", "" },
		{ "erase_tab", 0, 0, ICANON | ECHO | ECHOE, S("a\t\x7f"), "", "a\t\b\b\b\b\b\b\b",
		  "" },
		{ "erase_ctl", 0, 0, ICANON | ECHO | ECHOE | ECHOCTL, S("\x01\x7f"), "",
		  "^A\b \b\b \b", "" },
		{ "erase_no_echoe", 0, 0, ICANON | ECHO, S("ab\x7f\n"), "a\n|", "ab\x7f\n", "" },
		{ "erase_empty", 0, 0, ICANON | ECHO | ECHOE,
		  S("\x7f"
		    "a\n"),
		  "a\n|", "a\n", "" },
		{ "utf8_erase", IUTF8, 0, ICANON | ECHO | ECHOE, S("a\xc3\xa9\x7f\n"), "a\n|",
		  "a\xc3\xa9\b \b\n", "" },
		{ "parmrk", PARMRK, 0, 0, S("\xff"), "\xff\xff|", "", "" },
		{ "reprint", 0, 0, ICANON | IEXTEN | ECHO, S("ab\x12"), "", "ab\x12\nab", "" },
		/* issue 26, each as the host's n_tty answered over a pty */
		/* row 7: 0x80-0x9f are not control characters ("€" e2 82 ac, CSI 9b) */
		{ "c1_echo", ICRNL, OF_ONLCR, ICANON | ECHO | ECHOCTL, S("\xe2\x82\xac\x9b\r"),
		  "\xe2\x82\xac\x9b\n|", "\xe2\x82\xac\x9b\r\n", "" },
		/* row 12(a): ECHOPRT shows what is erased between \\ and / */
		{ "echoprt", 0, 0, ICANON | ECHO | ECHOPRT,
		  S("abc\x7f\x7f"
		    "d\n"),
		  "ad\n|", "abc\\cb/d\n", "" },
		/* row 12(f): echoes a signal's flush discards move no column (^Z, then 6 spaces) */
		{ "isig_column", 0, OPOST | XTABS, ISIG | ECHO | ECHOCTL, S("A\x03\x1a\t"), "\t|",
		  "^Z      ", "" },
		/* row 12(g): 0xff is echoed as is under OLCUC (ECHO_OP_START), 'a' as 'A' */
		{ "olcuc_ff", 0, OPOST | OLCUC, ECHO,
		  S("\xff"
		    "a"),
		  "\xff"
		  "a|",
		  "\xff"
		  "A",
		  "" },
		/* the rules that had only the n_tty differential (docs/mutation.md) */
		/* START sends the echoes so far (process_echoes()): no ISIG flush drops them */
		{ "start_sends_echoes", IXON, 0, ISIG | ECHO | ECHOCTL, S("a\x11\x03"), "", "a^C",
		  "GG" },
		/* a control character without ECHOCTL took no column: the tab backs all 8 */
		{ "erase_tab_after_ctl", 0, 0, ICANON | ECHO | ECHOE, S("\x01\t\x7f"), "",
		  "\x01\t\b\b\b\b\b\b\b\b", "" },
		/* ECHOK and ECHOE without ECHOKE: KILL echoes as itself and a newline */
		{ "kill_echok_echoe", 0, 0, ICANON | ECHO | ECHOK | ECHOE, S("ab\x15"), "",
		  "ab\x15\n", "" },
		/* WERASE takes the blanks after the word too */
		{ "werase_blanks", 0, 0, LF_CANON, S("ab cd \x17\n"), "ab \n|", "", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct termios2 t = settings(cases[i].iflag, cases[i].oflag, cases[i].lflag);
		struct seen s = receive(&t, cases[i].in, cases[i].len);
		char what[64];

		snprintf(what, sizeof(what), "%s reads", cases[i].name);
		check_bytes(what, s.reads, s.reads_len, cases[i].reads);
		snprintf(what, sizeof(what), "%s echo", cases[i].name);
		check_bytes(what, s.echo, s.echo_len, cases[i].echo);
		snprintf(what, sizeof(what), "%s flow", cases[i].name);
		check_bytes(what, s.flow, strlen(s.flow), cases[i].flow);
	}
}

/* VEOL set: a line ends there and the character stays in it. */
static void test_eol(void)
{
	struct termios2 t = settings(0, 0, ICANON | ECHO);
	struct seen s;

	t.c_cc[VEOL] = ';';
	s = receive(&t, S("ab;c"));
	check_bytes("veol reads", s.reads, s.reads_len, "ab;|");
	check_bytes("veol echo", s.echo, s.echo_len, "ab;c");

	/* VEOL 0 (the default) is off: a NUL byte is data */
	t.c_cc[VEOL] = 0;
	s = receive(&t, S("a\0b\n"));
	CHECK_EQ(s.reads_len, 5);
	CHECK(memcmp(s.reads, "a\0b\n|", 5) == 0);
}

/* A canonical line holds 4095 bytes and its end; more are dropped. */
static void test_full_line(void)
{
	struct termios2 t = settings(0, 0, ICANON);
	static char in[5001];
	struct seen s;

	memset(in, 'x', 5000);
	in[5000] = '\n';
	s = receive(&t, in, sizeof(in));
	CHECK_EQ(s.reads_len, LDISC_LINE_MAX + 1); /* and the '|' */
	CHECK_EQ(s.reads[LDISC_LINE_MAX - 1], '\n');
}

/* Written bytes through OPOST, as the out_* probes saw them on ttyUSB1. */
static void test_output_as_n_tty(void)
{
	static const struct {
		const char *name;
		uint32_t oflag;
		const char *in, *out;
	} cases[] = {
		{ "out_raw", 0, "a\nb\rc\t", "a\nb\rc\t" },
		{ "out_onlcr", OPOST | ONLCR, "a\nb\n", "a\r\nb\r\n" },
		{ "out_ocrnl", OPOST | OCRNL, "a\rb\r", "a\nb\n" },
		{ "out_onocr", OPOST | ONOCR | ONLCR, "\rab\r\n", "ab\r\r\n" },
		{ "out_olcuc", OPOST | OLCUC, "aBc", "ABC" },
		{ "out_opost_off", ONLCR, "a\nb\n", "a\nb\n" },
		{ "out_tab3", OPOST | TAB3, "a\tb", "a       b" },
		{ "out_initial", OPOST | ONLCR, "hi\n", "hi\r\n" },
		{ "onlret", OPOST | ONLRET | ONOCR, "ab\n\r", "ab\n" },
		{ "onocr_column_1", OPOST | ONOCR, "a\r", "a\r" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct termios2 t = settings(0, cases[i].oflag, 0);
		struct ldisc l;
		uint8_t out[64];
		size_t taken, n;

		ldisc_init(&l);
		n = ldisc_output(&l, &t, (const uint8_t *)cases[i].in, strlen(cases[i].in), out,
				 sizeof(out), &taken);
		CHECK_EQ(taken, strlen(cases[i].in));
		check_bytes(cases[i].name, (const char *)out, n, cases[i].out);
	}
}

/* With little room a byte goes whole or not at all, and the column follows. */
static void test_output_room(void)
{
	struct termios2 t = settings(0, OPOST | ONLCR | TAB3, 0);
	struct ldisc l;
	uint8_t out[16];
	size_t taken, n;

	ldisc_init(&l);
	n = ldisc_output(&l, &t, (const uint8_t *)"ab\n\t", 4, out, 5, &taken);
	CHECK_EQ(taken, 3); /* "ab\r\n": the tab's 8 spaces do not fit */
	CHECK_EQ(n, 4);
	CHECK_EQ(l.column, 0);
	n = ldisc_output(&l, &t, (const uint8_t *)"\t", 1, out, sizeof(out), &taken);
	CHECK_EQ(n, 8);
	CHECK_EQ(l.column, 8);
	n = ldisc_output(&l, &t, (const uint8_t *)"x", 1, out, 0, &taken);
	CHECK_EQ(taken, 0);
	CHECK_EQ(n, 0);
}

/*
 * The echo's columns after written output.  Row 9: with OPOST and no
 * mapping every written byte still moves the column, so erasing a tab after
 * "abc" backs 5 columns, as n_tty does.  ONLCR's newline starts a line at
 * column 0 for the echo as well: a tab erased on the line after "abc", "d"
 * and a written newline backs to where the line's echo began there.
 */
static void test_echo_after_output(void)
{
	static const struct {
		const char *name;
		uint32_t oflag;
		const char *rx_first, *written_then, *echo;
	} cases[] = {
		{ "opost_column", OPOST, "", "", "\t\b\b\b\b\b" },
		{ "onlcr_line_column", OPOST | ONLCR, "d", "\n", "d\t\b\b\b\b\b\b\b" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct termios2 t = settings(0, cases[i].oflag, ICANON | ECHO | ECHOE | IEXTEN);
		struct ldisc l;
		struct seen s;
		struct ldisc_ops ops = { .ctx = &s, .deliver = on_deliver, .echo = on_echo };
		uint8_t out[16];
		size_t taken;
		char what[64];

		memset(&s, 0, sizeof(s));
		ldisc_init(&l);
		CHECK_EQ(ldisc_output(&l, &t, (const uint8_t *)"abc", 3, out, sizeof(out), &taken),
			 3);
		CHECK_EQ(l.column, 3);
		ldisc_receive(&l, &t, (const uint8_t *)cases[i].rx_first, strlen(cases[i].rx_first),
			      &ops);
		ldisc_output(&l, &t, (const uint8_t *)cases[i].written_then,
			     strlen(cases[i].written_then), out, sizeof(out), &taken);
		ldisc_receive(&l, &t, (const uint8_t *)"\t\x7f", 2, &ops);
		snprintf(what, sizeof(what), "%s echo", cases[i].name);
		check_bytes(what, s.echo, s.echo_len, cases[i].echo);
	}
}

/*
 * Row 12(b): a byte VLNEXT quoted restarts output under IXANY, as any other
 * (n_tty_receive_char_lnext() -> n_tty_receive_char()); IXANY came on after
 * the VLNEXT, which did not restart it then.
 */
static void test_ixany_lnext(void)
{
	struct termios2 t = settings(IXON, 0, ICANON | IEXTEN);
	struct ldisc l;
	struct seen s;
	struct ldisc_ops ops = { .ctx = &s, .deliver = on_deliver, .flow = on_flow };

	memset(&s, 0, sizeof(s));
	ldisc_init(&l);
	ldisc_receive(&l, &t, (const uint8_t *)"\x13\x16", 2, &ops);
	check_bytes("ixany_lnext flow before", s.flow, strlen(s.flow), "S");
	t.c_iflag |= IXANY;
	ldisc_receive(&l, &t, (const uint8_t *)"x", 1, &ops);
	check_bytes("ixany_lnext flow", s.flow, strlen(s.flow), "SG");
}

static size_t room_of(void *ctx)
{
	return *(const size_t *)ctx;
}

struct roomy {
	size_t room; /* first: room_of() reads it */
	struct seen s;
};

static void on_echo_roomy(void *ctx, const uint8_t *bytes, size_t len)
{
	on_echo(&((struct roomy *)ctx)->s, bytes, len);
}

/*
 * The '/' that closes an ECHOPRT erase, echoed by an LNEXT without ECHOCTL:
 * n_tty_receive_char_canon() runs finish_erasing() there without
 * commit_echoes(), so the '/' lies past echo_mark, and process_echoes() (a
 * write's, a START's, IXON turned off: Linux 6.1 and 7.3 n_tty.c) sends up
 * to echo_mark only.  Held by a stop at the batch's end (flush_echoes()
 * found no room), "aZ", ERASE, LNEXT goes as "aZ\\Z" at the next
 * process_echoes(), and the '/' with the next batch that echoes (its
 * commit_echoes() moves echo_mark, flush_echoes() sends all).  An ERASE
 * commits even with ECHO off and nothing echoed (eraser(), then
 * commit_echoes()), so the '/' goes at the next process_echoes() after it;
 * with ECHONL alone n_tty's raw path runs no flush_echoes(): it waits.
 * (pilotd sent the '/' at the first process_echoes(): fuzz_ntty's find
 * tcoon-write-slash-past-mark, where a tab written after it then took 3
 * spaces, n_tty's 4.)
 */
static void test_slash_past_mark(void)
{
	static const struct {
		const char *name;
		uint32_t lflag;	     /* the settings of the second batch (and c_iflag 0 with ECHONL) */
		const char *second;  /* the second batch, with room */
		const char *at_proc; /* sent by process_echoes() after the stop */
		const char *after;   /* sent by the second batch, then process_echoes() */
	} cases[] = {
		{ "slash_waits_for_commit", ICANON | ECHO | ECHOPRT | IEXTEN, "b", "aZ\\Z", "/b" },
		{ "slash_after_erase_echo_off", ICANON | ECHOPRT | IEXTEN, "x\x7f", "aZ\\Z", "/" },
		{ "slash_held_no_erase_echo_off", ICANON | ECHOPRT | IEXTEN, "x", "aZ\\Z", "" },
		{ "slash_held_raw_echonl", ECHONL, "x", "aZ\\Z", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct termios2 t = settings(ICRNL, 0, ICANON | ECHO | ECHOPRT | IEXTEN);
		struct roomy r = { .room = 0 };
		struct ldisc_ops ops = {
			.ctx = &r, .deliver = on_deliver, .echo = on_echo_roomy, .echo_room = room_of
		};
		struct ldisc l;
		char what[64];

		ldisc_init(&l);
		ldisc_receive(&l, &t, (const uint8_t *)"aZ\x7f\x16", 4, &ops);
		CHECK_EQ(r.s.echo_len, 0); /* output stopped: all held */
		r.room = 4096;
		ldisc_process_echoes(&l, &t, &ops);
		snprintf(what, sizeof(what), "%s echo", cases[i].name); /* at process_echoes() */
		check_bytes(what, r.s.echo, r.s.echo_len, cases[i].at_proc);
		ldisc_process_echoes(&l, &t, &ops); /* echo_tail at echo_mark: none */
		check_bytes(what, r.s.echo, r.s.echo_len, cases[i].at_proc);
		r.s.echo_len = 0;
		t.c_lflag = cases[i].lflag;
		if (cases[i].lflag == ECHONL) /* n_tty's raw path: no flush_echoes() */
			t.c_iflag = 0;
		ldisc_receive(&l, &t, (const uint8_t *)cases[i].second, strlen(cases[i].second),
			      &ops);
		ldisc_process_echoes(&l, &t, &ops);
		snprintf(what, sizeof(what), "%s_then echo", cases[i].name);
		check_bytes(what, r.s.echo, r.s.echo_len, cases[i].after);
	}
}

static void test_raw_paths(void)
{
	struct termios2 std = settings(IF_STD, OF_ONLCR, LF_STD);
	struct termios2 raw = settings(0, 0, 0);
	struct termios2 opost_only = settings(0, OPOST, 0);

	CHECK(!ldisc_input_raw(&std));
	CHECK(!ldisc_output_raw(&std));
	CHECK(ldisc_input_raw(&raw));
	CHECK(ldisc_output_raw(&raw));
	CHECK(!ldisc_output_raw(&opost_only)); /* every byte moves the column */
	raw.c_lflag = IEXTEN | ECHOE;	       /* nothing that acts without ICANON or ECHO */
	CHECK(ldisc_input_raw(&raw));
}

/* ---- any settings, any bytes, against a model ---- */

/* What every callback got, without bounds of its own. */
struct rec {
	struct ldisc *l;
	uint8_t *reads; /* bytes delivered (reset by a flushing signal, as the port does) */
	size_t reads_len;
	size_t lines, bad_lines; /* canonical: deliveries, and those that end wrongly */
	const struct termios2 *t;
	uint8_t *echo;
	size_t echo_len;
	char flow[16384];
	size_t nflow;
	int signals, flushes;
};

static void rec_deliver(void *ctx, const uint8_t *b, size_t len)
{
	struct rec *r = ctx;
	const struct termios2 *t = r->t;

	if ((t->c_lflag & (ICANON | EXTPROC)) == ICANON) {
		uint8_t end = len ? b[len - 1] : 0;
		bool ends = r->l->line_eof || end == '\n' || (end && end == t->c_cc[VEOL]) ||
			    ((t->c_lflag & IEXTEN) && end && end == t->c_cc[VEOL2]);

		r->lines++;
		r->bad_lines += !ends || len > LDISC_LINE_MAX;
	}
	memcpy(r->reads + r->reads_len, b, len);
	r->reads_len += len;
}

static void rec_echo(void *ctx, const uint8_t *b, size_t len)
{
	struct rec *r = ctx;

	memcpy(r->echo + r->echo_len, b, len);
	r->echo_len += len;
}

static bool rec_flow(void *ctx, bool stop)
{
	struct rec *r = ctx;

	if (r->nflow < sizeof(r->flow))
		r->flow[r->nflow++] = stop ? 'S' : 'G';
	return !stop;
}

static void rec_signal(void *ctx, uint8_t c, bool flush)
{
	struct rec *r = ctx;

	(void)c;
	r->signals++;
	if (flush) {
		r->flushes++;
		r->reads_len = 0;
	}
}

static bool cc_is(const struct termios2 *t, int i, uint8_t c)
{
	return c && t->c_cc[i] == c;
}

/*
 * The model: what flow control and signals n_tty sees in the bytes
 * (n_tty_receive_char_special(), _lnext()), and, without ICANON, the bytes
 * readers get.  Returns the bytes for readers (only without ICANON).
 */
static size_t model(const struct termios2 *t, const uint8_t *in, size_t n, uint8_t *out,
		    struct rec *m)
{
	bool lnext = false, canon = t->c_lflag & ICANON, iexten = t->c_lflag & IEXTEN;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t c = in[i];

		m->reads_len++; /* input since the last flush */
		if (t->c_iflag & ISTRIP)
			c &= 0x7f;
		if ((t->c_iflag & IUCLC) && iexten &&
		    ((c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7)))
			c += 'a' - 'A';
		if (t->c_lflag & EXTPROC) {
			out[k++] = c;
			continue;
		}
		if (lnext) {
			lnext = false;
			if ((t->c_iflag & (IXON | IXANY)) == (IXON | IXANY))
				m->flow[m->nflow++] = 'G';
			continue;
		}
		if ((t->c_iflag & IXON) && (cc_is(t, VSTART, c) || cc_is(t, VSTOP, c))) {
			m->flow[m->nflow++] = cc_is(t, VSTART, c) ? 'G' : 'S';
			continue;
		}
		if ((t->c_lflag & ISIG) &&
		    (cc_is(t, VINTR, c) || cc_is(t, VQUIT, c) || cc_is(t, VSUSP, c))) {
			m->signals++;
			if (!(t->c_lflag & NOFLSH)) {
				m->flushes++;
				m->reads_len = 0;
				k = 0;
			}
			if (t->c_iflag & IXON)
				m->flow[m->nflow++] = 'G';
			continue;
		}
		if ((t->c_iflag & (IXON | IXANY)) == (IXON | IXANY))
			m->flow[m->nflow++] = 'G';
		if (c == '\r' && (t->c_iflag & IGNCR))
			continue;
		if (c == '\r' && (t->c_iflag & ICRNL))
			c = '\n';
		else if (c == '\n' && (t->c_iflag & INLCR))
			c = '\r';
		if (canon) {
			if (!cc_is(t, VERASE, c) && !cc_is(t, VKILL, c) &&
			    !(iexten && cc_is(t, VWERASE, c)) && iexten && cc_is(t, VLNEXT, c))
				lnext = true;
			continue;
		}
		out[k++] = c;
		if (c == 0xff && (t->c_iflag & PARMRK))
			out[k++] = c;
	}
	return k;
}

/* Written bytes: one call's output is the bytes' outputs one by one, as far as they fit. */
static void check_output(const struct termios2 *t, const uint8_t *in, size_t len, size_t room)
{
	uint8_t out[64], one[LDISC_OUT_MAX], all[64 + LDISC_OUT_MAX];
	struct ldisc a, b;
	size_t taken, n, m = 0, k;

	ldisc_init(&a);
	a.column = in[0] % 80;
	b = a;
	n = ldisc_output(&a, t, in, len, out, room, &taken);
	for (size_t i = 0; i < taken; i++) {
		m += ldisc_output(&b, t, in + i, 1, all + m, LDISC_OUT_MAX, &k);
		CHECK_EQ(k, 1);
	}
	CHECK(n == m && memcmp(out, all, n) == 0 && a.column == b.column);
	if (taken < len) /* the next byte's output did not fit */
		CHECK(n + ldisc_output(&b, t, in + taken, 1, one, sizeof(one), &k) > room);
}

/*
 * Any settings and special characters, any bytes: every callback against
 * the model (flow, signals, their flushes; non-canonical reads exactly;
 * canonical lines end as lines do; echo only when asked and through OPOST).
 */
/* xorshift32: every bit random, for flags */
static uint32_t next(uint32_t x)
{
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

static void test_any_input(void)
{
	static uint8_t in[1500], want[3000], reads[3000], echo[1 << 20];
	uint32_t x = 2026;

	for (int round = 0; round < 3000; round++) {
		struct termios2 t;
		struct ldisc l;
		struct rec r = { .l = &l, .reads = reads, .t = &t, .echo = echo };
		static struct rec m;
		struct ldisc_ops ops = { .ctx = &r,
					 .deliver = rec_deliver,
					 .echo = rec_echo,
					 .flow = rec_flow,
					 .signal = rec_signal };
		size_t len, k;

		x = next(x);
		t.c_iflag = x & 0x7fff;
		x = next(x);
		t.c_oflag = x & 0xffff;
		x = next(x);
		t = settings(t.c_iflag, t.c_oflag, x & 0x1ffff);
		for (int i = 0; i < NCCS; i++) {
			x = next(x);
			if ((x >> 28) < 4)
				t.c_cc[i] = (uint8_t)(x >> 16);
		}
		x = next(x);
		len = 1 + (x >> 16) % sizeof(in);
		for (size_t i = 0; i < len; i++) {
			x = next(x);
			in[i] = (x >> 30) ? (uint8_t)(x >> 16) : t.c_cc[(x >> 16) % NCCS];
		}
		memset(&m, 0, sizeof(m));
		ldisc_init(&l);
		ldisc_receive(&l, &t, in, len, &ops);
		k = model(&t, in, len, want, &m);
		CHECK(l.line_len < LDISC_LINE_MAX);
		CHECK(r.nflow == m.nflow && memcmp(r.flow, m.flow, r.nflow) == 0);
		CHECK(r.signals == m.signals && r.flushes == m.flushes);
		if (!((t.c_lflag & ICANON) && !(t.c_lflag & EXTPROC)))
			CHECK(r.reads_len == k && memcmp(r.reads, want, k) == 0);
		else /* lines end as lines do, and a flush left nothing of the line before */
			CHECK(r.bad_lines == 0 && r.reads_len <= 2 * m.reads_len);
		if (!(t.c_lflag & ECHO) && !((t.c_lflag & ECHONL) && (t.c_lflag & ICANON)))
			CHECK_EQ(r.echo_len, 0);
		for (size_t i = 0; i < r.echo_len && (t.c_oflag & OPOST); i++) {
			CHECK(!((t.c_oflag & OLCUC) && r.echo[i] >= 'a' && r.echo[i] <= 'z'));
			CHECK(!((t.c_oflag & TABDLY) == XTABS && r.echo[i] == '\t'));
		}
		check_output(&t, in, len, 1 + round % 64);
		if (check_failures) {
			fprintf(stderr, "round %d: iflag %#x oflag %#x lflag %#x\n", round,
				t.c_iflag, t.c_oflag, t.c_lflag);
			return;
		}
	}
}

int main(void)
{
	test_any_input();
	test_input_as_n_tty();
	test_eol();
	test_full_line();
	test_output_as_n_tty();
	test_output_room();
	test_raw_paths();
	test_echo_after_output();
	test_ixany_lnext();
	test_slash_past_mark();
	return check_result("test_ldisc");
}
