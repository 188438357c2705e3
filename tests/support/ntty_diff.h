/* SPDX-License-Identifier: MIT */
/*
 * The kernel's n_tty as the oracle for pilotd's line discipline: one case
 * (settings, then a script of what the handheld sends and what the desktop
 * does) run through pilotd/core (a port with the fake front and transport
 * of port_harness.h) and through a pty pair of this host (the master plays
 * the handheld, the slave the desktop: the same n_tty, no privileges), each
 * written down as a trace of what the desktop got, what poll and the
 * queue ioctls answered and what reached the handheld after each step.
 *
 * Synchronising with the pty without sleeping: bytes written to the master
 * are processed by a worker (flush_to_ldisc) that the write queues; only
 * poll and read on the slave wait for it (tty_buffer_flush_work()), and
 * only when n_tty has no input for them.  FIONREAD reads n_tty's counts
 * without waiting; TIOCOUTQ is 0 on either end of a pty and tcdrain on the
 * master waits for that 0.  So after the handheld's bytes the slave is
 * polled with VMIN raised to 255 (non-canonical; the script reads before
 * 255 bytes can wait, and a POLLIN there fails the run) or with every
 * complete line read first (canonical: the script reads them, on both
 * sides, and the run fails if one is left), and TIOCSETD waits for a worker
 * that completed a line of the batch while poll looked (ntty_diff.c).  The
 * echo and the output then sit in the master's flip buffer, and the master,
 * read empty after every step, waits for its own worker when polled.
 * Signals are blocked for the pty's run: one caught without SA_RESTART
 * makes a write to the master fail with EINTR (libFuzzer's SIGALRM did).
 *
 * The differences pilotd may have are listed, with their reason, in
 * docs/tty-differences.md as lines `` - `ntty:NAME`: reason ``; a case
 * that differs is given a NAME (nd_compare()) only when a model of that
 * mechanism, decided from n_tty's side of the case (its bytes, settings
 * and n_tty's answers, never pilotd's state), explains every difference
 * from the first on: what the desktop reads always the same, and only the
 * handheld's bytes the mechanism can make different; NULL otherwise.
 */
#ifndef PILOTD_TEST_NTTY_DIFF_H
#define PILOTD_TEST_NTTY_DIFF_H

#include <asm/termbits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ND_OPS_RANDOM 24		  /* steps of a case from bytes, at most */
#define ND_OPS_MAX    (ND_OPS_RANDOM + 3) /* and ntty_diff.c's probe's 3 after any of them */
#define ND_BYTES_MAX 32
/*
 * A trace's text: hex of every byte a step sends, up to STEP_SENT_MAX a
 * step (ntty_diff.c), with room for a case's floods on pilotd's queue of
 * 512 KiB and a pty's 64 KiB, twice each
 */
#define ND_TRACE_MAX (1 << 21)

enum nd_kind {
	ND_RX,	     /* the handheld sends bytes (one batch) */
	ND_WRITE,    /* the desktop writes bytes (non-blocking) */
	ND_READ,     /* the desktop reads up to arg bytes (non-blocking) */
	ND_DRAIN,    /* ... reads until EAGAIN */
	ND_POLL,     /* POLLIN, POLLOUT */
	ND_FIONREAD, /* unread bytes */
	ND_OUTQ,     /* TIOCOUTQ */
	ND_FLUSH,    /* tcflush(arg) */
	ND_SETATTR,  /* new flags (TCSETS2, at once) */
	ND_XONC,     /* tcflow(arg) */
	ND_KINDS
};

struct nd_op {
	enum nd_kind kind;
	unsigned int arg;
	size_t len;
	uint8_t bytes[ND_BYTES_MAX];
	uint32_t iflag, oflag, lflag; /* ND_SETATTR */
	bool skip; /* ND_WRITE: not made, "write -" (a write n_tty refused; ntty_diff.c) */
};

struct nd_case {
	struct termios2 t;
	int nops;
	struct nd_op ops[ND_OPS_MAX];
};

/* What one side did: a line per step. */
struct nd_trace {
	char text[ND_TRACE_MAX];
	size_t len;
	int lines;
	bool flood[ND_OPS_MAX + 2];  /* step i's echo near n_tty's echo buffer's size */
	bool queued[ND_OPS_MAX + 2]; /* pilotd: bytes for the handheld still queued after step i */
	size_t sent[ND_OPS_MAX + 2]; /* bytes the handheld got in step i */
	bool full; /* the text lost some: ND_TRACE_MAX (nd_compare() judges no such case) */
};

/* A case from any bytes (a fuzzer's input, or a seeded generator's). */
void nd_case_from_bytes(struct nd_case *c, const uint8_t *data, size_t len);
/* The case as one line (settings and script), to replay or report. */
void nd_case_print(const struct nd_case *c, char *out, size_t size);
/* ... and back: 0, or -EINVAL on a line nd_case_print() does not write. */
int nd_case_parse(struct nd_case *c, const char *line);

/* pilotd's queue towards the handheld in nd_run_port() (bytes; 4096 unless set) */
extern size_t nd_txq_size;
int nd_run_port(const struct nd_case *c, struct nd_trace *tr);
/*
 * Returns -errno when no pty could be made or the harness failed (a write to
 * the master fell short, a sync's ioctl failed or its condition did not hold).
 */
int nd_run_pty(const struct nd_case *c, struct nd_trace *tr);

/*
 * The case's first difference: -1 when none, else the step's index.  *name
 * gets the listed difference that explains it, or NULL.
 */
int nd_compare(const struct nd_case *c, const struct nd_trace *port, const struct nd_trace *pty,
	       const char **name);

/*
 * nd_run_pty() set against the port's trace, run again (ND_PTY_RUNS runs at
 * most) while the pty side fails or differs without a name.  The port's
 * side is deterministic; the pty's hangs on its worker's timing, which a
 * loaded host stretches: one run that agrees makes the port's answer one
 * n_tty gives.  But not a run whose flush at a signal kept echoes that
 * another run's dropped (n_tty's own race, ntty_diff.c: race_sent()), nor
 * a first run that agrees where another run of the case up to its last
 * such step drops more: then all ND_PTY_RUNS run, and pilotd is judged by
 * nd_pick_run().  Returns the last run's error when none ran (0 or
 * -errno); *at and *name as nd_compare() gives them for the run judged
 * by, which *pty gets; *runs how many runs it took.
 */
#define ND_PTY_RUNS 3
int nd_run_pty_against(const struct nd_case *c, const struct nd_trace *port,
		       struct nd_trace *pty, int *at, const char **name, int *runs);
/*
 * Of n runs of the pty (n <= ND_PTY_RUNS), the one pilotd is judged by:
 * among those whose flushes dropped the most where n_tty's flush races,
 * the first that agrees with the port's trace, else the first; its index,
 * with *at and *name as nd_compare() gives them.
 */
int nd_pick_run(const struct nd_case *c, const struct nd_trace *port,
		const struct nd_trace *const runs[], int n, int *at, const char **name);

/* The names docs/tty-differences.md lists (`ntty:NAME`); count or -errno. */
#define ND_LISTED_MAX 32
int nd_read_listed(const char *path, char names[][64], int max);

#endif
