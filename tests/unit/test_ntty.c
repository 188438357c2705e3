// SPDX-License-Identifier: MIT
/*
 * pilotd's line discipline against the kernel's n_tty (tests/support/
 * ntty_diff.h): random cases from a fixed seed, each run through the port
 * and through a pty pair of this host, compared step by step.  Fails on a
 * difference docs/tty-differences.md does not list as `ntty:NAME`, on a
 * listed one no case showed, and when the cases did not cover every flag,
 * every special character and every byte value.  The random cases run under
 * a signal every 100 us (alarms_every()), which the pty's side must not feel.
 * A case that differs without a name runs on the pty again
 * (nd_run_pty_against()): the port's side is deterministic, so one run
 * where n_tty agrees makes the difference the pty worker's timing.
 *
 * test_ntty DOC [CASES [SEED]]; CASES 1 and a case's printed line replay
 * are not needed: the seed and the index reproduce a case.  NTTY_LOG=FILE
 * writes a line a case: its index, a hash of pilotd's trace and the verdict
 * ("same", the name, "unexplained"); two such files, of pilotd with and
 * without a fault, show whether a name excused a case the fault changed.
 * NTTY_WHY says why a difference was not excused (ntty_diff.c); NTTY_CASE=I
 * runs case I alone and shows it (NTTY_FULL: whole traces), whatever its verdict.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "check.h"
#include "ntty_diff.h"

static uint64_t rng;

static uint8_t next_byte(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

struct coverage {
	uint32_t iflag, oflag, lflag;
	uint8_t bytes[256];
	uint8_t cc[NCCS][256];
	int kinds[ND_KINDS];
};

static void cover(struct coverage *cv, const struct nd_case *c)
{
	for (int i = 0; i < NCCS; i++)
		cv->cc[i][c->t.c_cc[i]] = 1;
	cv->iflag |= c->t.c_iflag;
	cv->oflag |= c->t.c_oflag;
	cv->lflag |= c->t.c_lflag;
	for (int i = 0; i < c->nops; i++) {
		const struct nd_op *op = &c->ops[i];

		cv->kinds[op->kind]++;
		if (op->kind == ND_RX)
			for (size_t k = 0; k < op->len; k++)
				cv->bytes[op->bytes[k]] = 1;
		if (op->kind == ND_SETATTR) {
			cv->iflag |= op->iflag;
			cv->oflag |= op->oflag;
			cv->lflag |= op->lflag;
		}
	}
}

static int count(const uint8_t *v, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += v[i];
	return k;
}

static void check_coverage(const struct coverage *cv)
{
	/* every flag n_tty looks at or stores, every byte, each special character's values */
	CHECK_EQ(cv->iflag, 0x7fff & ~0u);
	CHECK_EQ(cv->oflag & 0xffff,
		 0xffff & (OPOST | OLCUC | ONLCR | OCRNL | ONOCR | ONLRET | OFILL | OFDEL | NLDLY |
			   CRDLY | TABDLY | BSDLY | VTDLY | FFDLY));
	CHECK_EQ(cv->lflag, ISIG | ICANON | XCASE | ECHO | ECHOE | ECHOK | ECHONL | NOFLSH |
				    TOSTOP | ECHOCTL | ECHOPRT | ECHOKE | FLUSHO | PENDIN | IEXTEN |
				    EXTPROC);
	CHECK_EQ(count(cv->bytes, 256), 256);
	for (int i = 0; i < NCCS; i++)
		if (i != VTIME && i != VMIN && count(cv->cc[i], 256) < 16)
			fprintf(stderr, "c_cc[%d]: %d values only\n", i, count(cv->cc[i], 256)),
				check_failures++;
	for (int k = 0; k < ND_KINDS; k++)
		CHECK(cv->kinds[k] > 0);
}

/* The line of step i in a trace. */
static void print_step(const char *who, const char *text, int i)
{
	for (; i > 0 && text; i--)
		if ((text = strchr(text, '\n')))
			text++;
	fprintf(stderr, "  %s: %.*s\n", who, text ? (int)strcspn(text, "\n") : 0, text ? text : "");
}

static void report(int idx, const struct nd_case *c, const struct nd_trace *a,
		   const struct nd_trace *b, int at, const char *name)
{
	static char text[8192];

	nd_case_print(c, text, sizeof(text));
	fprintf(stderr, "case %d differs at step %d (%s): %s\n", idx, at,
		name ? name : "unexplained", text);
	if (getenv("NTTY_FULL")) {
		fprintf(stderr, "--- pilotd:\n%s--- n_tty:\n%s\n", a->text, b->text);
		return;
	}
	print_step("pilotd", a->text, at);
	print_step("n_tty ", b->text, at);
}

/* Does c still differ without a listed reason, on every run of the pty as the cases are judged? */
static bool unexplained_diff(const struct nd_case *c)
{
	static struct nd_trace a, b;
	const char *name;
	int at, runs;

	nd_run_port(c, &a);
	return nd_run_pty_against(c, &a, &b, &at, &name, &runs) == 0 && at >= 0 && !name;
}

/* NTTY_SHRINK: drop steps and bytes while the difference stays, then show it. */
static void shrink(struct nd_case *c)
{
	static struct nd_trace a, b;
	const char *name;
	bool again = true;
	int at;

	while (again) {
		again = false;
		for (int i = c->nops - 1; i >= 0; i--) {
			struct nd_case t = *c;

			memmove(&t.ops[i], &t.ops[i + 1],
				(size_t)(t.nops - i - 1) * sizeof(t.ops[0]));
			t.nops--;
			if (unexplained_diff(&t)) {
				*c = t;
				again = true;
			}
		}
		for (int i = 0; i < c->nops; i++) {
			for (size_t k = 0; k < c->ops[i].len && c->ops[i].len > 1;) {
				struct nd_case t = *c;
				struct nd_op *op = &t.ops[i];

				memmove(op->bytes + k, op->bytes + k + 1, op->len - k - 1);
				op->len--;
				if (unexplained_diff(&t)) {
					*c = t;
					again = true;
				} else {
					k++;
				}
			}
		}
	}
	nd_run_port(c, &a);
	nd_run_pty(c, &b);
	at = nd_compare(c, &a, &b, &name); /* before name is read */
	report(-1, c, &a, &b, at, name);
	fprintf(stderr, "--- pilotd:\n%s--- n_tty:\n%s\n", a.text, b.text);
}

static void op_rx(struct nd_case *c, const char *bytes, size_t len)
{
	struct nd_op *op = &c->ops[c->nops++];

	*op = (struct nd_op){ .kind = ND_RX, .len = len };
	memcpy(op->bytes, bytes, len);
}

static void op_lflag(struct nd_case *c, uint32_t lflag)
{
	c->ops[c->nops++] = (struct nd_op){ .kind = ND_SETATTR, .iflag = c->t.c_iflag,
					    .oflag = c->t.c_oflag, .lflag = lflag };
}

static void op_drain(struct nd_case *c)
{
	c->ops[c->nops++] = (struct nd_op){ .kind = ND_DRAIN };
}

/*
 * A fixed case through pilotd (a) and the pty (b, one run: these cases are
 * exact): the step they first differ at, -1 if none, -2 if the pty failed.
 */
static int run_both(const struct nd_case *c, struct nd_trace *a, struct nd_trace *b,
		    const char **name)
{
	int err;

	nd_run_port(c, a);
	err = nd_run_pty(c, b);
	if (err < 0) {
		fprintf(stderr, "test_ntty: a fixed case's pty side failed: %s\n", strerror(-err));
		return -2;
	}
	return nd_compare(c, a, b, name);
}

/* A case that must read the same through pilotd and n_tty: 1 if it does not. */
static int fixed_case(const struct nd_case *c, int id)
{
	static struct nd_trace a, b;
	const char *name;
	int at = run_both(c, &a, &b, &name);

	if (at == -1)
		return 0;
	if (at >= 0)
		report(id, c, &a, &b, at, name);
	return 1;
}

/*
 * Canonical mode switched by EXTPROC rather than ICANON, with lines ended
 * by VEOF waiting: each VEOF becomes a NUL byte when EXTPROC comes on
 * (n_tty_set_termios() checks both bits), and a trailing NUL is a line
 * end again when it goes off.  Random cases seldom queue a VEOF line and
 * then flip exactly EXTPROC, so these run every time.
 */
static int fixed_cases(void)
{
	const uint32_t canon = ICANON | ISIG | IEXTEN;
	int bad = 0;

	for (int v = 0; v < 3; v++) {
		struct nd_case c;

		nd_case_from_bytes(&c, NULL, 0);
		c.nops = 0;
		c.t.c_lflag = canon;
		op_rx(&c, "ab\004\004c\n", 6);
		if (v == 2)
			op_lflag(&c, canon | ECHO);
		op_lflag(&c, canon | EXTPROC);
		if (v == 1)
			op_rx(&c, "de\0", 3);
		op_lflag(&c, canon);
		op_drain(&c);
		op_rx(&c, "x\004", 2);
		op_lflag(&c, canon | EXTPROC);
		op_drain(&c);
		bad += fixed_case(&c, -2 - v);
	}
	return bad;
}

static void op_read(struct nd_case *c, unsigned int size)
{
	c->ops[c->nops++] = (struct nd_op){ .kind = ND_READ, .arg = size };
}

/*
 * Under EXTPROC with ICANON, n_tty's copy_from_read_buf() reads a lone
 * VEOF, the last byte there, as 0 (the byte is gone), and a VEOF with
 * anything beside it as a byte; c_cc[VEOF] is compared even when 0.
 * Random cases seldom read a lone VEOF in that mode, so these run every
 * time.  (A VEOF alone in the last 64-byte piece of a longer read: the
 * seed extproc-lone-veof-piece of fuzz_ntty; these cases' script drains
 * before 65 bytes can wait.)
 */
static int lone_eof_cases(void)
{
	static const struct {
		const char *rx;
		size_t len;
		unsigned int read; /* 0: drain */
		uint8_t veof;
	} v[] = {
		{ "\004", 1, 0, 4 },	  { "\004", 1, 1, 4 },	  { "\004x", 2, 1, 4 },
		{ "x\004", 2, 0, 4 },	  { "\004\004", 2, 1, 4 }, { "\0", 1, 0, 0 },
		{ "\004", 1, 0, 0 },	  { "a", 1, 0, 'a' },
	};
	int bad = 0;

	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		struct nd_case c;

		nd_case_from_bytes(&c, NULL, 0);
		c.nops = 0;
		c.t.c_lflag = ICANON | EXTPROC;
		c.t.c_cc[VEOF] = v[k].veof;
		op_rx(&c, v[k].rx, v[k].len);
		if (v[k].read)
			op_read(&c, v[k].read);
		op_drain(&c);
		bad += fixed_case(&c, -10 - (int)k);
	}
	return bad;
}

static void op_write(struct nd_case *c, const char *bytes, size_t len)
{
	op_rx(c, bytes, len);
	c->ops[c->nops - 1].kind = ND_WRITE;
}

/* A case that starts as n_tty's echo replay does: "aZ", an erase (unless
 * !erase), an LNEXT, under ECHOPRT (and extra lflag bits). */
static void replay_start(struct nd_case *c, uint32_t lflag, bool erase)
{
	nd_case_from_bytes(c, NULL, 0);
	c->nops = 0;
	c->t.c_lflag = ICANON | ECHO | ECHOPRT | IEXTEN | lflag;
	op_rx(c, erase ? "aZ\177\026" : "aZ\026", erase ? 4 : 3);
}

/*
 * n_tty's echo replay (ntty:echo_replay): an LNEXT after an erase under
 * ECHOPRT without ECHOCTL leaves n_tty's echo_mark behind, and its next
 * process_echoes() sends the whole echo ring: here a write (v 0), a START
 * once echo is off and a byte has taken the LNEXT (1), a tcsetattr() that
 * turns IXON off (2).  Random cases seldom line these up, so they run every
 * time: each must differ at its last step and be named so; with ECHOCTL (3)
 * or without the erase (4) they must not differ.  Returns how many were
 * named.
 */
static int echo_replay_cases(void)
{
	int named = 0;

	for (int v = 0; v < 5; v++) {
		static struct nd_trace a, b;
		const char *name;
		struct nd_case c;
		int at;

		replay_start(&c, v == 3 ? ECHOCTL : 0, v != 4);
		if (v == 1) {
			op_lflag(&c, ICANON | IEXTEN);
			op_rx(&c, "x", 1);
			op_rx(&c, "\021", 1); /* START */
		} else if (v == 2) {
			op_lflag(&c, c.t.c_lflag);
			c.ops[c.nops - 1].iflag &= ~(uint32_t)IXON;
		} else {
			op_write(&c, "A", 1);
		}
		at = run_both(&c, &a, &b, &name);
		if (v >= 3 ? at != -1 : at != c.nops || !name || strcmp(name, "echo_replay")) {
			report(-20 - v, &c, &a, &b, at, name);
			check_failures++;
		}
		named += at >= 0 && name && !strcmp(name, "echo_replay");
	}
	return named;
}

/* pilotd's trace with what reached the handheld in step i replaced by hex: a pilotd that sent that */
static void set_handheld(struct nd_trace *tr, int i, const char *hex)
{
	char *l = tr->text, *h, *end;
	size_t n = strlen(hex);

	for (int k = 0; k < i; k++)
		l = strchr(l, '\n') + 1;
	h = (char *)memmem(l, strcspn(l, "\n"), " H:", 3) + 3;
	end = h + strcspn(h, "\n");
	memmove(h + n, end, strlen(end) + 1);
	memcpy(h, hex, n);
	tr->len = strlen(tr->text);
}

/*
 * ntty:echo_replay must not excuse a pilotd that loses or changes what it
 * sends (an attacker's round on the excuse).  0: after an erase and an
 * LNEXT, the LNEXT's byte is echoed (its commit_echoes() moves echo_mark
 * on: no replay), then VREPRINT echoes a line of 160 tabs, 1282 bytes under
 * TAB3; n_tty and pilotd agree, and a pilotd that sent none of it must be
 * unexplained.  1: a real replay (a write right after the LNEXT) where
 * pilotd sent the write's byte changed: n_tty's replay ends with the
 * write's byte, so that is no replay either.
 */
static int replay_excuse_cases(void)
{
	int bad = 0;

	for (int v = 0; v < 2; v++) {
		static struct nd_trace a, b;
		const char *name;
		struct nd_case c;
		char tabs[32];
		int at;

		memset(tabs, '\t', sizeof(tabs));
		replay_start(&c, 0, true);
		c.t.c_oflag = OPOST | TAB3;
		if (v == 0) {
			op_rx(&c, "x", 1);
			for (int k = 0; k < 5; k++)
				op_rx(&c, tabs, sizeof(tabs));
			op_rx(&c, "\022", 1); /* VREPRINT */
		} else {
			op_write(&c, "A", 1);
		}
		at = run_both(&c, &a, &b, &name);
		if (v == 0 ? at != -1 : at != c.nops) {
			report(-30 - v, &c, &a, &b, at, name);
			bad++;
			continue;
		}
		set_handheld(&a, c.nops, v == 0 ? "" : "42");
		at = nd_compare(&c, &a, &b, &name);
		if (at != c.nops || name) {
			report(-30 - v, &c, &a, &b, at, name);
			bad++;
		}
	}
	return bad;
}

/* FNV-1a of pilotd's trace: NTTY_LOG tells which cases a change to pilotd changed. */
static uint64_t trace_hash(const struct nd_trace *tr)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t k = 0; k < tr->len; k++)
		h = (h ^ (uint8_t)tr->text[k]) * 0x100000001b3ull;
	return h;
}

static void op_xonc(struct nd_case *c, unsigned int arg)
{
	c->ops[c->nops++] = (struct nd_op){ .kind = ND_XONC, .arg = arg };
}

/*
 * ntty:pty_stopped must excuse only output held back, never a byte
 * changed, added or held for good.  0: STOP, "ab" echoed while stopped,
 * poll and TIOCOUTQ (no POLLOUT and 0 on the pty), START: n_tty and
 * pilotd both send "ab" at the START, and the case differs (poll, outq)
 * as named.  1: TCOOFF, "ab", TCOON, a write of "c": pilotd sends "ab" at
 * the TCOON, n_tty with the write (its next process_echoes()).  Then a
 * pilotd that sent other bytes in the step that releases them must be
 * unexplained: none (output stays stopped), one more, the two swapped.
 */
static int stop_excuse_cases(void)
{
	static const char *const tampered[] = { "", "616263", "6261" };
	int bad = 0;

	for (int v = 0; v < 2; v++) {
		static struct nd_trace a, b;
		const char *name;
		struct nd_case c;
		int at, release;

		nd_case_from_bytes(&c, NULL, 0);
		c.nops = 0;
		c.t.c_lflag = ECHO | ISIG | IEXTEN; /* non-canonical: "ab" echoed as it comes */
		if (v == 0) {
			op_rx(&c, "\023", 1);
			op_rx(&c, "ab", 2);
			c.ops[c.nops++] = (struct nd_op){ .kind = ND_POLL };
			c.ops[c.nops++] = (struct nd_op){ .kind = ND_OUTQ };
			op_rx(&c, "\021", 1);
			release = c.nops;
		} else {
			op_xonc(&c, TCOOFF);
			op_rx(&c, "ab", 2);
			op_xonc(&c, TCOON);
			release = c.nops;
			op_write(&c, "c", 1);
		}
		op_drain(&c);
		at = run_both(&c, &a, &b, &name);
		if (at < 0 || !name || strcmp(name, "pty_stopped")) {
			report(-40 - v, &c, &a, &b, at, name);
			bad++;
			continue;
		}
		for (size_t k = 0; k < sizeof(tampered) / sizeof(tampered[0]); k++) {
			static struct nd_trace t;

			t = a;
			set_handheld(&t, release, tampered[k]);
			at = nd_compare(&c, &t, &b, &name);
			if (at < 0 || name) {
				fprintf(stderr, "tampered with %s:\n", tampered[k]);
				report(-40 - v, &c, &t, &b, at, name);
				bad++;
			}
		}
	}
	return bad;
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/*
 * SIGALRM every usec microseconds (0: no more), caught without SA_RESTART
 * as libFuzzer catches its own: the pty's side must lose no step to a
 * signal.  fuzz_ntty's 10-minute run lost a batch of the handheld's so, a
 * write to the master failed with EINTR (issue 26).
 */
static void alarms_every(long usec)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { { 0, usec }, { 0, usec } };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

int main(int argc, char **argv)
{
	static char listed[ND_LISTED_MAX][64];
	static struct nd_trace port_tr, pty_tr;
	static struct coverage cv;
	int cases = argc > 2 ? atoi(argv[2]) : 10000, unexplained = 0, shown = 0, retried = 0;
	int hits[ND_LISTED_MAX] = { 0 }, nlisted, same = 0, replayed;
	struct timespec t0, t1;
	FILE *log = getenv("NTTY_LOG") ? fopen(getenv("NTTY_LOG"), "w") : NULL;
	int only = getenv("NTTY_CASE") ? atoi(getenv("NTTY_CASE")) : -1;

	rng = argc > 3 ? strtoull(argv[3], NULL, 0) : 0x26d1ff;
	nlisted = argc > 1 ? nd_read_listed(argv[1], listed, ND_LISTED_MAX) : -1;
	if (nlisted < 0) {
		fprintf(stderr, "usage: test_ntty docs/tty-differences.md [CASES [SEED]]\n");
		return 2;
	}
	check_failures += fixed_cases();
	check_failures += lone_eof_cases();
	replayed = echo_replay_cases();
	check_failures += replay_excuse_cases();
	check_failures += stop_excuse_cases();
	alarms_every(100);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < cases; i++) {
		uint8_t bytes[1024];
		struct nd_case c;
		const char *name;
		int at, k, err, runs;

		for (size_t j = 0; j < sizeof(bytes); j++)
			bytes[j] = next_byte();
		nd_case_from_bytes(&c, bytes, sizeof(bytes));
		if (only >= 0 && i != only)
			continue;
		cover(&cv, &c);
		CHECK_EQ(nd_run_port(&c, &port_tr), 0);
		err = nd_run_pty_against(&c, &port_tr, &pty_tr, &at, &name, &runs);
		if (err < 0) {
			fprintf(stderr, "test_ntty: case %d: the pty side failed %d times: %s\n", i,
				runs, strerror(-err));
			return 1;
		}
		retried += runs > 1 && (at < 0 || name);
		if (log)
			fprintf(log, "%d %016llx %s\n", i, (unsigned long long)trace_hash(&port_tr),
				at < 0 ? "same" : name ? name : "unexplained");
		if (at >= 0 && !name && getenv("NTTY_SHRINK")) {
			shrink(&c);
			return 1;
		}
		if (only >= 0)
			report(i, &c, &port_tr, &pty_tr, at, at < 0 ? "same" : name);
		if (at < 0) {
			same++;
			continue;
		}
		for (k = 0; name && k < nlisted && strcmp(listed[k], name); k++)
			;
		if (name && k < nlisted) {
			hits[k]++;
			continue;
		}
		unexplained++;
		if (shown++ < (getenv("NTTY_SHOW") ? atoi(getenv("NTTY_SHOW")) : 5))
			report(i, &c, &port_tr, &pty_tr, at, name);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	alarms_every(0);
	if (log)
		fclose(log);
	printf("%d cases in %.1f s: %d the same, %d agreeing only on a later run of the pty, "
	       "%d unexplained (%d signals caught)\n",
	       cases, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, same,
	       retried, unexplained, (int)alarms);
	CHECK(alarms > 0);
	for (int k = 0; k < nlisted; k++) {
		if (!strcmp(listed[k], "echo_replay"))
			hits[k] += replayed;
		printf("  ntty:%s: %d cases\n", listed[k], hits[k]);
		/* a timing of the pty's may or may not show in a run */
		if (!hits[k] && cases >= 10000 && only < 0 && strncmp(listed[k], "timing_", 7) != 0) {
			fprintf(stderr, "ntty:%s is listed but no case differs so\n", listed[k]);
			check_failures++;
		}
	}
	check_failures += unexplained;
	if (cases >= 10000 && only < 0)
		check_coverage(&cv);
	return check_result("test_ntty");
}
