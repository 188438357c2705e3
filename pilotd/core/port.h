/* SPDX-License-Identifier: MIT */
/*
 * The port: what /dev/pilot is to the programs that open it, a tty on a
 * serial line whose carrier is "a handheld is attached".  It owns the
 * stream queues, the open files, the parked requests and the terminal
 * state, and it decides every session rule (docs/design.md "Session
 * edges"):
 *
 *   - a file opened while a handheld is attached, or before one arrives,
 *     is live; when the handheld leaves every open file is hung up (the
 *     bytes already received, then end of file; writes and ioctls EIO;
 *     POLLHUP), and only files opened later see the next handheld;
 *   - bytes are taken from the handheld only while a live file listens:
 *     once it has read, polled or asked FIONREAD (port_rx_room() is 0
 *     otherwise).  What a handheld says before anyone listens stays in
 *     the handheld, as with the kernel's visor driver, whose port submits
 *     no read until it is opened; and, better than a tty, a tcflush()
 *     right after open cannot discard it (docs/tty-differences.md).
 *     Bytes that a transfer already in flight still brings go to the live
 *     files; at the last close the transport cancels its transfers
 *     (rx_stop), and what one completed meanwhile is discarded
 *     (port_rx_stale()), never kept for or handed to a later opener;
 *   - bytes written while no handheld is attached are accepted and
 *     discarded, as a serial line without a device loses them: they never
 *     reach the next handheld.  poll reports POLLOUT, TIOCOUTQ 0;
 *   - with CLOCAL clear (stty -clocal) an open without O_NONBLOCK waits
 *     until a handheld is attached, as tty_port_block_til_ready() does.
 *
 *   - a session's bytes are its own: a file reads only what the handheld
 *     of its own session sent (a file opened after a departure never
 *     reads the departed handheld's unread bytes, which stay for the
 *     hung-up files alone until the next handheld arrives: one rxq holds
 *     one session's input, and a kernel's hung-up tty reads none at all);
 *   - the last close is that of the session's last live file: a file
 *     hung up by a departure belongs to the old handheld's tty and holds
 *     nothing of the next session.  The terminal state a tty drops with
 *     its tty_struct is dropped then (stopped output, TIOCEXCL, window
 *     size), and unsent output drains for at most the closing wait, then
 *     is discarded; every open waits for that, O_NONBLOCK too (tty_open()
 *     waits for the closer), so one session's output never goes out
 *     behind the next one's.
 *
 * The bytes pass n_tty's processing both ways (core/ldisc.h) unless the
 * settings are raw, as a desktop sets them: canonical lines, echo, the
 * mappings, IXON, ISIG (docs/design.md "The line discipline in the port").
 *
 * Plain C, no libfuse or libusb: requests are opaque pointers answered
 * through struct port_hooks, time is passed in, so the host unit tests
 * drive it with a fake clock and a fake front.  Every request handed to
 * a port_* call is answered exactly once through the hooks, at once or
 * later: with data, EINTR after port_interrupt(), EIO at release of its
 * file, at hangup or at port_shutdown().
 *
 * Re-entry: the transport hooks (tx_ready, tx_abort, rx_room, rx_stop, last_close) are only
 * called when the port is consistent and no request it holds is in
 * hand: the port notes that they are due and calls them as its outermost
 * call returns (and, for tx_ready, just before a write is answered, so
 * the transfer starts first).  A hook may call any port_* function,
 * including port_carrier_down(); hooks that come due meanwhile run from
 * the same outer loop, never nested.
 *
 * Bounds (struct port_config, docs/design.md "Bounds"): open files,
 * parked requests and the bytes of parked writes in total; a quarter of
 * each for one user (its kuid, in whatever user namespace it calls from);
 * a quarter of each for the callers of one other user namespace (one
 * user with subordinate ids acts there as many kuids), and for those
 * pilotd cannot see (another pid namespace, credentials not their
 * thread's own: one bucket); and half of each
 * for all other namespaces and unseen callers together, so that however
 * many namespaces a user makes, pilotd's own namespace keeps the other
 * half.  A file counts for its opener's kuid and namespace, and so do the
 * requests that wait on it (as a pipe's buffers count for its maker).
 * The caller of a request with CAP_SYS_ADMIN passes the shares, as the
 * kernel lets capable(CAP_SYS_ADMIN) pass its limits: an open's caller,
 * from port_open_args; a read's, write's or ioctl's, asked of the front
 * (port_hooks.caller_admin) when that request would pass a share, never
 * the opener's (uid 0 alone is not enough: a container's root may lack
 * it).  A request beyond a bound is refused at once (ENFILE for an open,
 * ENOBUFS for a read, write or ioctl that would have to wait) with a log
 * line.
 */
#ifndef PILOTD_PORT_H
#define PILOTD_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "byteq.h"
#include "ldisc.h"
#include "parked.h"
#include "tty.h"

struct port_hooks {
	void *ctx;

	/* Answers, carried out by the front. */
	/* Returns < 0 when the opener is gone (the port then forgets fh). */
	int (*answer_open)(void *ctx, void *req, uint64_t fh);
	void (*answer_data)(void *ctx, void *req, const void *buf, size_t len);
	void (*answer_written)(void *ctx, void *req, size_t len);
	void (*answer_ioctl)(void *ctx, void *req, const void *out, size_t len);
	/* Ask the kernel again with in/out bytes at arg (unrestricted ioctl). */
	void (*answer_ioctl_fetch)(void *ctx, void *req, uintptr_t arg, size_t in, size_t out);
	void (*answer_err)(void *ctx, void *req, int err);
	/* req waits: from now on an interrupt of it must reach port_interrupt() */
	void (*parked)(void *ctx, void *req);
	void (*notify_poll)(void *ctx, void *poll_handle);
	void (*drop_poll_handle)(void *ctx, void *poll_handle);
	/*
	 * Optional: has the thread that made req (on file fh) CAP_SYS_ADMIN
	 * now?  Asked only when req would pass a share ("Bounds" above), as
	 * the kernel asks capable() at its limits.  NULL: no caller has.
	 */
	bool (*caller_admin)(void *ctx, void *req, uint64_t fh);
	/*
	 * Optional: hand the kernel a file's whole events, which it then
	 * reports to poll without asking (kernel-patches/poll-events), and
	 * wake the pollers of those in wake.  The port does so at every
	 * change, and before the answer that causes one.  < 0: the kernel
	 * cannot; the port notifies from then on.
	 */
	int (*push_events)(void *ctx, uint64_t key, unsigned int events, unsigned int wake);
	/*
	 * Optional: hand len bytes (1 to PORT_PUSH_INPUT_MAX) of a file's
	 * input to the kernel under key (port_open_args.input_key), which
	 * then answers the file's reads from them without a request
	 * (kernel-patches/stream-data).  0: taken whole; -ENOSPC: no room in
	 * the kernel's buffer, nothing taken; -EBUSY: a read of the file that
	 * found the kernel's buffer empty is on its way here as a request,
	 * nothing taken; -EAGAIN: not now (requests wait
	 * to be served first); -ENOENT: the kernel has no such file any more;
	 * any other < 0: the kernel cannot, and the port stops pushing.  The port pushes only while
	 * port_input_pushable() (port_push.c says why each condition).
	 */
	int (*push_input)(void *ctx, uint64_t key, const void *buf, size_t len);
	/*
	 * Optional, with push_input: ask the kernel for the bytes of the file
	 * key that its read()s have not taken (FUSE_NOTIFY_STREAM_RETRIEVE,
	 * kernel-patches/stream-data 0003).  0: asked; the bytes come later,
	 * through port_input_returned(), and the port pushes nothing until
	 * they did.  < 0 (-ENOENT: no such file any more; -EBUSY; -EINVAL:
	 * the kernel cannot): nothing comes, and the port answers from rxq
	 * alone, as without it (port_push.c).
	 */
	int (*take_back_input)(void *ctx, uint64_t key);

	/* Calls to the transport. */
	void (*tx_ready)(void *ctx); /* txq gained bytes, or output restarted */
	/* Optional: cancel the transfer in flight, if any; its bytes are stale */
	void (*tx_abort)(void *ctx);
	void (*rx_room)(void *ctx); /* port_rx_room() grew */
	/* Optional: no live file is left to read (the last close, a departure):
	 * cancel the IN transfers in flight, so the handheld keeps its bytes */
	void (*rx_stop)(void *ctx);
	void (*last_close)(void *ctx);
};

struct port_file {
	struct port_file *next;
	uint64_t fh;
	void *poll_handle; /* the front's latest, to notify */
	/* what its pollers were told: its events at the round's end or last
	 * push, less what an answer since said absent */
	unsigned int polled_events;
	/* what its pollers since the last notification wait for: only one of
	 * these appearing wakes them (a notification costs the front a write,
	 * a woken poller another request) */
	unsigned int poll_wanted;
	uint64_t push_key; /* the front's name for it in push_events */
	bool push_keyed;
	unsigned int pushed; /* what the kernel holds: PORT_PUSHED_NONE, or events */
	/* rx_arrivals, tty.settings, tx_completions when its pollers were last told */
	uint64_t told_rx, told_settings, told_tx;
	bool hung_up;	  /* its handheld left: EOF, EIO, POLLHUP */
	uint64_t session; /* the handheld session whose bytes it may read */
	uint32_t uid;	  /* its opener's kuid */
	uint64_t userns;  /* ... and user namespace (port_open_args) */
	bool admin;	  /* its opener had CAP_SYS_ADMIN: it passed the shares */
	bool listening;	  /* it read, polled or asked FIONREAD: take bytes for it */
	uint64_t input_key; /* the kernel's name for it in push_input */
	bool input_keyed;
	/* bytes pushed for it may wait in the kernel: a push took since its
	 * last read request or take-back (port_push.c) */
	bool input_held;
};

/*
 * The bounds pilotd runs with (docs/design.md "Bounds").  Files: a
 * desktop opens one or two.  Parked requests: one per blocked thread.
 * Write bytes: what the parked writes' payloads hold, eight of the
 * kernel's largest CUSE writes.  The closing wait is usb-serial's
 * default closing_wait (tty_port_init(): 30 s); root may change it with
 * TIOCSSERIAL (setserial closing_wait), as on a ttyUSB.
 */
#define PORT_FILES_MAX		64u
#define PORT_PARKED_MAX		256u
#define PORT_PARKED_WRITE_BYTES (1024u * 1024)
#define PORT_CLOSING_WAIT_MS	30000u

/*
 * Canonical mode: the complete lines in rxq, by length (0: an end of
 * file).  A line's bytes take room in rxq, an end of file none, so the
 * lines are counted apart; the port takes no more bytes than lines it can
 * hold (port_rx_room()).  The bound is n_tty's buffer, in lines.
 */
#define PORT_LINES_MAX 4096u

/*
 * STOP and START characters waiting to go ahead of the output: usb-serial
 * writes each (tty_send_xchar() without send_xchar); beyond this many
 * the latest replaces the last, the state the handheld must end in.
 */
#define PORT_XCHARS_MAX 8u

/* poll reports POLLOUT while fewer bytes wait to go (n_tty's WAKEUP_CHARS) */
#define PORT_WAKEUP_CHARS 256u

struct port_lines {
	uint32_t *len; /* a ring of cap: PORT_LINES_MAX and the reserve below */
	bool *eof;     /* ended by VEOF: a NUL byte if ICANON goes off (n_tty) */
	unsigned int head, count, cap;
};

struct port_config {
	size_t rxq_size, txq_size;
	size_t read_max;	   /* the largest read answer the front can carry */
	unsigned int files_max;	   /* open files at once */
	unsigned int parked_max;   /* requests waiting, of all kinds */
	size_t parked_write_bytes; /* the payloads of waiting writes, in all */
	uint64_t closing_wait_ms;  /* a fresh port's closing_wait (TIOCSSERIAL) */
	/*
	 * The most handheld bytes the transport asks for at once (its IN
	 * requests in flight, each sized by port_rx_room() when submitted).
	 * rxq and the line ring keep a reserve beyond their bounds for them,
	 * so that a settings change made while they fly (PARMRK doubles 0xff;
	 * ICANON makes each byte a possible line) loses none of them.
	 */
	size_t rx_inflight_max;
};

struct port_stats {
	uint64_t rx_bytes, tx_bytes;	     /* this handheld's, TIOCGICOUNT */
	uint64_t rx_discarded, tx_discarded; /* by the rules above, in all */
	uint64_t tx_flushed;		     /* by tcflush(TCOFLUSH) or at a kernel's close, in all */
	uint64_t hangups;
	uint64_t refused; /* requests refused at a bound */
	/* push_input: bytes the kernel took, pushes taken, pushes refused
	 * for room, pushes refused while a read request was in flight; and
	 * the reads that came as requests, all of them */
	uint64_t rx_pushed, input_pushes, input_push_full, input_push_busy;
	/* take_back_input: take-backs asked, bytes that came back */
	uint64_t take_backs, rx_taken_back;
	uint64_t read_requests;
	uint64_t write_requests; /* the writes that came as requests, all of them */
};

/* The transport hooks that are due (port.c port_run_due_hooks()). */
#define PORT_DUE_TX	    1u
#define PORT_DUE_RX_ROOM    2u
#define PORT_DUE_LAST_CLOSE 4u
#define PORT_DUE_TX_ABORT   8u
#define PORT_DUE_RX_STOP    16u

struct trace;

struct port {
	struct port_hooks h;
	struct port_config cfg;
	/* pilotd --trace (core/trace.h), set after port_init(); NULL: none.
	 * The port traces opens, closes and hangups; the pump, the bytes. */
	struct trace *trace;
	struct tty tty;
	struct ldisc ldisc; /* n_tty's processing, unless the settings are raw */
	struct byteq rxq, txq;
	struct port_lines lines; /* canonical mode: rxq's lines */
	size_t tx_inflight;	 /* head of txq handed to the transport */
	size_t tx_stale;	 /* ... of a closed session whose closing wait ended */
	/*
	 * Head of txq that output let go while it ran inside a batch of the
	 * handheld's bytes (a START, an IXANY restart, a signal character
	 * without ECHO, commit_echoes() at a block of 256 entries): sent even
	 * when a STOP later in that batch stops output again, as n_tty's
	 * process_echoes() there handed the echoes to the driver (port_ldisc.c
	 * ld_echoes_out()).
	 */
	size_t tx_released;
	/* TCIOFF/TCION: STOP and START characters, in order, ahead of txq */
	uint8_t xchars[PORT_XCHARS_MAX];
	unsigned int xchar_count, xchar_inflight;
	bool xchar_stale;    /* those in flight belong to a closed session */
	uint64_t rx_now;     /* the time of the bytes ldisc_receive() hands on */
	bool output_flushed; /* ISIG emptied txq: serve writes and drains after the round */
	uint8_t *readbuf;

	struct port_file *files;
	unsigned int nfiles;
	unsigned int live_files; /* open and not hung up */
	unsigned int listening;	 /* live files that listen (port_file.listening) */
	uint64_t session;	 /* counts arrivals: the handheld's session */
	uint64_t rxq_session;	 /* whose bytes rxq holds */
	size_t parked_write_bytes;
	unsigned int due;	   /* PORT_DUE_*: transport hooks to call */
	bool in_hooks;		   /* run_due_hooks() is calling them */
	bool closing;		   /* the last close came with output unsent */
	uint64_t closing_deadline; /* set at the first round after it */
	uint64_t next_fh;
	bool carrier; /* a handheld is attached and bytes flow */
	uint64_t carrier_changes;
	uint64_t last_rx_ms;
	/* input arrivals (bytes, or a line in canonical mode): n_tty wakes
	 * its readers at each, POLLIN set before or not */
	uint64_t rx_arrivals;
	/* transfers to the handheld done: usb-serial wakes its writers at each */
	uint64_t tx_completions;
	bool interrupts_pending;
	/* push_events: not tried yet, took, or failed (the kernel lacks it) */
	enum { PORT_PUSH_UNTRIED, PORT_PUSH_ON, PORT_PUSH_OFF } push;
	bool input_push_off; /* push_input failed other than for room */
	/* a take-back is out (port_push.c): of take_back_key's bytes, which
	 * belong to take_back_session; take_back_off: the kernel cannot */
	bool taking_back, take_back_off;
	uint64_t take_back_key, take_back_session;

	struct parked_list reads, writes, ioctls, opens;
	struct port_stats stats;
};

int port_init(struct port *p, const struct port_config *cfg, const struct port_hooks *h);
void port_free(struct port *p);

/* ---- requests from the front; now is the monotonic clock in ms ---- */

struct port_open_args {
	uint32_t uid;	 /* the caller's kuid (FUSE gives the global one) */
	uint64_t userns; /* its user namespace: PORT_USERNS_* or the front's id of another */
	bool admin;	 /* the caller has CAP_SYS_ADMIN (TIOCEXCL, the shares) */
	bool nonblock;
	/* the kernel's handle of the file, when the front may push its
	 * input (port_hooks.push_input); input_keyed false: it may not */
	uint64_t input_key;
	bool input_keyed;
};
/*
 * pilotd's own user namespace; and callers pilotd cannot see (another pid
 * namespace, credentials not their thread's own), one bucket.  Any other value names another namespace: the
 * front's id for it, the same for all its callers.
 */
#define PORT_USERNS_OWN	   0u
#define PORT_USERNS_UNSEEN 1u

void port_open(struct port *p, void *req, const struct port_open_args *a);
/* The kernel releases a file only when no call on it is in flight. */
void port_release(struct port *p, uint64_t fh);
void port_read(struct port *p, void *req, uint64_t fh, size_t size, bool nonblock, uint64_t now);
void port_write(struct port *p, void *req, uint64_t fh, const void *buf, size_t size,
		bool nonblock);
/*
 * A drain of the kernel's write buffer of a file (kernel-patches/
 * stream-write): bytes a write() already returned for, as those in a tty
 * driver's buffer.  Queued as a blocking write, but a flush of the output
 * (TCOFLUSH, TCIOFLUSH, a signal character without NOFLSH) drops what of
 * them still waits for room, as tty_driver_flush_buffer() drops the
 * driver's, and answers the drain whole (before a TCFLSH's own answer,
 * after the round for a signal's).  So does an interrupt of the drain, which the kernel sends at the
 * release of its file once the closing wait is over, as a tty port drops
 * its driver's buffer then.
 */
void port_write_buffered(struct port *p, void *req, uint64_t fh, const void *buf, size_t size);
/*
 * The events to report; poll_handle (may be NULL) replaces the file's, to
 * be notified once one of wanted (0: not said, any) or a hangup or error
 * appears.
 */
unsigned int port_poll(struct port *p, uint64_t fh, void *poll_handle, unsigned int wanted);
/* The front can push fh's events under key (port_hooks.push_events). */
void port_poll_key(struct port *p, uint64_t fh, uint64_t key);
#define PORT_PUSHED_NONE (~0u)
void port_ioctl(struct port *p, void *req, uint64_t fh, const struct tty_ioctl *io);
/* Mark only: the answer comes from port_after_events(). */
void port_interrupt(struct port *p, void *req);

/*
 * After every round of events: answer interrupted requests and reads whose
 * VTIME ran out, notify pollers whose events changed.  Returns when it
 * wants to run again by time (ms), or 0.
 */
uint64_t port_after_events(struct port *p, uint64_t now);
/* Requests parked now, of every kind. */
size_t port_parked_count(const struct port *p);
/* Stop: answer everything parked with EIO. */
void port_shutdown(struct port *p);

/*
 * The kernel's buffer of a file's input (FUSE_STREAM_DATA_MAX of
 * kernel-patches/stream-data, n_tty's read buffer size): a push is at most
 * this.
 */
#define PORT_PUSH_INPUT_MAX 4096u
/* May f's input be pushed to the kernel now (port_push.c)? */
bool port_input_pushable(const struct port *p, const struct port_file *f);
/* Push what rxq holds for the one file, while port_input_pushable() (after each round). */
void port_push_input(struct port *p);
/*
 * The kernel's reply to take_back_input: the len bytes of file key that
 * its read()s did not take, oldest first (none: len 0).  They go back to
 * rxq's head, and the ioctls that waited for them are answered.
 */
void port_input_returned(struct port *p, uint64_t key, const void *buf, size_t len);

/* ---- the transport's side ---- */

void port_carrier_up(struct port *p);
void port_carrier_down(struct port *p); /* the handheld left: hang up */
/* How many received bytes the port takes now: 0 with no live file open. */
size_t port_rx_room(const struct port *p);
void port_rx(struct port *p, const void *buf, size_t len, uint64_t now);
/* Bytes a transfer cancelled at the last close brought: counted, discarded. */
void port_rx_stale(struct port *p, size_t len);
/* Copy up to max bytes to send into buf; they stay queued until done. */
size_t port_tx_take(struct port *p, void *buf, size_t max);
/* The handheld took sent bytes of what tx_take gave; the rest is resent. */
void port_tx_done(struct port *p, size_t sent);

static inline size_t port_tx_queued(const struct port *p)
{
	return byteq_len(&p->txq) + p->xchar_count;
}

#endif
