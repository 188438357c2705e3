// SPDX-License-Identifier: MIT
/*
 * The port (pilotd/core/port*.c) under every order of events: the input
 * is a sequence of requests (open, release, read, write, poll, ioctl,
 * interrupt) and transport events (arrival, departure, received bytes,
 * a transfer taken and done, a round's end with a clock step), and the
 * transport's hooks call back into the port from inside: a departure,
 * received bytes or a finished transfer inside tx_ready, rx_room and
 * last_close, as the input chooses.
 *
 * Checked after every step, with a model of what the port accepted:
 *   - every request is answered at most once, and after shutdown and the
 *     release of every file exactly once;
 *   - a read returns exactly the next bytes the port accepted from the
 *     handheld, of the reader's own session (no loss, duplication,
 *     reordering, or another session's bytes), unless the port declared
 *     them discarded;
 *   - what the transport takes to send is exactly the next bytes written
 *     in this handheld's session, in order, never those of another.
 *     Parked writes go into txq in the order they parked, though their
 *     answers may come in another order (a hook may serve the next one
 *     before the first is answered): the model follows the queue.
 */
#include <asm/ioctls.h>
#include <asm/termbits.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/port.h"
#include "fuzz_input.h"
#include "raw_termios.h"

#define NREQ	 512
#define NFILES	 6
#define QMAX	 (1u << 16)
#define WRITEMAX 3000

struct req {
	int answers;
	enum { R_OPEN, R_READ, R_WRITE, R_IOCTL } kind;
	int file;		/* the harness's file slot, for reads */
	uint8_t data[WRITEMAX]; /* a write's payload */
	size_t len;
	bool parked;	/* a write waiting */
	size_t modeled; /* of its bytes, those in the model (txq) already */
	bool lost;	/* waiting when the handheld left: its bytes are gone */
};

/* A FIFO of bytes with the session they belong to. */
struct model_q {
	uint8_t b[QMAX];
	size_t head, len;
	uint64_t session;
};

static struct fuzz {
	struct port port;
	struct input in;
	struct req reqs[NREQ];
	int nreq;
	struct {
		bool open;
		uint64_t fh, session;
	} files[NFILES];
	uint64_t session; /* counts arrivals, as the harness sees them */
	bool carrier;
	uint64_t now;
	uint8_t rx_counter, tx_counter;
	struct model_q rxm, txm; /* accepted from the handheld; written for it */
	size_t tx_ahead;	 /* sent before their write was answered */
	size_t inflight;	 /* what the transport holds from tx_take */
	uint64_t tx_cut;	 /* txq's tail cut by flushes and the closing wait, seen */
	int waiting[NREQ];	 /* parked writes, in the order they parked */
	int nwaiting;
	uint8_t reenter; /* which hooks call back, and how */
	int depth;
} fz;

static void *req_ptr(int i)
{
	return &fz.reqs[i];
}

static struct req *req_of(void *r)
{
	struct req *q = r;

	FUZZ_CHECK(q >= fz.reqs && q < fz.reqs + fz.nreq);
	q->answers++;
	FUZZ_CHECK(q->answers == 1);
	return q;
}

static void mq_push(struct model_q *q, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n && q->len < QMAX; i++)
		q->b[(q->head + q->len++) % QMAX] = b[i];
}

static uint8_t mq_at(const struct model_q *q, size_t i)
{
	return q->b[(q->head + i) % QMAX];
}

static void mq_pop(struct model_q *q, size_t n)
{
	q->head = (q->head + n) % QMAX;
	q->len -= n;
}

/* ---- the front's answers ---- */

static uint64_t session_of_new_file(void)
{
	return fz.carrier ? fz.session : fz.session + 1;
}

static int h_open(void *ctx, void *r, uint64_t fh)
{
	struct req *q = req_of(r);

	FUZZ_CHECK(q->kind == R_OPEN);
	for (int i = 0; i < NFILES; i++) {
		if (!fz.files[i].open) {
			fz.files[i].open = true;
			fz.files[i].fh = fh;
			fz.files[i].session = session_of_new_file();
			return 0;
		}
	}
	return -ENOENT; /* no slot: as if the opener were gone */
}

static void h_data(void *ctx, void *r, const void *buf, size_t len)
{
	struct req *q = req_of(r);
	const uint8_t *b = buf;

	FUZZ_CHECK(q->kind == R_READ);
	if (len == 0)
		return;
	FUZZ_CHECK(fz.files[q->file].open);
	FUZZ_CHECK(fz.rxm.session == fz.files[q->file].session);
	FUZZ_CHECK(len <= fz.rxm.len);
	for (size_t i = 0; i < len; i++)
		FUZZ_CHECK(b[i] == mq_at(&fz.rxm, i));
	mq_pop(&fz.rxm, len);
}

static void sync_tx(void);

/* q's next len bytes went into txq; some may already be sent and done. */
static void model_pushed(struct req *q, size_t len)
{
	size_t skip;

	sync_tx(); /* a flush that came first cut what was there before them */
	skip = len < fz.tx_ahead ? len : fz.tx_ahead;

	fz.tx_ahead -= skip;
	mq_push(&fz.txm, q->data + q->modeled + skip, len - skip);
	q->modeled += len;
}

/* A waiting write goes into txq in parts as room comes (n_tty_write()):
 * the part queued so far is the port's parked entry's done. */
static void sync_parked(void)
{
	for (struct parked *e = fz.port.writes.head; e; e = e->next) {
		struct req *q = e->req;

		FUZZ_CHECK(e->done >= q->modeled);
		if (e->done > q->modeled)
			model_pushed(q, e->done - q->modeled);
	}
}

/* A parked write left the list: answered, or refused. */
static void unwait(struct req *q)
{
	int i = 0;

	while (i < fz.nwaiting && &fz.reqs[fz.waiting[i]] != q)
		i++;
	FUZZ_CHECK(i < fz.nwaiting);
	memmove(&fz.waiting[i], &fz.waiting[i + 1], (size_t)(fz.nwaiting - i - 1) * sizeof(int));
	fz.nwaiting--;
	q->parked = false;
}

static void h_written(void *ctx, void *r, size_t len)
{
	struct req *q = req_of(r);

	FUZZ_CHECK(q->kind == R_WRITE && len <= q->len);
	if (q->lost) { /* taken into txq just before a departure discarded it */
		unwait(q);
		return;
	}
	if (!fz.carrier) {
		FUZZ_CHECK(!q->parked); /* no handheld: accepted and discarded */
		return;
	}
	if (!q->parked) {
		model_pushed(q, len);
		return;
	}
	/* the parked writes before it went into txq before it; it may have
	 * gone in part (a signal ended it: the part queued is its answer) */
	FUZZ_CHECK(len >= q->modeled);
	for (int i = 0; i < fz.nwaiting; i++) {
		struct req *w = &fz.reqs[fz.waiting[i]];

		if (w == q) {
			model_pushed(w, len - w->modeled);
			break;
		}
		model_pushed(w, w->len - w->modeled);
	}
	unwait(q);
}

static void h_ioctl(void *ctx, void *r, const void *out, size_t len)
{
	FUZZ_CHECK(req_of(r)->kind == R_IOCTL);
}

static void h_fetch(void *ctx, void *r, uintptr_t arg, size_t in, size_t out)
{
	FUZZ_CHECK(req_of(r)->kind == R_IOCTL);
}

static void h_err(void *ctx, void *r, int err)
{
	struct req *q = req_of(r);

	FUZZ_CHECK(err > 0);
	if (q->kind == R_WRITE && q->parked) {
		FUZZ_CHECK(q->modeled == 0); /* an error answer takes no bytes */
		unwait(q);
	}
}

static void nothing(void *ctx, void *p)
{
}

/* ---- the transport, which may call back ---- */

static void carrier_up(void);
static void carrier_down(void);
static void rx_some(size_t n);
static void tx_some(size_t max, size_t done);

static void reenter(unsigned int how)
{
	if (fz.depth > 0)
		FUZZ_CHECK(!"a transport hook was called from inside another");
	fz.depth++;
	switch (how & 3) {
	case 0: break;
	case 1:
		if (fz.carrier)
			carrier_down();
		else
			carrier_up();
		break;
	case 2: rx_some(1 + (how >> 2) * 37); break;
	case 3: tx_some(1 + (how >> 2) * 97, (how >> 4) & 1 ? 0 : ~(size_t)0); break;
	}
	fz.depth--;
}

static void h_tx_ready(void *ctx)
{
	reenter(fz.reenter);
}

static void h_rx_room(void *ctx)
{
	reenter(fz.reenter >> 2);
}

static void h_last_close(void *ctx)
{
	reenter(fz.reenter >> 4 & 1);
}

/* ---- transport events, and the model's view of them ---- */

/*
 * The port discards rxq whole (at a release, an arrival, a departure or
 * a flush): so does the model.  Called around every call that may.
 */
static void sync_rx(void)
{
	/* canonical mode: the line being edited is the ldisc's */
	size_t q = byteq_len(&fz.port.rxq) + fz.port.ldisc.line_len, sum = 0;

	/* and rxq holds complete lines whose lengths add up to it */
	for (unsigned int i = 0; i < fz.port.lines.count; i++)
		sum += fz.port.lines.len[(fz.port.lines.head + i) % PORT_LINES_MAX];
	if (fz.port.tty.termios.c_lflag & ICANON)
		FUZZ_CHECK(sum == byteq_len(&fz.port.rxq));
	else
		FUZZ_CHECK(fz.port.lines.count == 0 && fz.port.ldisc.line_len == 0);

	if (q < fz.rxm.len) {
		FUZZ_CHECK(q == 0);
		fz.rxm.len = 0;
	}
	FUZZ_CHECK(q == fz.rxm.len);
}

/* What cut txq's tail: tcflush(TCOFLUSH), and the closing wait's end
 * (a discard while a handheld is attached; a departure clears it all). */
static uint64_t tx_cut_now(void)
{
	return fz.port.stats.tx_flushed + (fz.carrier ? fz.port.stats.tx_discarded : 0);
}

/* txq lost its tail: so does the model (what is cut was never sent). */
static void sync_tx(void)
{
	uint64_t cut = tx_cut_now() - fz.tx_cut;

	FUZZ_CHECK(cut <= fz.txm.len);
	fz.txm.len -= cut;
	fz.tx_cut += cut;
}

/* The models follow an arrival or a departure before the port's hooks run. */
static void carrier_up(void)
{
	fz.carrier = true;
	fz.session++;
	fz.txm.len = 0; /* empty already: a departure discarded it */
	fz.tx_ahead = fz.inflight = 0;
	fz.tx_cut = tx_cut_now();
	fz.rxm.len = 0; /* the departed handheld's bytes go */
	fz.rxm.session = fz.session;
	port_carrier_up(&fz.port);
	sync_rx();
}

static void carrier_down(void)
{
	fz.carrier = false;
	for (int i = 0; i < fz.nwaiting; i++)
		fz.reqs[fz.waiting[i]].lost = true;
	fz.txm.len = 0;
	fz.tx_ahead = fz.inflight = 0;
	fz.tx_cut = tx_cut_now();
	port_carrier_down(&fz.port);
	/* parked writes: EIO; a batch being served is answered after the hook */
	FUZZ_CHECK(fz.depth > 0 || fz.nwaiting == 0);
	FUZZ_CHECK(port_tx_queued(&fz.port) == 0);
	sync_rx();
}

static void rx_some(size_t n)
{
	uint8_t buf[2048];
	uint64_t d;
	size_t taken;

	if (!fz.carrier)
		return;
	if (n > sizeof(buf))
		n = sizeof(buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = fz.rx_counter++;
	if (fz.port.tty.termios.c_lflag & ICANON) {
		/* what the transport's rule (port_rx_room()) lets come: a line
		 * never outgrows rxq, so no byte in its middle is lost */
		size_t space = byteq_space(&fz.port.rxq), line = fz.port.ldisc.line_len;
		size_t room = space > line ? space - line : 0;

		if (room > PORT_LINES_MAX - fz.port.lines.count)
			room = PORT_LINES_MAX - fz.port.lines.count;
		if (n > room)
			n = room;
	}
	sync_rx();
	d = fz.port.stats.rx_discarded;
	port_rx(&fz.port, buf, n, fz.now);
	taken = n - (size_t)(fz.port.stats.rx_discarded - d);
	mq_push(&fz.rxm, buf, taken);
	sync_rx();
}

/* The transport takes up to max bytes and the handheld accepts done of them. */
static void tx_some(size_t max, size_t done)
{
	static uint8_t buf[8192];
	size_t n;

	if (max > sizeof(buf))
		max = sizeof(buf);
	unsigned int xchars = fz.port.xchar_count;

	sync_tx();
	n = port_tx_take(&fz.port, buf, max);
	fz.inflight = n;
	if (done > n)
		done = n;
	/* TCIOFF/TCION: the STOP or START character first, then the output */
	if (xchars && n) {
		size_t x = n < xchars ? n : xchars;

		if (x > PORT_XCHARS_MAX - 1)
			x = PORT_XCHARS_MAX - 1; /* one slot stays free */

		FUZZ_CHECK(memcmp(buf, fz.port.xchars, x) == 0);
		if (done > x)
			done = x;
		port_tx_done(&fz.port, done); /* the output after them goes again */
		/* at least those taken went (a hook may take more, or depart) */
		FUZZ_CHECK(fz.port.xchar_count <= xchars - done);
		sync_tx();
		return;
	}
	/* the head of what was written in this session, in order */
	for (size_t i = 0; i < n && i < fz.txm.len; i++)
		FUZZ_CHECK(buf[i] == mq_at(&fz.txm, i));
	fz.inflight = 0;
	if (done <= fz.txm.len) {
		mq_pop(&fz.txm, done);
	} else { /* part of a write whose answer is still to come */
		fz.tx_ahead += done - fz.txm.len;
		fz.txm.len = 0;
	}
	port_tx_done(&fz.port, done);
	sync_tx();
}

/* ---- requests ---- */

static int new_req(int kind)
{
	if (fz.nreq >= NREQ)
		return -1;
	fz.reqs[fz.nreq] = (struct req){ .kind = kind };
	return fz.nreq++;
}

static int pick_file(void)
{
	int i = input_u8(&fz.in) % NFILES;

	return fz.files[i].open ? i : -1;
}

static void do_ioctl(int f)
{
	static const unsigned int cmds[] = { TCSBRK,   TIOCMIWAIT, TCFLSH,   TCXONC,	TCSETSF,
					     TCSETSW,  TCSETS,	   FIONREAD, TIOCOUTQ,	TIOCEXCL,
					     TIOCNXCL, TCGETS,	   TIOCMGET, TIOCGWINSZ };
	struct termios t;
	struct tty_ioctl io = { 0 };
	int r = new_req(R_IOCTL);

	if (r < 0)
		return;
	io.cmd = cmds[input_u8(&fz.in) % (sizeof(cmds) / sizeof(cmds[0]))];
	io.arg = input_u8(&fz.in) % 4;
	io.out_len = input_u8(&fz.in) % 64;
	if (io.cmd == TCSETSF || io.cmd == TCSETSW || io.cmd == TCSETS) {
		memcpy(&t, &fz.port.tty.termios, sizeof(t));
		t.c_cflag ^= (input_u8(&fz.in) & 1) ? CLOCAL : 0;
		t.c_lflag ^= (input_u8(&fz.in) & 1) ? ICANON : 0;
		t.c_cc[VMIN] = input_u8(&fz.in) % 4;
		t.c_cc[VTIME] = input_u8(&fz.in) % 4;
		io.in = &t;
		io.in_len = sizeof(t);
	}
	port_ioctl(&fz.port, req_ptr(r), fz.files[f].fh, &io);
}

static void step(uint8_t op)
{
	int f, r;

	switch (op % 16) {
	case 0: {
		struct port_open_args a = { .uid = input_u8(&fz.in) & 1 ? 0 : 1000,
					    .nonblock = input_u8(&fz.in) & 1 };

		if ((r = new_req(R_OPEN)) >= 0)
			port_open(&fz.port, req_ptr(r), &a);
		break;
	}
	case 1:
		if ((f = pick_file()) >= 0) {
			fz.files[f].open = false;
			port_release(&fz.port, fz.files[f].fh);
			sync_rx();
			sync_tx();
		}
		break;
	case 2:
	case 3:
		if ((f = pick_file()) >= 0 && (r = new_req(R_READ)) >= 0) {
			fz.reqs[r].file = f;
			port_read(&fz.port, req_ptr(r), fz.files[f].fh, input_u8(&fz.in) * 4u,
				  input_u8(&fz.in) & 1, fz.now);
		}
		break;
	case 4:
	case 5:
		if ((f = pick_file()) >= 0 && (r = new_req(R_WRITE)) >= 0) {
			struct req *q = &fz.reqs[r];

			q->len = 1 + input_u16(&fz.in) % WRITEMAX;
			for (size_t i = 0; i < q->len; i++)
				q->data[i] = fz.tx_counter++;
			port_write(&fz.port, q, fz.files[f].fh, q->data, q->len,
				   input_u8(&fz.in) & 1);
			if (q->answers == 0) {
				q->parked = true;
				fz.waiting[fz.nwaiting++] = r;
			}
		}
		break;
	case 6:
		if ((f = pick_file()) >= 0)
			port_poll(&fz.port, fz.files[f].fh, NULL);
		break;
	case 7:
		if ((f = pick_file()) >= 0) {
			do_ioctl(f);
			sync_rx();
			sync_tx();
		}
		break;
	case 8:
		if (fz.nreq)
			port_interrupt(&fz.port, req_ptr(input_u8(&fz.in) % fz.nreq));
		break;
	case 9:
		if (fz.carrier)
			carrier_down();
		else
			carrier_up();
		break;
	case 10:
	case 11: rx_some(1 + input_u16(&fz.in) % 2048); break;
	case 12:
	case 13: {
		size_t max = 1 + input_u16(&fz.in) % 8192;

		tx_some(max, input_u8(&fz.in) & 1 ? ~(size_t)0 : input_u16(&fz.in) % 8192);
		break;
	}
	case 14: {
		fz.now += input_u16(&fz.in);
		port_after_events(&fz.port, fz.now);
		sync_rx();
		sync_tx();
		break;
	}
	case 15: fz.reenter = input_u8(&fz.in); break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct port_config cfg = {
		.rxq_size = 4096,
		.txq_size = 8192,
		.read_max = 1024,
		.files_max = 4,
		.parked_max = 24,
		.parked_write_bytes = 6000,
		.closing_wait_ms = 30000,
	};
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
		.tx_ready = h_tx_ready,
		.rx_room = h_rx_room,
		.last_close = h_last_close,
	};

	memset(&fz, 0, sizeof(fz));
	fz.in = (struct input){ .p = data, .left = size };
	if (port_init(&fz.port, &cfg, &hooks) < 0)
		return 0;
	/* bytes, not text: the model needs every byte through unchanged; in
	 * canonical mode only a newline is special (the editing characters
	 * are disabled), so lines are split but no byte changes */
	make_raw_termios(&fz.port.tty.termios);
	fz.port.tty.termios.c_cc[VERASE] = fz.port.tty.termios.c_cc[VKILL] = 0;
	fz.port.tty.termios.c_cc[VEOF] = 0;
	for (int steps = 0; fz.in.left > 0 && steps < 2000; steps++) {
		step(input_u8(&fz.in));
		/* between steps every byte queued is in the model */
		sync_rx();
		sync_parked();
		sync_tx();
		FUZZ_CHECK(byteq_len(&fz.port.txq) == fz.txm.len && fz.tx_ahead == 0);
	}

	/* the end: every request answered exactly once */
	fz.reenter = 0;
	port_after_events(&fz.port, fz.now + 1000000);
	port_shutdown(&fz.port);
	for (int i = 0; i < NFILES; i++)
		if (fz.files[i].open)
			port_release(&fz.port, fz.files[i].fh);
	port_shutdown(&fz.port); /* opens a release let through */
	for (int i = 0; i < fz.nreq; i++)
		FUZZ_CHECK(fz.reqs[i].answers == 1);
	port_free(&fz.port);
	return 0;
}
