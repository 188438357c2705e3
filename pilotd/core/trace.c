// SPDX-License-Identifier: MIT
/* The byte trace; see trace.h for the format and its bounds. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "trace.h"

/* The longest line: a marker, an event, 16 bytes of a transfer. */
#define LINE_MAX_LEN 320u
/* Kept in each stretch for its '#' marker and its end line. */
#define RESERVE (2 * LINE_MAX_LEN)

static void flush(struct trace *t)
{
	size_t off = 0;

	while (t->on && off < t->len) {
		ssize_t n = write(t->fd, t->buf + off, t->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* until the next arrival, which says what was lost */
			t->on = false;
			t->broken = true;
			t->lost_errno = n < 0 ? errno : ENOSPC;
			t->midline = off > 0 && t->buf[off - 1] != '\n';
			log_warn("trace: %s; tracing stops until the next arrival, the sessions "
				 "go on",
				 strerror(t->lost_errno));
			break;
		}
		off += (size_t)n;
	}
	t->len = 0;
}

/* Into the buffer as it is, counted in the file and the stretch. */
static void put(struct trace *t, const char *text, size_t n)
{
	if (t->len + n > sizeof(t->buf))
		flush(t);
	if (!t->on)
		return;
	memcpy(t->buf + t->len, text, n);
	t->len += n;
	t->size += n;
	t->stretch += n;
}

/* A stretch begins: a session (the share less what the next stretch
 * needs at least), or the time after one (what the file has left). */
static void begin_stretch(struct trace *t, bool session)
{
	uint64_t room = t->limit > t->size ? t->limit - t->size : 0;

	t->stretch = 0;
	t->full = false;
	t->cap = session ? t->share - RESERVE : (room < t->share ? room : t->share);
}

/*
 * One line into the buffer.  An ending line (a departure, the trace's
 * end) uses the room each stretch keeps for it; any other, past its
 * stretch's share, is dropped, and the first such leaves a marker.
 */
static void vline(struct trace *t, bool ending, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void vline(struct trace *t, bool ending, const char *fmt, va_list ap)
{
	char text[LINE_MAX_LEN];
	int n;

	if (!t->on || (!ending && t->full))
		return;
	n = vsnprintf(text, sizeof(text), fmt, ap);
	if (n <= 0)
		return;
	if ((size_t)n >= sizeof(text))
		n = sizeof(text) - 1; /* an event's text cut short, never its bytes */
	text[n - 1] = '\n';	      /* a cut line still ends */
	if (!ending && t->stretch + (size_t)n + RESERVE > t->cap) {
		n = snprintf(text, sizeof(text),
			     "# %s reached its share of %llu bytes of the trace; its lines stop "
			     "here\n",
			     t->in_session ? "this session" : "the time between sessions",
			     (unsigned long long)t->share);
		t->full = true;
		log_warn("trace: %s reached its share of %llu bytes; its lines stop",
			 t->in_session ? "session" : "the time between sessions",
			 (unsigned long long)t->share);
	}
	if (t->size + (size_t)n > t->limit) { /* kept by RESERVE: never */
		t->full = true;
		return;
	}
	put(t, text, (size_t)n);
}

static void line(struct trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(struct trace *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(t, false, fmt, ap);
	va_end(ap);
}

static void end_line(struct trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void end_line(struct trace *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(t, true, fmt, ap);
	va_end(ap);
}

static uint64_t since_origin(const struct trace *t)
{
	uint64_t now = t->clock_ms();

	return now > t->origin_ms ? now - t->origin_ms : 0;
}

/* "+S.mmm", right-aligned to 8 columns */
static const char *stamp(const struct trace *t, char out[32])
{
	uint64_t ms = since_origin(t);
	char s[24];

	snprintf(s, sizeof(s), "+%llu.%03u", (unsigned long long)(ms / 1000),
		 (unsigned int)(ms % 1000));
	snprintf(out, 32, "%8s", s);
	return out;
}

/* A '=' line: the clock's own time, from which the lines below count. */
static void origin(struct trace *t, bool ending, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void origin(struct trace *t, bool ending, const char *fmt, ...)
{
	char what[LINE_MAX_LEN - 32];
	va_list ap;

	t->origin_ms = t->clock_ms();
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (ending)
		end_line(t, "= %llu.%03u %s\n", (unsigned long long)(t->origin_ms / 1000),
			 (unsigned int)(t->origin_ms % 1000), what);
	else
		line(t, "= %llu.%03u %s\n", (unsigned long long)(t->origin_ms / 1000),
		     (unsigned int)(t->origin_ms % 1000), what);
}

/* The header, once each time pilotd opens the file or it starts over. */
static void header(struct trace *t)
{
	char text[LINE_MAX_LEN];
	int n = snprintf(text, sizeof(text),
			 "# pilotd %s trace, format %d: pilotd(8) TRACE FORMAT\n", t->version,
			 TRACE_FORMAT);

	if (n > 0 && (size_t)n < sizeof(text))
		put(t, text, (size_t)n);
}

/* Does the file begin as a trace (a header)?  Only then may it be emptied:
 * a file named by mistake (a log) is not pilotd's to throw away. */
static bool is_trace(int fd)
{
	static const char head[] = "# pilotd ";
	char buf[sizeof(head) - 1];

	return pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) &&
	       memcmp(buf, head, sizeof(buf)) == 0;
}

/*
 * Room for a whole share, or the file starts over: emptied (O_APPEND
 * writes then go at its start), so the latest sessions are the ones kept.
 * Returns 0, or -errno when it cannot be emptied, or -EFBIG when it is no
 * trace (the trace stops).
 */
static int make_room(struct trace *t)
{
	char text[LINE_MAX_LEN];
	uint64_t held = t->size;
	int n;

	if (t->size + t->share <= t->limit)
		return 0;
	flush(t);
	if (!is_trace(t->fd)) {
		t->on = false;
		log_warn("trace: the file holds %llu bytes, no room for a session, and does not "
			 "begin as a pilotd trace: it is not emptied; tracing stops (remove it, or "
			 "name another)",
			 (unsigned long long)t->size);
		return -EFBIG;
	}
	/* the seek for a file not opened O_APPEND (the tests' tmpfile()) */
	if (ftruncate(t->fd, 0) < 0 || lseek(t->fd, 0, SEEK_SET) < 0) {
		int e = errno;

		t->on = false;
		log_warn("trace: cannot empty the file to start over: %s; tracing stops",
			 strerror(e));
		return -e;
	}
	t->size = 0;
	t->midline = false;
	header(t);
	n = snprintf(text, sizeof(text),
		     "# the file started over here: it held %llu bytes, and pilotd keeps it "
		     "under %llu\n",
		     (unsigned long long)held, (unsigned long long)t->limit);
	put(t, text, (size_t)n);
	log_info("trace: the file started over (it held %llu bytes)", (unsigned long long)held);
	return 0;
}

int trace_start(struct trace *t, int fd, uint64_t limit, uint64_t (*clock_ms)(void),
		const char *version)
{
	struct stat st;
	int r;

	*t = (struct trace){ .fd = fd,
			     .limit = limit,
			     .share = TRACE_SHARE_OF(limit),
			     .clock_ms = clock_ms,
			     .version = version,
			     .on = true };
	if (t->share < 4 * RESERVE)
		return -EINVAL; /* only a test asks for so small a file */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		t->size = (uint64_t)st.st_size; /* appended to: it counts */
	if (t->size + t->share > limit) {
		r = make_room(t);
		if (r < 0)
			return r;
	} else {
		header(t);
	}
	begin_stretch(t, false);
	origin(t, false, "trace begins");
	flush(t);
	return 0; /* a write error: the first arrival tries again */
}

void trace_departure(struct trace *t)
{
	uint64_t ms;

	if (!t || !t->in_session)
		return;
	t->in_session = false;
	if (!t->on)
		return;
	ms = since_origin(t);
	origin(t, true, "departure %u after %llu.%03u s: %llu bytes in, %llu out", t->sessions,
	       (unsigned long long)(ms / 1000), (unsigned int)(ms % 1000),
	       (unsigned long long)t->bytes_in, (unsigned long long)t->bytes_out);
	begin_stretch(t, false);
	flush(t);
}

void trace_arrival(struct trace *t, const char *name, unsigned int in_ep, unsigned int out_ep,
		   size_t in_packet)
{
	struct stat st;
	bool lost = false;

	if (!t || (!t->on && !t->broken))
		return;
	if (t->broken) { /* again, from the file's real size */
		if (fstat(t->fd, &st) == 0)
			t->size = (uint64_t)st.st_size;
		t->on = true;
		t->broken = false;
		lost = true;
		log_info("trace: writing again");
	}
	trace_departure(t); /* a stream restarted without one: the old one ended */
	t->in_session = true;
	t->sessions++;
	t->bytes_in = t->bytes_out = 0;
	if (make_room(t) < 0)
		return;
	begin_stretch(t, true);
	if (lost)
		line(t,
		     "%s# lines were lost before here: a write error (%s) stopped the trace "
		     "until this arrival\n",
		     t->midline ? "\n" : "", strerror(t->lost_errno));
	t->midline = false;
	if (in_ep || out_ep)
		origin(t, false, "arrival %u: %s, bulk IN 0x%02x (%zu-byte packets), OUT 0x%02x",
		       t->sessions, name, in_ep, in_packet, out_ep);
	else /* no endpoints: a network HotSync */
		origin(t, false, "arrival %u: %s, reads of %zu bytes", t->sessions, name,
		       in_packet);
	flush(t);
}

/* 16 bytes (or fewer, at the end) as hexdump -C shows them. */
static void bytes_line(struct trace *t, const char *when, char dir, size_t off, const uint8_t *b,
		       size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char hex[16 * 3 + 2], ascii[17];
	size_t h = 0;

	/* by hand, not snprintf: a tenth of the cost, at every byte traced */
	for (size_t i = 0; i < 16; i++) {
		if (i == 8)
			hex[h++] = ' ';
		hex[h++] = ' ';
		hex[h++] = i < n ? digits[b[i] >> 4] : ' ';
		hex[h++] = i < n ? digits[b[i] & 15] : ' ';
		ascii[i] = i < n ? (b[i] >= 0x20 && b[i] < 0x7f ? (char)b[i] : '.') : '\0';
	}
	hex[h] = '\0';
	ascii[n < 16 ? n : 16] = '\0';
	line(t, "%s %c %04zx %s  |%s|\n", when, dir, off, hex, ascii);
}

void trace_bytes(struct trace *t, enum trace_dir dir, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	char when[32];

	if (!trace_on(t) || !t->in_session || !len)
		return;
	if (dir == TRACE_FROM_HANDHELD)
		t->bytes_in += len;
	else
		t->bytes_out += len;
	stamp(t, when);
	for (size_t off = 0; off < len && t->on && !t->full; off += 16)
		bytes_line(t, when, (char)dir, off, b + off, len - off < 16 ? len - off : 16);
	flush(t);
}

void trace_event(struct trace *t, const char *fmt, ...)
{
	char when[32], what[LINE_MAX_LEN - 48];
	va_list ap;

	if (!trace_on(t))
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	line(t, "%s * %s\n", stamp(t, when), what);
	flush(t);
}

void trace_end(struct trace *t)
{
	if (!trace_on(t))
		return;
	trace_departure(t);
	origin(t, true, "trace ends");
	flush(t);
	t->on = false;
}
