// SPDX-License-Identifier: MIT
/* The differential of ntty_diff.h: a case, its two runs, their comparison. */
#include <asm/ioctls.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/tty.h>

#include "ntty_diff.h"
#include "port_harness.h"

#define IFLAGS                                                                                     \
	(IGNBRK | BRKINT | IGNPAR | PARMRK | INPCK | ISTRIP | INLCR | IGNCR | ICRNL | IUCLC |      \
	 IXON | IXANY | IXOFF | IMAXBEL | IUTF8)
#define OFLAGS                                                                                     \
	(OPOST | OLCUC | ONLCR | OCRNL | ONOCR | ONLRET | OFILL | OFDEL | NLDLY | CRDLY | TABDLY | \
	 BSDLY | VTDLY | FFDLY)
#define LFLAGS                                                                                     \
	(ISIG | ICANON | XCASE | ECHO | ECHOE | ECHOK | ECHONL | NOFLSH | TOSTOP | ECHOCTL |       \
	 ECHOPRT | ECHOKE | FLUSHO | PENDIN | IEXTEN | EXTPROC)

/* ---- a case from bytes ---- */

struct reader {
	const uint8_t *p;
	size_t left;
};

static uint8_t rd8(struct reader *r)
{
	if (!r->left)
		return 0;
	r->left--;
	return *r->p++;
}

static uint32_t rd32(struct reader *r)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v = v << 8 | rd8(r);
	return v;
}

/* Mostly the usual settings, so that the script meets their characters. */
static uint32_t flags(struct reader *r, uint32_t usual, uint32_t all)
{
	uint32_t x = rd32(r), v;

	switch (x >> 30) {
	case 0: v = usual; break;
	case 1: v = (usual ^ (x & all & (x >> 8))) & all; break;
	default: v = x & all; break;
	}
	/* EXTPROC turns the rest off: now and then only */
	if (rd8(r) >= 8)
		v &= ~(uint32_t)EXTPROC;
	return v;
}

static const uint8_t std_cc[NCCS] = "\003\034\177\025\004\0\1\0\021\023\032\0\022\017\027\026\0";

/* A byte for the handheld: often one that means something. */
static uint8_t rx_byte(struct reader *r, const struct termios2 *t)
{
	static const uint8_t usual[] = { 'a',  'b',  'Z',  ' ',	 '\t', '\r', '\n', 0xff, 0x80,
					 0x9b, 0xe9, 0xc3, 0xa9, '_',  '1',  0x7f, 0x08 };
	uint8_t x = rd8(r), v = rd8(r);

	if (x < 96)
		return v; /* any byte */
	if (x < 176)
		return t->c_cc[v % NCCS];
	return usual[v % sizeof(usual)];
}

static void decode_op(struct reader *r, struct nd_case *c, struct nd_op *op)
{
	uint8_t k = rd8(r);

	memset(op, 0, sizeof(*op));
	op->kind = k < 90 ? ND_RX : (enum nd_kind)(k % ND_KINDS);
	switch (op->kind) {
	case ND_RX:
	case ND_WRITE:
		op->len = 1 + rd8(r) % ND_BYTES_MAX;
		for (size_t i = 0; i < op->len; i++)
			op->bytes[i] = rx_byte(r, &c->t);
		break;
	case ND_READ: op->arg = 1 + rd8(r) % 16; break;
	case ND_FLUSH: op->arg = rd8(r) % 3; break; /* TCIFLUSH, TCOFLUSH, TCIOFLUSH */
	case ND_XONC: op->arg = rd8(r) % 4; break;  /* TCOOFF ... TCION */
	case ND_SETATTR:
		op->iflag = flags(r, c->t.c_iflag, IFLAGS);
		op->oflag = flags(r, c->t.c_oflag, OFLAGS);
		op->lflag = flags(r, c->t.c_lflag, LFLAGS);
		break;
	default: break;
	}
}

void nd_case_from_bytes(struct nd_case *c, const uint8_t *data, size_t len)
{
	struct reader r = { data, len };

	memset(c, 0, sizeof(*c));
	c->t.c_iflag = flags(&r, ICRNL | IXON, IFLAGS);
	c->t.c_oflag = flags(&r, OPOST | ONLCR, OFLAGS);
	c->t.c_lflag =
		flags(&r, ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN, LFLAGS);
	c->t.c_cflag = B38400 | CS8 | CREAD | CLOCAL;
	c->t.c_ispeed = c->t.c_ospeed = 38400;
	memcpy(c->t.c_cc, std_cc, NCCS);
	for (int i = 0; i < NCCS; i++) {
		uint8_t x = rd8(&r), v = rd8(&r);

		if (x >= 208)
			c->t.c_cc[i] = v;
	}
	c->t.c_cc[VMIN] = rd8(&r) % 4;
	c->t.c_cc[VTIME] = 0; /* a timer the pty would show only by sleeping */
	c->nops = 1 + rd8(&r) % ND_OPS_RANDOM;
	for (int i = 0; i < c->nops; i++)
		decode_op(&r, c, &c->ops[i]);
}

static const char *const kind_names[ND_KINDS] = {
	"rx", "write", "read", "drain", "poll", "fionread", "outq", "flush", "setattr", "xonc",
};

static size_t hex(char *out, size_t size, const uint8_t *b, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 3 < size; i++)
		k += (size_t)snprintf(out + k, size - k, "%02x", b[i]);
	if (size)
		out[k < size ? k : size - 1] = 0;
	return k;
}

void nd_case_print(const struct nd_case *c, char *out, size_t size)
{
	size_t k = (size_t)snprintf(out, size, "iflag=%#x oflag=%#x lflag=%#x cc=", c->t.c_iflag,
				    c->t.c_oflag, c->t.c_lflag);

	k += hex(out + k, size - k, c->t.c_cc, NCCS);
	for (int i = 0; i < c->nops && k < size; i++) {
		const struct nd_op *op = &c->ops[i];

		k += (size_t)snprintf(out + k, size - k, " %s", kind_names[op->kind]);
		if (k >= size)
			break;
		if (op->kind == ND_RX || op->kind == ND_WRITE) {
			out[k++] = ':';
			k += hex(out + k, size - k, op->bytes, op->len);
		} else if (op->kind == ND_SETATTR) {
			k += (size_t)snprintf(out + k, size - k, ":%#x,%#x,%#x", op->iflag,
					      op->oflag, op->lflag);
		} else if (op->kind != ND_DRAIN && op->kind != ND_POLL) {
			k += (size_t)snprintf(out + k, size - k, ":%u", op->arg);
		}
	}
}

static bool unhex(const char *p, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int v;

		if (sscanf(p + 2 * i, "%2x", &v) != 1)
			return false;
		out[i] = (uint8_t)v;
	}
	return true;
}

int nd_case_parse(struct nd_case *c, const char *line)
{
	const char *p;
	int n = 0;

	nd_case_from_bytes(c, NULL, 0);
	c->nops = 0;
	if (sscanf(line, "iflag=%x oflag=%x lflag=%x cc=%n", &c->t.c_iflag, &c->t.c_oflag,
		   &c->t.c_lflag, &n) != 3 ||
	    !n || strspn(line + n, "0123456789abcdef") != 2 * NCCS ||
	    !unhex(line + n, NCCS, c->t.c_cc))
		return -EINVAL;
	for (p = line + n + 2 * NCCS; *p == ' ' && c->nops < ND_OPS_MAX;) {
		struct nd_op *op = &c->ops[c->nops++];
		size_t len = strcspn(++p, ": "), x;
		int k;

		for (k = 0; k < ND_KINDS &&
			    !(strlen(kind_names[k]) == len && !memcmp(kind_names[k], p, len));
		     k++)
			;
		if (k == ND_KINDS)
			return -EINVAL;
		memset(op, 0, sizeof(*op));
		op->kind = (enum nd_kind)k;
		p += len;
		if (op->kind == ND_DRAIN || op->kind == ND_POLL)
			continue;
		if (*p++ != ':')
			return -EINVAL;
		x = strcspn(p, " ");
		if (op->kind == ND_RX || op->kind == ND_WRITE) {
			op->len = x / 2;
			if (!op->len || x % 2 || op->len > ND_BYTES_MAX ||
			    !unhex(p, op->len, op->bytes))
				return -EINVAL;
		} else if (op->kind == ND_SETATTR) {
			if (sscanf(p, "%x,%x,%x", &op->iflag, &op->oflag, &op->lflag) != 3)
				return -EINVAL;
		} else if (sscanf(p, "%u", &op->arg) != 1) {
			return -EINVAL;
		}
		p += x;
	}
	return *p ? -EINVAL : 0;
}

/* ---- one run, on either side ---- */

struct side {
	void *ctx;
	int (*rx)(void *ctx, const uint8_t *b, size_t n, bool canonical_sync);
	long (*write)(void *ctx, const uint8_t *b, size_t n);
	long (*read)(void *ctx, uint8_t *b, size_t n);
	int (*poll)(void *ctx);
	long (*query)(void *ctx, unsigned int cmd);
	long (*ioctl_arg)(void *ctx, unsigned int cmd, unsigned long arg);
	long (*setattr)(void *ctx, const struct termios2 *t);
	size_t (*handheld)(void *ctx, uint8_t *b, size_t n);
	bool (*queued)(void *ctx); /* bytes wait that the handheld could not take */
};

static void say(struct nd_trace *tr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct nd_trace *tr, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tr->text + tr->len, sizeof(tr->text) - tr->len, fmt, ap);
	va_end(ap);
	if (n > 0 && tr->len + (size_t)n >= sizeof(tr->text))
		tr->full = true;
	if (n > 0)
		tr->len = tr->len + (size_t)n < sizeof(tr->text) ? tr->len + (size_t)n
								 : sizeof(tr->text) - 1;
}

static void say_hex(struct nd_trace *tr, const uint8_t *b, size_t n)
{
	size_t k = hex(tr->text + tr->len, sizeof(tr->text) - tr->len, b, n);

	tr->full |= k < 2 * n;
	tr->len += k;
}

static void say_ret(struct nd_trace *tr, long ret, const uint8_t *b)
{
	if (ret < 0) {
		say(tr, "%s", strerrorname_np((int)-ret));
	} else if (b) {
		say(tr, "%ld:", ret);
		say_hex(tr, b, (size_t)ret);
	} else {
		say(tr, "%ld", ret);
	}
}

static bool canonical(const struct termios2 *t)
{
	return (t->c_lflag & ICANON) && !(t->c_lflag & EXTPROC);
}

/*
 * Echo in one step near n_tty's echo buffer's 4096 entries (its
 * ECHO_DISCARD_WATERMARK is 3808, and an erase takes 2 or 3 entries for
 * its bytes): n_tty then discards its oldest unsent echoes, pilotd drops
 * what finds no room in txq (docs/tty-differences.md).
 */
#define ECHO_FLOOD 3072

/*
 * What a step may send, read whole (both sides are read empty after each
 * step): more than pilotd's queue (TXQ_SIZE, 512 KiB) and the echo ring
 * it refills from, and than a pty's master holds (its flip buffers' 64 KiB,
 * TTYB_DEFAULT_MEM_LIMIT, and its n_tty's 4096)
 */
#define STEP_SENT_MAX (1u << 20)

/*
 * A pty's room at the start of a step (the master is read empty after
 * every step), measured on this host's Linux 6.18: n_tty's
 * process_echoes() at a START sent exactly 8192 bytes where pilotd sent
 * 8855 (seed stop-writes-vreprints-start-intr-tab-column cut before its
 * INTR), and one write of 1 MiB to a raw slave whose master nobody read
 * took 11776: 8192 in the master's flip buffers and what its worker had
 * moved into the master's n_tty (4096 at most) meanwhile, a timing.  Not
 * the 64 KiB of tty_buffer.c's old TTYB_DEFAULT_MEM_LIMIT.
 */
#define PTY_ROOM 8192

static void end_step(struct nd_trace *tr, const struct side *s)
{
	static uint8_t buf[STEP_SENT_MAX];
	size_t n = s->handheld(s->ctx, buf, sizeof(buf));

	say(tr, " H:");
	say_hex(tr, buf, n);
	say(tr, "\n");
	if (tr->lines < ND_OPS_MAX + 2) {
		tr->flood[tr->lines] = n >= ECHO_FLOOD;
		tr->queued[tr->lines] = s->queued && s->queued(s->ctx);
		tr->sent[tr->lines] = n;
	}
	tr->lines++;
}

/* A drain's reads at most: canonical mode reads an empty line (VEOF) as 0. */
#define DRAIN_READS 64

/* Read until EAGAIN (or 0 when non-canonical: VMIN 0 reads 0 at once). */
static void drain(struct nd_trace *tr, const struct side *s, const struct termios2 *t)
{
	uint8_t buf[4096];
	long n;

	for (int i = 0; i < DRAIN_READS; i++) {
		n = s->read(s->ctx, buf, sizeof(buf));
		say_ret(tr, n, buf);
		say(tr, "|");
		if (n < 0 || (n == 0 && !canonical(t)))
			break;
	}
}

static void step(const struct nd_op *op, struct termios2 *t, struct nd_trace *tr,
		 const struct side *s, size_t *unread)
{
	uint8_t buf[64];
	long n;

	say(tr, "%s ", kind_names[op->kind]);
	switch (op->kind) {
	case ND_RX:
		/* the pty's sync needs no complete line unread (ntty_diff.h) */
		if (canonical(t) || *unread > 96) {
			drain(tr, s, t);
			if (!canonical(t))
				*unread = 0;
		}
		*unread += op->len * 2;
		s->rx(s->ctx, op->bytes, op->len, canonical(t));
		break;
	case ND_WRITE:
		if (op->skip)
			say(tr, "-");
		else
			say_ret(tr, s->write(s->ctx, op->bytes, op->len), NULL);
		break;
	case ND_READ:
		n = s->read(s->ctx, buf, op->arg);
		say_ret(tr, n, buf);
		break;
	case ND_DRAIN:
		drain(tr, s, t);
		if (!canonical(t)) /* the line being edited stays, and may become bytes */
			*unread = 0;
		break;
	case ND_POLL: say(tr, "%#x", s->poll(s->ctx)); break;
	case ND_FIONREAD: say_ret(tr, s->query(s->ctx, FIONREAD), NULL); break;
	case ND_OUTQ: say_ret(tr, s->query(s->ctx, TIOCOUTQ), NULL); break;
	case ND_FLUSH:
		say_ret(tr, s->ioctl_arg(s->ctx, TCFLSH, op->arg), NULL);
		if (op->arg != TCOFLUSH)
			*unread = 0;
		break;
	case ND_XONC: say_ret(tr, s->ioctl_arg(s->ctx, TCXONC, op->arg), NULL); break;
	case ND_SETATTR:
		t->c_iflag = op->iflag;
		t->c_oflag = op->oflag;
		t->c_lflag = op->lflag;
		say_ret(tr, s->setattr(s->ctx, t), NULL);
		break;
	default: break;
	}
	end_step(tr, s);
}

static void run(const struct nd_case *c, struct nd_trace *tr, const struct side *s)
{
	struct termios2 t = c->t;
	size_t unread = 0;

	/* the text is written from its start on (a full memset of it per run cost time) */
	memset(tr, 0, offsetof(struct nd_trace, text));
	memset((char *)tr + offsetof(struct nd_trace, len), 0,
	       sizeof(*tr) - offsetof(struct nd_trace, len));
	tr->text[0] = 0;
	say(tr, "set ");
	say_ret(tr, s->setattr(s->ctx, &t), NULL);
	end_step(tr, s);
	for (int i = 0; i < c->nops; i++)
		step(&c->ops[i], &t, tr, s, &unread);
}

/* ---- pilotd's side: the port with the fake front and transport ---- */

size_t nd_txq_size = 4096;

struct port_side {
	struct ph h;
	struct port p;
	uint64_t fh;
	uint64_t now;
};

static long answer_of(struct port_side *ps, void *req, uint8_t *buf, size_t size)
{
	struct ph_answer *a = ph_ans(&ps->h, req);

	port_after_events(&ps->p, ++ps->now);
	if (a->count != 1)
		return -EDEADLK; /* never answered (or twice): no tty does that */
	switch (a->kind) {
	case PH_DATA:
		if (buf)
			memcpy(buf, a->data, a->len < size ? a->len : size);
		return (long)a->len;
	case PH_WRITTEN: return (long)a->len;
	case PH_IOCTL: {
		int v = 0;

		if (a->len >= sizeof(v))
			memcpy(&v, a->data, sizeof(v));
		return v;
	}
	case PH_ERR: return -a->err;
	default: return -EPROTO;
	}
}

static int port_rx_op(void *ctx, const uint8_t *b, size_t n, bool canonical_sync)
{
	struct port_side *ps = ctx;

	(void)canonical_sync;
	port_rx(&ps->p, b, n, ++ps->now);
	port_after_events(&ps->p, ps->now);
	return 0;
}

static long port_write_op(void *ctx, const uint8_t *b, size_t n)
{
	struct port_side *ps = ctx;

	return answer_of(ps, ph_write(&ps->h, ps->fh, b, n, true), NULL, 0);
}

static long port_read_op(void *ctx, uint8_t *b, size_t n)
{
	struct port_side *ps = ctx;

	return answer_of(ps, ph_read(&ps->h, ps->fh, n, true, ps->now), b, n);
}

static int port_poll_op(void *ctx)
{
	struct port_side *ps = ctx;

	return (int)port_poll(&ps->p, ps->fh, NULL, 0) & (POLLIN | POLLOUT);
}

static long port_query(void *ctx, unsigned int cmd)
{
	struct port_side *ps = ctx;

	return answer_of(ps, ph_ioctl(&ps->h, ps->fh, cmd, 0, NULL, 0, sizeof(int), false), NULL, 0);
}

static long port_ioctl_arg(void *ctx, unsigned int cmd, unsigned long arg)
{
	struct port_side *ps = ctx;

	return answer_of(ps, ph_ioctl(&ps->h, ps->fh, cmd, arg, NULL, 0, 0, false), NULL, 0);
}

static long port_setattr(void *ctx, const struct termios2 *t)
{
	struct port_side *ps = ctx;

	return answer_of(ps, ph_ioctl(&ps->h, ps->fh, TCSETS2, 0, t, sizeof(*t), 0, false), NULL, 0);
}

static size_t port_handheld(void *ctx, uint8_t *b, size_t n)
{
	struct port_side *ps = ctx;
	size_t before = ps->h.handheld_len;

	while (ph_handheld_takes(&ps->h, n) > 0)
		;
	port_after_events(&ps->p, ++ps->now);
	n = ps->h.handheld_len - before < n ? ps->h.handheld_len - before : n;
	memcpy(b, ps->h.handheld + before, n);
	ps->h.handheld_len = before; /* kept per step only */
	return n;
}

static bool port_queued(void *ctx)
{
	return port_tx_queued(&((struct port_side *)ctx)->p) > 0;
}

int nd_run_port(const struct nd_case *c, struct nd_trace *tr)
{
	static struct port_side ps;
	static uint8_t handheld[STEP_SENT_MAX];
	const struct side s = { &ps,	      port_rx_op, port_write_op,  port_read_op,
				port_poll_op, port_query, port_ioctl_arg, port_setattr,
				port_handheld, port_queued };
	/* each step a request, a drain DRAIN_READS (a case of drains of empty
	 * lines took more than 256); and the opens and the close */
	struct port_config cfg = ph_config_small;
	int err;

	cfg.txq_size = nd_txq_size;
	err = ph_init(&ps.h, &ps.p, &cfg, ND_OPS_MAX * (DRAIN_READS + 1) + 16);
	if (err)
		return err;
	/* a step's bytes, whole (STEP_SENT_MAX), in a buffer kept for every run */
	free(ps.h.handheld);
	ps.h.handheld = handheld;
	ps.h.handheld_size = sizeof(handheld);

	if (err)
		return err;
	ps.now = 0;
	port_carrier_up(&ps.p);
	ps.fh = ph_open(&ps.h, 1000, true, true);
	run(c, tr, &s);
	err = ph_unanswered_or_twice(&ps.h) ? -EPROTO : 0;
	ps.h.handheld = NULL; /* not ph_free()'s */
	ph_free(&ps.h);
	return err;
}

/* ---- the oracle: a pty pair ---- */

struct pty_side {
	int m, s;
	struct termios2 t;
	int err; /* the harness's own first failure (-errno): the run shows nothing */
};

static void pty_failed(struct pty_side *ps, int err)
{
	if (!ps->err)
		ps->err = err;
}

/*
 * The master's bytes are in its read buffer once its worker ran; a poll
 * with nothing to read waits for it.  More than n_tty's 4096 bytes throttle
 * the master, and a read restarts its worker: poll again until it ran with
 * nothing more to give.
 */
static size_t pty_handheld(void *ctx, uint8_t *b, size_t size)
{
	struct pty_side *ps = ctx;
	struct pollfd pfd = { .fd = ps->m, .events = POLLIN };
	size_t n = 0;
	ssize_t k = 0;
	int ready;

	while (n < size && (ready = poll(&pfd, 1, 0)) == 1 && (pfd.revents & POLLIN)) {
		while (n < size && (k = read(ps->m, b + n, size - n)) > 0)
			n += (size_t)k;
		if (k < 0 && errno != EAGAIN)
			pty_failed(ps, -errno);
	}
	if (ready < 0)
		pty_failed(ps, -errno);
	return n;
}

static int pty_poll_op(void *ctx)
{
	struct pty_side *ps = ctx;
	struct pollfd pfd = { .fd = ps->s, .events = POLLIN | POLLOUT };

	if (poll(&pfd, 1, 0) < 0)
		pty_failed(ps, -errno);
	return pfd.revents & (POLLIN | POLLOUT);
}

static long pty_setattr(void *ctx, const struct termios2 *t)
{
	struct pty_side *ps = ctx;

	ps->t = *t;
	return ioctl(ps->s, TCSETS2, t) < 0 ? -errno : 0;
}

/* The sync's own ioctls: a failure is the harness's. */
static void pty_sync_ioctl(struct pty_side *ps, unsigned long cmd, const void *arg)
{
	if (ioctl(ps->s, cmd, arg) < 0)
		pty_failed(ps, -errno);
}

/* Non-canonical: with VMIN 255 n_tty sees no input, so poll waits for the worker. */
static void pty_rx_sync_raw(struct pty_side *ps)
{
	struct termios2 wait = ps->t;

	wait.c_cc[VMIN] = 255;
	wait.c_cc[VTIME] = 0;
	pty_sync_ioctl(ps, TCSETS2, &wait);
	/* POLLIN: 255 bytes unread (the script's count is wrong), poll waited for nothing */
	if (pty_poll_op(ps) & POLLIN)
		pty_failed(ps, -EPROTO);
	pty_sync_ioctl(ps, TCSETS2, &ps->t);
}

/*
 * Canonical: no complete line is unread before the batch (the script read
 * them all; checked), so poll waits for the worker unless the worker has
 * already completed a line of this batch.  Then it is inside the one
 * receive_buf() call that takes the whole batch (one write of at most
 * 32 bytes fills one flip buffer, whose bytes flush_to_ldisc() hands over
 * at once, and n_tty has room for them), or past it: TIOCSETD (N_TTY, no
 * change) takes the ldisc lock for writing, which waits for that call's
 * reference to the ldisc.
 */
static void pty_rx_sync_canon(struct pty_side *ps)
{
	if (!(pty_poll_op(ps) & POLLIN))
		return;
	pty_sync_ioctl(ps, TIOCSETD, &(int){ N_TTY });
}

static int pty_rx(void *ctx, const uint8_t *b, size_t n, bool canonical_sync)
{
	struct pty_side *ps = ctx;
	ssize_t k;

	if (canonical_sync && (pty_poll_op(ps) & POLLIN)) {
		pty_failed(ps, -EPROTO); /* a line unread: the sync below would not wait */
		return -EPROTO;
	}
	k = write(ps->m, b, n);
	if (k != (ssize_t)n) {
		pty_failed(ps, k < 0 ? -errno : -EIO);
		return -EIO;
	}
	if (canonical_sync)
		pty_rx_sync_canon(ps);
	else
		pty_rx_sync_raw(ps);
	return ps->err;
}

static long pty_write(void *ctx, const uint8_t *b, size_t n)
{
	ssize_t k = write(((struct pty_side *)ctx)->s, b, n);

	return k < 0 ? -errno : k;
}

static long pty_read(void *ctx, uint8_t *b, size_t n)
{
	ssize_t k = read(((struct pty_side *)ctx)->s, b, n);

	return k < 0 ? -errno : k;
}

static long pty_query(void *ctx, unsigned int cmd)
{
	int v = 0;

	return ioctl(((struct pty_side *)ctx)->s, cmd, &v) < 0 ? -errno : v;
}

static long pty_ioctl_arg(void *ctx, unsigned int cmd, unsigned long arg)
{
	return ioctl(((struct pty_side *)ctx)->s, cmd, arg) < 0 ? -errno : 0;
}

/*
 * No signal may reach the pty's side: n_tty_write() gives up with
 * -ERESTARTSYS before writing a byte when one is pending, and a handler
 * without SA_RESTART (libFuzzer's SIGALRM, every -timeout/2 + 1 seconds)
 * makes that EINTR: a batch the handheld never sent, or a desktop's write
 * failed.  Blocked, they wait for the end of the run; faults keep theirs.
 */
static void block_signals(sigset_t *old)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS };
	sigset_t set;

	sigfillset(&set);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&set, faults[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static int pty_open_pair(struct pty_side *ps)
{
	int unlock = 0;

	ps->m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (ps->m < 0)
		return -errno;
	if (ioctl(ps->m, TIOCSPTLCK, &unlock) < 0 ||
	    (ps->s = ioctl(ps->m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		int err = -errno;

		close(ps->m);
		return err;
	}
	return 0;
}

int nd_run_pty(const struct nd_case *c, struct nd_trace *tr)
{
	const struct side s = { NULL,	   pty_rx,	  pty_write,   pty_read,    pty_poll_op,
				pty_query, pty_ioctl_arg, pty_setattr, pty_handheld, NULL };
	struct pty_side ps = { 0 };
	struct side sd = s;
	sigset_t old;
	int err;

	block_signals(&old);
	err = pty_open_pair(&ps);
	if (!err) {
		sd.ctx = &ps;
		run(c, tr, &sd);
		close(ps.s);
		close(ps.m);
		err = ps.err;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* ---- comparing ---- */

static const char *line(const char *text, int i, size_t *len)
{
	for (; i > 0 && text; i--) {
		text = strchr(text, '\n');
		if (text)
			text++;
	}
	if (!text || !*text)
		return NULL;
	*len = (size_t)(strchrnul(text, '\n') - text);
	return text;
}

/* Which listed difference explains step i's (NULL: none). */
/* The settings at step i (line i of a trace: 0 is the first "set"). */
static struct termios2 settings_at(const struct nd_case *c, int i)
{
	struct termios2 t = c->t;

	for (int k = 0; k < i - 1 && k < c->nops; k++) {
		if (c->ops[k].kind == ND_SETATTR) {
			t.c_iflag = c->ops[k].iflag;
			t.c_oflag = c->ops[k].oflag;
			t.c_lflag = c->ops[k].lflag;
		}
	}
	return t;
}

/* Surely a line's end: a newline that INLCR leaves one, or a CR that ICRNL makes one. */
static bool ends_line(const struct termios2 *t, uint8_t b)
{
	return (b == '\n' && !(t->c_iflag & INLCR)) ||
	       (b == '\r' && (t->c_iflag & (ICRNL | IGNCR)) == ICRNL);
}

/*
 * At most how many bytes the line being edited holds before step i: those
 * received since the last newline, counted over every earlier batch.
 */
static size_t line_bound(const struct nd_case *c, int i)
{
	size_t n = 0;

	for (int k = 0; k < i - 1 && k < c->nops; k++) {
		struct termios2 t = settings_at(c, k + 1);

		for (size_t j = 0; c->ops[k].kind == ND_RX && j < c->ops[k].len; j++)
			n = ends_line(&t, c->ops[k].bytes[j]) ? 0 : n + 1;
	}
	return n;
}

/*
 * After an echo flood the echoes may differ, and what counts them (the
 * output queue, POLLOUT's room); what the desktop reads may not.
 */
/*
 * Step i of a trace cut at " H:": the line, of which *head characters are
 * what the desktop saw, then what reached the handheld (*hex, in hex, *len
 * characters); NULL if there is no such step.
 */
static const char *step_parts(const struct nd_trace *tr, int i, size_t *head, const char **hex,
			      size_t *len)
{
	size_t n = 0;
	const char *l = line(tr->text, i, &n), *h = l ? memmem(l, n, " H:", 3) : NULL;

	if (!h)
		return NULL;
	*head = (size_t)(h - l);
	*hex = h + 3;
	*len = (size_t)(l + n - *hex);
	return l;
}

static bool ring_overflows(const struct nd_case *c, int i);
static bool ring_lost(const struct nd_case *c, const struct nd_trace *pty, int i);

static bool flood_explains(const struct nd_case *c, const struct nd_trace *port,
			   const struct nd_trace *pty, int i)
{
	const struct nd_op *op = i >= 1 && i <= c->nops ? &c->ops[i - 1] : NULL;
	size_t a, b, xa, xb;
	const char *ha, *hb, *la = step_parts(port, i, &a, &ha, &xa),
			    *lb = step_parts(pty, i, &b, &hb, &xb);
	bool flooded = false;

	for (int k = 0; k <= i && k < ND_OPS_MAX + 2; k++)
		/* n_tty's echo (or its batch's, past its ring), and pilotd's */
		flooded |= (pty->flood[k] || ring_overflows(c, k) || ring_lost(c, pty, k)) &&
			   port->flood[k];
	if (!flooded || !la || !lb)
		return false;
	if (a == b && memcmp(la, lb, a) == 0)
		return true; /* only what reached the handheld differs */
	return op && (op->kind == ND_OUTQ || op->kind == ND_POLL);
}

/* What n_tty's n_tty_receive_buf_standard() does with a byte, as far as echo_mark goes. */
enum nt_does {
	NT_LITERAL, /* the byte after an LNEXT: echoed (and committed) as data */
	NT_QUEUED,  /* under EXTPROC: queued unedited */
	NT_QUIET,   /* no echo, no commit: IGNCR, VEOF */
	NT_START,   /* process_echoes() */
	NT_STOP,
	NT_SIGNAL,  /* echoed and committed under ECHO, else process_echoes() */
	NT_ERASE,   /* eraser(), then commit_echoes() whatever ECHO */
	NT_LNEXT,   /* finish_erasing() without a commit (unless ECHOCTL) */
	NT_NEWLINE, /* committed under ECHO or ECHONL */
	NT_EOL,	    /* committed under ECHO; the erase goes on */
	NT_DATA,    /* finish_erasing() and a commit under ECHO (also VREPRINT) */
};

static bool is_cc(const struct termios2 *t, uint8_t c, int cc)
{
	return c && c == t->c_cc[cc]; /* __DISABLED_CHAR (0) is never special */
}

/* The kernel's tolower(): its ctype is Latin-1's. */
static uint8_t latin1_lower(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7) ? c + 0x20 : c;
}

/* The kernel's toupper(): its ctype's lower case letters are 0xdf-0xff but 0xf7. */
static uint8_t latin1_upper(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 0xdf && c != 0xf7) ? c - 0x20 : c;
}

static enum nt_does nt_receive(const struct termios2 *t, uint8_t b, bool lnext)
{
	uint8_t c = (t->c_iflag & ISTRIP) ? b & 0x7f : b;
	bool iexten = t->c_lflag & IEXTEN;

	if (lnext)
		return NT_LITERAL;
	if ((t->c_iflag & IUCLC) && iexten)
		c = latin1_lower(c);
	if (t->c_lflag & EXTPROC)
		return NT_QUEUED;
	if ((t->c_iflag & IXON) && is_cc(t, c, VSTART))
		return NT_START;
	if ((t->c_iflag & IXON) && is_cc(t, c, VSTOP))
		return NT_STOP;
	if ((t->c_lflag & ISIG) &&
	    (is_cc(t, c, VINTR) || is_cc(t, c, VQUIT) || is_cc(t, c, VSUSP)))
		return NT_SIGNAL;
	if (c == '\r' && (t->c_iflag & IGNCR))
		return NT_QUIET;
	if (c == '\r' && (t->c_iflag & ICRNL))
		c = '\n';
	else if (c == '\n' && (t->c_iflag & INLCR))
		c = '\r';
	if (!(t->c_lflag & ICANON))
		return NT_DATA;
	if (is_cc(t, c, VERASE) || is_cc(t, c, VKILL) || (iexten && is_cc(t, c, VWERASE)))
		return NT_ERASE;
	if (iexten && is_cc(t, c, VLNEXT))
		return NT_LNEXT;
	if (c == '\n')
		return NT_NEWLINE;
	if (is_cc(t, c, VEOF))
		return NT_QUIET;
	if (is_cc(t, c, VEOL) || (iexten && is_cc(t, c, VEOL2)))
		return NT_EOL;
	return NT_DATA;
}

/*
 * Does batch i echo more than n_tty's echo ring holds (4096 entries)?
 * VREPRINT echoes the line (n_tty_receive_char_special(): ^R, '\n', then
 * each byte from canon_head on, at least an entry each) and commits with
 * commit_echoes(), which processes them only when the entries pending
 * since the last processing reach a multiple of 256 (nr % ECHO_BLOCK >
 * old % ECHO_BLOCK returns, and old is 0 once all went out):
 * add_echo_byte() writes on round the ring over what waits, and
 * flush_echoes() at the batch's end sends only (echo_head - echo_tail)
 * modulo 4096 entries, the newest; its discard of ECHO_DISCARD_WATERMARK
 * leaves echo_tail behind for the next batch's echo.  fuzz_ntty: 19 reprints
 * of a 226-byte line sent 267 bytes, and the next batch's 19 sent 3992.
 * Decided from the case: a lower bound of the line (the bytes n_tty stores
 * as data since anything else, a 0xff twice under PARMRK; an erase takes a
 * character, a word erase a word, a tcsetattr() that keeps ICANON and EXTPROC or a TCOFLUSH
 * nothing, nor a signal character under NOFLSH; a case's bytes never fill
 * its read_buf), for each VREPRINT of the batch; with a WERASE's or a
 * KILL's erases, which eraser() adds before one commit_echoes() too
 * (erase_entries(); fuzz_ntty: 13 VREPRINTs and a KILL, n_tty sent 516
 * bytes, seed tcoon-vreprints-kill-wraps-ring).
 */
#define ECHO_RING 4096

/*
 * The kernel's iscntrl(), which echo_char() and eraser() ask: below 0x20 and
 * 0x7f.  lib/ctype.c's _ctype[] gives 128..159 no class (this model took
 * them as controls): such a byte echoes as itself, an entry, and erases as
 * "\b \b", 3, under ECHOCTL or not.
 */
static bool kernel_cntrl(uint8_t c)
{
	return c < 0x20 || c == 0x7f;
}

/* echo_char()'s entries: ^X (ECHOCTL but for a tab) and an escaped 0xff take 2 */
static size_t echo_char_entries(const struct termios2 *t, uint8_t e)
{
	return 1 + (e == 0xff || ((t->c_lflag & ECHOCTL) && kernel_cntrl(e) && e != '\t'));
}

/* VREPRINT r's echo entries: echo_char() of r, '\n', echo_char() of each byte of the line */
static size_t reprint_entries(const struct termios2 *t, uint8_t r, const uint8_t *kept,
			      size_t line)
{
	size_t entries = 1;

	for (size_t n = 0; n <= line; n++)
		entries += echo_char_entries(t, n < line ? kept[n] : r);
	return entries;
}

/*
 * eraser() on what the model kept of the line (the end of n_tty's): the
 * length without its last character, under IUTF8 with its continuation
 * bytes; 0 where that character may begin before what was kept.
 */
static size_t erase_char(const struct termios2 *t, const uint8_t *kept, size_t line,
			 uint8_t *lead)
{
	while (line && (t->c_iflag & IUTF8) && (kept[line - 1] & 0xc0) == 0x80)
		line--;
	if (!line)
		return 0;
	if (lead)
		*lead = kept[line - 1];
	return line - 1;
}

/* The kernel's Latin-1 isalnum() (lib/ctype.c), or '_' */
static bool word_char(uint8_t c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_' ||
	       (c >= 0xc0 && c != 0xd7 && c != 0xf7);
}

/* eraser()'s WERASE: characters back to a non-word one after a word one */
static size_t erase_word(const struct termios2 *t, const uint8_t *kept, size_t line)
{
	bool seen = false;

	while (line) {
		uint8_t c = 0;
		size_t left = erase_char(t, kept, line, &c);

		if (!left && !c)
			return 0; /* it began before what was kept */
		if (!word_char(c) && seen)
			break;
		seen |= word_char(c);
		line = left;
	}
	return line;
}

/*
 * eraser()'s ECHOPRT echo of kept[from..to), at least (its '\\' on the first
 * erase not counted): echo_char() of each character's first byte (2
 * entries for ^X and for a 0xff), then, under IUTF8, echo_char_raw() and
 * echo_move_back_col() of each of its continuation bytes, 3 entries (none
 * for those before the first lead in the range: n_tty erases no
 * character it cannot find the start of).  fuzz_ntty: seed
 * vreprints-werase-echoprt-wraps-ring, 13 VREPRINTs and 4 WERASEs of
 * control characters (^O, ^M), counted an entry each: 4082 entries, n_tty
 * sent 85 bytes of its wrapped ring.
 */
static size_t erase_prt_entries(const struct termios2 *t, const uint8_t *kept, size_t from,
				size_t to)
{
	size_t entries = 0;
	bool lead = false;

	for (size_t n = from; n < to; n++) {
		if ((t->c_iflag & IUTF8) && (kept[n] & 0xc0) == 0x80) {
			entries += lead ? 3 : 0;
			continue;
		}
		lead = true;
		entries += echo_char_entries(t, kept[n]);
	}
	return entries;
}

/*
 * eraser()'s echo entries for a WERASE or KILL (b) erasing kept[from..to),
 * at least: under ECHOPRT a character's echo_char() (erase_prt_entries());
 * a KILL without ECHOK, ECHOKE and ECHOE the KILL character's; else a tab's
 * erase 3, "\b \b" 3 for a character, twice for a control character under
 * ECHOCTL (none without), none for a UTF-8 continuation byte under IUTF8
 * (erased with its lead).
 */
static size_t erase_entries(const struct termios2 *t, uint8_t b, const uint8_t *kept, size_t from,
			    size_t to)
{
	const tcflag_t kill_echo = ECHOK | ECHOKE | ECHOE;
	size_t entries = 0;

	if (!(t->c_lflag & ECHO) || from >= to)
		return 0;
	if (is_cc(t, b, VKILL) && (t->c_lflag & kill_echo) != kill_echo)
		return 1;
	if (t->c_lflag & ECHOPRT)
		return erase_prt_entries(t, kept, from, to);
	for (size_t n = from; n < to; n++) {
		uint8_t e = kept[n];
		bool ctl = kernel_cntrl(e);

		if ((t->c_iflag & IUTF8) && (e & 0xc0) == 0x80)
			continue;
		if (e == '\t')
			entries += 3;
		else if (!ctl || (t->c_lflag & ECHOCTL))
			entries += ctl ? 6 : 3;
	}
	return entries;
}

/*
 * The bytes echo_char() of b puts out at least: ^X 2, a 0xff (escaped)
 * 1, any other byte but a control character 1 (do_output_char()), a
 * control character none (a CR at column 0 under ONOCR).
 */
static size_t echo_out(const struct termios2 *t, uint8_t b)
{
	if ((t->c_lflag & ECHOCTL) && kernel_cntrl(b) && b != '\t')
		return 2;
	return !kernel_cntrl(b);
}

/* What ring_count() finds of batch i (step i) */
struct ring_count {
	size_t entries; /* VREPRINTs' echoes, WERASE's and KILL's erases */
	size_t since;	/* those, the data bytes' and signals' echoes since its last flushing signal */
	size_t out;	/* bytes their echoes put out at least (echo_out()) since then */
	bool stops;	/* a STOP in it */
};

static void ring_count(const struct nd_case *c, int i, struct ring_count *rc)
{
	static uint8_t kept[2 * ND_OPS_MAX * ND_BYTES_MAX];
	size_t line = 0;
	bool lnext = false;

	memset(rc, 0, sizeof(*rc));

	for (int k = 0; k < i && k < c->nops; k++) {
		const struct nd_op *op = &c->ops[k];
		struct termios2 t = settings_at(c, k + 1);
		bool reprints = (t.c_lflag & (ICANON | ECHO | IEXTEN)) == (ICANON | ECHO | IEXTEN);

		/* n_tty_set_termios() restarts the line only as ICANON or EXTPROC changes */
		if ((op->kind == ND_SETATTR && ((t.c_lflag ^ op->lflag) & (ICANON | EXTPROC))) ||
		    (op->kind == ND_FLUSH && op->arg != TCOFLUSH) ||
		    (!(t.c_lflag & ICANON) && (op->kind == ND_READ || op->kind == ND_DRAIN)))
			line = 0;
		for (size_t j = 0; op->kind == ND_RX && j < op->len; j++) {
			enum nt_does d = nt_receive(&t, op->bytes[j], lnext);
			uint8_t b = (t.c_iflag & ISTRIP) ? op->bytes[j] & 0x7f : op->bytes[j];

			size_t was = line;

			if ((t.c_iflag & IUCLC) && (t.c_lflag & IEXTEN))
				b = latin1_lower(b);
			lnext = d == NT_LNEXT;
			rc->stops |= k == i - 1 && d == NT_STOP;
			if (d == NT_DATA && reprints && is_cc(&t, b, VREPRINT)) {
				if (k == i - 1) {
					rc->entries += reprint_entries(&t, b, kept, line);
					rc->since += reprint_entries(&t, b, kept, line);
					rc->out++; /* its newline at least */
				}
			} else if (d == NT_DATA || d == NT_LITERAL) {
				if (k == i - 1 && (t.c_lflag & ECHO)) {
					rc->since += echo_char_entries(&t, b);
					rc->out += echo_out(&t, b);
				}
				kept[line++] = b; /* stored, a 0xff twice under PARMRK */
				if (b == 0xff && (t.c_iflag & PARMRK))
					kept[line++] = b;
			} else if (d == NT_ERASE && is_cc(&t, b, VERASE)) {
				line = erase_char(&t, kept, line, NULL);
			} else if (d == NT_ERASE) {
				/*
				 * a WERASE's or KILL's erases all go in before its
				 * commit_echoes(), as a VREPRINT's echo (a data
				 * byte's echo or an ERASE's, a step too small to be
				 * sure it passes no multiple of 256, is not counted)
				 */
				line = !is_cc(&t, b, VKILL) ? erase_word(&t, kept, line) : 0;
				if (k == i - 1) {
					rc->entries += erase_entries(&t, b, kept, line, was);
					rc->since += erase_entries(&t, b, kept, line, was);
				}
			} else if (d == NT_SIGNAL && (t.c_lflag & NOFLSH)) {
				/* isig() without its flush: the line stays */
			} else if (d != NT_START && d != NT_STOP && d != NT_LNEXT &&
				   !(d == NT_QUIET && b == '\r')) { /* IGNCR's CR: nothing */
				line = 0;
				/* a signal's isig(): echo_head = echo_tail = 0 */
				if (d == NT_SIGNAL && k == i - 1)
					rc->since = 0, rc->out = 0;
			}
			/* n_tty_receive_signal_char(): isig(), then under ECHO its echo_char() */
			if (d == NT_SIGNAL && k == i - 1 && (t.c_lflag & ECHO)) {
				rc->since += echo_char_entries(&t, b);
				rc->out += echo_out(&t, b);
			}
		}
	}
}

/* The echo entries of batch i that ring_overflows() counts, at least. */
static size_t ring_entries(const struct nd_case *c, int i)
{
	struct ring_count rc;

	ring_count(c, i, &rc);
	return rc.entries;
}

static bool ring_overflows(const struct nd_case *c, int i)
{
	return ring_entries(c, i) >= ECHO_RING;
}

/* n_tty's state for echo_mark, byte by byte (n_tty_receive_buf_standard()). */
struct nt_marks {
	bool erasing, lnext, behind, stopped, tco;
};

/* Take b; true if n_tty's process_echoes() ran with echo_mark behind. */
static bool nt_take(struct nt_marks *m, const struct termios2 *t, uint8_t b)
{
	enum nt_does d = nt_receive(t, b, m->lnext);
	bool echo = t->c_lflag & ECHO, replay = false;

	/* an IXANY restart of stopped output runs process_echoes() first */
	if (m->stopped && !m->tco && (t->c_iflag & (IXON | IXANY)) == (IXON | IXANY) &&
	    d != NT_QUEUED &&
	    d != NT_START && d != NT_STOP && d != NT_SIGNAL) {
		replay = m->behind;
		m->stopped = false;
	}
	m->lnext = false;
	switch (d) {
	case NT_LITERAL:
	case NT_DATA:
		m->erasing &= !echo;
		m->behind &= !echo;
		break;
	case NT_QUEUED:
	case NT_QUIET: break;
	case NT_START:
		replay |= m->behind;
		m->stopped &= m->tco;
		break;
	case NT_STOP: m->stopped = true; break;
	case NT_SIGNAL:
		replay |= m->behind && !echo;
		m->behind &= !echo;
		m->stopped &= m->tco || !(t->c_iflag & IXON);
		break;
	case NT_EOL: m->behind &= !echo; break;
	case NT_NEWLINE: m->behind &= !(t->c_lflag & (ECHO | ECHONL)); break;
	case NT_ERASE:
		m->behind = false;
		m->erasing |= echo && (t->c_lflag & ECHOPRT);
		break;
	case NT_LNEXT:
		m->lnext = true;
		if (echo && (t->c_lflag & ECHOCTL))
			m->behind = false;
		else if (echo && m->erasing)
			m->behind = true;
		m->erasing &= !echo;
		break;
	}
	return replay;
}

/*
 * n_tty's output flow, from the case alone (never from pilotd's trace):
 * per line i of a trace (0 the first "set", i step i-1), whether output
 * was stopped as the step began and after it.  IXON's STOP stops
 * (stop_tty()); its START, a signal character under IXON and, under
 * IXANY, any other byte that is not queued unedited (EXTPROC) start it
 * again (start_tty(): not after tcflow(TCOOFF), which only TCOON undoes);
 * so does a tcsetattr() that turns IXON off (n_tty_set_termios()).
 *
 * And whether n_tty may hold echoes from an earlier step (held): those of
 * a batch (any byte but START and STOP under ECHO, a newline under ECHONL)
 * wait for its process_echoes() (a START, an IXANY restart, a signal
 * character without ECHO) or the batch's flush_echoes(), and are held when
 * output is stopped then.  A signal character's flush clears them (isig()
 * empties the echo buffer); process_echoes() sends them once output runs
 * (as above, a write, IXON turned off), but a TCOON does not (__start_tty()
 * alone), nor a flush_echoes() when the batch echoed nothing new (its
 * echo_commit is at echo_head).  Over-approximated where commit_echoes()
 * passes its watermark.  Where n_tty holds none, pilotd's queue holds no
 * echo either, so none may have gone through other settings, or moved
 * pilotd's column alone.
 */
struct nt_flow {
	bool stopped_before, tco_before; /* as the step began (tco: by TCOOFF) */
	bool stopped, tco;		 /* after it */
	bool held_before;		 /* n_tty may hold echoes as the step begins */
	bool isig_flush;		 /* a signal character's flush (isig(), no NOFLSH) */
	bool held_flush;		 /* ... that dropped echoes n_tty may have held */
	bool out_flush;			 /* tcflush() of the output (TCOFLUSH, TCIOFLUSH) */
	bool ran; /* the batch ran process_echoes() with output running (a START, ...) */
};

/* May n_tty echo what nt_receive() found (d), so that it holds it while stopped? */
static bool nt_may_echo(const struct termios2 *t, enum nt_does d)
{
	if (d == NT_START || d == NT_STOP)
		return false;
	return (t->c_lflag & ECHO) || (d == NT_NEWLINE && (t->c_lflag & ECHONL));
}

static void nt_flow(const struct nd_case *c, struct nt_flow st[ND_OPS_MAX + 1])
{
	bool stopped = false, tco = false, lnext = false, held = false, fresh;

	memset(st, 0, (ND_OPS_MAX + 1) * sizeof(st[0]));
	for (int j = 1; j <= c->nops && j <= ND_OPS_MAX; j++) {
		const struct nd_op *op = &c->ops[j - 1];
		struct termios2 t = settings_at(c, j);
		bool ixany = (t.c_iflag & (IXON | IXANY)) == (IXON | IXANY);

		st[j].stopped_before = stopped;
		st[j].tco_before = tco;
		st[j].held_before = held;
		fresh = false; /* echoes of this batch not processed yet */
		for (size_t k = 0; op->kind == ND_RX && k < op->len; k++) {
			enum nt_does d = nt_receive(&t, op->bytes[k], lnext);
			bool was = stopped;

			lnext = d == NT_LNEXT;
			switch (d) {
			case NT_QUEUED: break;
			case NT_START: stopped &= tco; break;
			case NT_STOP: stopped = true; break;
			case NT_SIGNAL:
				st[j].isig_flush |= !(t.c_lflag & NOFLSH);
				st[j].held_flush |= held && !(t.c_lflag & NOFLSH);
				if (!(t.c_lflag & NOFLSH))
					held = fresh = false;
				stopped &= tco || !(t.c_iflag & IXON);
				break;
			default: stopped &= tco || !ixany; break;
			}
			/* process_echoes(), output running: a START, a restart, a quiet ISIG */
			if (!stopped &&
			    (d == NT_START || (was && d != NT_QUEUED && d != NT_SIGNAL) ||
			     (d == NT_SIGNAL && !(t.c_lflag & ECHO)))) {
				held = fresh = false;
				st[j].ran = true;
			}
			/* pilotd's flush_echo() there queues them even when n_tty has no room */
			if (stopped &&
			    (d == NT_START || (d == NT_SIGNAL && !(t.c_lflag & ECHO)) ||
			     (ixany && d != NT_QUEUED && d != NT_STOP && d != NT_SIGNAL)))
				held |= fresh;
			fresh |= nt_may_echo(&t, d);
		}
		/* flush_echoes() at the batch's end: sent with output running, else held */
		if (fresh)
			held = stopped;
		if (op->kind == ND_XONC && op->arg == TCOOFF)
			tco = stopped = true;
		else if (op->kind == ND_XONC && op->arg == TCOON && tco)
			tco = stopped = false; /* __start_tty() once tco is cleared */
		if (op->kind == ND_SETATTR) {
			if ((t.c_iflag & IXON) && !(op->iflag & IXON) && !tco)
				stopped = held = false;
			if ((t.c_lflag ^ op->lflag) & (ICANON | EXTPROC))
				lnext = false;
		}
		if (op->kind == ND_WRITE && !stopped)
			held = false;
		st[j].out_flush = op->kind == ND_FLUSH && op->arg != TCIFLUSH;
		st[j].stopped = stopped;
		st[j].tco = tco;
	}
}

/*
 * n_tty's ring wrapped by batch i, shown by what n_tty sent: ring_count()'s
 * entries with those of the batch's data bytes (each echo_char() is its own
 * commit_echoes(), a step too small for ring_overflows() to be sure it
 * passes no multiple of 256) reach 4096 since the batch's last flushing
 * signal, and, with output running through the batch (no stop before it or
 * in it), n_tty sent fewer bytes than those echoes put out at least (a
 * VREPRINT its newline, a data byte echo_out()): a processing at a
 * multiple of 256 would have sent them, and only add_echo_byte() writing
 * on round the ring loses them.  fuzz_ntty: seed vreprints-nuls-wrap-ring,
 * 10 VREPRINTs and a WERASE (4060 entries counted) and 15 NULs' ^@ after
 * them (4097 with them and the batch's other data bytes; at least 49 bytes
 * out, with the SUSP's ^Z): n_tty sent 5 bytes, pilotd 4095; seed vreprints-nuls-wrap-ring-2
 * (the suite's fixed-seed run): n_tty sent 31, the NULs' ^@ after the
 * wrap.  A signal character's own echo counts too: n_tty_receive_signal_char()
 * runs isig() (its flush, unless NOFLSH), then echo_char() under ECHO (seed
 * vreprints-susp-echo-wrap-ring: 4095 entries without the ^Z, 4097 with it).
 */
static bool ring_lost(const struct nd_case *c, const struct nd_trace *pty, int i)
{
	struct nt_flow st[ND_OPS_MAX + 1];
	struct ring_count rc;
	const char *hex;
	size_t h, x;

	if (i < 1 || i > c->nops || i > ND_OPS_MAX)
		return false;
	ring_count(c, i, &rc);
	if (rc.since < ECHO_RING || rc.stops || !step_parts(pty, i, &h, &hex, &x))
		return false;
	nt_flow(c, st);
	return !st[i].stopped_before && !st[i].stopped && x / 2 < rc.out;
}

/*
 * n_tty's commit_echoes() processes the echoes that wait once their entries
 * reach a multiple of 256 (a KILL's or WERASE's erases, VREPRINTs, a line's
 * echoes): with output running __process_echoes() hands them to the driver
 * there, in the batch, and a STOP later in it does not take them back, as
 * at a START's process_echoes(); pilotd sends them there too (core/ldisc.c
 * commit_echoes()).  The model does not count the entries (echo_tail's
 * history decides the multiple); n_tty's bytes show it: in a batch that
 * ends stopped n_tty writes nothing but what so went while output ran in
 * it (from its start, or from a restart: a START, a signal character under
 * IXON, IXANY).  Such a step counts as one where process_echoes() ran:
 * pilotd must send there what n_tty sent, neither more nor less (fuzz_ntty:
 * seeds start-kill-commit-block-then-stop, stop-intr-restart-commit-block).
 */
static void nt_committed(const struct nd_case *c, struct nt_flow st[], const struct nd_trace *pty)
{
	for (int j = 1; j <= c->nops && j <= ND_OPS_MAX; j++) {
		size_t h, x;
		const char *p;

		if (c->ops[j - 1].kind == ND_RX && st[j].stopped &&
		    step_parts(pty, j, &h, &p, &x) && x > 0)
			st[j].ran = true;
	}
}

/* An erase's echo: n_tty's echo buffer takes up to 6 entries a byte (^X, tabs). */
#define ERASE_ENTRIES	 6
#define ECHO_COMMIT_MARK 256

/*
 * A batch in which echoes went to the master before a flushing signal
 * (a START or an IXANY restart sends them, VREPRINT's fill n_tty's echo
 * buffer past its commit mark): the pty's flush of the master's buffer
 * races with the master's worker, which may have taken them already.
 *
 * *columns: whether the echoes n_tty sent before such a flush may have
 * moved its column where pilotd's did not move.  pilotd processes its
 * gathered echoes (flush_echo()) at a START and an IXANY restart, as
 * n_tty's process_echoes() does: there both columns move alike, whichever
 * side's bytes the flush then drops (not under TCOOFF: n_tty's output has
 * no room then, and a byte under IXANY restarts only stopped output).
 * n_tty's commit mark (a VREPRINT's, KILL's or WERASE's echo past it) has
 * no counterpart in pilotd, whose gathered echoes a signal's flush drops
 * unprocessed; a START or restart after it brings pilotd's column level.
 */
static bool flush_races(const struct nd_case *c, int i, bool *columns)
{
	const struct nd_op *op = i >= 1 && i <= c->nops ? &c->ops[i - 1] : NULL;
	struct termios2 t = settings_at(c, i);
	size_t line = line_bound(c, i);
	bool sent = false, moved = false, race = false, stopped, tco;
	struct nt_flow st[ND_OPS_MAX + 1];

	*columns = false;
	if (!op || op->kind != ND_RX || !(t.c_lflag & ISIG) || (t.c_lflag & NOFLSH))
		return false;
	nt_flow(c, st);
	stopped = st[i].stopped_before;
	tco = st[i].tco_before;
	for (size_t k = 0; k < op->len; k++, line++) {
		uint8_t b = (t.c_iflag & ISTRIP) ? op->bytes[k] & 0x7f : op->bytes[k];

		/* n_tty_receive_char_special() takes IXON's START and STOP first */
		if ((t.c_iflag & IXON) && b && (b == t.c_cc[VSTART] || b == t.c_cc[VSTOP])) {
			sent |= b == t.c_cc[VSTART];
			moved &= b != t.c_cc[VSTART] || tco;
			stopped = b == t.c_cc[VSTOP] || tco;
			continue;
		}
		if (b && (b == t.c_cc[VINTR] || b == t.c_cc[VQUIT] || b == t.c_cc[VSUSP])) {
			race |= sent;
			*columns |= sent && moved;
			stopped &= tco || !(t.c_iflag & IXON);
			continue;
		}
		if ((t.c_iflag & IXON) && ((t.c_iflag & IXANY) || (b && b == t.c_cc[VSTART])))
			sent = true;
		if ((t.c_iflag & (IXON | IXANY)) == (IXON | IXANY) && stopped && !tco)
			stopped = moved = false;
		if (b && b == t.c_cc[VREPRINT] && (t.c_lflag & (ECHO | IEXTEN)) == (ECHO | IEXTEN))
			sent = moved = true;
		/* a kill's or word erase's echo may pass the commit mark too */
		if (b && (t.c_lflag & (ICANON | ECHO)) == (ICANON | ECHO) &&
		    (b == t.c_cc[VKILL] || (b == t.c_cc[VWERASE] && (t.c_lflag & IEXTEN))) &&
		    line * ERASE_ENTRIES >= ECHO_COMMIT_MARK)
			sent = moved = true;
		if (ends_line(&t, b))
			line = 0;
	}
	return race;
}

/*
 * Does n_tty's process_echoes() run in step i with its echo_mark behind
 * echo_tail?  An LNEXT that follows an erase under ECHOPRT without ECHOCTL
 * echoes the erase's closing '/' without commit_echoes(), the only function
 * that moves echo_mark (n_tty_receive_char_canon()), and flush_echoes() at
 * the batch's end sends it: echo_tail passes echo_mark.  The next
 * commit_echoes() (any byte n_tty echoes, the LNEXT's own among them, or
 * any erase) sets echo_mark again.  In a batch the process_echoes() is a
 * START's, a signal character's without ECHO or an IXANY restart's; in any
 * other step the step's own (a write, IXON turned off).  Over-approximated
 * in when an erase leaves n_tty erasing, and in that the batch that left
 * the mark behind sent the '/' (not while output is stopped).
 */
static bool replay_due(const struct nd_case *c, int i)
{
	struct nt_flow st[ND_OPS_MAX + 1];
	struct nt_marks m = { 0 };
	struct termios2 was = c->t;

	nt_flow(c, st);

	for (int k = 0; k < i && k < c->nops; k++) {
		struct termios2 t = settings_at(c, k + 1);
		const struct nd_op *op = &c->ops[k];
		bool replay = false;

		/* t: before op k; n_tty_set_termios() runs process_echoes() as IXON goes off */
		bool ixon_off = op->kind == ND_SETATTR && (t.c_iflag & IXON) && !(op->iflag & IXON);

		if ((t.c_lflag ^ was.c_lflag) & (ICANON | EXTPROC))
			m.erasing = m.lnext = false;
		was = t;
		if (k == i - 1 && op->kind != ND_RX)
			return m.behind && (op->kind == ND_WRITE || ixon_off);
		m.stopped = st[k + 1].stopped_before; /* as n_tty's output was */
		m.tco = st[k + 1].tco_before;
		for (size_t j = 0; op->kind == ND_RX && j < op->len; j++)
			replay |= nt_take(&m, &t, op->bytes[j]);
		if (k == i - 1)
			return replay;
	}
	return false;
}

/*
 * With echo_tail past echo_mark, n_tty's next process_echoes() (a write of
 * the desktop's, a START, an IXANY restart, a tcsetattr() that turns IXON
 * off) takes echo_mark, one entry behind, as its commit and runs once round
 * the 4096-entry ring: the handheld gets up to 4095 stale entries (zeros
 * where nothing was echoed yet, then old echoes), before what the step
 * itself sends.  So pilotd's bytes must end n_tty's, unless OPOST makes
 * them depend on the column the replay left (a tab as spaces, a CR under
 * ONOCR; fuzz_ntty: a written tab 3 spaces wide after the replay, 2
 * without).  After it n_tty's echo indices have wrapped, so any later step
 * may differ.
 */
#define REPLAY_MIN 1024

/* Does OPOST make step i's own bytes depend on the column? */
static bool column_counts(const struct nd_case *c, int i)
{
	const struct nd_op *op = i >= 1 && i <= c->nops ? &c->ops[i - 1] : NULL;
	struct termios2 t = settings_at(c, i);
	bool tabs = (t.c_oflag & TABDLY) == TAB3, ocr = t.c_oflag & ONOCR;

	if (!op || !(t.c_oflag & OPOST) || (op->kind != ND_RX && op->kind != ND_WRITE))
		return false;
	for (size_t k = 0; k < op->len; k++)
		if ((tabs && (op->bytes[k] & 0x7f) == '\t') || (ocr && (op->bytes[k] & 0x7f) == '\r'))
			return true;
	return false;
}

static bool echo_replay(const struct nd_case *c, const struct nd_trace *port,
			const struct nd_trace *pty, int i)
{
	size_t head, a, b;
	const char *ha, *hb;

	if (!step_parts(port, i, &head, &ha, &a) || !step_parts(pty, i, &head, &hb, &b))
		return false;
	return b >= a + 2 * REPLAY_MIN &&
	       (memcmp(hb + b - a, ha, a) == 0 || column_counts(c, i)) && replay_due(c, i);
}

/*
 * Step i's head (what the desktop saw: the step's kind and its answer) is
 * "write " then a count: *n gets it.
 */
static bool head_count(const char *l, size_t head, const char *kind, long *n)
{
	size_t k = strlen(kind);
	char num[24], *end;

	if (head <= k || head - k >= sizeof(num) || memcmp(l, kind, k) != 0)
		return false;
	memcpy(num, l + k, head - k);
	num[head - k] = 0;
	*n = strtol(num, &end, 0);
	return end != num && !*end;
}

static bool head_is(const char *l, size_t head, const char *text)
{
	return head == strlen(text) && memcmp(l, text, head) == 0;
}

/*
 * A head that may differ while n_tty's output is stopped (pty_write_room()
 * is 0): a write n_tty refused (EAGAIN) is not made on pilotd's side (a),
 * poll lacks POLLOUT, TIOCOUTQ is 0 (a pty counts nothing) where pilotd's
 * queue holds bytes.  Anything else the desktop sees must be the same.
 */
static bool stopped_head(const char *a, size_t ha, const char *b, size_t hb)
{
	long va, vb;

	if (head_is(a, ha, "write -"))
		return head_is(b, hb, "write EAGAIN");
	if (head_count(a, ha, "poll ", &va) && head_count(b, hb, "poll ", &vb))
		return vb == (va & ~(long)POLLOUT);
	if (head_count(a, ha, "outq ", &va) && va > 0)
		return head_is(b, hb, "outq 0");
	return false;
}

/* What reached the handheld so far, on one side, in hex. */
struct stream {
	char *s;
	size_t len;
};

static void stream_add(struct stream *st, const char *hex, size_t n)
{
	if (st->len + n < ND_TRACE_MAX) {
		memcpy(st->s + st->len, hex, n);
		st->len += n;
	}
}

/*
 * Bytes as the column cannot change them (LOOSE_COLUMNS: a run of tabs and
 * spaces one space, a run of backspaces one, no CR, which ONOCR drops at
 * column 0), or as OPOST cannot either (LOOSE_OFLAG: after n_tty took its
 * echoes through another c_oflag than pilotd; no NL, fill (NUL, DEL) or
 * backspace either, upper case as the kernel's toupper() makes it, which
 * maps 0xff to 0xdf and 0xdf to 0xbf).
 */
enum { LOOSE_NOT, LOOSE_COLUMNS, LOOSE_OFLAG };

static void stream_add_loose(struct stream *st, const char *hex, size_t n, int level)
{
	if (level == LOOSE_NOT) {
		stream_add(st, hex, n);
		return;
	}
	for (size_t k = 0; k + 1 < n; k += 2) {
		unsigned int b;
		char x[3];

		if (sscanf(hex + k, "%2x", &b) != 1 || b == '\r')
			continue;
		if (level == LOOSE_OFLAG && (b == '\n' || b == 0 || b == 0x7f || b == '\b'))
			continue;
		if (level == LOOSE_OFLAG)
			b = latin1_upper(latin1_upper((uint8_t)b)); /* OLCUC, once or not */
		b = b == '\t' ? ' ' : b;
		snprintf(x, sizeof(x), "%02x", b);
		if ((b == ' ' || b == '\b') && st->len >= 2 && memcmp(st->s + st->len - 2, x, 2) == 0)
			continue;
		stream_add(st, x, 2);
	}
}

/*
 * How loosely bytes are compared once the column may differ from step j
 * on: as LOOSE_COLUMNS, but where OPOST has OCRNL and ONOCR (at j or
 * later) an echoed CR is a NL away from column 0 and nothing at it
 * (do_output_char()), so NLs too (LOOSE_OFLAG).
 */
static int column_level(const struct nd_case *c, int j)
{
	const tcflag_t cr_nl = OPOST | OCRNL | ONOCR;

	for (int k = j; k <= c->nops + 1 && k <= ND_OPS_MAX + 1; k++)
		if ((settings_at(c, k).c_oflag & cr_nl) == cr_nl)
			return LOOSE_OFLAG;
	return LOOSE_COLUMNS;
}

static void stream_loosen(struct stream *st, int level)
{
	static char was[ND_TRACE_MAX];
	size_t n = st->len;

	memcpy(was, st->s, n);
	st->len = 0;
	stream_add_loose(st, was, n, level);
}

/* The side behind takes the lead's bytes too: a flush dropped them on the side ahead. */
static bool stream_even(struct stream *a, struct stream *b)
{
	struct stream *lo = a->len < b->len ? a : b, *hi = lo == a ? b : a;

	if (lo->len == hi->len)
		return false;
	stream_add(lo, hi->s + lo->len, hi->len - lo->len);
	return true;
}

enum { USED_STOP, USED_RACE, USED_FLOOD, USED_KINDS };

/* NTTY_WHY: say which step held_back() could not explain, and why */
#define WHY(j, what)                                                              \
	do {                                                                      \
		if (getenv("NTTY_WHY"))                                           \
			fprintf(stderr, "ntty_diff: step %d: %s\n", j, what);      \
		return NULL;                                                      \
	} while (0)

static void used(int at[USED_KINDS], int kind, int j)
{
	if (at[kind] < 0)
		at[kind] = j;
}

/*
 * n_tty's bytes of a step onto its stream (ns, after pilotd's, ps): true if
 * the two are then one stream with one side held back as held_back() lets
 * it be.  On false ns is as it was.
 */
static bool n_tty_sent(struct stream *ps, struct stream *ns, const char *hex, size_t n,
		       int loose, bool stopped, bool queue_behind,
		       int at[USED_KINDS], int j)
{
	size_t was = ns->len;

	stream_add_loose(ns, hex, n, loose);
	if (memcmp(ps->s, ns->s, ps->len < ns->len ? ps->len : ns->len) != 0)
		goto no;
	if (ps->len == ns->len)
		return true;
	/* pilotd behind by echoes its queue had no room for (queue_flood()) */
	if (queue_behind && ps->len < ns->len) {
		used(at, USED_FLOOD, j);
		return true;
	}
	/* either side behind while n_tty's output is stopped */
	if (stopped) {
		used(at, USED_STOP, j);
		return true;
	}
no:
	ns->len = was;
	return false;
}

/*
 * Bytes (hex) as OPOST cannot change them, byte by byte (so that a part
 * cut out stays whole): no CR, NL, NUL, DEL, backspace, tab or space, upper
 * case as the kernel's toupper() makes it.  raw: as they are.
 */
static void squeeze(struct stream *st, const char *hex, size_t n, bool raw)
{
	for (size_t k = 0; k + 1 < n; k += 2) {
		unsigned int b;
		char x[3];

		if (raw) {
			stream_add(st, hex + k, 2);
			continue;
		}
		if (sscanf(hex + k, "%2x", &b) != 1 || b == '\r' || b == '\n' || b == 0 ||
		    b == 0x7f || b == '\b' || b == '\t' || b == ' ')
			continue;
		snprintf(x, sizeof(x), "%02x", latin1_upper(latin1_upper((uint8_t)b)));
		stream_add(st, x, 2);
	}
}

/* Is a what b is with the n parts w put in, each whole, in their order? */
static bool with_parts(const char *a, size_t na, const char *b, size_t nb, const struct stream w[],
		       int n)
{
	if (n == 0)
		return na == nb && memcmp(a, b, na) == 0;
	for (size_t p = 0; p <= nb && p + w[0].len <= na; p += 2) {
		if (p && memcmp(a + p - 2, b + p - 2, 2) != 0)
			break;
		if (memcmp(a + p, w[0].s, w[0].len) == 0 &&
		    with_parts(a + p + w[0].len, na - p - w[0].len, b + p, nb - p, w + 1, n - 1))
			return true;
	}
	return false;
}

/*
 * The most bytes a write's first n bytes (at step j) can take in pilotd's
 * queue, as OPOST makes them (do_output_char(), core/ldisc.c
 * output_byte()): a NL under ONLCR 2, a tab under XTABS up to 8 spaces,
 * any other byte 1 (a CR under ONOCR at column 0 none).
 */
static size_t write_room_max(const struct nd_case *c, int j, size_t n)
{
	tcflag_t o = settings_at(c, j).c_oflag;
	size_t room = 0;

	for (size_t q = 0; q < n && q < c->ops[j - 1].len; q++) {
		uint8_t b = c->ops[j - 1].bytes[q];

		if ((o & OPOST) && b == '\n' && (o & ONLCR))
			room += 2;
		else if ((o & OPOST) && b == '\t' && (o & TABDLY) == XTABS)
			room += LDISC_OUT_MAX;
		else
			room++;
	}
	return room;
}

/*
 * The first n bytes of the write of step j as OPOST makes them from column
 * *col on (n_tty's do_output_char(), which pilotd's output_byte() follows),
 * in hex onto st; *col moves as they do.  Without OPOST the bytes as they
 * are.  A NL: CR NL under ONLCR (column 0), else the NL (column 0 under
 * ONLRET); a CR: nothing under ONOCR at column 0, a NL under OCRNL (column
 * 0 under ONLRET), else the CR (column 0); a tab: to the next multiple of
 * 8, as spaces under XTABS; a backspace: a column back but at 0; any other
 * byte that is not a control character (the kernel's iscntrl(): below 0x20
 * and 0x7f; lib/ctype.c gives 128..159 no class): upper case
 * under OLCUC (the kernel's toupper()), a column on but for a UTF-8
 * continuation byte under IUTF8.
 */
static void write_output(const struct nd_case *c, int j, size_t n, unsigned int *col,
			 struct stream *st)
{
	struct termios2 t = settings_at(c, j);
	tcflag_t o = t.c_oflag;

	for (size_t q = 0; q < n && q < c->ops[j - 1].len; q++) {
		uint8_t b = c->ops[j - 1].bytes[q], out[LDISC_OUT_MAX];
		size_t k = 1;

		out[0] = b;
		if (!(o & OPOST)) {
		} else if (b == '\n') {
			*col = (o & ONLRET) ? 0 : *col;
			if (o & ONLCR)
				out[0] = '\r', out[1] = '\n', k = 2, *col = 0;
		} else if (b == '\r') {
			if ((o & ONOCR) && *col == 0)
				k = 0;
			else if (o & OCRNL)
				out[0] = '\n', *col = (o & ONLRET) ? 0 : *col;
			else
				*col = 0;
		} else if (b == '\t') {
			unsigned int spaces = 8 - (*col & 7);

			*col += spaces;
			if ((o & TABDLY) == XTABS)
				memset(out, ' ', spaces), k = spaces;
		} else if (b == '\b') {
			*col -= *col > 0;
		} else if (!(b < 0x20 || b == 0x7f)) { /* lib/ctype.c: 128..159 no class */
			out[0] = (o & OLCUC) ? latin1_upper(b) : b;
			*col += !((t.c_iflag & IUTF8) && (b & 0xc0) == 0x80);
		}
		for (size_t x = 0; x < k; x++) {
			char h[3];

			snprintf(h, sizeof(h), "%02x", out[x]);
			stream_add(st, h, 2);
		}
	}
}

/*
 * The writes sent at one step (js[], count[] bytes of each, pilotd's
 * answers) went into pilotd's queue one after the other while output was
 * stopped (no echo between: the stop holds them in the echo ring): their
 * bytes as OPOST makes them (write_output()), from some column on, must be
 * in what the step sent (hex, len characters), whole and together.  The
 * column is pilotd's when it took the first; any from 0 to 8 past the
 * writes' length covers every tab stop, column 0 and every backspace.
 */
static bool writes_whole(const struct nd_case *c, const int js[], const long count[], int n,
			 const char *hex, size_t len)
{
	static char buf[2 * ND_OPS_MAX * ND_BYTES_MAX * LDISC_OUT_MAX + 1];
	size_t total = 0;

	if (n == 0)
		return true;
	for (int i = 0; i < n; i++)
		total += (size_t)count[i];
	for (unsigned int col0 = 0; col0 <= 8 + total; col0++) {
		struct stream st = { buf, 0 };
		unsigned int col = col0;

		for (int i = 0; i < n; i++)
			write_output(c, js[i], (size_t)count[i], &col, &st);
		for (size_t p = 0; p + st.len <= len; p += 2)
			if (memcmp(hex + p, st.s, st.len) == 0)
				return true;
	}
	return false;
}

/*
 * A range of flood steps (writes_sent()) that ends at step k, whose signal
 * character flushes pilotd's echo ring: the writes took room in pilotd's
 * queue that echoes took without them, so those echoes waited in the ring,
 * the oldest there, and the flush dropped them (ldisc.c: the ring is a
 * queue, and a write's bytes go ahead of every echo).  So pilotd's bytes
 * before step k (pa, pre_a of them, squeezed) must be its bytes without the
 * writes (the raw ones, rb) less their last cut bytes, with the writes put
 * in whole (w), for one cut of 1 to room bytes (room: what the writes can
 * take, write_room_max(), and a fill's slack, an echo's output that does
 * not fit the last bytes of the queue, LDISC_OUT_MAX - 1 a step), and step
 * k's own bytes the same on both runs (after the flush neither has an echo
 * waiting).
 */
static bool flush_cut(const struct stream *a, size_t pre_a, const struct stream *b, size_t pre_b,
		      const struct stream *rb, const struct stream w[], int n, size_t room, bool raw)
{
	static char cbuf[ND_TRACE_MAX];

	if (a->len - pre_a != b->len - pre_b ||
	    memcmp(a->s + pre_a, b->s + pre_b, a->len - pre_a) != 0)
		return false;
	for (size_t cut = 1; cut <= room && 2 * cut <= rb->len; cut++) {
		struct stream t = { cbuf, 0 };

		squeeze(&t, rb->s, rb->len - 2 * cut, raw);
		if (with_parts(a->s, pre_a, t.s, t.len, w, n))
			return true;
	}
	return false;
}

/*
 * A flood after the writes were sent, then a signal's flush (flush_cut()'s
 * step): the writes went out before the flood (n writes in it: none) and
 * took none of its room, but left pilotd's column where its run without
 * them has another.  Under OPOST n_tty's do_output_char() makes a tab
 * 8 - (column & 7) spaces, so the flood's first tab before a CR or NL
 * (column 0 on both) is up to 7 bytes shorter, and pilotd's full queue
 * holds as many more echoes, which isig()'s flush then does not drop
 * from its echo ring (fuzz_ntty: seed stop-write-tcoon-flood-ioflush-
 * writes, 1 byte).  So pilotd's bytes before the flush step (from step
 * from on) may be its run's without the writes and up to 7 more (squeezed,
 * each echo at least one byte), those the echoes n_tty (pty), whose pty
 * took the flood whole, sent next; the flush step's own the same.
 */
static bool column_ahead(const struct stream *a, size_t pre_a, const struct stream *b,
			 size_t pre_b, int n, bool raw, const struct nd_trace *pty,
			 const int sent_at[], int from, int k)
{
	static char nbuf[ND_TRACE_MAX];
	struct stream ns = { nbuf, 0 };
	bool moved = false;

	for (int j = 1; j < k; j++)
		moved |= sent_at[j] && sent_at[j] <= from;
	if (raw || n != 0 || !moved || pre_a <= pre_b || pre_a - pre_b > 2 * (LDISC_OUT_MAX - 1))
		return false;
	for (int j = from; j < k; j++) {
		size_t h, x;
		const char *hex;

		if (!step_parts(pty, j, &h, &hex, &x))
			return false;
		squeeze(&ns, hex, x, false);
	}
	return a->len - pre_a == b->len - pre_b &&
	       memcmp(a->s + pre_a, b->s + pre_b, a->len - pre_a) == 0 &&
	       memcmp(a->s, b->s, pre_b) == 0 && ns.len >= pre_a && memcmp(a->s, ns.s, pre_a) == 0;
}

/* Where in batch k (an ND_RX) nt_receive() first finds does; its length if nowhere. */
static size_t first_does(const struct nd_case *c, int k, enum nt_does does)
{
	const struct nd_op *op = &c->ops[k - 1];
	struct termios2 t = settings_at(c, k);
	bool lnext = false;
	size_t at;

	for (at = 0; at < op->len; at++) {
		enum nt_does d = nt_receive(&t, op->bytes[at], lnext);

		if (d == does)
			break;
		lnext = d == NT_LNEXT;
	}
	return at;
}

/*
 * The echoes pilotd's run without the writes (skipped) holds as step k's
 * signal character comes (the first byte nt_receive() finds a signal's
 * there), in hex onto held, squeezed: that run cut just before it, then
 * output started (probe_case()'s three steps: TCOON, IXON on and off,
 * whose n_tty_set_termios() runs process_echoes(), as probe_case()
 * appends them), what it then sends.
 * False where the case has no room for them.
 */
static bool held_at_signal(const struct nd_case *skipped, int k, bool raw, struct stream *held)
{
	static struct nd_case cut;
	static struct nd_trace tr;
	const struct nd_op *op = &skipped->ops[k - 1];
	struct termios2 t = settings_at(skipped, k);
	size_t at = first_does(skipped, k, NT_SIGNAL);

	if (op->kind != ND_RX || k + 3 > ND_OPS_MAX || at == op->len)
		return false;
	cut = *skipped;
	cut.nops = k;
	cut.ops[k - 1].len = at; /* an empty batch when the signal comes first */
	cut.ops[cut.nops++] = (struct nd_op){ .kind = ND_XONC, .arg = TCOON };
	cut.ops[cut.nops++] = (struct nd_op){
		.kind = ND_SETATTR, .iflag = t.c_iflag | IXON, .oflag = t.c_oflag, .lflag = t.c_lflag
	};
	cut.ops[cut.nops++] = (struct nd_op){ .kind = ND_SETATTR,
					      .iflag = t.c_iflag & ~(uint32_t)IXON,
					      .oflag = t.c_oflag,
					      .lflag = t.c_lflag };
	if (nd_run_port(&cut, &tr) < 0)
		return false;
	for (int j = k; j <= cut.nops; j++) {
		size_t h, x;
		const char *hex;

		if (!step_parts(&tr, j, &h, &hex, &x))
			return false;
		squeeze(held, hex, x, raw);
	}
	return true;
}

/*
 * flush_cut()'s range the other way round: the writes' room shifted
 * pilotd's commit_echoes() blocks (n_tty's, core/ldisc.c commit_echoes():
 * processed only where head - tail passes a multiple of 256), so a block
 * let go, before a STOP in the range, echoes that its run without the
 * writes (skipped) still held there and that step k's signal character
 * then flushed (isig() clears the echo buffer; fuzz_ntty: find
 * stop-write-tcoon-flood-writes-held, 540 bytes from pilotd at a VREPRINT
 * just before a STOP, none from its run without the write, whose ring
 * the SUSP of step 23 emptied).  So pilotd's bytes before step k must be
 * those of its run without the writes, then a first part of what that run
 * held at the signal (held_at_signal()), with the writes put in whole;
 * step k's own bytes the same on both runs.
 */
static bool flush_ahead(const struct stream *a, size_t pre_a, const struct stream *b,
			size_t pre_b, const struct stream w[], int n, bool raw,
			const struct nd_case *skipped, int k)
{
	static char hbuf[ND_TRACE_MAX], tbuf[ND_TRACE_MAX];
	struct stream held = { hbuf, 0 }, t = { tbuf, 0 };
	size_t writes = 0;

	for (int i = 0; i < n; i++)
		writes += w[i].len;
	if (a->len - pre_a != b->len - pre_b ||
	    memcmp(a->s + pre_a, b->s + pre_b, a->len - pre_a) != 0 ||
	    pre_a <= pre_b + writes || !held_at_signal(skipped, k, raw, &held) ||
	    pre_a - pre_b - writes > held.len)
		return false;
	stream_add(&t, b->s, pre_b);
	stream_add(&t, held.s, pre_a - pre_b - writes);
	return with_parts(a->s, pre_a, t.s, t.len, w, n);
}

/*
 * pilotd's own run (port), from the step that sends the writes n_tty
 * refused (they waited in its queue) to step e (excluded: a flush that
 * dropped some, from where writes_held() compares it with the run gone;
 * or the end), against its run without them (alt): what the desktop sees
 * the same but for the refused writes' own answers and, while output is
 * stopped, TIOCOUTQ and POLLOUT; in each step, the bytes to the handheld
 * alt's with the writes it sends put in, whole and in order (the first
 * count bytes of each, pilotd's answer), as OPOST cannot change them
 * where OPOST is on (squeeze()).  A step that floods (ECHO_FLOOD) fills
 * txq: the echoes that find no room there wait in pilotd's echo ring, the
 * more of them the more room the writes took, and go in the next step
 * that sends; so such a step is judged with the steps up to that one,
 * their bytes together, and one that ends the range unjudged.  Where that
 * step is a signal character's flush (nt_flow(), from the case), the
 * echoes the writes kept waiting are dropped with the echo ring (n_tty's
 * isig() clears its echo buffer, echo_head = echo_tail = 0, and pilotd's
 * ldisc does the same): flush_cut() judges it.  And each step's bytes must
 * hold the writes it sends as OPOST makes them, which the squeezed
 * comparison leaves out in part (writes_whole()).  sent_at[j]: the step
 * that sends the write of step j (0: none).
 */
static bool poll_in_same(const char *a, size_t ha, const char *b, size_t hb);

/*
 * Heads that may differ in a flood (timing_echo_flood, heads_same()): what
 * counts the room for output, a write's count, TIOCOUTQ, POLLOUT.  In
 * writes_sent() the writes took room that pilotd's run without them has
 * (fuzz_ntty: seed stop-writes-flood-start-write-room, a write after the
 * flood that pilotd refused and its run without them took; seed
 * stop-writes-flood-start-write-part, one of which pilotd took 1 byte of
 * 32): from there on the two runs' bytes part as the writes' do, and, as
 * in the flood's rule, they are not compared.
 */
static bool room_heads(enum nd_kind kind, const char *la, size_t ha, const char *lb, size_t hb)
{
	return kind == ND_WRITE || kind == ND_OUTQ ||
	       (kind == ND_POLL && poll_in_same(la, ha, lb, hb));
}

/*
 * A TCIOFF or TCION while a flood's echoes wait in pilotd's echo ring (the
 * writes took their room, writes_sent()): n_tty_ioctl_helper() sends the
 * STOP or START character with tty_send_xchar(), which a pty (no
 * send_xchar) writes to the driver at once, ahead of n_tty's echo buffer,
 * and runs no process_echoes(); pilotd sends it ahead of its echo ring
 * too.  So a step whose only byte is that character, the same on both
 * runs, neither sends nor ends what waits: the rest goes in a later step,
 * judged with the flood's (fuzz_ntty: seed stop-writes-flood-tcioff-held-
 * rest, where the rest went at the next byte received, step 18).
 */
static bool xchar_ahead(const struct nd_case *c, int k, const char *pa, size_t xa,
			const char *pb, size_t xb)
{
	const struct nd_op *op = &c->ops[k - 1];

	return op->kind == ND_XONC && (op->arg == TCIOFF || op->arg == TCION) && xa == 2 &&
	       xb == 2 && memcmp(pa, pb, 2) == 0;
}

static bool writes_sent(const struct nd_case *c, const struct nd_case *skipped,
			const struct nt_flow st[], const struct nd_trace *port,
			const struct nd_trace *alt, const struct nd_trace *pty, const int sent_at[],
			int s, int e)
{
	static char abuf[ND_TRACE_MAX], bbuf[ND_TRACE_MAX], wbuf[ND_TRACE_MAX], rbuf[ND_TRACE_MAX];
	struct stream w[ND_OPS_MAX];
	struct stream a = { abuf, 0 }, b = { bbuf, 0 }, rb = { rbuf, 0 };
	bool raw = true, carry = false, apart = false;
	size_t used_w = 0, room = 0;
	int n = 0, group = s;

	for (int j = 0; j <= c->nops && j < e; j++)
		raw &= !(settings_at(c, j + 1).c_oflag & OPOST);
	for (int k = s; k < e; k++) {
		size_t ha, hb, xa, xb;
		const char *pa, *pb, *la = step_parts(port, k, &ha, &pa, &xa),
				    *lb = step_parts(alt, k, &hb, &pb, &xb);

		size_t pre_a = a.len, pre_b = b.len;
		bool carried = carry;
		int js[ND_OPS_MAX], nk = 0;
		long count[ND_OPS_MAX];

		if (!carry)
			a.len = b.len = rb.len = used_w = room = 0, n = 0, pre_a = pre_b = 0, group = k;
		if (!la || !lb)
			return false;
		if (!skipped->ops[k - 1].skip && (ha != hb || memcmp(la, lb, ha) != 0) &&
		    !(st[k].stopped && (c->ops[k - 1].kind == ND_OUTQ || c->ops[k - 1].kind == ND_POLL))) {
			if (!(carried || port->flood[k] || alt->flood[k]) ||
			    !room_heads(c->ops[k - 1].kind, la, ha, lb, hb))
				return false;
			/* the room the writes took parted the runs: the flood's rule from here */
			apart = true;
		}
		for (int j = 1; j < k; j++) {
			size_t h, x;
			const char *hex, *l = step_parts(port, j, &h, &hex, &x);
			long v;
			char part[2 * ND_BYTES_MAX + 1];

			if (sent_at[j] != k)
				continue;
			if (!l || !head_count(l, h, "write ", &v) || v <= 0 ||
			    (size_t)v > c->ops[j - 1].len)
				return false;
			for (long q = 0; q < v; q++)
				snprintf(part + 2 * q, 3, "%02x", c->ops[j - 1].bytes[q]);
			w[n] = (struct stream){ wbuf + used_w, 0 };
			squeeze(&w[n], part, 2 * (size_t)v, raw);
			used_w += w[n++].len;
			room += write_room_max(c, j, (size_t)v);
			js[nk] = j, count[nk++] = v;
		}
		if (!writes_whole(c, js, count, nk, pa, xa))
			return false;
		if (apart)
			continue; /* bytes to the handheld not compared */
		if (carry && xchar_ahead(c, k, pa, xa, pb, xb))
			continue; /* the flood's carry goes on past it */
		squeeze(&a, pa, xa, raw);
		squeeze(&b, pb, xb, raw);
		/*
		 * a flood: the writes took room in txq that echoes take without
		 * them; carried while n_tty's output is stopped too, where the
		 * echoes they kept waiting shift pilotd's commit_echoes()
		 * blocks, which may let go before a STOP what its run without
		 * them holds to the START (seed stop-write-flood-start-commit-block)
		 */
		if (port->flood[k] || alt->flood[k] ||
		    (carry && ((xa == 0 && xb == 0) || st[k].stopped))) {
			stream_add(&rb, pb, xb);
			room += LDISC_OUT_MAX - 1;
			carry = true;
			continue;
		}
		carry = false;
		if (!with_parts(a.s, a.len, b.s, b.len, w, n) &&
		    !(carried && st[k].isig_flush &&
		      (flush_cut(&a, pre_a, &b, pre_b, &rb, w, n, room, raw) ||
		       flush_ahead(&a, pre_a, &b, pre_b, w, n, raw, skipped, k) ||
		       column_ahead(&a, pre_a, &b, pre_b, n, raw, pty, sent_at, group, k))))
			return false;
	}
	return true;
}

/*
 * pilotd took writes that n_tty refused while stopped (skipped marks them):
 * they wait in pilotd's queue (port's run; alt ran without them) until
 * output starts again, or a flush drops them.  Until then pilotd sends
 * what it sends without them; in a step that flushes them, the same but
 * for the column they moved (pilotd's, as they were queued).  From a flush
 * that dropped some on, pilotd must be what it is with a tcflush() of its
 * output just before that step (gone): the same column, and nothing of
 * them left (a flush that left them queued shows in TIOCOUTQ, or in what
 * output sends when it starts again).  A case has room for 3 such flushes.
 */
static bool writes_held(const struct nd_case *c, const struct nd_case *skipped,
			const struct nt_flow st[], const struct nd_trace *port,
			const struct nd_trace *alt, const struct nd_trace *pty)
{
	static char abuf[ND_TRACE_MAX], bbuf[ND_TRACE_MAX];
	static struct nd_case gone;
	static struct nd_trace gt;
	int from = 0, first_drop = 0, last = c->nops < ND_OPS_MAX ? c->nops : ND_OPS_MAX;
	int shift[ND_OPS_MAX + 1] = { 0 }; /* step j of c is step j + shift[j] of gone */
	int sent_at[ND_OPS_MAX + 1] = { 0 }, first_sent = 0;

	gone = *c;
	gone.nops = 0;
	for (int j = 1; j <= last; j++) {
		struct stream a = { abuf, 0 }, b = { bbuf, 0 };
		bool flush = st[j].isig_flush || st[j].out_flush, drop;
		size_t ha, hb, xa, xb;
		const char *pa, *pb;

		if (!step_parts(port, j, &ha, &pa, &xa) || !step_parts(alt, j, &hb, &pb, &xb))
			return false;
		if (skipped->ops[j - 1].skip && !from)
			from = j;
		drop = from && flush;
		/* sent where output runs, also at a START in a batch that ends stopped */
		if (from && !flush && (!st[j].stopped || st[j].ran)) {
			for (int k = from; k < j; k++)
				sent_at[k] = skipped->ops[k - 1].skip ? j : 0;
			first_sent = first_sent ? first_sent : j;
			from = 0; /* sent now, and their columns count from here on */
		}
		if (from) {
			stream_add_loose(&a, pa, xa, LOOSE_OFLAG);
			stream_add_loose(&b, pb, xb, LOOSE_OFLAG);
			if (a.len != b.len || memcmp(a.s, b.s, a.len) != 0 ||
			    (!flush && (xa != xb || memcmp(pa, pb, xa) != 0)))
				return false;
		}
		if (drop && gone.nops + (c->nops - j + 1) + 1 > ND_OPS_MAX) {
			last = j - 1; /* no room to follow this flush */
			break;
		}
		if (drop) {
			gone.ops[gone.nops++] = (struct nd_op){ .kind = ND_FLUSH, .arg = TCOFLUSH };
			first_drop = first_drop ? first_drop : j;
			from = 0;
		}
		shift[j] = gone.nops - (j - 1);
		gone.ops[gone.nops++] = c->ops[j - 1];
	}
	/* what pilotd does once it sent them: the same as without them, but for their bytes */
	if (first_sent && (!first_drop || first_sent < first_drop) &&
	    !writes_sent(c, skipped, st, port, alt, pty, sent_at, first_sent,
			 first_drop ? first_drop : last + 1))
		return false;
	if (!first_drop || first_drop > last)
		return true;
	for (int j = last + 1; j <= c->nops; j++)
		gone.ops[gone.nops++] = c->ops[j - 1];
	if (nd_run_port(&gone, &gt) < 0)
		return false;
	for (int j = first_drop; j <= last; j++) {
		struct stream a = { abuf, 0 }, b = { bbuf, 0 };
		size_t ha, hb, xa, xb;
		const char *pa, *pb, *la = step_parts(port, j, &ha, &pa, &xa),
				     *lb = step_parts(&gt, j + shift[j], &hb, &pb, &xb);

		if (!la || !lb)
			return false;
		stream_add_loose(&a, pa, xa, LOOSE_OFLAG);
		stream_add_loose(&b, pb, xb, LOOSE_OFLAG);
		if (a.len != b.len || memcmp(a.s, b.s, a.len) != 0 || ha != hb ||
		    memcmp(la, lb, ha) != 0)
			return false;
	}
	return true;
}

/*
 * The whole case under the two mechanisms that hold output back, with
 * n_tty's flow (nt_flow(), from the case) deciding where each may act:
 *
 * ntty:pty_stopped: while n_tty's output is stopped, n_tty refuses the
 * desktop's writes and keeps its echoes; pilotd queues both.  pilotd is
 * run again without the writes n_tty refused (pilotd's answer to them,
 * a count, is the listed difference); then each head must be the same but
 * for stopped_head(), and the bytes to the handheld the same stream, one
 * side at most behind the other while n_tty is stopped (n_tty sends at a
 * START in the batch, pilotd after it), never a byte different.  A TCOON
 * leaves neither behind: n_tty's __start_tty() runs no process_echoes(),
 * and pilotd keeps its held echoes over it too (core/port_ioctl.c; it
 * sent them there, and the model let n_tty lag behind it until its next
 * process_echoes(), until fuzz_ntty's finds tcooff-tcoon-lag-held-echoes-
 * discarded: n_tty's discard under a later TCOOFF dropped what pilotd had
 * sent ahead).  When one side is ahead as the case ends, the probe after
 * the last step starts n_tty's output and must agree (probe_released());
 * a flush that evens the two streams later does not excuse what pilotd
 * sent ahead.  From a step that floods (flood_after_stop()) on, the flood's
 * rule judges the rest.
 * A signal character's flush, and a tcflush() of the output
 * on the side ahead, drop the lead; a tcflush() of the output while n_tty
 * is stopped does not drop its echoes (pilotd's are in its queue, which
 * it empties), which n_tty sends first once it runs again.  Under TCOOFF a
 * pty drops a TCIOFF/TCION character (tty_send_xchar() cannot start it);
 * pilotd sends it.  pilotd's queue must be empty after every step that
 * leaves n_tty's output running; what it counts while stopped is checked by
 * probe_released().  Where echoes n_tty held went through other settings,
 * or a flush dropped echoes n_tty held before they moved its column, the
 * streams are compared loosely from there on (stream_add_loose()); where
 * n_tty held none (nt_flow()), pilotd queued none either, and nothing is
 * loosened.
 *
 * ntty:timing_isig_flush: in a step flush_races() finds, n_tty may have
 * sent echoes before the signal's flush: what it sent may begin with bytes
 * pilotd's flush dropped, and end with what pilotd sent.  With
 * race_columns, such a step's echoes may have moved n_tty's column (even
 * when the flush dropped them) where they passed n_tty's commit mark,
 * which pilotd does not have (flush_races()'s columns): loose as above from
 * there on.  Echoes a START or an IXANY restart sent move both columns
 * alike; only whether they reached the handheld is the race's.
 *
 * The name of the mechanism first needed; NULL if they do not explain
 * every step.
 */
static const char *held_back(const struct nd_case *c, const struct nd_trace *port,
			     const struct nd_trace *pty, bool race_columns);

/*
 * A pty counts nothing in TIOCOUTQ, so what pilotd counts while n_tty is
 * stopped is checked another way: the case up to step j (c, with the
 * writes n_tty refused not made), then output started on both sides
 * (TCOON, IXON on and off: n_tty's start_tty() and process_echoes()),
 * run on both.  pilotd must send what it counted, and the two runs must
 * agree as held_back() judges them, to the end with nothing held.  A case
 * has room for the three steps after any of its own (ND_OPS_MAX); not from
 * inside a probe.
 */
static bool probing;

/* The case up to step j, then output started (false: no room for it). */
static bool probe_case(const struct nd_case *c, int j, struct nd_case *probe)
{
	struct termios2 t = settings_at(c, j + 1);

	if (j - 1 + 3 > ND_OPS_MAX)
		return false;
	*probe = *c;
	probe->nops = j - 1;
	probe->ops[probe->nops++] = (struct nd_op){ .kind = ND_XONC, .arg = TCOON };
	probe->ops[probe->nops++] = (struct nd_op){ .kind = ND_SETATTR,
						    .iflag = t.c_iflag | IXON,
						    .oflag = t.c_oflag,
						    .lflag = t.c_lflag };
	probe->ops[probe->nops++] = (struct nd_op){ .kind = ND_SETATTR,
						    .iflag = t.c_iflag & ~(uint32_t)IXON,
						    .oflag = t.c_oflag,
						    .lflag = t.c_lflag };
	return true;
}

/* What reached the handheld in a probe's three steps (pp: a run of the probe after step j - 1). */
static bool probe_sent(const struct nd_trace *pp, int j, struct stream *st, int level)
{
	for (int k = j; k < j + 3; k++) {
		size_t h, x;
		const char *hex;

		if (!step_parts(pp, k, &h, &hex, &x))
			return false;
		stream_add_loose(st, hex, x, level);
	}
	return true;
}

/* What pilotd sends once output starts after step j of c, onto st. */
static bool released(const struct nd_case *c, int j, struct stream *st, int level)
{
	static struct nd_trace pp;
	static struct nd_case probe;

	return probe_case(c, j, &probe) && nd_run_port(&probe, &pp) >= 0 &&
	       probe_sent(&pp, j, st, level);
}

/*
 * pilotd took writes n_tty refused, and a flush dropped them: what pilotd
 * holds at step j must be what it holds without them (skipped) but for
 * the column they moved.  What each sends once output starts: the same,
 * loosely.
 */
static bool writes_dropped(const struct nd_case *c, const struct nd_case *skipped, int j)
{
	static char abuf[ND_TRACE_MAX], bbuf[ND_TRACE_MAX];
	struct stream a = { abuf, 0 }, b = { bbuf, 0 };

	if (j - 1 + 3 > ND_OPS_MAX)
		return true;
	if (!released(c, j, &a, LOOSE_COLUMNS) || !released(skipped, j, &b, LOOSE_COLUMNS))
		return false;
	return a.len == b.len && memcmp(a.s, b.s, a.len) == 0;
}

/* A probe's two runs agree as held_back() judges them. */
static bool probe_agrees(const struct nd_case *probe, const struct nd_trace *pp,
			 const struct nd_trace *pq)
{
	bool ok;

	probing = true;
	ok = (pp->len == pq->len && memcmp(pp->text, pq->text, pp->len) == 0) ||
	     held_back(probe, pp, pq, false) != NULL || held_back(probe, pp, pq, true) != NULL;
	probing = false;
	return ok;
}

/*
 * The probe after step j - 1 of c (with the writes n_tty refused not made)
 * on both sides: pilotd must send what it counted (queued; < 0: TIOCOUTQ
 * was not asked), and the two runs must agree.  Also where one side is
 * ahead of the other as the case ends (j: its steps + 1): what pilotd sent
 * ahead must be what n_tty sends once its process_echoes() runs, not only
 * bytes a later flush evens out.
 */
static int pty_run_least_kept(const struct nd_case *c, struct nd_trace *tr);

static bool probe_released(const struct nd_case *c, int j, long queued)
{
	static char buf[ND_TRACE_MAX], nbuf[ND_TRACE_MAX];
	static struct nd_trace pp, pq;
	static struct nd_case probe;
	struct stream sent = { buf, 0 }, echoes = { nbuf, 0 };

	if (!probe_case(c, j, &probe))
		return true;
	if (nd_run_port(&probe, &pp) < 0 || pty_run_least_kept(&probe, &pq) < 0 ||
	    !probe_sent(&pp, j, &sent, LOOSE_NOT) || !probe_sent(&pq, j, &echoes, LOOSE_NOT))
		return false;
	/*
	 * Its count and then its echo ring's bytes, which no TIOCOUTQ counts
	 * (n_tty's echo_buf is not the driver's buffer): n_tty on a pty holds
	 * nothing else while stopped, and sends them here too.
	 */
	if (queued >= 0 && sent.len / 2 != (size_t)queued + echoes.len / 2) {
		if (getenv("NTTY_WHY"))
			fprintf(stderr, "ntty_diff: outq %ld, released %zu, n_tty's echoes %zu\n",
				queued, sent.len / 2, echoes.len / 2);
		return false;
	}
	return probe_agrees(&probe, &pp, &pq);
}

/*
 * The writes n_tty refused while its modelled flow was stopped (pty_stopped:
 * pty_write_room() is 0, n_tty_write() answers EAGAIN) and pilotd took:
 * *skipped is c with them marked not made (pilotd's run without them is
 * compared with n_tty's).  True if there is one.
 */
static bool refused_writes(const struct nd_case *c, const struct nt_flow st[],
			   const struct nd_trace *port, const struct nd_trace *pty,
			   struct nd_case *skipped)
{
	bool any = false;

	*skipped = *c;
	for (int j = 1; j <= c->nops && j <= ND_OPS_MAX; j++) {
		size_t ha, hb, xa, xb;
		const char *pa, *pb, *la = step_parts(port, j, &ha, &pa, &xa),
				    *lb = step_parts(pty, j, &hb, &pb, &xb);
		long v;

		if (la && lb && c->ops[j - 1].kind == ND_WRITE && st[j].stopped_before &&
		    head_is(lb, hb, "write EAGAIN") && head_count(la, ha, "write ", &v) && v > 0)
			any = skipped->ops[j - 1].skip = true;
	}
	return any;
}

static bool heads_same(const struct nd_case *c, const struct nd_trace *port,
		       const struct nd_trace *pty, int i);

/* Steps after which n_tty has run no process_echoes() and added no echo. */
static bool leaves_echoes(enum nd_kind k)
{
	return k == ND_POLL || k == ND_OUTQ || k == ND_FIONREAD || k == ND_READ || k == ND_DRAIN;
}

/*
 * Does batch j pass n_tty's echo ring (flood_after_stop()) with the echoes
 * a stop held over a TCOON under its own?  While output is stopped
 * (pty_write_room() is 0) __process_echoes() sends nothing, and its discard
 * loop runs only while ECHO_DISCARD_WATERMARK (3808) entries or more wait
 * (Linux 6.1 and 7.3 n_tty.c): of the entries the batches held while
 * stopped throughout added (ring_entries(): VREPRINTs', a KILL's or a
 * WERASE's erases, at least), all stay, or 3805 at least (it discards whole
 * operations, up to 3 entries); a write n_tty refuses there only runs that
 * loop too, and a tcflush() leaves echo_buf alone.  A signal character's
 * flush (isig() empties the ring), or output running in a batch (a START,
 * an IXANY restart: process_echoes()), ends the count.  __start_tty() at
 * the TCOON processes none, nor do the steps after it that leave echoes
 * alone (leaves_echoes()).  Then batch j's VREPRINTs or erases, which go
 * in before one commit_echoes() each, bring 4096 entries or more: unless a
 * commit_echoes() block sent the held ones before (n_tty's own flood),
 * add_echo_byte() writes on round them, and flush_echoes() sends only the
 * newest, (echo_head - echo_tail) modulo 4096 entries, from the old tail's
 * place (fuzz_ntty: finds tcooff-tcoon-held-echoes-kill-wraps-ring-2 and
 * tcooff-tcoon-vreprint-flood-kill-echoes, VREPRINT floods under TCOOFF,
 * the TCOON, then a KILL of a long line: n_tty sent 178 and 242 bytes of
 * erases beginning inside a "\b \b", pilotd the held echoes and the erases).
 */
static bool held_overflows(const struct nd_case *c, const struct nt_flow st[], int j)
{
	const size_t kept_least = ECHO_RING - (256 + 32) - 3;
	size_t held = 0;
	int k = j - 1;

	while (k >= 1 && !st[k].stopped_before && leaves_echoes(c->ops[k - 1].kind))
		k--;
	if (k < 1 || c->ops[k - 1].kind != ND_XONC || c->ops[k - 1].arg != TCOON ||
	    !st[k].tco_before || st[k].stopped)
		return false;
	for (k--; k >= 1 && st[k].stopped && !st[k].ran && !st[k].isig_flush; k--)
		if (st[k].stopped_before && c->ops[k - 1].kind == ND_RX)
			held += ring_entries(c, k);
	return (held < kept_least ? held : kept_least) + ring_entries(c, j) >= ECHO_RING;
}

/*
 * A step j where held_back()'s streams part, as an echo flood makes them
 * part (timing_echo_flood, flood_explains()): n_tty's echo ring overflows
 * in its batch (ring_overflows(), from the case) or n_tty sent 3072 bytes
 * or more, and so did pilotd, with both streams level as it began and
 * n_tty's output running through it (no stop shapes it: held echoes went
 * at the same process_echoes() on both sides).  From there on the flood's
 * rule: what the desktop sees the same but for what counts the room for
 * output (heads_same()), the bytes to the handheld not compared.  (A
 * KILL's erases on top of echoes held over a TCOON pass n_tty's 4096
 * entries before commit_echoes(); add_echo_byte() writes on round them:
 * seed tcooff-tcoon-held-echoes-kill-wraps-ring.)
 */
static bool flood_after_stop(const struct nd_case *c, const struct nt_flow st[],
			     const struct nd_trace *pd, const struct nd_trace *pty, int j,
			     bool even)
{
	return even && !st[j].stopped_before && !st[j].stopped && j < ND_OPS_MAX + 2 &&
	       (pty->flood[j] || ring_overflows(c, j) || ring_lost(c, pty, j) ||
	        held_overflows(c, st, j)) &&
	       pd->flood[j] && heads_same(c, pd, pty, j);
}

/*
 * A START ends a stop under which n_tty's echo ring wrapped (batch j).
 * While output is stopped (pty_write_room() is 0) commit_echoes() runs
 * __process_echoes() only where head - tail passes a multiple of 256
 * (nr % ECHO_BLOCK > old % ECHO_BLOCK returns), which sends nothing and
 * discards down to 3807 entries at most (ECHO_DISCARD_WATERMARK);
 * add_echo_byte() has no room check, so VREPRINTs that add more than the
 * rest between two such blocks write on round the oldest.  The START's
 * process_echoes() then walks from echo_tail's place to echo_commit's,
 * modulo 4096: it sends the newest (head - tail) modulo 4096 entries,
 * and its discard loop leaves echo_tail 3805 to 3807 entries behind,
 * so the next processing sends those again, the newest, before the
 * echoes that come after (Linux 7.3 n_tty.c: add_echo_byte(),
 * commit_echoes(), __process_echoes(), n_tty_receive_char_flow_ctrl()).
 * pilotd's ring never wraps (core/ldisc.c echo_room_for() drops its
 * oldest first): at the START it sends all it held, the newest.  So,
 * where the batches stopped throughout since the stop and batch j before
 * its START add 4096 entries or more (ring_entries(), at least): n_tty's
 * bytes of step j a part of the end of pilotd's, fewer; then, with no
 * byte between on either side, in the next step that sends n_tty's are a
 * part of the end of pilotd's step j bytes, no shorter than its own of
 * step j, and then pilotd's bytes of that step (fuzz_ntty: find
 * stop-discard-vreprint-flood-start-bytes: at the START n_tty sent 1295
 * bytes, pilotd 3809; in the next step n_tty 3806 of those again and the
 * 196 pilotd sent).  A batch that stops again after its START holds them
 * on: where no later step sends, the case's end probe must show them
 * (find stop-vreprint-flood-start-wraps-then-stop: 740 bytes at the START,
 * pilotd 3810).  From there the flood's rule judges the rest, as
 * flood_after_stop()'s.
 */
/*
 * n_tty's bytes (nb, n hex characters) are the entries its discard loop
 * left behind, again, then pilotd's (a, na): a part of the end of what
 * pilotd sent at the START (pa, xa), no shorter than n_tty's own there (xb).
 */
static bool sent_again(const char *pa, size_t xa, size_t xb, const char *a, size_t na,
		       const char *nb, size_t n)
{
	return n >= na + xb && n - na <= xa && memcmp(nb + n - na, a, na) == 0 &&
	       memcmp(nb, pa + xa - (n - na), n - na) == 0;
}

/*
 * Where no step after j sends and the case ends stopped: what the end
 * probe (probe_case(): TCOON, IXON on and off) releases on both sides,
 * n_tty's the entries sent again and then pilotd's.
 */
static bool sent_again_at_end(const struct nd_case *c, const char *pa, size_t xa, size_t xb)
{
	static char abuf[ND_TRACE_MAX], bbuf[ND_TRACE_MAX];
	static struct nd_trace pp, pq;
	static struct nd_case probe;
	struct stream a = { abuf, 0 }, b = { bbuf, 0 };
	int j = c->nops + 1;

	if (probing || !probe_case(c, j, &probe) || nd_run_port(&probe, &pp) < 0 ||
	    pty_run_least_kept(&probe, &pq) < 0 || !probe_sent(&pp, j, &a, LOOSE_NOT) ||
	    !probe_sent(&pq, j, &b, LOOSE_NOT))
		return false;
	return sent_again(pa, xa, xb, a.s, a.len, b.s, b.len);
}

/*
 * n_tty's bytes at such a START (pb, xb hex characters) a last part of
 * pilotd's (pa, xa) but for their first: where the old tail fell between
 * the two entries of a control character's echo under ECHOCTL
 * (echo_char(): ECHO_OP_START, then the character), __process_echoes()
 * takes the character alone as a plain byte and sends it raw, where
 * pilotd, whose ring was not written on round, sends "^" and the
 * character ^ 0x40 (fuzz_ntty: find stop-vreprints-start-wraps-split-
 * control, a raw 0x1d where pilotd sent "^]", then the rest alike).
 */
static bool split_control(const char *pa, size_t xa, const char *pb, size_t xb)
{
	unsigned int b;
	char caret[5];

	if (xb < 4 || xa < xb + 2 || sscanf(pb, "%2x", &b) != 1 || !(b < 0x20 || b == 0x7f))
		return false;
	snprintf(caret, sizeof(caret), "5e%02x", b ^ 0x40);
	return memcmp(pa + xa - (xb - 2), pb + 2, xb - 2) == 0 &&
	       memcmp(pa + xa - (xb - 2) - 4, caret, 4) == 0;
}

static bool held_wraps_at_start(const struct nd_case *c, const struct nt_flow st[],
				const struct nd_trace *pd, const struct nd_trace *pty, int j)
{
	static struct nd_case cut;
	const struct nd_op *op = &c->ops[j - 1];
	size_t held = 0, at, ha, hb, xa, xb, xa2, xb2;
	const char *pa, *pb, *pa2, *pb2;
	int k;

	if (op->kind != ND_RX || !st[j].stopped_before || st[j].tco_before ||
	    (st[j].stopped && !st[j].ran) || st[j].isig_flush ||
	    !step_parts(pd, j, &ha, &pa, &xa) || !step_parts(pty, j, &hb, &pb, &xb) || xb == 0 ||
	    xb >= xa || !(memcmp(pa + xa - xb, pb, xb) == 0 || split_control(pa, xa, pb, xb)))
		return false;
	at = first_does(c, j, NT_START);
	if (at == op->len)
		return false;
	cut = *c;
	cut.ops[j - 1].len = at;
	held = ring_entries(&cut, j);
	for (k = j - 1; k >= 1 && st[k].stopped_before && st[k].stopped && !st[k].ran; k--)
		held += c->ops[k - 1].kind == ND_RX ? ring_entries(c, k) : 0;
	if (held < ECHO_RING)
		return false;
	for (k = j + 1; k <= c->nops; k++) {
		if (!step_parts(pd, k, &ha, &pa2, &xa2) || !step_parts(pty, k, &hb, &pb2, &xb2))
			return false;
		if (xchar_ahead(c, k, pa2, xa2, pb2, xb2))
			continue; /* a TCIOFF's or TCION's character alone, ahead of echoes */
		if (xa2 || xb2)
			return sent_again(pa, xa, xb, pa2, xa2, pb2, xb2);
	}
	/* nothing sent after it: held by a STOP to the end (the batch's own, or a later one) */
	return c->nops <= ND_OPS_MAX && st[c->nops].stopped && sent_again_at_end(c, pa, xa, xb);
}

/*
 * What pilotd sends in step j (*hex, *x hex characters) when case c ends
 * with batch j cut to its first len bytes.
 */
static bool sent_cut(const struct nd_case *c, int j, size_t len, const char **hex, size_t *x)
{
	static struct nd_case cut;
	static struct nd_trace tr;
	size_t h;

	cut = *c;
	cut.nops = j;
	cut.ops[j - 1].len = len;
	return nd_run_port(&cut, &tr) >= 0 && step_parts(&tr, j, &h, hex, x);
}

/*
 * flush_races()'s columns at a START: pilotd's flush_echo() there, as
 * n_tty's process_echoes(), moves the column through what it processes,
 * but processes only what its queue has room for (ldisc.c process_to();
 * the rest waits unprocessed in its echo ring), while the pty takes up to
 * 64 KiB.  Where the held echoes fill pilotd's queue (its run of case c
 * cut just before the batch's first signal character sends within
 * LDISC_OUT_MAX of its size in step j, the START before that character),
 * the signal's isig() then empties pilotd's ring before those echoes moved
 * its column, while n_tty's moved through all of them before its flush
 * dropped their bytes (fuzz_ntty: find stop-writes-vreprints-start-intr-
 * tab-column, 19 VREPRINTs held by a STOP, then a START and an INTR in
 * one batch: the INTR's echo and a tab after it, 8 spaces from n_tty, 6
 * from pilotd).
 */
static bool start_fills_queue(const struct nd_case *c, int j)
{
	const struct nd_op *op = &c->ops[j - 1];
	size_t at = first_does(c, j, NT_SIGNAL), x;
	const char *hex;

	if (op->kind != ND_RX || at == op->len || first_does(c, j, NT_START) > at ||
	    !sent_cut(c, j, at, &hex, &x))
		return false;
	return x / 2 + LDISC_OUT_MAX > nd_txq_size;
}

/*
 * The same on n_tty's side, where pilotd's queue is the larger (nd_txq_size
 * above PTY_ROOM): the START's held echoes outgrew the pty's room, n_tty's
 * __process_echoes() stopped where an echo's output found no room, the
 * rest waited in its echo ring, and the signal's isig() emptied it before
 * those echoes moved n_tty's column, while pilotd's moved through all of
 * them (fuzz_ntty: seed stop-writes-vreprints-start-intr-tab-column on the
 * shipped queue: n_tty sent 8192 bytes at the START cut before the INTR,
 * pilotd 8855; the tab after the INTR 8 spaces wide from n_tty, 1 from
 * pilotd).  Decided from n_tty's side: the case cut just before the
 * batch's first signal character, run on the pty, sends at least
 * PTY_ROOM less an echo's output at the START.
 */
static bool start_fills_pty(const struct nd_case *c, int j)
{
	static struct nd_case cut;
	static struct nd_trace tr;
	const struct nd_op *op = &c->ops[j - 1];
	size_t at = first_does(c, j, NT_SIGNAL), h, x;
	const char *hex;

	if (op->kind != ND_RX || at == op->len || first_does(c, j, NT_START) > at ||
	    nd_txq_size <= PTY_ROOM)
		return false;
	cut = *c;
	cut.nops = j;
	cut.ops[j - 1].len = at;
	return nd_run_pty(&cut, &tr) >= 0 && step_parts(&tr, j, &h, &hex, &x) &&
	       x / 2 + LDISC_OUT_MAX > PTY_ROOM;
}

/*
 * The race's split where the columns may differ (loose, from
 * start_fills_queue() or race_moved): what n_tty sent after its flush is
 * pilotd's bytes as the column cannot change them, n_tty's escaped echoes
 * before it (the seed of start_fills_queue(), on the runs where the
 * master's worker took the START's echoes before the INTR's flush).  The
 * offset in pb (hex) where the shortest such tail begins; 0 if none, or
 * where the bytes are compared exactly.
 */
static size_t race_tail_loose(const char *pa, size_t xa, const char *pb, size_t xb, int loose)
{
	static char abuf[ND_TRACE_MAX], bbuf[ND_TRACE_MAX];
	struct stream a = { abuf, 0 };

	if (loose == LOOSE_NOT || xa == 0)
		return 0;
	stream_add_loose(&a, pa, xa, loose);
	for (size_t k = xb >= 2 ? xb - 2 : 0; k >= 2; k -= 2) {
		struct stream b = { bbuf, 0 };

		stream_add_loose(&b, pb + k, xb - k, loose);
		if (b.len == a.len && memcmp(a.s, b.s, a.len) == 0)
			return k;
		if (b.len > a.len + 2)
			break; /* longer, as the column cannot make it shorter */
	}
	return 0;
}

/*
 * The case c up to batch j, cut just before its first signal character
 * that flushes (ISIG without NOFLSH) after a START (IXON; ISTRIP applied),
 * as flush_races() finds it: false if there is none.
 */
static bool cut_at_signal_after_start(const struct nd_case *c, int j, struct nd_case *cut)
{
	const struct nd_op *op = j >= 1 ? &c->ops[j - 1] : NULL;
	struct termios2 t = settings_at(c, j);
	bool started = false;
	size_t k;

	if (!op || op->kind != ND_RX || !(t.c_lflag & ISIG) || (t.c_lflag & NOFLSH))
		return false;
	for (k = 0; k < op->len; k++) {
		uint8_t b = (t.c_iflag & ISTRIP) ? op->bytes[k] & 0x7f : op->bytes[k];

		if (started && b &&
		    (b == t.c_cc[VINTR] || b == t.c_cc[VQUIT] || b == t.c_cc[VSUSP]))
			break;
		started |= (t.c_iflag & IXON) && b && b == t.c_cc[VSTART];
	}
	if (k == op->len)
		return false;
	*cut = *c;
	cut->nops = j;
	cut->ops[j - 1].len = k;
	return true;
}

/*
 * timing_isig_flush's race in a batch that ends stopped: a START let
 * n_tty's held echoes go (start_tty(), process_echoes(): written to the
 * pty), a signal character's flush then raced with the master's worker
 * (isig(): tty_driver_flush_buffer()), and a STOP after it holds the
 * signal's echo on both sides, so pilotd, which drops what its flush
 * finds, sends nothing in the step (fuzz_ntty: seed
 * stop-start-susp-stop-escaped-echoes).  What escaped must be what n_tty
 * wrote before the flush, in order: a part from the start of what pilotd
 * sends when the batch ends just before that signal character (run of
 * case c, the writes n_tty refused not made; the START's echoes, then
 * those of the bytes up to the signal, of which n_tty may have written
 * some at commit_echoes()'s blocks).  Only the first signal character
 * after a START (IXON; ISTRIP applied), as flush_races() finds it.
 */
static bool escaped_at_start(const struct nd_case *c, int j, const char *hex, size_t len)
{
	static struct nd_case cut;
	static struct nd_trace tr;
	size_t h, x;
	const char *px;

	if (len == 0 || !cut_at_signal_after_start(c, j, &cut) || nd_run_port(&cut, &tr) < 0 ||
	    !step_parts(&tr, j, &h, &px, &x))
		return false;
	return len <= x && memcmp(hex, px, len) == 0;
}

/*
 * timing_echo_flood's room, from pilotd's side: pilotd, behind by the rest
 * of a flood that waits in its echo ring, stays behind while it sends
 * nothing or fills its queue again in each step after (the ring's rest goes
 * first, up to the queue's room, so a full queue may leave some of it);
 * a step in which it sent less than a full queue emptied the ring.
 */
static bool queue_still_behind(bool behind, size_t xa)
{
	return behind && (xa == 0 || xa / 2 + LDISC_OUT_MAX > nd_txq_size);
}

/*
 * A tcflush() of the output where pilotd is behind by the rest of a flood
 * that waits in its echo ring (behind: n_tty sent more than pilotd's queue
 * holds; full: pilotd filled its queue): the flush drops none of it.
 * __tty_perform_flush(TCOFLUSH) runs tty_driver_flush_buffer() alone and
 * leaves n_tty's echo_buf as it is; pilotd's port_flush_output() empties
 * its queue, not its ldisc's echo ring.  So the rest goes later, where
 * pilotd next processes its echoes, and the streams are not made even
 * there (fuzz_ntty: find tcoon-flood-rest-over-tcioflush: 35 bytes of a
 * flood's rest over a TCIOFLUSH, sent at the next batch's commit_echoes()
 * block, before its INTR).  Nor is pilotd's queue's room all that waited
 * at a START in a batch that then stops again: the rest waits in its ring
 * for the next processing (find stop-start-flood-queue-full-then-stop:
 * n_tty sent 5093 bytes at the START, pilotd 4096, then a STOP).
 */
static bool ring_keeps_rest(bool behind, bool full)
{
	return behind && full;
}

/*
 * The rest of a flood that waits in pilotd's echo ring (behind: pilotd
 * filled its queue, n_tty sent more, its pty had room) goes out through the
 * c_oflag (and IUTF8's columns) of when pilotd sends it, after a tcsetattr()
 * in step j; n_tty sent it through the old ones.  n_tty on a driver with
 * pilotd's room would do as pilotd: __process_echoes() renders each echo by
 * do_output_char() with the termios of the time it sends (n_tty.c).
 */
static int flood_rest_level(const struct nd_case *c, int j, bool behind, const struct stream *ps,
			    const struct stream *ns)
{
	const struct nd_op *op = j ? &c->ops[j - 1] : NULL;

	if (!op || op->kind != ND_SETATTR || !behind || ps->len >= ns->len)
		return LOOSE_NOT;
	if (op->oflag != settings_at(c, j).c_oflag)
		return LOOSE_OFLAG;
	return (op->iflag ^ settings_at(c, j).c_iflag) & IUTF8 ? LOOSE_COLUMNS : LOOSE_NOT;
}

/*
 * As a step begins, pilotd is behind n_tty by nothing but the rest of a
 * flood that waits in its echo ring (queue_behind, from n_tty's side: it
 * sent more than pilotd's queue holds; queue_full: pilotd filled it; the
 * streams one, n_tty_sent() saw to it).  No stop made that lag, so a batch
 * that then passes n_tty's echo ring is the flood's as from level streams
 * (flood_after_stop()): its add_echo_byte() writes on round what waits and
 * flush_echoes() sends the newest, pilotd's ring keeps its oldest rest and
 * drops (fuzz_ntty: seed tcooff-tcoon-flood-rest-ring-wraps, 4133 bytes
 * from n_tty after a TCOON, 4095 from pilotd, then VREPRINTs past the
 * ring: n_tty 504 bytes, pilotd 4089).
 */
static bool flood_rest_behind(bool queue_behind, bool queue_full, const struct stream *ps,
			      const struct stream *ns)
{
	return queue_behind && queue_full && ps->len < ns->len;
}

/*
 * timing_echo_flood's room in a write's step j: n_tty_write() runs
 * process_echoes() first, whose __process_echoes() sends what waits up to
 * tty_write_room() and renders it there (do_output_char()), then writes as
 * much of the buffer as the room left takes and answers that count
 * (non-blocking; drivers/tty/n_tty.c n_tty_write()).  pilotd does the same
 * with its queue's room (4096 bytes in the harness), a pty's master takes
 * up to 64 KiB: where the echoes fill pilotd's queue (echoes held over a
 * TCOON, which a write's process_echoes() sends: fuzz_ntty's find
 * tcooff-tcoon-write-sends-held-queue-full, 4086 bytes, then 9 of the
 * write's 27) the write takes less than n_tty's.  Decided from n_tty's
 * side: its output ran (it took the whole write), and it sent more in the
 * step than pilotd's queue holds.  Then pilotd's bytes must be n_tty's up
 * to where its queue filled (the same echoes, the same column; within an
 * output of a byte of full) and end with its count of the write, and
 * n_tty's rest must be the rest of the write, both as OPOST makes them
 * from one column (write_output()); or, where the echoes alone outgrew
 * pilotd's queue and it refused the write (EAGAIN), n_tty's rest the rest
 * of the echoes (*rest characters of hex: they wait in pilotd's echo ring,
 * queue_behind, and go at its next process_echoes(); fuzz_ntty: seed
 * tcooff-tcoon-write-refused-held-rest, 29 bytes, sent with the next
 * write) and then the whole write; also where pilotd's queue had room for
 * a byte of the write but not for the next echo (seed tcooff-tcoon-write-
 * part-held-rest: 1 byte, then 24 of echoes with the next write), its part
 * of the write going before that rest (each rendered from its own column).
 * *echoes: the hex characters of the echoes both sent first; *rest: those
 * of the rest; *tail: those of n_tty's write that pilotd never sends.  The desktop's write leaves
 * pilotd's column elsewhere from then on (held_back() compares without
 * what it decides, column_level()).
 */
static bool write_room_taken(const struct nd_case *c, const struct nt_flow st[], int j,
			     const char *la, size_t ha, const char *pa, size_t xa, const char *lb,
			     size_t hb, const char *pb, size_t xb, size_t *tail, size_t *echoes,
			     size_t *rest)
{
	static char pbuf[2 * ND_BYTES_MAX * LDISC_OUT_MAX + 1], wbuf[sizeof(pbuf)];
	const struct nd_op *op = j ? &c->ops[j - 1] : NULL;
	size_t e = SIZE_MAX;
	long v = 0, vb;

	if (!op || op->kind != ND_WRITE || op->skip || st[j].stopped_before ||
	    !head_count(lb, hb, "write ", &vb) || vb != (long)op->len ||
	    (!head_is(la, ha, "write EAGAIN") && !head_count(la, ha, "write ", &v)) || v < 0 ||
	    xb / 2 <= nd_txq_size ||
	    xa / 2 + LDISC_OUT_MAX <= nd_txq_size || xa > xb)
		return false;
	/* pilotd's: its echoes (n_tty's first ones), then its count of the write */
	for (unsigned int col0 = 0; col0 <= 8 + op->len && e == SIZE_MAX; col0++) {
		struct stream part = { pbuf, 0 };
		unsigned int col = col0;

		write_output(c, j, (size_t)v, &col, &part);
		if (part.len <= xa && memcmp(pa + xa - part.len, part.s, part.len) == 0)
			e = xa - part.len;
	}
	if (e == SIZE_MAX || memcmp(pa, pb, e) != 0)
		return false;
	/* n_tty's: the same echoes, the rest of them, the whole write */
	for (unsigned int col0 = 0; col0 <= 8 + op->len; col0++) {
		struct stream part = { pbuf, 0 }, whole = { wbuf, 0 };
		unsigned int col = col0;

		write_output(c, j, (size_t)v, &col, &part);
		col = col0;
		write_output(c, j, op->len, &col, &whole);
		if (whole.len <= xb - e && whole.len > part.len &&
		    memcmp(pb + xb - whole.len, whole.s, whole.len) == 0) {
			*tail = whole.len - part.len;
			*echoes = e;
			*rest = xb - whole.len - e;
			return true;
		}
	}
	return false;
}

/*
 * timing_echo_flood's room where the flood never shows: in batch j a START
 * lets echoes go (n_tty_receive_char_flow_ctrl(): start_tty(), then
 * process_echoes()), more than pilotd's queue holds, and a signal
 * character after it flushes them on both sides (isig(): echo_head =
 * echo_tail = 0, tty_driver_flush_buffer(); pilotd's signal_char() drops
 * its queue and echo ring), so neither sends them.  But __process_echoes()
 * moved n_tty's column (do_output_char()) over all it wrote to the pty
 * (up to 64 KiB of room), pilotd's only over what its queue took: the rest
 * waited in its echo ring, and the flush dropped it unrendered, as n_tty's
 * own drops what found no room (fuzz_ntty's find
 * stop-writes-flood-step-bytes: 6933 bytes from n_tty at the START, 4092
 * from pilotd; a tab after the INTR's echo 5 spaces wide on n_tty's side,
 * 6 on pilotd's).  Decided from n_tty's side: the case (pc, as pilotd's
 * trace ran it) cut just before the first such signal character after a
 * START (IXON; ISTRIP applied), run on the pty, sends more in step j than
 * pilotd's queue holds; and pilotd, run on it, filled its queue (within an
 * output of a byte of full) with what n_tty sent first.  From step j on
 * held_back() then compares without what the column decides.
 */
static bool start_flood_flushed(const struct nd_case *pc, const struct nt_flow st[], int j)
{
	static struct nd_case cut;
	static struct nd_trace pt, nt;
	size_t hp, hn, xp, xn;
	const char *pp, *pn;

	if (!st[j].isig_flush || !cut_at_signal_after_start(pc, j, &cut) ||
	    nd_run_pty(&cut, &nt) < 0 || nd_run_port(&cut, &pt) < 0 ||
	    !step_parts(&nt, j, &hn, &pn, &xn) || !step_parts(&pt, j, &hp, &pp, &xp))
		return false;
	return xn / 2 > nd_txq_size &&
	       xp / 2 + LDISC_OUT_MAX > nd_txq_size && xp <= xn &&
	       memcmp(pp, pn, xp) == 0;
}

static const char *held_back(const struct nd_case *c, const struct nd_trace *port,
			     const struct nd_trace *pty, bool race_columns)
{
	static char pbuf[ND_TRACE_MAX], nbuf[ND_TRACE_MAX];
	static struct nd_trace alt;
	static struct nd_case skipped, base;
	struct stream ps = { pbuf, 0 }, ns = { nbuf, 0 };
	long queued[ND_OPS_MAX + 1];
	struct nt_flow st[ND_OPS_MAX + 1];
	const struct nd_trace *pd = port;
	int at[USED_KINDS] = { -1, -1, -1 }, n = c->nops < ND_OPS_MAX ? c->nops : ND_OPS_MAX;
	bool even, dropped, apart, race_moved, queue_behind = false, rest_behind;
	bool queue_full = false, flood_dropped;
	int loose = LOOSE_NOT, level, flood_at = n + 1;
	size_t from;
	size_t cut, rest, echoes;
	static char nb[ND_TRACE_MAX];

	nt_flow(c, st);
	nt_committed(c, st, pty);
	if (refused_writes(c, st, port, pty, &skipped))
		pd = &alt;
	if (pd == &alt && (nd_run_port(&skipped, &alt) < 0 || !writes_held(c, &skipped, st, port, pd, pty)))
		WHY(0, "writes");
	for (int j = 0; j <= n; j++) {
		const struct nd_op *op = j ? &c->ops[j - 1] : NULL;
		size_t ha, hb, xa, xb;
		const char *pa, *pb, *la = step_parts(pd, j, &ha, &pa, &xa),
				    *lb = step_parts(pty, j, &hb, &pb, &xb);

		if (!la || !lb)
			return NULL;
		/* pilotd's output must run where n_tty's does: nothing may wait then */
		if (!st[j].stopped && (port->queued[j] || pd->queued[j]))
			WHY(j, "queued");
		/* a write's count that echoes filling pilotd's queue cut (timing_echo_flood) */
		if (!write_room_taken(c, st, j, la, ha, pa, xa, lb, hb, pb, xb, &cut, &echoes,
				      &rest))
			cut = 0;
		if (!cut && (ha != hb || memcmp(la, lb, ha) != 0)) {
			if (!st[j].stopped_before || !stopped_head(la, ha, lb, hb))
				WHY(j, "head");
			used(at, USED_STOP, j);
		}
		/* TCIOFF's and TCION's character goes ahead of any output held back */
		if (op && op->kind == ND_XONC && (op->arg == TCIOFF || op->arg == TCION) &&
		    c->t.c_cc[op->arg == TCIOFF ? VSTOP : VSTART]) {
			char x[3];

			snprintf(x, sizeof(x), "%02x", c->t.c_cc[op->arg == TCIOFF ? VSTOP : VSTART]);
			if (xa != 2 || memcmp(pa, x, 2) != 0 ||
			    (xb == 0 ? !st[j].tco_before : xb != 2 || memcmp(pb, x, 2) != 0))
				WHY(j, "xchar");
			if (xb == 0)
				used(at, USED_STOP, j);
			xa = xb = 0;
		}
		/*
		 * pilotd's output stops where n_tty's does (in_ixon, tcflow_ooff), and
		 * it sends what a step made after the step: nothing in a step that
		 * ends with n_tty's modelled output stopped (but for the character of
		 * a TCIOFF or TCION, above)
		 */
		if (op && st[j].stopped && xa > 0 && !st[j].ran)
			WHY(j, "pilotd sent while stopped");
		/* a signal's flush of echoes one side held: as held_flush below */
		dropped = st[j].isig_flush && ps.len > ns.len;
		/*
		 * ... or of the rest of a flood that waited in pilotd's echo ring
		 * for room in its full queue (queue_behind, from n_tty's side;
		 * queue_full: pilotd filled it): isig() empties the ring, so those
		 * echoes never moved pilotd's column; n_tty, whose pty had room,
		 * sent them and moved its own (timing_echo_flood)
		 */
		flood_dropped = st[j].isig_flush && queue_behind && queue_full && ns.len > ps.len;
		if (st[j].isig_flush ||
		    (st[j].out_flush && ns.len > ps.len && !ring_keeps_rest(queue_behind, queue_full))) {
			if (stream_even(&ps, &ns))
				used(at, flood_dropped ? USED_FLOOD : USED_STOP, j);
		}
		/*
		 * A tcflush() of the output under a stop drops no echo n_tty keeps:
		 * __tty_perform_flush(TCOFLUSH) runs tty_driver_flush_buffer() only,
		 * which leaves n_tty's echo_buf alone, and the echoes the stop held
		 * wait in pilotd's echo ring too (ld_echo_room() is 0 while stopped),
		 * which port_flush_output() leaves alone: both send them once output
		 * runs, where they were (the old pilotd's flush dropped them from its
		 * queue, and this told n_tty's apart once it ran again).
		 */
		/*
		 * Held echoes go through the c_oflag (and IUTF8's columns) of
		 * when n_tty sends them, and a signal's flush drops them before
		 * they moved n_tty's column (pilotd's moved as they were queued).
		 */
		level = LOOSE_NOT;
		if (op && op->kind == ND_SETATTR && st[j].held_before && st[j].stopped_before)
			level = op->oflag != settings_at(c, j).c_oflag ? LOOSE_OFLAG
				: (op->iflag ^ settings_at(c, j).c_iflag) & IUTF8 ? LOOSE_COLUMNS
										    : LOOSE_NOT;
		if (st[j].held_flush || dropped)
			level = level > column_level(c, j) ? level : column_level(c, j);
		if (level > loose)
			used(at, USED_STOP, j);
		if (flood_rest_level(c, j, queue_behind && queue_full, &ps, &ns) > level) {
			level = flood_rest_level(c, j, queue_behind && queue_full, &ps, &ns);
			if (level > loose)
				used(at, USED_FLOOD, j);
		}
		if (flood_dropped && column_level(c, j) > loose) {
			used(at, USED_FLOOD, j);
			level = level > column_level(c, j) ? level : column_level(c, j);
		}
		if (cut) {
			used(at, USED_FLOOD, j);
			level = level > column_level(c, j) ? level : column_level(c, j);
		}
		if (column_level(c, j) > level && column_level(c, j) > loose &&
		    start_flood_flushed(pd == &alt ? &skipped : c, st, j)) {
			used(at, USED_FLOOD, j);
			level = column_level(c, j);
		}
		/*
		 * race_columns: echoes past n_tty's commit mark moved its column, not
		 * pilotd's; or a START's that pilotd's full queue left in its ring
		 */
		if (race_columns && flush_races(c, j, &race_moved) &&
		    (race_moved || start_fills_queue(pd == &alt ? &skipped : c, j) ||
		     start_fills_pty(pd == &alt ? &skipped : c, j)) &&
		    loose < LOOSE_COLUMNS) {
			used(at, USED_RACE, j);
			level = level > LOOSE_COLUMNS ? level : LOOSE_COLUMNS;
		}
		if (level > loose) {
			loose = level;
			stream_loosen(&ps, loose);
			stream_loosen(&ns, loose);
		}
		even = ps.len == ns.len;
		rest_behind = flood_rest_behind(queue_behind, queue_full, &ps, &ns);
		stream_add_loose(&ps, pa, xa, loose);
		/* from n_tty's side: it sent more than pilotd's queue holds */
		queue_behind = xb / 2 > nd_txq_size || queue_still_behind(queue_behind, xa);
		if (xb / 2 > nd_txq_size)
			queue_full = xa / 2 + LDISC_OUT_MAX > nd_txq_size;
		/*
		 * the write's rest n_tty took: never sent by pilotd; what waits in
		 * its ring is the echoes' rest, if any
		 */
		if (cut) {
			/* n_tty's bytes in pilotd's order: echoes, its part of the write, the rest */
			memcpy(nb, pb, echoes);
			memcpy(nb + echoes, pa + echoes, xa - echoes);
			memcpy(nb + xa, pb + echoes, rest);
			queue_behind = queue_full = rest > 0;
		}
		if (!n_tty_sent(&ps, &ns, cut ? nb : pb, cut ? xa + rest : xb, loose, st[j].stopped,
				queue_behind, at, j)) {
			/*
			 * An echo flood in a step that n_tty's stop no longer
			 * shapes: timing_echo_flood's rule from here on
			 */
			if (flood_after_stop(c, st, pd, pty, j, even || rest_behind)) {
				used(at, USED_FLOOD, j);
				flood_at = j;
				break;
			}
			/* ... or the START's after a stop under which n_tty's ring wrapped */
			if (even && loose == LOOSE_NOT && held_wraps_at_start(c, st, pd, pty, j) &&
			    heads_same(c, pd, pty, j)) {
				used(at, USED_FLOOD, j);
				flood_at = j;
				break;
			}
			/*
			 * A race's: n_tty sent echoes that pilotd's flush dropped,
			 * then what both sent after it (the signal's echo at least)
			 */
			from = xb > xa && memcmp(pb + xb - xa, pa, xa) == 0
				       ? xb - xa
				       : race_tail_loose(pa, xa, pb, xb, loose);
			if (!flush_races(c, j, &race_moved) || !even || xa == 0 || from == 0 ||
			    !n_tty_sent(&ps, &ns, pb + from, xb - from, loose, st[j].stopped,
					queue_behind, at, j) ||
			    ps.len != ns.len)
				WHY(j, "bytes");
			used(at, USED_RACE, j);
		}
		/* what pilotd let go in a batch that ends stopped n_tty sent at its START too */
		if (op && st[j].stopped && xa > 0 && ps.len > ns.len)
			WHY(j, "pilotd ahead while stopped");
		/* ... and pilotd too sent all that waited there: never behind after it */
		if (op && st[j].stopped && st[j].ran && ps.len < ns.len &&
		    !ring_keeps_rest(queue_behind, queue_full)) {
			/* ... but for echoes a signal's flush dropped that escaped n_tty's */
			if (!even || xa != 0 || loose != LOOSE_NOT ||
			    !flush_races(c, j, &race_moved) ||
			    !escaped_at_start(pd == &alt ? &skipped : c, j, pb, xb))
				WHY(j, "pilotd behind after a START");
			ns.len = ps.len;
			used(at, USED_RACE, j);
		}
	}
	/* before the probes reuse the streams */
	apart = flood_at > n && (ps.len != ns.len || memcmp(ps.s, ns.s, ps.len) != 0);
	/* a probe's end started n_tty's output and ran process_echoes(): nothing held */
	if (apart && probing)
		WHY(n, "held after the probe");
	/* the probes run held_back() again: what they need first, out of its statics */
	for (int j = 1; j <= n && !probing; j++) {
		size_t ha, hb, xa, xb;
		const char *pa, *pb, *la = step_parts(pd, j, &ha, &pa, &xa),
				    *lb = step_parts(pty, j, &hb, &pb, &xb);

		queued[j] = 0;
		if (c->ops[j - 1].kind != ND_OUTQ || !head_count(la, ha, "outq ", &queued[j]) ||
		    !head_is(lb, hb, "outq 0"))
			queued[j] = 0;
	}
	if (!probing)
		base = skipped;
	for (int j = 1; j < flood_at && j <= n && !probing; j++)
		if (queued[j] > 0 && !probe_released(&base, j, queued[j]))
			WHY(j, "outq");
	/* pilotd's own count, with the writes it took, where a flush dropped them */
	for (int j = 1, pending = 0; j < flood_at && j <= n && !probing && pd != port; j++) {
		size_t ha, hb, xa, xb;
		const char *pa, *pb, *la = step_parts(port, j, &ha, &pa, &xa),
				    *lb = step_parts(pd, j, &hb, &pb, &xb);

		if (base.ops[j - 1].skip)
			pending = 1; /* queued by pilotd */
		else if (pending && (st[j].isig_flush || st[j].out_flush))
			pending = 2; /* dropped */
		else if (pending == 1 && !st[j].stopped)
			pending = 0; /* sent */
		if (pending == 2 && c->ops[j - 1].kind == ND_OUTQ && !head_is(la, ha, "outq 0") &&
		    (ha != hb || memcmp(la, lb, ha) != 0) && !writes_dropped(c, &base, j))
			WHY(j, "writes dropped");
	}
	if (apart && !probing && !probe_released(&base, n + 1, -1))
		WHY(n, "held at the end");
	if (at[USED_RACE] >= 0 && (at[USED_STOP] < 0 || at[USED_RACE] <= at[USED_STOP]))
		return "timing_isig_flush";
	if (at[USED_STOP] >= 0)
		return "pty_stopped";
	return at[USED_FLOOD] >= 0 ? "timing_echo_flood" : NULL;
}

/*
 * What the desktop saw in step i and after: the same on both sides, but
 * for what counts the room for output (a write's count, POLLOUT, the
 * output queue), which a burst of echo changes on a pty?
 */
static bool poll_in_same(const char *a, size_t ha, const char *b, size_t hb)
{
	long va, vb;

	return head_count(a, ha, "poll ", &va) && head_count(b, hb, "poll ", &vb) &&
	       (va & POLLIN) == (vb & POLLIN);
}

static bool heads_same(const struct nd_case *c, const struct nd_trace *port,
		       const struct nd_trace *pty, int i)
{
	for (int j = i; j <= c->nops; j++) {
		enum nd_kind k = j ? c->ops[j - 1].kind : ND_SETATTR;
		size_t ha, hb, xa, xb;
		const char *pa, *pb, *la = step_parts(port, j, &ha, &pa, &xa),
				    *lb = step_parts(pty, j, &hb, &pb, &xb);

		if (!la || !lb)
			return false;
		if ((ha != hb || memcmp(la, lb, ha) != 0) && k != ND_WRITE && k != ND_OUTQ &&
		    !(k == ND_POLL && poll_in_same(la, ha, lb, hb)))
			return false;
	}
	return true;
}

/*
 * A replay that comes at the START ending a stop (pty_stopped): before it
 * n_tty, stopped, has no room and reports no POLLOUT.  From step i on, the
 * first step whose bytes to the handheld differ, when every step before it
 * sent the same and differs, if at all, only in a poll that lacks POLLOUT
 * on n_tty's side alone while its modelled flow is stopped (fuzz_ntty:
 * POLLOUT after a STOP, then a replay of 4095 at the START), or in a write
 * n_tty refused then that port (pilotd's run without such writes,
 * refused_then()) did not make; else -1.
 */
static int stopped_until_replay(const struct nd_case *c, const struct nd_trace *port,
				const struct nd_trace *pty, int i)
{
	struct nt_flow st[ND_OPS_MAX + 1];

	nt_flow(c, st);
	for (int j = i; j >= 1 && j <= c->nops && j <= ND_OPS_MAX; j++) {
		size_t ha, hb, xa, xb;
		const char *pa, *pb, *la = step_parts(port, j, &ha, &pa, &xa),
				    *lb = step_parts(pty, j, &hb, &pb, &xb);
		long va, vb;

		if (!la || !lb)
			return -1;
		if (xa != xb || memcmp(pa, pb, xa) != 0)
			return j;
		if (ha == hb && memcmp(la, lb, ha) == 0)
			continue;
		if (c->ops[j - 1].kind == ND_WRITE && st[j].stopped_before &&
		    head_is(la, ha, "write -") && head_is(lb, hb, "write EAGAIN"))
			continue;
		if (c->ops[j - 1].kind != ND_POLL || !st[j].stopped_before || !st[j].stopped ||
		    !head_count(la, ha, "poll ", &va) || !head_count(lb, hb, "poll ", &vb) ||
		    va != (vb | POLLOUT) || (vb & POLLOUT))
			return -1;
	}
	return -1;
}

/*
 * A stop in which n_tty refused writes that pilotd took (pty_stopped),
 * then echo_replay's or timing_echo_flood's bytes.  A refused write
 * changes neither: n_tty_write() runs process_echoes() before it looks
 * at the room, but with none (pty_write_room() is 0 while stopped)
 * __process_echoes() sends nothing and leaves echo_tail where it was (its
 * discard loop needs echo_commit past echo_tail, which a mark left behind
 * is not), so a replay at the START comes as without the write
 * (drivers/tty/n_tty.c, n_tty_write(), process_echoes(),
 * __process_echoes(), n_tty_receive_char_flow_ctrl()); and a flood's
 * room is the pty's and pilotd's queue's as without it.  So those bytes
 * are judged on pilotd's run without the refused writes (alt), from the
 * first step whose bytes differ (stopped_until_replay()), as
 * echo_replay() and flood_explains() judge them, and pilotd's own run
 * must be alt's with the writes sent whole where output runs again, as
 * pty_stopped's writes_held() requires (fuzz_ntty: seed
 * stop-write-echo-replay-zeros-at-start, a write refused under a STOP,
 * then 4095 bytes at the START where pilotd sent the write; seed
 * stop-write-vreprint-flood-start-in-batch, VREPRINT floods on both
 * sides of a START after such a write).  flood: the flood's (tried only
 * where held_back() does not explain the case: pty_stopped's rules are
 * the stricter), else the replay's.  The name, or NULL.
 */
static const char *refused_then(const struct nd_case *c, const struct nd_trace *port,
				const struct nd_trace *pty, int i, bool flood)
{
	static struct nd_case skipped;
	static struct nd_trace alt;
	struct nt_flow st[ND_OPS_MAX + 1];
	int j;

	nt_flow(c, st);
	if (!refused_writes(c, st, port, pty, &skipped) || nd_run_port(&skipped, &alt) < 0)
		return NULL;
	j = stopped_until_replay(&skipped, &alt, pty, i);
	if (j <= i || !writes_held(c, &skipped, st, port, &alt, pty))
		return NULL;
	if (!flood)
		return echo_replay(c, &alt, pty, j) ? "echo_replay" : NULL;
	return flood_explains(c, &alt, pty, j) ? "timing_echo_flood" : NULL;
}

static const char *classify(const struct nd_case *c, const struct nd_trace *port,
			    const struct nd_trace *pty, int i)
{
	const char *name;
	int j;

	/* echoes only: from i on the handheld's bytes may differ, never what the desktop sees */
	if (echo_replay(c, port, pty, i))
		return heads_same(c, port, pty, i) ? "echo_replay" : NULL;
	j = stopped_until_replay(c, port, pty, i);
	if (j > i && echo_replay(c, port, pty, j))
		return heads_same(c, port, pty, i) ? "echo_replay" : NULL;
	if (refused_then(c, port, pty, i, false))
		return heads_same(c, port, pty, i) ? "echo_replay" : NULL;
	if (flood_explains(c, port, pty, i))
		return heads_same(c, port, pty, i) ? "timing_echo_flood" : NULL;
	name = held_back(c, port, pty, false);
	name = name ? name : held_back(c, port, pty, true);
	if (!name && refused_then(c, port, pty, i, true))
		return heads_same(c, port, pty, i) ? "timing_echo_flood" : NULL;
	return name;
}

int nd_compare(const struct nd_case *c, const struct nd_trace *port, const struct nd_trace *pty,
	       const char **name)
{
	*name = NULL;
	if (port->full || pty->full)
		return 0; /* what a full trace lost is not judged: unexplained */
	for (int i = 0;; i++) {
		size_t a = 0, b = 0;
		const char *la = line(port->text, i, &a), *lb = line(pty->text, i, &b);

		if (!la && !lb)
			return -1;
		if (!la || !lb || a != b || memcmp(la, lb, a) != 0) {
			*name = classify(c, port, pty, i);
			return i;
		}
	}
}

/*
 * n_tty's own race at a signal's flush (flush_races(): echoes already
 * written to the master in the batch).  isig() clears n_tty's echo buffer
 * and calls tty_driver_flush_buffer(), on a pty pty_flush_buffer():
 * tty_buffer_flush() of the master's flip buffer only.  What the master's
 * worker (flush_to_ldisc(), queued by the slave's pty_write() as a START's
 * process_echoes() wrote) had moved into the master's n_tty by then stays
 * (drivers/tty/n_tty.c isig(), pty.c pty_flush_buffer(), tty_buffer.c).
 * Whether it does hangs on how the slave's and the master's workers meet:
 * with test_ntty's alarm every 100 us, on a host with a load of 12, the
 * flush kept all of them in 3 runs of 4000 of seed case 7760, never with no
 * alarm (0 of 6000).  pilotd drops them, as it drops all the handheld has
 * not taken, and a pilotd whose signal drops nothing (issue 38's fault F)
 * sends what such a run of n_tty sends: one run that agrees with it (the
 * retry below took any) proves nothing.  So pilotd is judged by a run whose
 * flushes dropped the most: the fewest bytes to the handheld in those
 * steps (what escaped comes on top of what the flush left; the column
 * moved either way).  Decided from the case and n_tty's runs alone.
 */
/*
 * A step where n_tty's flush may race: a batch in which, before a signal
 * character that flushes, process_echoes() may send committed echoes with
 * output running (a START, an IXANY restart, an erase, KILL, WERASE or
 * VREPRINT whose echo may pass the commit mark), as flush_races() finds
 * them but only with echoes to send (held from before the batch, or echoed
 * in it since the last such point).  Over-approximated: any echo counts.
 */
static bool race_step(const struct nd_case *c, const struct nt_flow st[], int j)
{
	const struct nd_op *op = &c->ops[j - 1];
	struct termios2 t = settings_at(c, j);
	bool pending = st[j].held_before, sent = false, lnext = false;
	bool stopped = st[j].stopped_before, tco = st[j].tco_before;
	bool ixany = (t.c_iflag & (IXON | IXANY)) == (IXON | IXANY);
	size_t line, entries = 0; /* entries: echo waiting since output last ran */

	if (op->kind != ND_RX || !(t.c_lflag & ISIG) || (t.c_lflag & NOFLSH))
		return false;
	for (size_t k = 0; k < op->len && !sent; k++) /* a signal character at all? */
		sent = nt_receive(&t, op->bytes[k], false) == NT_SIGNAL;
	if (!sent)
		return false;
	sent = false;
	line = line_bound(c, j);
	for (size_t k = 0; k < op->len; k++) {
		enum nt_does d = nt_receive(&t, op->bytes[k], lnext);
		uint8_t b = (t.c_iflag & ISTRIP) ? op->bytes[k] & 0x7f : op->bytes[k];

		lnext = d == NT_LNEXT;
		if (d == NT_SIGNAL) {
			if (sent)
				return true;
			entries = line = 0; /* isig() empties the echo and the read buffer */
			pending = t.c_lflag & ECHO; /* its echo comes after the flush */
			stopped &= tco || !(t.c_iflag & IXON);
			continue;
		}
		if (d == NT_STOP) {
			stopped = true;
			continue;
		}
		if (d == NT_START || (ixany && stopped && !tco && d != NT_QUEUED)) {
			stopped = tco; /* start_tty(), then process_echoes() */
			sent |= pending && !stopped;
			entries = stopped ? entries : 0;
		}
		if (d == NT_START)
			continue;
		if (nt_may_echo(&t, d))
			pending = true;
		/*
		 * commit_echoes() sends once 256 entries wait: at most 4 an
		 * echoed byte (ECHOCTL's ^X, a 0xff PARMRK keeps twice), an
		 * erase ERASE_ENTRIES, KILL and WERASE that a character of the
		 * line, VREPRINT 3 and 4 a character (flush_races() bounds)
		 */
		line = ends_line(&t, b) ? 0 : line + 1;
		if (nt_may_echo(&t, d))
			entries += d == NT_ERASE && is_cc(&t, b, VERASE)    ? ERASE_ENTRIES
				   : d == NT_ERASE			    ? line * ERASE_ENTRIES
				   : d == NT_DATA && is_cc(&t, b, VREPRINT) ? 3 + 4 * line
									    : 4;
		sent |= !stopped && entries >= ECHO_COMMIT_MARK;
	}
	return false;
}

/* The last such step (0: none). */
static int race_last(const struct nd_case *c)
{
	struct nt_flow st[ND_OPS_MAX + 1];
	int last = 0;

	nt_flow(c, st);
	for (int j = 1; j <= c->nops && j <= ND_OPS_MAX; j++)
		if (race_step(c, st, j))
			last = j;
	return last;
}

/* The bytes (hex characters) n_tty sent in those steps. */
static size_t race_sent(const struct nd_case *c, const struct nd_trace *tr)
{
	struct nt_flow st[ND_OPS_MAX + 1];
	size_t sent = 0, head, x;
	const char *hex;

	nt_flow(c, st);
	for (int j = 1; j <= c->nops && j <= ND_OPS_MAX; j++)
		if (race_step(c, st, j) && step_parts(tr, j, &head, &hex, &x))
			sent += x;
	return sent;
}

/*
 * Did a run (sent: its race_sent()) keep echoes that another run's flushes
 * drop?  One more run of the case up to its last racing step: fewer bytes
 * there, and it did.  A case's racing steps are a 13th of the seed's steps.
 */
static bool kept_more(const struct nd_case *c, int last, size_t sent)
{
	static struct nd_case upto;
	static struct nd_trace tr;

	upto = *c;
	upto.nops = last;
	return nd_run_pty(&upto, &tr) == 0 && race_sent(&upto, &tr) < sent;
}

/* nd_run_pty(), where n_tty's flush may race a run that dropped the most (above). */
static int pty_run_least_kept(const struct nd_case *c, struct nd_trace *tr)
{
	static struct nd_trace other;
	int last = race_last(c), err = nd_run_pty(c, tr);

	if (err < 0 || !last || !kept_more(c, last, race_sent(c, tr)))
		return err;
	for (int r = 1; r < ND_PTY_RUNS; r++)
		if (nd_run_pty(c, &other) == 0 && race_sent(c, &other) < race_sent(c, tr))
			*tr = other;
	return 0;
}

int nd_pick_run(const struct nd_case *c, const struct nd_trace *port,
		const struct nd_trace *const runs[], int n, int *at, const char **name)
{
	size_t least = SIZE_MAX, sent[ND_PTY_RUNS];
	int best = -1;

	for (int i = 0; i < n && i < ND_PTY_RUNS; i++) {
		sent[i] = race_sent(c, runs[i]);
		least = sent[i] < least ? sent[i] : least;
	}
	for (int i = 0; i < n && i < ND_PTY_RUNS; i++) {
		const char *nm;
		int a;

		if (sent[i] != least)
			continue; /* it kept echoes another run's flush dropped */
		a = nd_compare(c, port, runs[i], &nm);
		if (best < 0 || a < 0 || nm) {
			best = i;
			*at = a;
			*name = nm;
		}
		if (a < 0 || nm)
			break;
	}
	return best;
}

int nd_run_pty_against(const struct nd_case *c, const struct nd_trace *port,
		       struct nd_trace *pty, int *at, const char **name, int *runs)
{
	static struct nd_trace more[ND_PTY_RUNS - 1];
	struct nd_trace *tr[ND_PTY_RUNS] = { pty }; /* the first run straight into *pty */
	int last = race_last(c), n = 0, err = 0, best = -1;
	size_t least = 0;

	*at = -1;
	*name = NULL;
	for (*runs = 1;; ++*runs) {
		int e, a;
		size_t sent;
		const char *nm;

		tr[n] = n ? &more[n - 1] : pty;
		e = nd_run_pty(c, tr[n]);
		sent = e == 0 ? race_sent(c, tr[n]) : 0;
		/* nd_pick_run() over the runs so far, each run compared once */
		if (e == 0 &&
		    (best < 0 || sent < least || (sent == least && !(*at < 0 || *name)))) {
			const struct nd_trace *one[1] = { tr[n] };

			nd_pick_run(c, port, one, 1, &a, &nm);
			if (best < 0 || sent < least || a < 0 || nm) {
				best = n;
				*at = a;
				*name = nm;
				least = sent;
			}
		}
		if (e == 0)
			n++;
		else
			err = e;
		/* one that agrees stands, unless it kept echoes another run drops */
		if (*runs == ND_PTY_RUNS || (best >= 0 && (*at < 0 || *name) &&
					     (!last || (*runs == 1 && !kept_more(c, last, least)))))
			break;
	}
	if (best < 0)
		return err;
	if (tr[best] != pty)
		*pty = *tr[best];
	return 0;
}

int nd_read_listed(const char *path, char names[][64], int max)
{
	FILE *f = fopen(path, "r");
	char buf[1024];
	int n = 0;

	if (!f)
		return -errno;
	while (fgets(buf, sizeof(buf), f) && n < max) {
		const char *p = strstr(buf, "`ntty:");

		if (p && sscanf(p + 6, "%63[a-z0-9_]`", names[n]) == 1)
			n++;
	}
	fclose(f);
	return n;
}
