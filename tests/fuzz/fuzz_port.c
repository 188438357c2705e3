// SPDX-License-Identifier: MIT
/*
 * The port (pilotd/core/port*.c) and its line discipline under every
 * order of events.  The input is a sequence of steps, each an opcode byte
 * and the bytes it reads (fuzz_input.h: zeros past the end): requests
 * (open as root with CAP_SYS_ADMIN, as uid 0 without it, as another
 * user or from another user namespace; release, read, write, poll, interrupt, any tty ioctl called with
 * or without CAP_SYS_ADMIN, TCSETS/TCSETSW/TCSETSF with every
 * iflag/oflag/lflag bit and c_cc value the input chooses) and transport
 * events: arrival, departure, an IN transfer submitted or completed, a
 * transfer of output taken and done, a round's end with a clock step.
 * Files stay open across handhelds (hung up, while the next handheld's
 * sessions come and go), and an open does not listen until it reads,
 * polls or asks FIONREAD.  The transport's hooks call back from inside
 * (a departure, a completion, a transfer taken), as the input chooses.
 *
 * The fake transport keeps the port's promise as the pump does: an IN
 * transfer of k bytes is submitted only while port_rx_room() covers it
 * and every one in flight (at most port_config.rx_inflight_max in all);
 * rx_stop cancels them all (one may have completed meanwhile).  So every
 * byte the handheld sends was promised room, and the model counts as lost
 * every byte the port drops where the rules do not allow it: only with no
 * live file open (a cancelled transfer's), at a flush, when nobody of its
 * session is left to read it (a release, a departure, the next arrival),
 * at ISIG's flush, when n_tty's line is full, or a TIOCSTI byte for
 * another session: stats.rx_discarded must equal what the model allowed.
 * The front and the hooks are port_harness.h's (each answer recorded,
 * each hook's depth counted); the model follows them in on_answer and
 * on_hook.
 *
 * Checked after every step:
 *   - every request is answered at most once, every unanswered one is
 *     parked, and after shutdown and release exactly once;
 *   - transport hooks are never nested;
 *   - bytes pass unchanged (raw input; canonical lines without editing
 *     characters): a read returns exactly the next bytes the handheld (or
 *     TIOCSTI) gave of the reader's own session, nothing lost,
 *     duplicated or reordered; otherwise every byte read but a NUL (a
 *     VEOF's, once ICANON goes off) carries its session's tag (bit 6 is
 *     the session's parity: no n_tty mapping changes it), so no file
 *     reads another session's bytes;
 *   - output passes unchanged (no OPOST processing, no echo): the
 *     transport takes exactly the next bytes written in this session;
 *   - canonical lines add up to rxq;
 *   - writes go into txq in parts as room comes: once the handheld took
 *     bytes, a waiting write's next byte does not fit;
 *   - the last close is the last live file's of the session (hung-up files
 *     hold nothing): it cancels the IN transfers (a transfer submitted
 *     before it never completes), sends the close notification (after the
 *     closing wait), and drops TIOCEXCL (EBUSY only while it holds);
 *   - TIOCSTI and TIOCSSERIAL's closing_wait need CAP_SYS_ADMIN;
 *   - the bounds: files, parked requests and parked write bytes, and a
 *     quarter of each for one user (in any user namespace) and for the
 *     other user namespace, without CAP_SYS_ADMIN;
 *   - at the end, output restarted (TCOON, IXON off), the handheld takes
 *     everything: no write or drain is left waiting;
 *   - after a round, no poller sleeps while what it waits for is ready, in
 *     each of the three ways pollers hear (the first input byte chooses):
 *     notifications; a kernel that keeps the events pilotd pushes (the
 *     model answers polls from them and wakes sleepers as
 *     kernel-patches/poll-events does), where what the kernel holds must
 *     also equal the file's events at every answer; a kernel that refuses
 *     the push; and an epoll ET poller that was told POLLIN or POLLOUT
 *     sleeps until it is told of news, as n_tty wakes readers at every
 *     arrival, usb-serial writers at every completed transfer and
 *     tcsetattr() everyone, whatever another poller of the file was
 *     answered meanwhile.
 *
 * The first input byte's bit 7 runs pilotd --stream-data
 * (core/port_push.c, docs/kernel-data-path.md "pilotd uses it"): every
 * open is keyed, and the model is the kernel of kernel-patches/stream-data
 * with korder's EBUSY: a buffer per open file of FUSE_STREAM_DATA_MAX
 * (4096) bytes, a push whole or refused (ENOSPC: no room; EBUSY: a
 * FUSE_READ of the file is in flight; EAGAIN: the front saw a request
 * waiting; ENOENT: the kernel released the file before pilotd heard), and
 * a read() that takes from the buffer and reaches pilotd as a request only
 * when the buffer is empty (then possibly in flight for a while: op 20
 * delivers it).  Checked besides:
 *   - a push comes only where port_push.c's rule allows, judged from the
 *     model: one open file, live, listening, of rxq's session, a handheld
 *     there, no read parked, not canonical, VMIN 0 or 1, ISIG only with
 *     NOFLSH; 1 to 4096 bytes, to a key of an open file;
 *   - a push takes rxq's head (the model's next bytes, which leave rxq),
 *     each byte of the file's session; a read request is answered with
 *     bytes only while the file's buffer is empty (else the reader would
 *     get them before older ones); stats.rx_pushed is what the kernel took;
 *   - after the rounds, no bytes wait in rxq that the rule lets go and
 *     the kernel has room for (but after a refusal that ends the pushes);
 *   - the bounds: a buffer never over 4096, rxq within rxq_size and its
 *     reserve.
 */
#include <asm/ioctls.h>
#include <asm/termbits.h>
#include <errno.h>
#include <linux/serial.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/ldisc.h"
#include "core/port.h"
#include "core/port_impl.h"
#include "fuzz_input.h"
#include "port_harness.h"
#include "raw_termios.h"

#define NREQ	     512
#define NFILES	     6
#define QMAX	     (1u << 16)
#define WRITEMAX     3000
#define NIN	     8	 /* IN transfers in flight at most */
#define IN_MAX	     128 /* bytes one asks for */
#define INFLIGHT_MAX (NIN * IN_MAX)
#define TAG	     0x40 /* bit 6: the session's parity */

/* Another user namespace, as the front names it. */
#define FUZZ_USERNS 0x5a5a0001ull

static const struct port_config cfg = {
	.rxq_size = 4096,
	.txq_size = 8192,
	.read_max = 1024,
	.files_max = 8,
	.parked_max = 24,
	.parked_write_bytes = 6000,
	.closing_wait_ms = 30000,
	.rx_inflight_max = INFLIGHT_MAX,
};

/* What the model knows of a request; its answers are the harness's
 * (port_harness.h: the request of the same index). */
struct req {
	enum { R_OPEN, R_READ, R_WRITE, R_IOCTL } kind;
	int file;		/* the harness's file slot */
	uint8_t data[WRITEMAX]; /* a write's payload */
	size_t len;
	bool parked;	/* a write waiting */
	size_t modeled; /* of its bytes, those in the model (txq) already */
	bool lost;	/* queued or waiting when the handheld left: its bytes are gone */
	uint32_t uid;	/* an open's */
	uint64_t kh;	/* ... and the kernel's name of its file (--stream-data) */
	uint64_t userns;
	bool admin;
	unsigned int cmd; /* an ioctl's */
	uintptr_t arg;
};

/* A FIFO of bytes. */
struct model_q {
	uint8_t b[QMAX];
	size_t head, len;
};

struct file {
	bool open, hung_up, admin;
	uint64_t fh, session;
	uint32_t uid;
	uint64_t userns;
	/* a poller sleeps on it until notified: what it waits for (0: any) */
	bool asleep;
	unsigned int wants;
	int handle; /* its address is the poll handle */
	/* an epoll ET poller told POLLIN or POLLOUT sleeps until told of news:
	 * input, a completed transfer, settings set (the port's counts then) */
	bool et_asleep;
	unsigned int et_wants;
	uint64_t et_rx, et_tx, et_settings;
	/* what the kernel holds, pushed (PUSH_KEPT) */
	bool cached;
	unsigned int cache;
	/* --stream-data: the kernel's name of the file, its buffer of pushed
	 * input; gone: the kernel released it, pilotd has not heard yet */
	uint64_t kh;
	bool listening, kgone;
	uint8_t kbuf[PORT_PUSH_INPUT_MAX];
	size_t kbuf_len;
};

/* How pollers hear: the first input byte chooses. */
enum { PUSH_NONE, PUSH_KEPT, PUSH_REFUSED, PUSH_WAYS };

/* --stream-data: a read() that found the kernel's buffer empty, its FUSE_READ not delivered yet */
#define NFLIGHT 4
struct read_in_flight {
	bool busy, front_saw; /* front_saw: the front refuses pushes (EAGAIN), else the kernel (EBUSY) */
	int file;
	size_t size;
	bool nonblock;
};

static struct fuzz {
	int push;
	bool stream; /* pilotd --stream-data on a kernel that offers it */
	struct port port;
	struct ph h; /* the front (answers, each at most once) and the hooks' depth */
	struct input in;
	struct req reqs[NREQ];
	struct file files[NFILES];
	uint64_t session; /* counts arrivals, as the harness sees them */
	bool carrier;
	uint64_t now;
	uint8_t rx_counter, tx_counter;

	/* input: exact while bytes pass unchanged */
	bool rx_exact;
	bool canon;	    /* the settings' canonical mode, as last answered */
	struct model_q rxm; /* rxq and the line being edited */
	size_t line;	    /* canonical: the line being edited, its length */
	uint64_t rx_session;
	uint64_t rx_allowed; /* discards the rules allow, in all */
	struct {
		bool busy;
		size_t size;
		uint64_t epoch;
	} xfer[NIN];
	uint64_t epoch; /* counts last closes and departures */

	/* output: exact while bytes pass unchanged */
	bool tx_exact;
	struct model_q txm;
	size_t tx_ahead;   /* sent before their write was answered */
	size_t inflight;   /* what the transport holds from tx_take */
	uint64_t tx_cut;   /* txq's tail cut by flushes and the closing wait, seen */
	int waiting[NREQ]; /* parked writes, in the order they parked */
	int nwaiting;
	struct req *writing; /* a write inside port_write(), queued, not yet answered */

	/* the session */
	bool excl;	 /* TIOCEXCL holds */
	bool close_owed; /* a last close came (the harness's count), its hook not yet */

	/* --stream-data */
	uint64_t next_kh;
	uint64_t pushed; /* bytes the kernel took, in all */
	struct read_in_flight flight[NFLIGHT];

	uint8_t reenter; /* which hooks call back, and how */
	int budget; /* hook actions left in this step: a handheld is not infinitely fast */
} fz;

static int trace = -1; /* FUZZ_PORT_TRACE=1: print the steps */

/* FUZZ_PORT_TRACE: what a step read and did, one indented line each */
__attribute__((format(printf, 1, 2))) static void tr_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("  ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* (the arguments are worked out only when tracing) */
#define tr(...)                                                                                    \
	do {                                                                                       \
		if (trace)                                                                         \
			tr_print(__VA_ARGS__);                                                     \
	} while (0)

static void *req_ptr(int i)
{
	return &fz.h.reqs[i];
}

static struct req *req_of(void *r)
{
	return &fz.reqs[ph_index(&fz.h, r)];
}

static const struct ph_answer *answer_of(int i)
{
	return ph_ans(&fz.h, req_ptr(i));
}

static void mq_push(struct model_q *q, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(q->len < QMAX);
		q->b[(q->head + q->len++) % QMAX] = b[i];
	}
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

static uint8_t tagged(uint8_t b, uint64_t session)
{
	return (uint8_t)((b & ~TAG) | (session & 1 ? TAG : 0));
}

/* ---- the settings, as the model sees them ---- */

#define IN_MAPS (ISTRIP | INLCR | IGNCR | ICRNL | IUCLC | IXON | PARMRK)

/* Lines, as the port keeps them: EXTPROC makes n_tty queue bytes alone. */
static bool canon_of(const struct termios2 *t)
{
	return (t->c_lflag & (ICANON | EXTPROC)) == ICANON;
}

/* Received bytes reach readers unchanged (canonical: split into lines by '\n' alone). */
static bool rx_plain(const struct termios2 *t)
{
	if ((t->c_iflag & IN_MAPS) || (t->c_lflag & ISIG))
		return false;
	if (!canon_of(t))
		return true;
	return !(t->c_lflag & IEXTEN) && !t->c_cc[VERASE] && !t->c_cc[VKILL] && !t->c_cc[VEOF] &&
	       !t->c_cc[VEOL];
}

/* Written bytes reach the handheld unchanged, and nothing else does (no echo). */
static bool tx_plain(const struct termios2 *t)
{
	return ldisc_output_raw(t) && !(t->c_lflag & (ECHO | ECHONL));
}

static size_t rx_held(void)
{
	return byteq_len(&fz.port.rxq) + fz.port.ldisc.line_len;
}

static bool port_holds_input(void)
{
	return rx_held() || fz.port.lines.count;
}

/* ---- the front's answers ---- */

static uint64_t session_of_new_file(void)
{
	return fz.carrier ? fz.session : fz.session + 1;
}

static int live_files(void)
{
	int n = 0;

	for (int i = 0; i < NFILES; i++)
		n += fz.files[i].open && !fz.files[i].hung_up;
	return n;
}

static bool reader_of_rx_left(void)
{
	for (int i = 0; i < NFILES; i++)
		if (fz.files[i].open && fz.files[i].session == fz.rx_session)
			return true;
	return false;
}

/* Input nobody of its session can read any more is dropped (and counted). */
static void input_orphaned(void)
{
	if (port_holds_input() && !reader_of_rx_left()) {
		fz.rx_allowed += rx_held();
		fz.rxm.len = 0;
		fz.line = 0;
	}
}

/* The session's last live file closed (the harness's count). */
static void last_close(void)
{
	fz.close_owed = true;
	fz.epoch++; /* IN transfers in flight are cancelled now */
	fz.excl = false;
}

static int h_open(struct req *q, uint64_t fh)
{

	FUZZ_CHECK(q->kind == R_OPEN);
	for (int i = 0; i < NFILES; i++) {
		if (!fz.files[i].open) {
			fz.files[i] = (struct file){ .open = true,
						     .fh = fh,
						     .session = session_of_new_file(),
						     .uid = q->uid,
						     .userns = q->userns,
						     .admin = q->admin,
						     .kh = q->kh };
			tr("answer: open, file %d (session %llu)\n", i,
			   (unsigned long long)fz.files[i].session);
			return 0;
		}
	}
	/* no slot: as if the opener were gone; the port releases it */
	input_orphaned();
	if (live_files() == 0)
		last_close();
	return -ENOENT;
}

/*
 * Under EXTPROC with ICANON a read whose last piece of 64 bytes is a lone
 * VEOF, the last byte there, does not return it (n_tty's
 * copy_from_read_buf()): the model drops it too.
 */
static void lone_eof_read(const struct file *f, size_t len)
{
	const struct termios2 *t = &fz.port.tty.termios;

	if (fz.rx_exact && (t->c_lflag & (ICANON | EXTPROC)) == (ICANON | EXTPROC) &&
	    fz.rx_session == f->session && fz.rxm.len == len + 1 && rx_held() == 0 &&
	    (len + 1) % 64 == 1 && mq_at(&fz.rxm, len) == t->c_cc[VEOF])
		fz.rxm.len--; /* the model's last byte */
}

/* A read of a file whose bytes the model cannot follow: each has its session's tag. */
static void h_data(struct req *q, const uint8_t *b, size_t len)
{
	const struct file *f = &fz.files[q->file];

	FUZZ_CHECK(q->kind == R_READ);
	lone_eof_read(f, len);
	if (len == 0)
		return;
	FUZZ_CHECK(f->open && len <= cfg.read_max);
	/* a request comes when the kernel's buffer was empty, and no push
	 * lands while it waits: pushed bytes are older than these */
	FUZZ_CHECK(f->kbuf_len == 0);
	/* the input there is of the reader's session, NULs included */
	FUZZ_CHECK(fz.rx_session == f->session);
	/* (a NUL: a VEOF received in canonical mode reads as one once it
	 * goes off, as in n_tty, whatever the VEOF character's tag) */
	for (size_t i = 0; i < len; i++)
		FUZZ_CHECK(b[i] == 0 || (b[i] & TAG) == tagged(0, f->session));
	if (!fz.rx_exact)
		return;
	FUZZ_CHECK(len <= fz.rxm.len);
	for (size_t i = 0; i < len; i++)
		FUZZ_CHECK(b[i] == mq_at(&fz.rxm, i));
	mq_pop(&fz.rxm, len);
}

static void sync_tx(void);
static uint64_t tx_cut_now(void);
static void after_events(uint64_t now);
static void deliver_reads_of(int f);

/* Does txq begin with the model's first mlen bytes, then tail's tlen? */
static bool txq_begins(size_t mlen, const uint8_t *tail, size_t tlen)
{
	static uint8_t buf[QMAX];
	size_t n = mlen + tlen;

	if (byteq_len(&fz.port.txq) < n || n > sizeof(buf))
		return false;
	byteq_peek(&fz.port.txq, 0, buf, n);
	for (size_t i = 0; i < mlen; i++)
		if (buf[i] != mq_at(&fz.txm, i))
			return false;
	return memcmp(buf + mlen, tail, tlen) == 0;
}

/* q's next len bytes went into txq; some may already be sent and done. */
static void model_pushed(struct req *q, size_t len)
{
	const uint8_t *bytes;
	size_t skip, n, cut;

	q->modeled += len;
	if (!fz.tx_exact)
		return;
	skip = len < fz.tx_ahead ? len : fz.tx_ahead;
	fz.tx_ahead -= skip;
	bytes = q->data + q->modeled - len + skip;
	n = len - skip;
	cut = (size_t)(tx_cut_now() - fz.tx_cut);
	/* a flush that came before them cut what was there before them ... */
	if (cut <= fz.txm.len && txq_begins(fz.txm.len - cut, bytes, n)) {
		sync_tx();
		mq_push(&fz.txm, bytes, n);
		return;
	}
	/* ... or one after them, before their answer (ISIG in a hook): the tail of all */
	mq_push(&fz.txm, bytes, n);
	sync_tx();
}

/* A waiting write goes into txq in parts as room comes (n_tty_write()):
 * the part queued so far is the port's parked entry's done. */
static void sync_parked(void)
{
	for (struct parked *e = fz.port.writes.head; e; e = e->next) {
		struct req *q = req_of(e->req);

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

static void h_written(struct req *q, size_t len)
{

	FUZZ_CHECK(q->kind == R_WRITE && len <= q->len);
	if (q->lost) { /* taken into txq just before a departure discarded it */
		if (q->parked)
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

/* New settings, answered: the model stops following bytes it cannot. */
static void settings_changed(void)
{
	const struct termios2 *t = &fz.port.tty.termios;

	if (!rx_plain(t) || fz.port.ldisc.lnext)
		fz.rx_exact = false;
	/* canonical mode on: the unread bytes become a line, and a NUL that
	 * ends them its VEOF (n_tty_set_termios() marks the last byte the
	 * line's end, a NUL there is not read); a NUL again if it goes off */
	if (canon_of(t) && !fz.canon && fz.rx_exact && fz.rxm.len &&
	    mq_at(&fz.rxm, fz.rxm.len - 1) == 0)
		fz.rx_exact = false;
	fz.canon = canon_of(t);
	if (!tx_plain(t)) {
		fz.tx_exact = false;
		fz.txm.len = fz.tx_ahead = 0;
	}
	if (!canon_of(t))
		fz.line = 0; /* the line being edited became readable bytes */
}

static void h_ioctl(struct req *q)
{
	const struct file *f = &fz.files[q->file];

	FUZZ_CHECK(q->kind == R_IOCTL);
	switch (q->cmd) {
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
		settings_changed();
		if (q->cmd != TCSETSF)
			break;
		/* fall through: TCSETSF flushes the input */
	case TCFLSH:
		if ((q->cmd == TCSETSF || q->arg != TCOFLUSH) && f->session == fz.rx_session) {
			fz.rxm.len = 0;
			fz.line = 0;
		}
		break;
	case TIOCEXCL: fz.excl = true; break;
	case TIOCNXCL: fz.excl = false; break;
	}
}

static void h_err(struct req *q, int err)
{
	FUZZ_CHECK(err > 0);
	/* TIOCEXCL: only CAP_SYS_ADMIN opens past it, and only while it holds */
	if (q->kind == R_OPEN && err == EBUSY)
		FUZZ_CHECK(fz.excl && !q->admin);
	if (q->kind == R_WRITE && q->parked) {
		FUZZ_CHECK(q->modeled == 0); /* an error answer takes no bytes */
		unwait(q);
	}
}

/* Each request is answered at most once: then the model follows the answer. */
static void check_kernel_cache(void);

/* The first bytes of a read, for the trace: C escapes, printable as they are. */
static const char *shown(const uint8_t *b, size_t len)
{
	static char out[16 + 24 * 4];
	size_t o = 0;

	if (!trace || len == 0)
		return "";
	o += (size_t)snprintf(out, sizeof(out), ": \"");
	for (size_t i = 0; i < len && i < 24; i++)
		o += (size_t)snprintf(out + o, sizeof(out) - o,
				      b[i] >= 0x20 && b[i] < 0x7f && b[i] != '"' && b[i] != '\\'
					      ? "%c"
					      : "\\x%02x",
				      b[i]);
	snprintf(out + o, sizeof(out) - o, len > 24 ? "\"..." : "\"");
	return out;
}

static int on_answer(struct ph *h, void *r, const struct ph_answer *a)
{
	struct req *q = req_of(r);

	FUZZ_CHECK(a->count == 1);
	check_kernel_cache(); /* the caller it wakes may poll at once */
	if (a->kind == PH_DATA)
		tr("answer #%d: read of file %d, %zu bytes%s\n", ph_index(h, r), q->file, a->len,
		   shown(a->data, a->len));
	else if (a->kind == PH_WRITTEN)
		tr("answer #%d: write of file %d, %zu of %zu bytes\n", ph_index(h, r), q->file,
		   a->len, q->len);
	else if (a->kind == PH_IOCTL)
		tr("answer #%d: ioctl of file %d done\n", ph_index(h, r), q->file);
	else if (a->kind == PH_ERR)
		tr("answer #%d: %s: %s\n", ph_index(h, r),
		   q->kind == R_OPEN	? "open"
		   : q->kind == R_READ	? "read"
		   : q->kind == R_WRITE ? "write"
					: "ioctl",
		   strerrorname_np(a->err));
	switch (a->kind) {
	case PH_OPEN: return h_open(q, a->fh);
	case PH_DATA:
		/* (no read asks more than the harness keeps of an answer) */
		FUZZ_CHECK(a->len <= PH_DATA_MAX);
		h_data(q, a->data, a->len);
		break;
	case PH_WRITTEN: h_written(q, a->len); break;
	case PH_IOCTL: h_ioctl(q); break;
	case PH_FETCH: FUZZ_CHECK(q->kind == R_IOCTL); break;
	case PH_ERR: h_err(q, a->err); break;
	case PH_NONE: FUZZ_CHECK(!"an answer of no kind"); break;
	}
	return 0;
}

/* ---- the transport, which may call back ---- */

static void carrier_up(void);
static void carrier_down(void);
static void in_complete(unsigned int which, size_t n, uint8_t pattern, bool cancelled);
static void in_fill(size_t k);
static void tx_some(size_t max, size_t done);

static void reenter(unsigned int how)
{
	if (fz.budget <= 0)
		return;
	fz.budget--;
	switch (how & 3) {
	case 0: break;
	case 1:
		if (fz.carrier)
			carrier_down();
		else
			carrier_up();
		break;
	case 2: in_complete(how >> 2, 1 + (how >> 2) * 37, 0, false); break;
	case 3: tx_some(1 + (how >> 2) * 97, (how >> 4) & 1 ? 0 : ~(size_t)0); break;
	}
}

static void h_rx_room(void)
{
	if ((fz.reenter & 0x40) && fz.budget > 0) /* the transport submits as room comes */
		in_fill(1 + fz.reenter % IN_MAX);
	reenter(fz.reenter >> 2);
}

static void h_rx_stop(void)
{
	/* one transfer completed while the cancel went out: taken by nobody */
	if (fz.reenter & 0x80)
		in_complete(0, IN_MAX, 0, true);
	for (int i = 0; i < NIN; i++)
		fz.xfer[i].busy = false;
}

static void h_last_close(void)
{
	/* one for the last closes since the previous one (a due hook is called once) */
	FUZZ_CHECK(fz.close_owed);
	fz.close_owed = false;
	reenter(fz.reenter >> 4 & 1);
}

/* Inside each transport hook, never inside another (the harness counts the depth). */
static void on_hook(struct ph *h, enum ph_hook hook)
{
	if (h->depth != 1)
		FUZZ_CHECK(!"a transport hook was called from inside another");
	switch (hook) {
	case PH_TX_READY: reenter(fz.reenter); break;
	case PH_TX_ABORT: break; /* the OUT transfer is done or not taken yet */
	case PH_RX_ROOM: h_rx_room(); break;
	case PH_RX_STOP: h_rx_stop(); break;
	case PH_LAST_CLOSE: h_last_close(); break;
	}
}

/* ---- transport events, and the model's view of them ---- */

/* The port's input is what the model says, while it can say. */
static void sync_rx(void)
{
	const struct port *p = &fz.port;
	size_t sum = 0;

	for (unsigned int i = 0; i < p->lines.count; i++)
		sum += p->lines.len[(p->lines.head + i) % p->lines.cap];
	if (canon_of(&p->tty.termios))
		FUZZ_CHECK(sum == byteq_len(&p->rxq));
	else
		FUZZ_CHECK(p->lines.count == 0 && p->ldisc.line_len == 0);
	/* nothing dropped but what the rules allow */
	FUZZ_CHECK(p->stats.rx_discarded == fz.rx_allowed);
	if (!fz.rx_exact)
		return;
	FUZZ_CHECK(rx_held() == fz.rxm.len);
	if (canon_of(&p->tty.termios))
		FUZZ_CHECK(p->ldisc.line_len == fz.line);
}

/* What cut txq's tail: tcflush(TCOFLUSH), ISIG, and the closing wait's end
 * (a discard while a handheld is attached; a departure clears it all). */
static uint64_t tx_cut_now(void)
{
	return fz.port.stats.tx_flushed + (fz.carrier ? fz.port.stats.tx_discarded : 0);
}

/* txq lost its tail: so does the model (what is cut was never sent). */
static void sync_tx(void)
{
	uint64_t cut = tx_cut_now() - fz.tx_cut;

	fz.tx_cut += cut;
	if (!fz.tx_exact)
		return;
	if (cut > fz.txm.len) {
		/* it cut bytes of a write not answered yet (a flush in a hook the
		 * answer ran first): the model follows again once txq is empty */
		fz.tx_exact = false;
		fz.txm.len = fz.tx_ahead = 0;
		return;
	}
	fz.txm.len -= cut;
}

/* The model takes up following the bytes once nothing it lost track of is queued. */
static void resync(void)
{
	const struct termios2 *t = &fz.port.tty.termios;

	if (!fz.rx_exact && rx_plain(t) && !port_holds_input() && !fz.port.ldisc.lnext) {
		fz.rx_exact = true;
		fz.rxm.len = fz.line = 0;
	}
	/* echoes a stop held wait in the discipline's ring whatever the settings
	 * now, as n_tty's do: its next process_echoes() sends them */
	if (!fz.tx_exact && tx_plain(t) && byteq_len(&fz.port.txq) == 0 && !fz.inflight &&
	    !ldisc_echoes_waiting(&fz.port.ldisc)) {
		for (struct parked *e = fz.port.writes.head; e; e = e->next)
			if (e->done)
				return;
		fz.tx_exact = true;
		fz.txm.len = fz.tx_ahead = 0;
		fz.tx_cut = tx_cut_now();
	}
}

/* The models follow an arrival or a departure before the port's hooks run. */
static void carrier_up(void)
{
	if (port_holds_input() && fz.rx_session != fz.session + 1) {
		fz.rx_allowed += rx_held(); /* the departed handheld's */
		fz.rxm.len = fz.line = 0;
	}
	tr("carrier up: handheld %llu arrives\n", (unsigned long long)fz.session + 1);
	fz.carrier = true;
	fz.session++;
	fz.rx_session = fz.session;
	fz.txm.len = 0; /* empty already: a departure discarded it */
	fz.tx_ahead = fz.inflight = 0;
	fz.tx_cut = tx_cut_now();
	port_carrier_up(&fz.port);
	sync_rx();
}

static void carrier_down(void)
{
	tr("carrier down: the handheld leaves\n");
	fz.carrier = false;
	for (int i = 0; i < NIN; i++)
		fz.xfer[i].busy = false; /* the device is gone */
	fz.epoch++;
	fz.excl = false;
	for (int i = 0; i < NFILES; i++)
		fz.files[i].hung_up |= fz.files[i].open;
	for (int i = 0; i < fz.nwaiting; i++)
		fz.reqs[fz.waiting[i]].lost = true;
	/* a write queues before its answer runs the transport's hooks
	 * (answer_queued()): a departure there discards what it queued, and
	 * it is answered as accepted, as n_tty's write is before a hangup */
	if (fz.writing)
		fz.writing->lost = true;
	input_orphaned();
	fz.line = 0; /* the line being edited became the hung-up files' last */
	fz.txm.len = 0;
	fz.tx_ahead = fz.inflight = 0;
	fz.tx_cut = tx_cut_now();
	port_carrier_down(&fz.port);
	/* parked writes: EIO; a batch being served is answered after the hook */
	FUZZ_CHECK(fz.h.depth > 0 || fz.nwaiting == 0);
	FUZZ_CHECK(port_tx_queued(&fz.port) == 0);
	sync_rx();
}

static size_t promised(void)
{
	size_t n = 0;

	for (int i = 0; i < NIN; i++)
		n += fz.xfer[i].busy ? fz.xfer[i].size : 0;
	return n;
}

/* Submit one IN transfer of k bytes if the port's room covers it and all in flight. */
static bool in_submit(size_t k)
{
	size_t p = promised();

	if (!fz.carrier || p + k > port_rx_room(&fz.port) || p + k > INFLIGHT_MAX)
		return false;
	for (int i = 0; i < NIN; i++) {
		if (!fz.xfer[i].busy) {
			fz.xfer[i].busy = true;
			fz.xfer[i].size = k;
			fz.xfer[i].epoch = fz.epoch;
			return true;
		}
	}
	return false;
}

static void in_fill(size_t k)
{
	while (in_submit(k))
		;
	tr("fill %zu: %zu bytes in flight (room %zu)\n", k, promised(), port_rx_room(&fz.port));
}

/* Bytes that pass unchanged, into the model: canonical lines end at '\n'. */
static void model_receive(const uint8_t *b, size_t n)
{
	bool canon = canon_of(&fz.port.tty.termios);

	for (size_t i = 0; i < n; i++) {
		if (canon && b[i] != '\n' && fz.line + 1 >= LDISC_LINE_MAX) {
			fz.rx_allowed++; /* n_tty's full line */
			continue;
		}
		mq_push(&fz.rxm, &b[i], 1);
		if (canon)
			fz.line = b[i] == '\n' ? 0 : fz.line + 1;
	}
}

/* The handheld's n bytes, or TIOCSTI's, reach the port: what the model expects of them. */
static void expect_received(const uint8_t *b, size_t n, uint64_t *dropped)
{
	if (!fz.carrier || live_files() == 0) {
		fz.rx_allowed += n; /* nobody listens: a cancelled transfer's */
		return;
	}
	if (fz.rx_exact)
		model_receive(b, n);
	*dropped = fz.port.ldisc.dropped;
}

static void in_bytes(uint8_t *buf, size_t n, uint8_t pattern)
{
	uint8_t fill = input_u8(&fz.in);

	for (size_t i = 0; i < n; i++) {
		uint8_t b = pattern % 3 == 0   ? fz.rx_counter++
			    : pattern % 3 == 1 ? fill
					       : input_u8(&fz.in);

		buf[i] = tagged(b, fz.session);
	}
}

/*
 * A transfer in flight completes with n bytes (of the size it asked for at
 * most): pattern's, or (burst) the counter's, tagged, without input.
 */
static void in_complete_as(unsigned int which, size_t n, uint8_t pattern, bool cancelled,
			   bool burst)
{
	uint8_t buf[IN_MAX];
	uint64_t dropped = UINT64_MAX;
	int i = (int)(which % NIN), k;

	for (k = 0; k < NIN && !fz.xfer[(i + k) % NIN].busy; k++)
		;
	if (k == NIN) {
		if (!burst)
			tr("complete: no IN transfer in flight (nothing more read)\n");
		return;
	}
	i = (i + k) % NIN;
	/* the last close (or departure) since it was submitted cancelled it */
	FUZZ_CHECK(cancelled || fz.xfer[i].epoch == fz.epoch);
	if (n > fz.xfer[i].size)
		n = fz.xfer[i].size;
	fz.xfer[i].busy = false;
	if (burst)
		for (size_t j = 0; j < n; j++)
			buf[j] = tagged(fz.rx_counter++, fz.session);
	else
		in_bytes(buf, n, pattern);
	tr("complete transfer %d: %zu bytes (pattern %u%s)\n", i, n, pattern % 3,
	   burst ? ", burst" : "");
	expect_received(buf, n, &dropped);
	port_rx(&fz.port, buf, n, fz.now);
	if (dropped != UINT64_MAX && !fz.rx_exact)
		fz.rx_allowed += fz.port.ldisc.dropped - dropped; /* full lines */
	sync_rx();
}

static void in_complete(unsigned int which, size_t n, uint8_t pattern, bool cancelled)
{
	in_complete_as(which, n, pattern, cancelled, false);
}

/* Writes go into txq in parts as room comes: the waiting one's next byte does not fit. */
static void check_writer_served(void)
{
	const struct port *p = &fz.port;
	const struct parked *e = p->writes.head;
	struct ldisc l;
	uint8_t out[LDISC_OUT_MAX];
	size_t space = byteq_space(&p->txq), taken;

	/* (an ISIG flush in the round serves them after it) */
	if (fz.h.depth || !p->carrier || !e || p->output_flushed)
		return;
	if (ldisc_output_raw(&p->tty.termios)) {
		FUZZ_CHECK(space == 0);
		return;
	}
	l = p->ldisc;
	ldisc_output(&l, &p->tty.termios, e->data + e->done, 1, out,
		     space < sizeof(out) ? space : sizeof(out), &taken);
	FUZZ_CHECK(taken == 0);
}

/* The transport takes up to max bytes and the handheld accepts done of them. */
static void tx_some(size_t max, size_t done)
{
	static uint8_t buf[8192];
	unsigned int xchars = fz.port.xchar_count;
	size_t n;

	if (max > sizeof(buf))
		max = sizeof(buf);
	sync_tx();
	n = port_tx_take(&fz.port, buf, max);
	fz.inflight = n;
	if (done > n)
		done = n;
	if (n)
		tr("tx: the transport took %zu bytes (of %zu), the handheld %zu\n", n, max, done);
	/* TCIOFF/TCION: the STOP or START character first, then the output */
	if (xchars && n) {
		size_t x = n < xchars ? n : xchars;

		if (x > PORT_XCHARS_MAX - 1)
			x = PORT_XCHARS_MAX - 1; /* one slot stays free */
		FUZZ_CHECK(memcmp(buf, fz.port.xchars, x) == 0);
		if (done > x)
			done = x;
		fz.inflight = 0;
		port_tx_done(&fz.port, done); /* the output after them goes again */
		/* at least those taken went (a hook may take more, or depart) */
		FUZZ_CHECK(fz.port.xchar_count <= xchars - done);
		sync_tx();
		return;
	}
	fz.inflight = 0;
	if (fz.tx_exact) {
		/* the head of what was written in this session, in order */
		for (size_t i = 0; i < n && i < fz.txm.len; i++)
			FUZZ_CHECK(buf[i] == mq_at(&fz.txm, i));
		if (done <= fz.txm.len) {
			mq_pop(&fz.txm, done);
		} else { /* part of a write whose answer is still to come */
			fz.tx_ahead += done - fz.txm.len;
			fz.txm.len = 0;
		}
	}
	port_tx_done(&fz.port, done);
	if (done)
		check_writer_served();
	sync_tx();
}

/* ---- --stream-data: the kernel's buffers of pushed input ---- */

/* What wakes a poller that waits for events (0: any). */
static unsigned int waking(unsigned int wants)
{
	return (wants ? wants : ~0u) | POLLERR | POLLHUP;
}

static bool read_parked(void)
{
	for (int i = 0; i < fz.h.nreq; i++)
		if (fz.reqs[i].kind == R_READ && answer_of(i)->count == 0)
			return true;
	return false;
}

/* port_push.c's rule, from the model: may the one open file f be pushed to? */
static bool model_pushable(int f)
{
	const struct termios2 *t = &fz.port.tty.termios;
	const struct file *fl = &fz.files[f];
	int open = 0;

	for (int i = 0; i < NFILES; i++)
		open += fz.files[i].open;
	if (open != 1 || fl->hung_up || !fl->listening || !fz.carrier)
		return false;
	if (fl->session != fz.rx_session || read_parked())
		return false;
	if ((t->c_lflag & ICANON) || t->c_cc[VMIN] > 1)
		return false;
	return !(t->c_lflag & ISIG) || (t->c_lflag & NOFLSH);
}

static bool read_in_flight(int f, bool *front_saw)
{
	for (int i = 0; i < NFLIGHT; i++)
		if (fz.flight[i].busy && fz.flight[i].file == f) {
			*front_saw = fz.flight[i].front_saw;
			return true;
		}
	return false;
}

/* The kernel's new input for a file (kernel-patches/stream-data): its poller hears. */
static void kernel_input_came(struct file *fl)
{
	if (fl->asleep && (waking(fl->wants) & POLLIN))
		fl->asleep = false;
	if (fl->et_wants & POLLIN)
		fl->et_asleep = false;
}

/* port_hooks.push_input: the kernel of kernel-patches/stream-data, EBUSY included. */
static int kernel_push_input(void *ctx, uint64_t key, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	bool front_saw = false;
	struct file *fl;
	int f;

	(void)ctx;
	FUZZ_CHECK(fz.stream && len >= 1 && len <= PORT_PUSH_INPUT_MAX);
	for (f = 0; f < NFILES && !(fz.files[f].open && fz.files[f].kh == key); f++)
		;
	FUZZ_CHECK(f < NFILES); /* a file pilotd released is not pushed to */
	fl = &fz.files[f];
	FUZZ_CHECK(model_pushable(f));
	if (trace)
		fprintf(stderr, "  push %zu bytes to file %d (%zu there)%s\n", len, f, fl->kbuf_len,
			fl->kgone ? ": ENOENT" : "");
	if (fl->kgone)
		return -ENOENT;
	if (read_in_flight(f, &front_saw)) {
		if (trace)
			fprintf(stderr, "  refused: %s\n", front_saw ? "EAGAIN" : "EBUSY");
		return front_saw ? -EAGAIN : -EBUSY;
	}
	if (len > PORT_PUSH_INPUT_MAX - fl->kbuf_len) {
		if (trace)
			fprintf(stderr, "  refused: ENOSPC\n");
		return -ENOSPC;
	}
	/* rxq's head, the file's session's */
	FUZZ_CHECK(len <= byteq_len(&fz.port.rxq));
	for (size_t i = 0; i < len; i++)
		FUZZ_CHECK(b[i] == 0 || (b[i] & TAG) == tagged(0, fl->session));
	if (fz.rx_exact) {
		FUZZ_CHECK(len <= fz.rxm.len);
		for (size_t i = 0; i < len; i++)
			FUZZ_CHECK(b[i] == mq_at(&fz.rxm, i));
		mq_pop(&fz.rxm, len);
	}
	memcpy(fl->kbuf + fl->kbuf_len, b, len);
	fl->kbuf_len += len;
	fz.pushed += len;
	kernel_input_came(fl);
	return 0;
}

/*
 * After the rounds: where the rule allows and the kernel would take them,
 * no bytes wait in rxq (port_after_events() pushes last).  Not after a
 * refusal that stops the pushes (input_push_off), nor
 * for a file the kernel let go (ENOENT).
 */
static void check_pushed_what_fits(int f)
{
	const struct port_file *pf = port_file_find(&fz.port, fz.files[f].fh);
	size_t waiting = byteq_len(&fz.port.rxq);
	bool front_saw;

	if (!waiting || !model_pushable(f) || fz.port.input_push_off || !pf || !pf->input_keyed ||
	    read_in_flight(f, &front_saw))
		return;
	if (waiting > PORT_PUSH_INPUT_MAX)
		waiting = PORT_PUSH_INPUT_MAX;
	FUZZ_CHECK(waiting > PORT_PUSH_INPUT_MAX - fz.files[f].kbuf_len);
}

/* read() on a file whose kernel buffer holds bytes: they, without a request. */
static void kernel_read(struct file *fl, size_t size)
{
	size_t n = size < fl->kbuf_len ? size : fl->kbuf_len;

	if (trace)
		fprintf(stderr, "  read() takes %zu of the kernel's %zu bytes\n", n, fl->kbuf_len);

	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(fl->kbuf[i] == 0 || (fl->kbuf[i] & TAG) == tagged(0, fl->session));
	memmove(fl->kbuf, fl->kbuf + n, fl->kbuf_len - n);
	fl->kbuf_len -= n;
}

/* ---- requests ---- */

static int new_req(int kind)
{
	int i = fz.h.nreq;

	if (i >= NREQ)
		return -1;
	fz.reqs[i] = (struct req){ .kind = kind };
	ph_req(&fz.h);
	return i;
}

static int pick_file(void)
{
	int i = input_u8(&fz.in) % NFILES;

	if (!fz.files[i].open)
		tr("file %d not open: the step reads nothing more\n", i);
	return fz.files[i].open ? i : -1;
}

/* A c_cc value: control characters mostly, any byte sometimes. */
static cc_t any_cc(void)
{
	uint8_t v = input_u8(&fz.in);

	return (cc_t)(v < 0x80 ? v & 0x1f : v < 0xc0 ? v : v ^ 0x80);
}

/* New settings: raw, plain canonical, any flags, any flags and any c_cc. */
static void make_settings(struct termios2 *t)
{
	uint8_t mode = input_u8(&fz.in);

	*t = fz.port.tty.termios;
	switch (mode % 4) {
	case 0: make_raw_termios(t); break;
	case 1:
		t->c_iflag = 0;
		t->c_oflag = mode & 4 ? OPOST | ONLCR : 0;
		t->c_lflag = ICANON | (mode & 8 ? ECHO : 0) | (mode & 16 ? ECHONL : 0);
		t->c_cc[VERASE] = t->c_cc[VKILL] = t->c_cc[VEOF] = t->c_cc[VEOL] = 0;
		break;
	case 3:
		for (int i = 0; i < NCCS; i++)
			t->c_cc[i] = any_cc();
		/* fall through */
	case 2:
		t->c_iflag = input_u16(&fz.in) & 0x7fff; /* every bit of them */
		t->c_oflag = input_u16(&fz.in);
		t->c_lflag = input_u32(&fz.in) & 0x1ffff;
		break;
	}
	t->c_cflag = (t->c_cflag & ~(tcflag_t)CLOCAL) | (mode & 32 ? 0 : CLOCAL);
	t->c_cc[VMIN] = input_u8(&fz.in) % 4;
	t->c_cc[VTIME] = input_u8(&fz.in) % 4;
	tr("settings (mode %u): iflag %#o oflag %#o lflag %#o%s VMIN %u VTIME %u\n", mode % 4,
	   t->c_iflag, t->c_oflag, t->c_lflag, t->c_cflag & CLOCAL ? " CLOCAL" : "", t->c_cc[VMIN],
	   t->c_cc[VTIME]);
}

/* TIOCSTI goes only where it leaves the transport's promise whole. */
static bool sti_fits(void)
{
	return byteq_len(&fz.port.rxq) + fz.port.ldisc.line_len + 2 * promised() + 2 <=
		       cfg.rxq_size &&
	       fz.port.ldisc.line_len + 4 < LDISC_LINE_MAX && fz.port.lines.count < PORT_LINES_MAX;
}

/* TIOCSTI with CAP_SYS_ADMIN: the byte is input of f's session. */
static void expect_sti(int f, uint8_t c, uint64_t *dropped)
{
	const struct file *fl = &fz.files[f];

	if (fl->session != fz.rx_session) {
		if (port_holds_input()) {
			fz.rx_allowed++; /* another session's input is there */
			return;
		}
		fz.rx_session = fl->session;
	}
	if (fz.rx_exact)
		model_receive(&c, 1);
	*dropped = fz.port.ldisc.dropped;
}

static void do_ioctl(int f)
{
	static const unsigned int cmds[] = { TCSBRK,	 TIOCMIWAIT, TCFLSH,   TCXONC,
					     TCSETSF,	 TCSETSW,    TCSETS,   FIONREAD,
					     TIOCOUTQ,	 TIOCEXCL,   TIOCNXCL, TCGETS,
					     TIOCGWINSZ, TIOCSWINSZ, TIOCSTI,  TIOCSSERIAL };
	static const char *const names[] = {
		"TCSBRK",     "TIOCMIWAIT", "TCFLSH",	"TCXONC",     "TCSETSF",  "TCSETSW",
		"TCSETS",     "FIONREAD",   "TIOCOUTQ", "TIOCEXCL",   "TIOCNXCL", "TCGETS",
		"TIOCGWINSZ", "TIOCSWINSZ", "TIOCSTI",	"TIOCSSERIAL"
	};
	unsigned int which;
	struct termios2 t;
	struct serial_struct ss;
	uint16_t ws[4] = { 24, 80, 0, 0 };
	uint8_t sti;
	struct tty_ioctl io = { 0 };
	uint16_t closing_wait = fz.port.tty.closing_wait;
	uint64_t dropped = UINT64_MAX;
	int r = new_req(R_IOCTL);

	if (r < 0)
		return;
	which = input_u8(&fz.in) % (sizeof(cmds) / sizeof(cmds[0]));
	io.cmd = cmds[which];
	io.arg = input_u8(&fz.in) % 4;
	io.out_len = input_u8(&fz.in) % 64;
	io.caller_admin = input_u8(&fz.in) & 1;
	tr("ioctl #%d: file %d %s arg %lu%s\n", r, f, names[which], (unsigned long)io.arg,
	   io.caller_admin ? " with CAP_SYS_ADMIN" : "");
	fz.reqs[r].file = f;
	fz.reqs[r].cmd = io.cmd;
	fz.reqs[r].arg = io.arg;
	if (io.cmd == TCSETSF || io.cmd == TCSETSW || io.cmd == TCSETS) {
		make_settings(&t);
		io.in = &t;
		io.in_len = sizeof(struct termios);
	} else if (io.cmd == TIOCSWINSZ) {
		io.in = ws;
		io.in_len = sizeof(ws);
	} else if (io.cmd == TIOCSSERIAL) {
		static const uint16_t waits[] = { ASYNC_CLOSING_WAIT_NONE, ASYNC_CLOSING_WAIT_INF,
						  1, 100, 3000 };

		memset(&ss, 0, sizeof(ss));
		ss.close_delay = fz.port.tty.close_delay;
		ss.closing_wait = waits[io.arg];
		io.in = &ss;
		io.in_len = sizeof(ss);
	} else if (io.cmd == TIOCSTI) {
		if (!sti_fits())
			io.cmd = TIOCOUTQ;
		sti = tagged(input_u8(&fz.in), fz.files[f].session);
		tr("TIOCSTI %#x%s\n", sti, io.cmd == TIOCSTI ? "" : ": no room, TIOCOUTQ instead");
		io.in = &sti;
		io.in_len = 1;
		if (io.cmd == TIOCSTI && io.caller_admin && !fz.files[f].hung_up)
			expect_sti(f, sti, &dropped);
	}
	port_ioctl(&fz.port, req_ptr(r), fz.files[f].fh, &io);
	if (io.cmd == FIONREAD)
		fz.files[f].listening |= !fz.files[f].hung_up;
	if (dropped != UINT64_MAX && !fz.rx_exact)
		fz.rx_allowed += fz.port.ldisc.dropped - dropped;
	/* what only CAP_SYS_ADMIN may do */
	if (!io.caller_admin && io.cmd == TIOCSTI)
		FUZZ_CHECK(answer_of(r)->count == 1 && answer_of(r)->kind == PH_ERR);
	if (!io.caller_admin && io.cmd == TIOCSSERIAL)
		FUZZ_CHECK(fz.port.tty.closing_wait == closing_wait);
}

static void do_open(void)
{
	uint8_t who = input_u8(&fz.in) % 7;
	/* root with CAP_SYS_ADMIN, uid 0 without it (a container's), three
	 * users, and in another user namespace uid 1000 and one of its
	 * subordinate uids (port.h "Bounds": a quarter for each user and for
	 * the namespace) */
	static const uint32_t uids[] = { 0, 0, 1000, 1001, 1002, 1000, 100006 };
	struct port_open_args a = { .uid = uids[who],
				    .userns = who >= 5 ? FUZZ_USERNS : PORT_USERNS_OWN,
				    .admin = who == 0,
				    .nonblock = input_u8(&fz.in) & 1,
				    .input_key = fz.stream ? ++fz.next_kh : 0,
				    .input_keyed = fz.stream };
	bool excl = fz.excl;
	int r = new_req(R_OPEN);

	if (r < 0)
		return;
	fz.reqs[r].uid = a.uid;
	fz.reqs[r].userns = a.userns;
	fz.reqs[r].admin = a.admin;
	fz.reqs[r].kh = a.input_key;
	tr("open #%d: uid %u%s%s%s\n", r, a.uid, a.admin ? " with CAP_SYS_ADMIN" : "",
	   a.userns != PORT_USERNS_OWN ? " in another namespace" : "",
	   a.nonblock ? " O_NONBLOCK" : "");
	port_open(&fz.port, req_ptr(r), &a);
	if (!a.admin && excl)
		FUZZ_CHECK(ph_is_err(&fz.h, req_ptr(r), EBUSY));
}

static void do_release(int f)
{
	bool live;

	/* the kernel releases a file with no call on it in flight */
	deliver_reads_of(f);
	/* its pushed bytes go with it, read by nobody */
	fz.files[f].kbuf_len = 0;
	if (fz.stream && fz.files[f].kgone == false && (input_u8(&fz.in) & 1)) {
		/* the kernel let it go a round before pilotd hears: ENOENT */
		fz.files[f].kgone = true;
		after_events(fz.now); /* (its hooks may hang it up) */
	}
	live = !fz.files[f].hung_up;
	tr("release file %d%s%s\n", f, live ? "" : " (hung up)",
	   fz.files[f].kgone ? ", the kernel's first" : "");
	fz.files[f].open = false;
	fz.files[f].asleep = fz.files[f].et_asleep = false;
	fz.files[f].cached = false;
	input_orphaned();
	if (live && live_files() == 0)
		last_close();
	port_release(&fz.port, fz.files[f].fh);
}

/* A read request reaches pilotd. */
static void read_request(int f, size_t size, bool nonblock)
{
	int r = new_req(R_READ);

	if (r < 0)
		return;
	fz.reqs[r].file = f;
	fz.files[f].listening |= !fz.files[f].hung_up;
	tr("read #%d: file %d, %zu bytes%s\n", r, f, size, nonblock ? " O_NONBLOCK" : "");
	port_read(&fz.port, req_ptr(r), fz.files[f].fh, size, nonblock, fz.now);
	if (answer_of(r)->count == 0)
		tr("read #%d parked\n", r);
}

/* A read in flight reaches pilotd. */
static void deliver_read(int i)
{
	struct read_in_flight *fl = &fz.flight[i % NFLIGHT];

	if (!fl->busy)
		return;
	fl->busy = false;
	tr("a read in flight of file %d reaches pilotd\n", fl->file);
	read_request(fl->file, fl->size, fl->nonblock);
}

static void deliver_reads_of(int f)
{
	for (int i = 0; i < NFLIGHT; i++)
		if (fz.flight[i].busy && fz.flight[i].file == f)
			deliver_read(i);
}

/*
 * read(): with --stream-data the kernel takes from its buffer first; when
 * that is empty, the request may stay in flight (delivered by op 20).
 */
static void do_read(int f)
{
	size_t size = input_u8(&fz.in) * 4u;
	uint8_t how = input_u8(&fz.in);

	if (!fz.stream) {
		read_request(f, size, how & 1);
		return;
	}
	if (size && fz.files[f].kbuf_len) {
		kernel_read(&fz.files[f], size);
		return;
	}
	if (how & 2) {
		for (int i = 0; i < NFLIGHT; i++) {
			if (!fz.flight[i].busy) {
				fz.flight[i] = (struct read_in_flight){ .busy = true,
									.front_saw = how & 4,
									.file = f,
									.size = size,
									.nonblock = how & 1 };
				tr("read of file %d, %zu bytes: in flight (%s)\n", f, size,
				   how & 4 ? "the front saw it" : "in the kernel");
				return;
			}
		}
	}
	read_request(f, size, how & 1);
}

static void do_write(int f)
{
	int r = new_req(R_WRITE);
	struct req *q;
	bool nonblock;

	if (r < 0)
		return;
	q = &fz.reqs[r];
	q->file = f;
	q->len = 1 + input_u16(&fz.in) % WRITEMAX;
	for (size_t i = 0; i < q->len; i++)
		q->data[i] = fz.tx_counter++;
	fz.writing = fz.carrier ? q : NULL; /* no handheld: answered at once */
	nonblock = input_u8(&fz.in) & 1;
	tr("write #%d: file %d, %zu bytes%s\n", r, f, q->len, nonblock ? " O_NONBLOCK" : "");
	port_write(&fz.port, req_ptr(r), fz.files[f].fh, q->data, q->len, nonblock);
	fz.writing = NULL;
	if (answer_of(r)->count == 0) {
		tr("write #%d parked\n", r);
		q->parked = true;
		fz.waiting[fz.nwaiting++] = r;
	}
}

/* What an edge-triggered sleeper must have been woken for by now. */
static unsigned int et_news(const struct file *fl)
{
	const struct port *p = &fz.port;
	unsigned int news = p->tty.settings != fl->et_settings ? POLLIN | POLLOUT : 0;

	news |= p->rx_arrivals != fl->et_rx ? POLLIN : 0;
	news |= p->tx_completions != fl->et_tx ? POLLOUT : 0;
	return news & fl->et_wants;
}

/* A poll, without a handle (select's pass that found another fd ready) or
 * with one: then, when nothing it waits for is ready, the poller sleeps. */
static void do_poll(int f)
{
	struct file *fl = &fz.files[f];
	uint8_t how = input_u8(&fz.in);
	unsigned int wants = (how & 2 ? POLLIN : 0) | (how & 4 ? POLLOUT : 0) |
			     (how & 8 ? POLLPRI : 0);
	bool et = (how & 17) == 17;

	unsigned int ev;

	if (fl->cached) {
		ev = fl->cache; /* the kernel answers: no request */
	} else if (!(how & 1)) {
		ev = port_poll(&fz.port, fl->fh, NULL, 0);
		fl->listening |= !fl->hung_up;
		tr("poll file %d without a handle: %#x\n", f, ev);
		return;
	} else {
		ev = port_poll(&fz.port, fl->fh, &fl->handle, wants);
		fl->listening |= !fl->hung_up;
		if (fz.push != PUSH_NONE)
			port_poll_key(&fz.port, fl->fh, (uint64_t)(fl - fz.files));
	}
	if (fl->kbuf_len)
		ev |= POLLIN; /* the kernel's own, of its buffer */
	tr("poll file %d for %#x%s: %#x\n", f, wants, et ? " (epoll ET)" : "", ev);
	if (et && (ev & wants & (POLLIN | POLLOUT))) {
		/* edge-triggered: told what it waits for, it sleeps all the same */
		fl->et_asleep = true;
		fl->et_wants = wants & (POLLIN | POLLOUT);
		fl->et_rx = fz.port.rx_arrivals;
		fl->et_tx = fz.port.tx_completions;
		fl->et_settings = fz.port.tty.settings;
	}
	if ((how & 1) && !(ev & waking(wants))) {
		/* beside another sleeper: what either waits for */
		fl->wants = !fl->asleep ? wants : fl->wants && wants ? fl->wants | wants : 0;
		fl->asleep = true;
	}
}

static void woken(void *handle)
{
	for (int f = 0; f < NFILES; f++)
		if (handle == &fz.files[f].handle)
			fz.files[f].asleep = fz.files[f].et_asleep = false;
}

/* The kernel took events: it wakes those who wait for one of wake. */
static void pushed(struct ph *h, uint64_t key, unsigned int events, unsigned int wake)
{
	struct file *fl = &fz.files[key];

	(void)h;
	FUZZ_CHECK(key < NFILES && fl->open);
	if (fl->asleep && (events & wake & waking(fl->wants)))
		fl->asleep = false;
	if (events & wake & (fl->et_wants | POLLERR | POLLHUP))
		fl->et_asleep = false;
	fl->cached = true;
	fl->cache = events;
}

/* What the kernel holds is what each file has. */
static void check_kernel_cache(void)
{
	for (int f = 0; f < NFILES; f++) {
		const struct file *fl = &fz.files[f];

		if (fl->open && fl->cached)
			FUZZ_CHECK(fl->cache == port_current_events(&fz.port,
							       port_file_find(&fz.port, fl->fh)));
	}
}

static int hooks_run(void)
{
	return fz.h.tx_ready + fz.h.tx_abort + fz.h.rx_room + fz.h.rx_stop + fz.h.last_close;
}

/*
 * After a round: no poller sleeps while what it waits for is ready.  What
 * the transport's hooks did at the round's end (here they may even take
 * or bring bytes at once) is left to the next round, run at once here as
 * pilotd's loop does when a hook noted work; that every such change is
 * noted in pilotd is not checked here.
 */
static void after_events(uint64_t now)
{
	/* rounds until no hook runs: a hook's action takes from a budget of 16
	 * (more than 8 rounds then: a false alarm of the checks below) */
	for (int i = 0, hooks = -1; i < 8 + 16 && hooks != hooks_run(); i++) {
		hooks = hooks_run();
		port_after_events(&fz.port, now);
	}
	for (int f = 0; f < NFILES; f++) {
		struct file *fl = &fz.files[f];

		if (fl->open && fl->asleep)
			FUZZ_CHECK(!(port_current_events(&fz.port, port_file_find(&fz.port, fl->fh)) &
				     waking(fl->wants)));
		if (fl->open && !fl->hung_up && fl->et_asleep)
			FUZZ_CHECK(!(port_current_events(&fz.port, port_file_find(&fz.port, fl->fh)) &
				     et_news(fl)));
		if (fz.stream && fl->open)
			check_pushed_what_fits(f);
	}
	check_kernel_cache();
}

/*
 * The handheld sends as fast as it may: transfers of IN_MAX while room
 * covers them, each completed full, rounds times (1 to 4).
 */
static void burst(uint8_t rounds)
{
	tr("burst: %d times full transfers\n", rounds % 4 + 1);
	for (int r = 0; r <= rounds % 4; r++) {
		in_fill(IN_MAX);
		for (int i = 0; i < NIN; i++)
			in_complete_as((unsigned int)i, IN_MAX, 0, false, true);
	}
}

static void step(uint8_t op)
{
	int f;

	/* --stream-data: two steps more (the others' inputs unchanged) */
	switch (op % (fz.stream ? 22 : 20)) {
	case 0: do_open(); break;
	case 1:
		if ((f = pick_file()) >= 0)
			do_release(f);
		break;
	case 2:
	case 3:
		if ((f = pick_file()) >= 0)
			do_read(f);
		break;
	case 4:
	case 5:
		if ((f = pick_file()) >= 0)
			do_write(f);
		break;
	case 6:
		if ((f = pick_file()) >= 0)
			do_poll(f);
		break;
	case 7:
	case 8:
		if ((f = pick_file()) >= 0)
			do_ioctl(f);
		break;
	case 9:
		if (fz.h.nreq) {
			int r = input_u8(&fz.in) % fz.h.nreq;

			tr("interrupt #%d\n", r);
			port_interrupt(&fz.port, req_ptr(r));
		}
		break;
	case 10:
		if (fz.carrier)
			carrier_down();
		else
			carrier_up();
		break;
	case 11: {
		size_t k = 1 + input_u8(&fz.in) % IN_MAX;

		tr("submit %zu: %s\n", k, in_submit(k) ? "in flight" : "no room");
		break;
	}
	case 12: in_fill(1 + input_u8(&fz.in) % IN_MAX); break;
	case 13:
	case 14: {
		unsigned int which = input_u8(&fz.in);
		size_t n = input_u8(&fz.in);

		in_complete(which, n, input_u8(&fz.in), false);
		break;
	}
	case 15:
	case 16: {
		size_t max = 1 + input_u16(&fz.in) % 8192;

		tx_some(max, input_u8(&fz.in) & 1 ? ~(size_t)0 : input_u16(&fz.in) % 8192);
		break;
	}
	case 17:
		fz.now += input_u16(&fz.in);
		tr("round, clock at %llu ms\n", (unsigned long long)fz.now);
		after_events(fz.now);
		break;
	case 18:
	case 19:
		fz.reenter = input_u8(&fz.in);
		tr("hooks re-enter: %#x\n", fz.reenter);
		break;
	case 20: deliver_read(input_u8(&fz.in)); break;
	case 21: burst(input_u8(&fz.in)); break;
	}
}

/* Whose quarter: uid 0's, the three users', the subordinate uid's; the other namespace's. */
static int quarter(uint32_t uid)
{
	return uid == 0 ? 0 : uid == 100006 ? 4 : (int)uid - 999;
}
#define NS_QUARTER 5

/* The bounds, and one user's quarter of each without CAP_SYS_ADMIN. */
static void check_bounds(void)
{
	const struct port *p = &fz.port;
	const struct parked_list *lists[] = { &p->reads, &p->writes, &p->ioctls, &p->opens };
	size_t files[6] = { 0 }, parked[6] = { 0 }, bytes[6] = { 0 }, unanswered = 0;

	FUZZ_CHECK(p->nfiles <= cfg.files_max && port_parked_count(p) <= cfg.parked_max);
	FUZZ_CHECK(p->parked_write_bytes <= cfg.parked_write_bytes);
	for (int i = 0; i < NFILES; i++)
		if (fz.files[i].open && !fz.files[i].admin) {
			files[quarter(fz.files[i].uid)]++;
			files[NS_QUARTER] += fz.files[i].userns != PORT_USERNS_OWN;
		}
	for (size_t l = 0; l < 4; l++) {
		for (const struct parked *e = lists[l]->head; e; e = e->next) {
			if (e->admin)
				continue;
			FUZZ_CHECK(e->uid == 0 || (e->uid >= 1000 && e->uid <= 1002) ||
				   e->uid == 100006);
			FUZZ_CHECK(e->userns == PORT_USERNS_OWN || e->userns == FUZZ_USERNS);
			parked[quarter(e->uid)]++;
			bytes[quarter(e->uid)] += lists[l] == &p->writes ? e->size : 0;
			parked[NS_QUARTER] += e->userns != PORT_USERNS_OWN;
			bytes[NS_QUARTER] += e->userns != PORT_USERNS_OWN && lists[l] == &p->writes
						     ? e->size
						     : 0;
		}
	}
	for (int u = 0; u < 6; u++) {
		FUZZ_CHECK(files[u] <= cfg.files_max / 4 && parked[u] <= cfg.parked_max / 4);
		FUZZ_CHECK(bytes[u] <= cfg.parked_write_bytes / 4);
	}
	/* every request is answered or waits */
	for (int i = 0; i < fz.h.nreq; i++)
		unanswered += answer_of(i)->count == 0;
	FUZZ_CHECK(unanswered == port_parked_count(p));
	FUZZ_CHECK(p->txq.cap == cfg.txq_size && byteq_len(&p->txq) <= p->txq.cap);
	FUZZ_CHECK(p->xchar_count <= PORT_XCHARS_MAX && p->tx_inflight <= byteq_len(&p->txq));
	/* rxq's bound and its reserve for transfers in flight (port_init()) */
	FUZZ_CHECK(byteq_len(&p->rxq) <= cfg.rxq_size + 2 * cfg.rx_inflight_max);
	/* --stream-data: what the kernel took, within its buffers */
	FUZZ_CHECK(p->stats.rx_pushed == fz.pushed);
	for (int i = 0; i < NFILES; i++)
		FUZZ_CHECK(fz.files[i].kbuf_len <= PORT_PUSH_INPUT_MAX);
}

static void check_between_steps(void)
{
	sync_rx();
	sync_parked();
	sync_tx();
	if (fz.tx_exact)
		FUZZ_CHECK(byteq_len(&fz.port.txq) == fz.txm.len && fz.tx_ahead == 0);
	check_bounds();
	/* a close notification for each last close, after its closing wait */
	FUZZ_CHECK(fz.close_owed == fz.port.closing);
	FUZZ_CHECK(!fz.excl || fz.port.tty.exclusive);
	resync();
}

/* The end: output restarted, the handheld takes everything, nothing waits. */
static void drain_all(void)
{
	int f;

	for (f = 0; f < NFILES && !(fz.files[f].open && !fz.files[f].hung_up); f++)
		;
	if (fz.carrier && f < NFILES && fz.h.nreq + 2 <= NREQ) {
		struct tty_ioctl on = { .cmd = TCXONC, .arg = TCOON }, set = { .cmd = TCSETS };
		struct termios2 t = fz.port.tty.termios;
		int r;

		t.c_iflag &= ~(tcflag_t)IXON;
		set.in = &t;
		set.in_len = sizeof(struct termios);
		if ((r = new_req(R_IOCTL)) >= 0) {
			fz.reqs[r].file = f;
			fz.reqs[r].cmd = TCXONC;
			port_ioctl(&fz.port, req_ptr(r), fz.files[f].fh, &on);
		}
		if ((r = new_req(R_IOCTL)) >= 0) {
			fz.reqs[r].file = f;
			fz.reqs[r].cmd = TCSETS;
			port_ioctl(&fz.port, req_ptr(r), fz.files[f].fh, &set);
		}
	} else if (fz.carrier && f < NFILES) {
		return; /* no request left to restart the output */
	}
	for (int i = 0; i < 50 && fz.carrier; i++) {
		tx_some(8192, ~(size_t)0);
		fz.now += 100000;
		after_events(fz.now);
		check_between_steps();
	}
	if (fz.carrier) {
		FUZZ_CHECK(fz.port.writes.count == 0 && port_tx_queued(&fz.port) == 0);
		for (const struct parked *e = fz.port.ioctls.head; e; e = e->next)
			FUZZ_CHECK(e->cmd == TIOCMIWAIT);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;

	if (trace < 0)
		trace = getenv("FUZZ_PORT_TRACE") != NULL; /* to follow a crash's steps */
	memset(&fz, 0, sizeof(fz));
	fz.in = (struct input){ .p = data, .left = size };
	mode = input_u8(&fz.in);
	fz.push = (mode & 0x7f) % PUSH_WAYS;
	fz.stream = mode & 0x80;
	if (ph_init(&fz.h, &fz.port, &cfg, NREQ) < 0)
		return 0;
	fz.port.h.push_input = kernel_push_input; /* a buffer per file, not the harness's one */
	/* take-backs (port_push.c) are not in the model yet: today's path, as where
	 * the kernel refuses them (tests/unit/test_port_push.c drives them) */
	fz.port.h.take_back_input = NULL;
	fz.h.push_refused = fz.push == PUSH_REFUSED;
	fz.h.on_push = pushed;
	fz.h.on_notify = woken;
	fz.h.on_answer = on_answer;
	fz.h.on_hook = on_hook;
	/* a fresh port's settings are n_tty's cooked ones: the model starts there */
	fz.rx_exact = rx_plain(&fz.port.tty.termios);
	fz.canon = canon_of(&fz.port.tty.termios);
	fz.tx_exact = tx_plain(&fz.port.tty.termios);
	resync();
	for (int steps = 0; fz.in.left > 0 && steps < 2000; steps++) {
		uint8_t op = input_u8(&fz.in);

		fz.budget = 16;
		if (trace)
			fprintf(stderr,
				"step %d: op %u carrier %d live %d files %u closing %d exact "
				"%d/%d\n",
				steps, op % (fz.stream ? 22 : 20), fz.carrier, live_files(), fz.port.nfiles,
				fz.port.closing, fz.rx_exact, fz.tx_exact);
		step(op);
		check_between_steps();
	}

	/* the end: every request answered exactly once */
	tr("the end: reads in flight delivered, output drained, files released\n");
	fz.reenter = 0;
	for (int i = 0; i < NFLIGHT; i++)
		deliver_read(i);
	drain_all();
	after_events(fz.now + 1000000);
	port_shutdown(&fz.port);
	for (int i = 0; i < NFILES; i++)
		if (fz.files[i].open)
			do_release(i);
	port_shutdown(&fz.port); /* opens a release let through */
	FUZZ_CHECK(ph_unanswered_or_twice(&fz.h) == 0);
	FUZZ_CHECK(fz.h.max_depth <= 1);
	ph_free(&fz.h);
	return 0;
}
