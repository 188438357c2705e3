/* SPDX-License-Identifier: MIT */
/*
 * The byte trace (pilotd --trace FILE): every handheld session's bytes,
 * both ways, with times, as text a user can paste into a bug report.
 * Written where the bytes cross the pump (core/pump.c: an IN transfer's
 * completion, an OUT transfer's), which both transports drive, and where
 * the port opens, closes and hangs up files.
 *
 * Format 1 (pilotd(8) "TRACE FORMAT"; README "Reading a trace"), one
 * event a line, the first character says which:
 *
 *   # pilotd 0.9 trace, format 1: pilotd(8) TRACE FORMAT
 *   = 1.000 trace begins
 *     +0.350 * open 1 by uid 1000, no handheld yet
 *   = 2.000 arrival 1: handheld 0830:0061 (bus 1 address 5), bulk IN 0x82 (64-byte
 *           packets), OUT 0x02                        [one line in the file]
 *     +0.012 < 0000  01 ff 00 00 00 16 90 01  00 00 00 00 00 00 00 20  |............... |
 *     +0.012 < 0010  00 00 00 08 01 00 00 00  00 00 00 00              |............|
 *     +0.021 > 0000  01 ff 00 00 00 32 12 01                           |.....2..|
 *     +3.000 * close 1 (the last)
 *   = 6.000 departure 1 after 4.000 s: 28 bytes in, 8 out
 *
 *   '#'  a comment: the header (once each time pilotd opens the file or
 *        it starts over), and where a stretch reached its share, the file
 *        started over, or lines were lost to a write error;
 *   '='  a new origin, with CLOCK_MONOTONIC in seconds (journalctl
 *        -o short-monotonic prints the same clock): the trace opened, a
 *        handheld arrived (its stream started: name, VID:PID, transport,
 *        endpoints), or it departed (with its byte counts);
 *   '+'  seconds since the last '=' line, then '<' bytes from the
 *        handheld, '>' bytes to it, or '*' an event (open, close, hangup,
 *        a failed transfer, bytes that came after the last close).
 *        Bytes: the offset in the transfer (0000 starts a new one), 16
 *        bytes in hex, and the same as ASCII ('.' for the rest).
 *
 * '<' is what a bulk IN transfer brought, as the transport reported its
 * completion; '>' what the handheld took of a bulk OUT transfer (what
 * it did not take is sent again, and shows then).  Only between an
 * arrival and its departure do bytes show, so no byte is another
 * session's.
 *
 * Bounds: each event is one write(2) of at most TRACE_BUF_SIZE bytes (a
 * large transfer, several), so nothing is held in memory when pilotd
 * stops or dies.  The file never grows beyond the limit given to
 * trace_start() (what it held before counts), and no one peer can take
 * all of it: each stretch, a session (arrival to departure) or the time
 * between two, writes at most a share, half the limit; past its share a
 * '#' line says its lines stop, and only its end ('=') line follows.
 * When the trace begins or a handheld arrives and the file has no room
 * left for a whole share, the file starts over (emptied, with a '#' line
 * saying so): so it always holds the latest session, up to its share,
 * whoever filled it before.  A file that does not begin as a trace is
 * never emptied: with no room at the start, it is not traced to.  A write error (a full disk) stops the trace
 * with one log line until the next arrival, which tries again and says
 * with a '#' line that lines were lost; the sessions go on.  With no trace
 * (a NULL pointer) the pump and the port pay a pointer test.
 */
#ifndef PILOTD_TRACE_H
#define PILOTD_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_FORMAT	1
#define TRACE_MAX_BYTES (64ull << 20) /* pilotd's limit on the file: 64 MiB */
#define TRACE_BUF_SIZE	8192u	      /* text gathered before each write(2) */
/* a stretch's share of the limit: a half (32 MiB, some 6 MiB of a session's bytes) */
#define TRACE_SHARE_OF(limit) ((limit) / 2)

enum trace_dir { TRACE_FROM_HANDHELD = '<', TRACE_TO_HANDHELD = '>' };

struct trace {
	int fd;
	bool on;		    /* tracing: started, not ended, no write error */
	bool broken;		    /* a write error stopped it until the next arrival */
	bool midline;		    /* and the file then ended inside a line */
	int lost_errno;		    /* that error */
	uint64_t limit, size;	    /* the file's bound and its size */
	uint64_t share;		    /* each stretch's bound (TRACE_SHARE_OF) */
	uint64_t stretch, cap;	    /* the current stretch's bytes and bound */
	bool full;		    /* it reached its bound: its lines stop */
	uint64_t (*clock_ms)(void); /* CLOCK_MONOTONIC, ms */
	const char *version;	    /* in each header */
	uint64_t origin_ms;	    /* of the last '=' line */
	bool in_session;
	unsigned int sessions; /* arrivals so far */
	uint64_t bytes_in, bytes_out;
	size_t len;
	char buf[TRACE_BUF_SIZE];
};

/*
 * Trace to fd (a regular file opened for reading and appending); at most
 * limit bytes in the file, counting what is in it already (a trace with
 * no room for a share starts over).  version goes in the header.  Returns
 * 0, -EFBIG for a file with no room that is no trace, or -errno when it
 * cannot be emptied (nothing is traced; logged).
 */
int trace_start(struct trace *t, int fd, uint64_t limit, uint64_t (*clock_ms)(void),
		const char *version);

static inline bool trace_on(const struct trace *t)
{
	return t && t->on;
}

/* A handheld's stream starts: name says its VID:PID and transport. */
void trace_arrival(struct trace *t, const char *name, unsigned int in_ep, unsigned int out_ep,
		   size_t in_packet);
void trace_departure(struct trace *t);
/* pilotd stops: the last line ("= ... trace ends"); a trace without it ended
 * with pilotd's death. */
void trace_end(struct trace *t);
void trace_bytes(struct trace *t, enum trace_dir dir, const void *buf, size_t len);
void trace_event(struct trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
