/* SPDX-License-Identifier: MIT */
/*
 * The line discipline's byte processing, as the kernel's n_tty does it
 * (drivers/tty/n_tty.c): what the handheld's bytes become for readers
 * (ISTRIP, IUCLC, the CR/NL mappings, canonical lines with their editing
 * characters, ISIG, IXON) with their echo, and what written bytes become on
 * their way to the handheld (OPOST: ONLCR, OCRNL, ONOCR, ONLRET, OLCUC,
 * tabs as spaces).  Functions over struct termios2, with no queue but
 * n_tty's echo ring and no requests; the port (core/port_ldisc.c,
 * core/port_io.c) calls them unless the settings are raw, and keeps the
 * lines, the echo's room and the flow state they report.
 *
 * Like core/tty.h, this header must not meet glibc's <termios.h>.
 */
#ifndef PILOTD_LDISC_H
#define PILOTD_LDISC_H

#include <asm/termbits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LDISC_LINE_MAX 4096 /* n_tty's N_TTY_BUF_SIZE: a line holds 4095 bytes and its end */
#define LDISC_OUT_MAX  8    /* the output of one written byte at most: a tab as spaces */
/*
 * Echoes wait unprocessed in a ring of n_tty's size (echo_buf, N_TTY_BUF_SIZE
 * entries: a byte, or an operation of 2 or 3) until there is room for their
 * output; once processed, no more than LDISC_ECHO_KEEP - 1 entries stay, the
 * newest, as n_tty's ECHO_DISCARD_WATERMARK (N_TTY_BUF_SIZE - (ECHO_BLOCK +
 * 32)) keeps them in __process_echoes().
 */
#define LDISC_ECHO_RING 4096
#define LDISC_ECHO_KEEP (LDISC_ECHO_RING - (256 + 32))

struct ldisc {
	uint8_t line[LDISC_LINE_MAX]; /* canonical mode: the line being edited */
	size_t line_len;
	unsigned int column;	  /* the handheld's output column (tabs, ONOCR, erasing) */
	unsigned int line_column; /* the column where the line being edited began */
	bool lnext;		  /* the previous byte was VLNEXT: take this one as is */
	bool erasing;		  /* ECHOPRT: erased characters are being shown */
	bool line_eof;		  /* during deliver(): the line ended with VEOF */
	uint64_t dropped;	  /* bytes a full line had no room for, as n_tty drops them */
	/* echoes not processed yet (output stopped or full), oldest at echo_tail */
	uint8_t echo[LDISC_ECHO_RING];
	/*
	 * n_tty's indices (never wrapped: counts): echo_commit, how far the
	 * last processing went; echo_mark, echo_head at the last commit_echoes()
	 */
	size_t echo_head, echo_tail, echo_commit, echo_mark;
	uint64_t echo_discarded;		  /* entries n_tty's rule dropped, the oldest */
};

/* Where the effects of received bytes go; ctx is passed back to each. */
struct ldisc_ops {
	void *ctx;
	/*
	 * Bytes for readers.  In canonical mode one call per complete line,
	 * its end included; a line of length 0 is an end of file (VEOF at the
	 * start of a line), which a read answers with 0.
	 */
	void (*deliver)(void *ctx, const uint8_t *bytes, size_t len);
	/* Echo toward the handheld, already through the output processing. */
	void (*echo)(void *ctx, const uint8_t *bytes, size_t len);
	/*
	 * Room for echo output now (n_tty's tty_write_room()): 0 while output
	 * is stopped, as a pty's is.  NULL: no limit.
	 */
	size_t (*echo_room)(void *ctx);
	/*
	 * IXON: the handheld sent STOP (stop true) or START, or IXANY restarted.
	 * Returns whether stopped output started again.
	 */
	bool (*flow)(void *ctx, bool stop);
	/*
	 * n_tty's process_echoes() ran (a START, an IXANY restart, a signal
	 * character without ECHO), or its commit_echoes() processed a block of
	 * 256 entries, after the echoes so far went to echo():
	 * if output runs, what waits for the handheld goes now, even when a
	 * STOP later in the same bytes stops output again.
	 */
	void (*echoes_out)(void *ctx);
	/*
	 * ISIG: VINTR, VQUIT or VSUSP came.  /dev/pilot is nobody's controlling
	 * terminal, so no signal is sent; with flush (NOFLSH clear) the caller
	 * drops what readers had not read and the output not yet sent, as
	 * n_tty's isig() does.
	 */
	void (*signal)(void *ctx, uint8_t c, bool flush);
};

void ldisc_init(struct ldisc *l);

/* No byte changes on the way in (the port can keep its raw path). */
bool ldisc_input_raw(const struct termios2 *t);
/* No byte changes on the way out. */
bool ldisc_output_raw(const struct termios2 *t);

/* The handheld's bytes, one after the other, as n_tty receives them. */
void ldisc_receive(struct ldisc *l, const struct termios2 *t, const uint8_t *in, size_t len,
		   const struct ldisc_ops *ops);

/*
 * Written bytes through OPOST: takes bytes of in while their output fits in
 * out (a byte becomes at most 8), sets *taken, returns the bytes put in out.
 */
size_t ldisc_output(struct ldisc *l, const struct termios2 *t, const uint8_t *in, size_t len,
		    uint8_t *out, size_t out_size, size_t *taken);

/*
 * n_tty's process_echoes(): the echoes waiting up to echo_mark go out as far
 * as there is room (ops->echo_room), then the oldest past LDISC_ECHO_KEEP
 * are dropped.
 * The port calls it where n_tty does besides receiving: a write, and IXON
 * going off; not at TCOON (__start_tty() does not), so echoes a stop held
 * wait over it.
 */
void ldisc_process_echoes(struct ldisc *l, const struct termios2 *t, const struct ldisc_ops *ops);

static inline bool ldisc_echoes_waiting(const struct ldisc *l)
{
	return l->echo_head != l->echo_tail;
}

/* TCIFLUSH and a signal's flush also drop the line being edited (a VLNEXT stays). */
void ldisc_flush_line(struct ldisc *l);

#endif
