// SPDX-License-Identifier: MIT
#include <string.h>

#include "kctype.h"
#include "ldisc.h"

#define DELIVER_MAX 256 /* non-canonical bytes gathered before they are handed on */

/* One call of ldisc_receive(): what is gathered for the callbacks. */
struct rx {
	struct ldisc *l;
	const struct termios2 *t;
	const struct ldisc_ops *ops;
	uint8_t deliver[DELIVER_MAX];
	size_t deliver_len;
	/*
	 * n_tty runs commit_echoes() for this byte (n_tty_receive_char_canon(),
	 * n_tty_receive_char_special()): COMMIT_IF_ECHOED where whatever echoes
	 * commits, COMMIT for an erasing character even when nothing echoed,
	 * NO_COMMIT for an LNEXT without ECHOCTL (its finish_erasing() '/').
	 */
	enum { COMMIT_IF_ECHOED, COMMIT, NO_COMMIT } commit;
};

/* IUTF8: a continuation byte takes no column and is not erased alone. */
static bool is_continuation(const struct termios2 *t, uint8_t c)
{
	return (t->c_iflag & IUTF8) && (c & 0xc0) == 0x80;
}

/* A special character; 0 (_POSIX_VDISABLE) disables it, as n_tty's char_map does. */
static bool is_cc(const struct termios2 *t, int index, uint8_t c)
{
	return c != 0 && t->c_cc[index] == c;
}

void ldisc_init(struct ldisc *l)
{
	memset(l, 0, sizeof(*l));
}

bool ldisc_input_raw(const struct termios2 *t)
{
	/* EXTPROC without ISTRIP or IUCLC: n_tty queues the bytes as they are */
	if ((t->c_lflag & EXTPROC) && !(t->c_iflag & ISTRIP) &&
	    !((t->c_iflag & IUCLC) && (t->c_lflag & IEXTEN)))
		return true;
	return !(t->c_iflag & (ISTRIP | INLCR | IGNCR | ICRNL | IUCLC | IXON | PARMRK)) &&
	       !(t->c_lflag & (ICANON | ISIG | ECHO | ECHONL));
}

/* Without OPOST; with it every byte moves the column (process_output_block()). */
bool ldisc_output_raw(const struct termios2 *t)
{
	return !(t->c_oflag & OPOST);
}

/* n_tty's do_output_char(): one byte through OPOST; returns the bytes put in out. */
static size_t output_byte(struct ldisc *l, const struct termios2 *t, uint8_t c, uint8_t *out)
{
	uint32_t o = t->c_oflag;
	unsigned int spaces;

	if (!(o & OPOST)) {
		out[0] = c;
		return 1;
	}
	switch (c) {
	case '\n':
		if (o & ONLRET)
			l->column = 0;
		if (o & ONLCR) {
			l->line_column = l->column = 0;
			out[0] = '\r';
			out[1] = '\n';
			return 2;
		}
		l->line_column = l->column;
		break;
	case '\r':
		if ((o & ONOCR) && l->column == 0)
			return 0;
		if (o & OCRNL) {
			c = '\n';
			if (o & ONLRET)
				l->line_column = l->column = 0;
			break;
		}
		l->line_column = l->column = 0;
		break;
	case '\t':
		spaces = 8 - (l->column & 7);
		l->column += spaces;
		if ((o & TABDLY) == XTABS) {
			memset(out, ' ', spaces);
			return spaces;
		}
		break;
	case '\b':
		if (l->column > 0)
			l->column--;
		break;
	default:
		if (is_cntrl(c))
			break;
		if ((o & OLCUC) && is_lower(c))
			c = (uint8_t)(c - ('a' - 'A'));
		if (!is_continuation(t, c))
			l->column++;
		break;
	}
	out[0] = c;
	return 1;
}

size_t ldisc_output(struct ldisc *l, const struct termios2 *t, const uint8_t *in, size_t len,
		    uint8_t *out, size_t out_size, size_t *taken)
{
	size_t n = 0, i;

	for (i = 0; i < len && n + LDISC_OUT_MAX <= out_size; i++)
		n += output_byte(l, t, in[i], out + n);
	/* the last few bytes of room: a byte goes if its output fits */
	for (; i < len; i++) {
		uint8_t one[LDISC_OUT_MAX];
		unsigned int col = l->column, line_col = l->line_column;
		size_t k = output_byte(l, t, in[i], one);

		if (n + k > out_size) {
			l->column = col;
			l->line_column = line_col;
			break;
		}
		memcpy(out + n, one, k);
		n += k;
	}
	*taken = i;
	return n;
}

/* n_tty's reset_buffer_flags(): a VLNEXT stays pending. */
void ldisc_flush_line(struct ldisc *l)
{
	l->line_len = 0;
	l->erasing = false;
}

/* ---- receiving ---- */

/*
 * Echoes are kept as n_tty's echo buffer holds them (struct ldisc's echo
 * ring): bytes, and operations after ECHO_OP_START whose effect on the
 * column is known only when they are processed, as __process_echoes() does;
 * so echoes that wait while output is stopped, or that an ISIG flush
 * discards, move no column until they go.
 */
#define ECHO_OP_START	      0xff
#define ECHO_OP_MOVE_BACK_COL 0x80
#define ECHO_OP_SET_CANON_COL 0x81
#define ECHO_OP_ERASE_TAB     0x82
#define ECHO_COMMIT_WATERMARK 256
#define ECHO_BLOCK	      256

static uint8_t echo_at(const struct ldisc *l, size_t i)
{
	return l->echo[i % LDISC_ECHO_RING];
}

/* The entries of the operation at i: a byte, or ECHO_OP_START and 1 or 2 more. */
static size_t echo_op_len(const struct ldisc *l, size_t i)
{
	if (echo_at(l, i) != ECHO_OP_START)
		return 1;
	return echo_at(l, i + 1) == ECHO_OP_ERASE_TAB ? 3 : 2;
}

/* The oldest operation goes, whole (__process_echoes()'s discard loop). */
static void echo_discard_oldest(struct ldisc *l)
{
	size_t n = echo_op_len(l, l->echo_tail);

	l->echo_tail += n;
	l->echo_discarded += n;
	if (l->echo_commit - l->echo_tail > LDISC_ECHO_RING) /* passed it */
		l->echo_commit = l->echo_tail;
}

/*
 * One echo operation through OPOST into out (at most LDISC_OUT_MAX bytes):
 * returns the bytes, or -1 when the room n_tty asks for it is more than
 * space; the column moves only when it fits.
 */
static int echo_output(struct ldisc *l, const struct termios2 *t, size_t i, size_t space,
		       uint8_t *out)
{
	unsigned int col = l->column, line_col = l->line_column, cols;
	uint8_t c = echo_at(l, i);
	size_t n = 0, need = 1; /* do_output_char() wants room even for no byte */

	if (c != ECHO_OP_START) {
		if (t->c_oflag & OPOST)
			n = output_byte(l, t, c, out);
		else
			out[n++] = c; /* without OPOST no column moves */
	} else {
		switch (c = echo_at(l, i + 1)) {
		case ECHO_OP_ERASE_TAB:
			cols = echo_at(l, i + 2);
			if (!(cols & 0x80))
				cols += l->line_column;
			for (cols = 8 - (cols & 7); cols > 0; cols--) {
				out[n++] = '\b';
				if (l->column > 0)
					l->column--;
			}
			break;
		case ECHO_OP_SET_CANON_COL:
			l->line_column = l->column;
			need = 0;
			break;
		case ECHO_OP_MOVE_BACK_COL:
			if (l->column > 0)
				l->column--;
			need = 0;
			break;
		case ECHO_OP_START: /* a 0xff, put out as is */
			out[n++] = ECHO_OP_START;
			l->column++;
			break;
		default: /* ECHOCTL: ^X */
			out[n++] = '^';
			out[n++] = c ^ 0100;
			l->column += 2;
			break;
		}
	}
	if (n > need)
		need = n;
	if (need > space) {
		l->column = col;
		l->line_column = line_col;
		return -1;
	}
	return (int)n;
}

/*
 * n_tty's __process_echoes(): the waiting echoes up to commit through OPOST
 * to the handheld while their output fits the room, then, of those left, the
 * oldest while LDISC_ECHO_KEEP entries or more wait before commit: n_tty
 * keeps the newest (its ring may still wrap before that, which pilotd's
 * never does: echo_room_for()).
 */
static void process_to(struct ldisc *l, const struct termios2 *t, const struct ldisc_ops *ops,
		       size_t commit)
{
	uint8_t out[512];
	size_t n = 0, space = ops->echo_room ? ops->echo_room(ops->ctx) : SIZE_MAX;

	l->echo_commit = commit;
	while (l->echo_tail < l->echo_commit) {
		int k = echo_output(l, t, l->echo_tail, space, out + n);

		if (k < 0)
			break;
		space -= (size_t)k;
		n += (size_t)k;
		l->echo_tail += echo_op_len(l, l->echo_tail);
		if (n + LDISC_OUT_MAX > sizeof(out)) {
			if (ops->echo)
				ops->echo(ops->ctx, out, n);
			n = 0;
		}
	}
	while (l->echo_commit > l->echo_tail && l->echo_commit - l->echo_tail >= LDISC_ECHO_KEEP)
		echo_discard_oldest(l);
	if (n && ops->echo)
		ops->echo(ops->ctx, out, n);
}

/*
 * n_tty's process_echoes() (Linux 6.1 and 7.3 drivers/tty/n_tty.c): the
 * echoes up to echo_mark, where its last commit_echoes() left echo_head,
 * and none once echo_tail is there.  So the '/' an LNEXT's finish_erasing()
 * puts past echo_mark waits for the next commit_echoes() or flush_echoes().
 * (Where flush_echoes() sent that '/', echo_tail passed echo_mark and n_tty
 * runs once round its ring, sending stale entries; pilotd sends nothing:
 * ntty:echo_replay.)
 */
void ldisc_process_echoes(struct ldisc *l, const struct termios2 *t, const struct ldisc_ops *ops)
{
	if (l->echo_mark <= l->echo_tail)
		return;
	process_to(l, t, ops, l->echo_mark);
}

/*
 * n_tty's flush_echoes(), the end of a batch: all up to echo_head.  Its raw
 * path runs none: n_tty_set_termios() sets ldata->raw when none of these
 * flags is set (ECHONL alone leaves a '/' past echo_mark waiting).
 */
static void flush_echoes(struct rx *rx)
{
	const struct termios2 *t = rx->t;
	struct ldisc *l = rx->l;
	bool raw = !(t->c_iflag & (ISTRIP | IUCLC | IGNCR | ICRNL | INLCR | IXON | PARMRK)) &&
		   !(t->c_lflag & (ICANON | ISIG | ECHO));

	if (!raw && (t->c_lflag & (ECHO | ECHONL)) && l->echo_commit != l->echo_head)
		process_to(l, rx->t, rx->ops, l->echo_head);
}

/*
 * n_tty's commit_echoes(), after a byte's echo: the echoes are processed
 * once 256 entries or more wait, then at each block of 256 more (while
 * output is stopped, its discard of the oldest runs there).  What it
 * processes with output running __process_echoes() hands to the driver
 * there, in the batch, as process_echoes() at a START does: a STOP later
 * in the batch does not hold it (echoes_out; fuzz_ntty: seed
 * start-kill-commit-block-then-stop).
 */
static void commit_echoes(struct rx *rx)
{
	struct ldisc *l = rx->l;
	size_t nr = l->echo_head - l->echo_tail, old = l->echo_commit - l->echo_tail;

	l->echo_mark = l->echo_head;
	if (nr < ECHO_COMMIT_WATERMARK || nr % ECHO_BLOCK > old % ECHO_BLOCK)
		return;
	process_to(l, rx->t, rx->ops, l->echo_head);
	if (rx->ops->echoes_out)
		rx->ops->echoes_out(rx->ops->ctx);
}

/* n_tty's process_echoes(): the gathered echoes go, and the port may send what waits. */
static void echoes_out(struct rx *rx)
{
	ldisc_process_echoes(rx->l, rx->t, rx->ops);
	if (rx->ops->echoes_out)
		rx->ops->echoes_out(rx->ops->ctx);
}

static void flush_deliver(struct rx *rx)
{
	if (rx->deliver_len)
		rx->ops->deliver(rx->ops->ctx, rx->deliver, rx->deliver_len);
	rx->deliver_len = 0;
}

/*
 * Room in the ring for an operation of n entries: what can go goes (n_tty's
 * commit_echoes() processes at each block of 256), then the oldest are
 * dropped.  n_tty's add_echo_byte() writes on round its ring instead, where
 * one VREPRINT echoes more than it holds (ntty:timing_echo_flood).
 */
static void echo_room_for(struct rx *rx, size_t n)
{
	struct ldisc *l = rx->l;

	if (l->echo_head - l->echo_tail + n > LDISC_ECHO_RING)
		process_to(l, rx->t, rx->ops, l->echo_head);
	while (l->echo_head - l->echo_tail + n > LDISC_ECHO_RING)
		echo_discard_oldest(l);
}

static void echo_put(struct ldisc *l, uint8_t c)
{
	l->echo[l->echo_head++ % LDISC_ECHO_RING] = c;
}

static void echo_op(struct rx *rx, uint8_t op)
{
	echo_room_for(rx, 2);
	echo_put(rx->l, ECHO_OP_START);
	echo_put(rx->l, op);
}

/* n_tty's echo_char_raw(): the byte as written output (through OPOST). */
static void echo_raw(struct rx *rx, uint8_t c)
{
	if (c == ECHO_OP_START) {
		echo_op(rx, ECHO_OP_START);
		return;
	}
	echo_room_for(rx, 1);
	echo_put(rx->l, c);
}

/* n_tty's echo_char(): with ECHOCTL a control character shows as ^X, two columns. */
static void echo_char(struct rx *rx, uint8_t c)
{
	if ((rx->t->c_lflag & ECHOCTL) && is_cntrl(c) && c != '\t')
		echo_op(rx, c);
	else
		echo_raw(rx, c);
}

/* ECHOPRT: the end of erasing shows as '/'. */
static void finish_erasing(struct rx *rx)
{
	if (rx->l->erasing) {
		echo_raw(rx, '/');
		rx->l->erasing = false;
	}
}

/* The first byte of a line records its column (n_tty's echo_set_canon_col()). */
static void echo_first_of_line(struct rx *rx)
{
	if (rx->l->line_len == 0)
		echo_op(rx, ECHO_OP_SET_CANON_COL);
}

static void echo_backspace(struct rx *rx)
{
	echo_raw(rx, '\b');
	echo_raw(rx, ' ');
	echo_raw(rx, '\b');
}

static void deliver_byte(struct rx *rx, uint8_t c)
{
	if (rx->deliver_len == sizeof(rx->deliver))
		flush_deliver(rx);
	rx->deliver[rx->deliver_len++] = c;
}

/* A complete canonical line (len 0: end of file), then a fresh one. */
static void deliver_line(struct rx *rx)
{
	flush_deliver(rx);
	rx->ops->deliver(rx->ops->ctx, rx->l->line, rx->l->line_len);
	rx->l->line_len = 0;
}

/* n_tty's echo_erase_tab(): the columns before the tab, counted when echoed. */
static void echo_erase_tab(struct rx *rx, size_t tab_at)
{
	unsigned int cols = 0;
	size_t i = tab_at;
	bool after_tab = false;

	while (i > 0) {
		uint8_t c = rx->l->line[--i];

		if (c == '\t') {
			after_tab = true;
			break;
		}
		if (is_cntrl(c))
			cols += (rx->t->c_lflag & ECHOCTL) ? 2 : 0;
		else if (!is_continuation(rx->t, c))
			cols++;
	}
	echo_room_for(rx, 3);
	echo_put(rx->l, ECHO_OP_START);
	echo_put(rx->l, ECHO_OP_ERASE_TAB);
	echo_put(rx->l, (uint8_t)((cols & 7) | (after_tab ? 0x80 : 0)));
}

/* The echo of one erased character, at..end of the line (n_tty's eraser()). */
static void echo_erased(struct rx *rx, size_t at, size_t end, bool erase_char)
{
	uint32_t lf = rx->t->c_lflag;
	uint8_t c = rx->l->line[at];

	if (!(lf & ECHO))
		return;
	if (lf & ECHOPRT) {
		if (!rx->l->erasing) {
			echo_raw(rx, '\\');
			rx->l->erasing = true;
		}
		echo_char(rx, c);
		for (size_t i = at + 1; i < end; i++) { /* its UTF-8 continuation bytes */
			echo_raw(rx, rx->l->line[i]);
			echo_op(rx, ECHO_OP_MOVE_BACK_COL);
		}
	} else if (erase_char && !(lf & ECHOE)) {
		echo_char(rx, rx->t->c_cc[VERASE]);
	} else if (c == '\t') {
		echo_erase_tab(rx, at);
	} else {
		if (is_cntrl(c) && (lf & ECHOCTL))
			echo_backspace(rx); /* ^X took two columns */
		if (!is_cntrl(c) || (lf & ECHOCTL))
			echo_backspace(rx);
	}
}

enum erase_kind { ERASE_ONE, ERASE_WORD, ERASE_LINE };

static void erase(struct rx *rx, enum erase_kind kind)
{
	struct ldisc *l = rx->l;
	uint32_t lf = rx->t->c_lflag;
	unsigned int alnums = 0;

	if (l->line_len == 0)
		return;
	if (kind == ERASE_LINE &&
	    (!(lf & ECHO) || !(lf & ECHOK) || !(lf & ECHOKE) || !(lf & ECHOE))) {
		/* the whole line at once; the echo is the KILL character (and a newline) */
		l->line_len = 0;
		if (!(lf & ECHO))
			return;
		finish_erasing(rx);
		echo_char(rx, rx->t->c_cc[VKILL]);
		if (lf & ECHOK)
			echo_raw(rx, '\n');
		return;
	}
	while (l->line_len > 0) {
		size_t at = l->line_len, end = l->line_len;
		uint8_t c;

		/* a character with its UTF-8 continuation bytes, never a part */
		do
			c = l->line[--at];
		while (is_continuation(rx->t, c) && at > 0);
		if (is_continuation(rx->t, c))
			break;
		/* WERASE: blanks before the word, then the word (BSD's ALTWERASE) */
		if (kind == ERASE_WORD) {
			if (is_alnum(c) || c == '_')
				alnums++;
			else if (alnums)
				break;
		}
		l->line_len = at;
		echo_erased(rx, at, end, kind == ERASE_ONE);
		if (kind == ERASE_ONE)
			break;
	}
	if (l->line_len == 0 && (lf & ECHO))
		finish_erasing(rx);
}

/*
 * ISIG: INTR, QUIT or SUSP (n_tty_receive_signal_char()).  Its flush
 * (isig()) clears the echo buffer too: echoes waiting (this call's, or
 * those held while output was stopped) are never sent and move no column.
 */
static void signal_char(struct rx *rx, uint8_t c)
{
	bool flush = !(rx->t->c_lflag & NOFLSH);

	flush_deliver(rx);
	if (flush) {
		/* isig() clears the echo buffer */
		rx->l->echo_tail = rx->l->echo_commit = rx->l->echo_mark = rx->l->echo_head;
		ldisc_flush_line(rx->l);
	}
	if (rx->ops->signal)
		rx->ops->signal(rx->ops->ctx, c, flush);
	if ((rx->t->c_iflag & IXON) && rx->ops->flow)
		rx->ops->flow(rx->ops->ctx, false);
	if (rx->t->c_lflag & ECHO)
		echo_char(rx, c);
	else
		echoes_out(rx); /* process_echoes() */
}

/* PARMRK doubles 0xff (n_tty's put_tty_queue() twice). */
static void queue_byte(struct rx *rx, uint8_t c)
{
	bool canonical = rx->t->c_lflag & ICANON;
	int copies = c == 0xff && (rx->t->c_iflag & PARMRK) ? 2 : 1;

	for (int i = 0; i < copies; i++) {
		if (canonical)
			rx->l->line[rx->l->line_len++] = c;
		else
			deliver_byte(rx, c);
	}
}

/*
 * A byte that is data: into the line or to readers, with its echo.  A
 * newline that ICRNL made echoes as a newline even with ECHOCTL (n_tty's
 * special-character path); one that came as such shows as ^J.
 */
static void data_char(struct rx *rx, uint8_t c, bool mapped_newline)
{
	struct ldisc *l = rx->l;
	bool canonical = rx->t->c_lflag & ICANON;
	bool mark = c == 0xff && (rx->t->c_iflag & PARMRK);

	if (canonical && l->line_len + 1 + mark >= LDISC_LINE_MAX) {
		l->dropped++; /* a full line keeps room for its end */
		return;
	}
	if (rx->t->c_lflag & ECHO) {
		finish_erasing(rx);
		if (mapped_newline) {
			echo_raw(rx, c);
		} else {
			if (canonical)
				echo_first_of_line(rx);
			echo_char(rx, c);
		}
	}
	queue_byte(rx, c);
}

/* The canonical mode's characters; true when c was one of them. */
static bool canonical_char(struct rx *rx, uint8_t c)
{
	const struct termios2 *t = rx->t;
	struct ldisc *l = rx->l;
	bool iexten = t->c_lflag & IEXTEN, echo = t->c_lflag & ECHO;

	if (is_cc(t, VERASE, c) || is_cc(t, VKILL, c) || (iexten && is_cc(t, VWERASE, c))) {
		/* n_tty's eraser() asks WERASE before KILL, whatever IEXTEN */
		rx->commit = COMMIT; /* even when nothing was echoed */
		erase(rx, is_cc(t, VERASE, c)	 ? ERASE_ONE
			  : is_cc(t, VWERASE, c) ? ERASE_WORD
						 : ERASE_LINE);
		return true;
	}
	if (iexten && is_cc(t, VLNEXT, c)) {
		l->lnext = true;
		if (echo) {
			finish_erasing(rx);
			if (t->c_lflag & ECHOCTL) {
				echo_raw(rx, '^');
				echo_raw(rx, '\b');
			} else {
				rx->commit = NO_COMMIT; /* a '/' past echo_mark */
			}
		}
		return true;
	}
	if (iexten && is_cc(t, VREPRINT, c) && echo) {
		finish_erasing(rx);
		echo_char(rx, c);
		echo_raw(rx, '\n');
		for (size_t i = 0; i < l->line_len; i++)
			echo_char(rx, l->line[i]);
		return true;
	}
	/* a line's end always fits: data_char() keeps a byte of room */
	if (c == '\n') {
		if (t->c_lflag & (ECHO | ECHONL))
			echo_raw(rx, '\n');
		l->line[l->line_len++] = c;
		deliver_line(rx);
		return true;
	}
	if (is_cc(t, VEOF, c)) {
		l->line_eof = true; /* without the EOF character; empty: end of file */
		deliver_line(rx);
		l->line_eof = false;
		return true;
	}
	if (is_cc(t, VEOL, c) || (iexten && is_cc(t, VEOL2, c))) {
		/* echoed as data, and it ends the line */
		if (echo) {
			echo_first_of_line(rx);
			echo_char(rx, c);
		}
		if (c == 0xff && (t->c_iflag & PARMRK) && l->line_len + 2 < LDISC_LINE_MAX)
			l->line[l->line_len++] = c;
		l->line[l->line_len++] = c;
		deliver_line(rx);
		return true;
	}
	return false;
}

/*
 * IXANY: any byte but START and STOP restarts output stopped by STOP, and
 * the echoes so far go then (n_tty's start_tty(), process_echoes()).
 */
static void restart_any(struct rx *rx)
{
	if ((rx->t->c_iflag & IXON) && (rx->t->c_iflag & IXANY) && rx->ops->flow &&
	    rx->ops->flow(rx->ops->ctx, false))
		echoes_out(rx);
}

/* n_tty_receive_char_special(): flow control, signals, mappings, canonical mode. */
static void receive_byte(struct rx *rx, uint8_t c)
{
	const struct termios2 *t = rx->t;
	bool mapped_newline = false;

	if (t->c_iflag & ISTRIP)
		c &= 0x7f;
	if ((t->c_iflag & IUCLC) && (t->c_lflag & IEXTEN) && is_upper(c))
		c = (uint8_t)(c + ('a' - 'A'));
	if (t->c_lflag & EXTPROC) { /* the editing is done elsewhere: n_tty only queues */
		deliver_byte(rx, c);
		return;
	}
	if (rx->l->lnext) {
		/* n_tty_receive_char_lnext() -> n_tty_receive_char(): IXANY too */
		rx->l->lnext = false;
		restart_any(rx);
		data_char(rx, c, false);
		return;
	}
	/* STOP holds the echoes gathered so far; START sends them */
	if ((t->c_iflag & IXON) && (is_cc(t, VSTART, c) || is_cc(t, VSTOP, c))) {
		if (rx->ops->flow)
			rx->ops->flow(rx->ops->ctx, !is_cc(t, VSTART, c));
		if (is_cc(t, VSTART, c))
			echoes_out(rx);
		return;
	}
	if ((t->c_lflag & ISIG) &&
	    (is_cc(t, VINTR, c) || is_cc(t, VQUIT, c) || is_cc(t, VSUSP, c))) {
		signal_char(rx, c);
		return;
	}
	restart_any(rx);
	if (c == '\r') {
		if (t->c_iflag & IGNCR)
			return;
		if (t->c_iflag & ICRNL) {
			c = '\n';
			mapped_newline = true;
		}
	} else if (c == '\n' && (t->c_iflag & INLCR)) {
		c = '\r';
	}
	if ((t->c_lflag & ICANON) && canonical_char(rx, c))
		return;
	data_char(rx, c, mapped_newline);
}

void ldisc_receive(struct ldisc *l, const struct termios2 *t, const uint8_t *in, size_t len,
		   const struct ldisc_ops *ops)
{
	struct rx rx = { .l = l, .t = t, .ops = ops };

	for (size_t i = 0; i < len; i++) {
		size_t head = l->echo_head;

		rx.commit = COMMIT_IF_ECHOED;
		receive_byte(&rx, in[i]);
		if (rx.commit == COMMIT || (rx.commit == COMMIT_IF_ECHOED && l->echo_head != head))
			commit_echoes(&rx);
	}
	flush_deliver(&rx);
	flush_echoes(&rx);
}
