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

/* The longest line: the stop marker, an event, 16 bytes of a transfer. */
#define LINE_MAX_LEN 320u

static void stop(struct trace *t, const char *why)
{
	t->on = false;
	t->len = 0;
	log_warn("trace: %s; tracing stops, the sessions go on", why);
}

static void flush(struct trace *t)
{
	size_t off = 0;

	while (t->on && off < t->len) {
		ssize_t n = write(t->fd, t->buf + off, t->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			stop(t, n < 0 ? strerror(errno) : "the file takes no more");
			return;
		}
		off += (size_t)n;
	}
	t->len = 0;
}

/*
 * One line into the buffer, if the file has room for it and the stop
 * marker after it; else the marker, and the trace ends.
 */
static void line(struct trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(struct trace *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!t->on)
		return;
	if (t->len + LINE_MAX_LEN > sizeof(t->buf))
		flush(t);
	if (!t->on)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, LINE_MAX_LEN, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= LINE_MAX_LEN)
		n = LINE_MAX_LEN - 1; /* an event's text cut short, never its bytes */
	if (t->size + (size_t)n + LINE_MAX_LEN > t->limit) {
		n = snprintf(t->buf + t->len, LINE_MAX_LEN,
			     "# trace stopped: the file reached pilotd's limit of %llu bytes\n",
			     (unsigned long long)t->limit);
		t->len += (size_t)n;
		flush(t);
		t->on = false;
		log_warn("trace: the file reached its limit of %llu bytes; tracing stops",
			 (unsigned long long)t->limit);
		return;
	}
	t->buf[t->len + (size_t)n - 1] = '\n'; /* a cut line still ends */
	t->len += (size_t)n;
	t->size += (size_t)n;
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
static void origin(struct trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void origin(struct trace *t, const char *fmt, ...)
{
	char what[LINE_MAX_LEN - 32];
	va_list ap;

	t->origin_ms = t->clock_ms();
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	line(t, "= %llu.%03u %s\n", (unsigned long long)(t->origin_ms / 1000),
	     (unsigned int)(t->origin_ms % 1000), what);
}

int trace_start(struct trace *t, int fd, uint64_t limit, uint64_t (*clock_ms)(void),
		const char *version)
{
	struct stat st;

	*t = (struct trace){ .fd = fd, .limit = limit, .clock_ms = clock_ms, .on = true };
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		t->size = (uint64_t)st.st_size; /* appended to: it counts */
	if (t->size + 4 * LINE_MAX_LEN > limit) {
		t->on = false;
		log_warn("trace: the file holds %llu bytes, near pilotd's limit of %llu; "
			 "not tracing (remove it, or name another)",
			 (unsigned long long)t->size, (unsigned long long)limit);
		return -EFBIG;
	}
	line(t, "# pilotd %s trace, format %d: pilotd(8) TRACE FORMAT\n", version, TRACE_FORMAT);
	origin(t, "trace begins");
	flush(t);
	return 0;
}

void trace_departure(struct trace *t)
{
	uint64_t ms;

	if (!trace_on(t) || !t->in_session)
		return;
	ms = since_origin(t);
	t->in_session = false;
	origin(t, "departure %u after %llu.%03u s: %llu bytes in, %llu out", t->sessions,
	       (unsigned long long)(ms / 1000), (unsigned int)(ms % 1000),
	       (unsigned long long)t->bytes_in, (unsigned long long)t->bytes_out);
	flush(t);
}

void trace_arrival(struct trace *t, const char *name, unsigned int in_ep, unsigned int out_ep,
		   size_t in_packet)
{
	if (!trace_on(t))
		return;
	trace_departure(t); /* a stream restarted without one: the old one ended */
	t->in_session = true;
	t->sessions++;
	t->bytes_in = t->bytes_out = 0;
	if (in_ep || out_ep)
		origin(t, "arrival %u: %s, bulk IN 0x%02x (%zu-byte packets), OUT 0x%02x",
		       t->sessions, name, in_ep, in_packet, out_ep);
	else /* no endpoints: a network HotSync */
		origin(t, "arrival %u: %s, reads of %zu bytes", t->sessions, name, in_packet);
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
	for (size_t off = 0; off < len && t->on; off += 16)
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
	origin(t, "trace ends");
	flush(t);
	t->on = false;
}
