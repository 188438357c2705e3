// SPDX-License-Identifier: MIT
/*
 * The byte trace (core/trace.c, pilotd --trace) as the pump and the port
 * write it: a real port with port_harness.h's fake front, a real pump
 * over a fake transport, a fake clock and the trace in a temporary file.
 * Its exact text for two sessions (an open before the arrival, the NET
 * handshake's first bytes both ways, a close, a departure, a second
 * handheld whose bytes are its own); the bounds (each session's share,
 * the time between sessions', the file's, which starts over to keep the
 * latest session); a write error, which stops the trace until the next
 * arrival and leaves the session alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "raw_termios.h"
#include "core/pump.h"
#include "core/trace.h"
#include "port_harness.h"

/* ---- the fake transport: what a test completes, it submitted ---- */

static struct fake {
	bool in_flying[PUMP_IN_MAX];
	int out_submitted;
} fk;

static int fk_submit_in(void *ctx, int slot, uint8_t *buf, size_t len)
{
	fk.in_flying[slot] = true;
	return 0;
}

static int fk_submit_out(void *ctx, const uint8_t *buf, size_t len)
{
	fk.out_submitted++;
	return 0;
}

static void fk_cancel(void *ctx, int slot)
{
}

static void fk_cancel_out(void *ctx)
{
}

static int fk_clear_halt(void *ctx, bool in)
{
	return 0;
}

static int fk_close(void *ctx)
{
	return 0;
}

static const struct pump_io fake_io = {
	.submit_in = fk_submit_in,
	.submit_out = fk_submit_out,
	.cancel_in = fk_cancel,
	.cancel_out = fk_cancel_out,
	.clear_halt = fk_clear_halt,
	.close_notification = fk_close,
};

/* ---- the port and pump, and the trace in a temporary file ---- */

static struct pump pm;
static uint8_t out_buf[4096];
static struct ph h;
static struct trace tr;
static FILE *file;

static uint64_t fake_clock(void)
{
	return h.now;
}

static void setup(struct port *p, uint64_t limit)
{
	memset(&fk, 0, sizeof(fk));
	CHECK_EQ(ph_init(&h, p, &ph_config_small, 4096), 0);
	h.now = 1000;
	make_raw_termios(&p->tty.termios);
	pump_init(&pm, &fake_io, NULL, p, out_buf, sizeof(out_buf));
	h.pump = &pm;
	file = tmpfile();
	CHECK(file != NULL);
	CHECK_EQ(trace_start(&tr, fileno(file), limit, fake_clock, "test"), 0);
	p->trace = &tr;
}

/* A handheld's stream starts; the carrier goes up at the drive. */
static void arrive(const char *name)
{
	const struct palm_hotsync hs = { .in_ep = 0x82, .out_ep = 0x02 };

	pump_start(&pm, name, &hs, 64, sizeof(out_buf));
	pump_drive(&pm, h.now);
}

/* The handheld answers an IN request with len bytes. */
static void handheld_says(const void *bytes, size_t len)
{
	int slot = 0;

	while (slot < PUMP_IN_MAX && !fk.in_flying[slot])
		slot++;
	CHECK(slot < PUMP_IN_MAX);
	if (slot == PUMP_IN_MAX)
		return;
	fk.in_flying[slot] = false;
	pump_in_done(&pm, slot, pm.running ? PUMP_OK : PUMP_CANCELLED, bytes, len);
	pump_drive(&pm, h.now);
}

/* The handheld takes what the OUT transfer in flight carried, up to n. */
static void handheld_takes(size_t n)
{
	pump_out_done(&pm, PUMP_OK, n);
	pump_drive(&pm, h.now);
}

static void depart(struct port *p)
{
	pump_stop(&pm);
	port_carrier_down(p);
}

/* The file's whole text (the test's static buffer). */
static const char *trace_text(void)
{
	static char text[65536];
	ssize_t n = pread(fileno(file), text, sizeof(text) - 1, 0);

	text[n > 0 ? n : 0] = '\0';
	return text;
}

static size_t trace_size(void)
{
	struct stat st;

	return fstat(fileno(file), &st) == 0 ? (size_t)st.st_size : 0;
}

static void check_text(const char *want)
{
	const char *got = trace_text();

	CHECK(strcmp(got, want) == 0);
	if (strcmp(got, want))
		fprintf(stderr, "--- trace:\n%s--- expected:\n%s---\n", got, want);
}

static void done(void)
{
	CHECK_EQ(ph_close_all(&h), 0);
	ph_free(&h);
	fclose(file);
}

/* The first bytes of the NET handshake (palm-protocol.md "NET"). */
static const uint8_t net_hello[] = { 0x01, 0xff, 0x00, 0x00, 0x00, 0x16, 0x90, 0x01, 0x00, 0x00,
				     0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x08,
				     0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };
static const uint8_t net_answer_head[] = { 0x01, 0xff, 0x00, 0x00, 0x00, 0x32, 0x12, 0x01 };

/* Two sessions, as a user would paste them. */
static void test_two_sessions(void)
{
	struct port p;
	uint64_t fh;
	void *r;

	setup(&p, TRACE_MAX_BYTES);
	h.now = 1350;
	fh = ph_open(&h, 1000, false, true); /* the desktop listens first */
	h.now = 2000;
	arrive("handheld 0830:0061 (bus 1 address 5)");
	h.now = 2012;
	handheld_says(net_hello, sizeof(net_hello));
	r = ph_read(&h, fh, 64, true, h.now);
	CHECK_EQ(ph_ans(&h, r)->len, sizeof(net_hello)); /* the session's bytes, whole */
	h.now = 2020;
	ph_write(&h, fh, net_answer_head, sizeof(net_answer_head), true);
	CHECK_EQ(fk.out_submitted, 1);
	h.now = 2021;
	handheld_takes(sizeof(net_answer_head));
	h.now = 5000;
	port_release(&p, fh);
	/* a transfer cancelled at the last close still brought a byte */
	handheld_says("z", 1);
	h.now = 6000;
	depart(&p);

	/* the next handheld: its own bytes, counted from its arrival */
	h.now = 7000;
	fh = ph_open(&h, 1000, false, true);
	h.now = 7500;
	arrive("handheld 0830:0060 (usbredir 10.0.2.2:4000)");
	h.now = 7501;
	handheld_says("ab", 2);
	h.now = 9000;
	depart(&p);
	/* what a transfer brings after the departure is no session's */
	handheld_says("zz", 2);
	trace_end(&tr);
	check_text("# pilotd test trace, format 1: pilotd(8) TRACE FORMAT\n"
		   "= 1.000 trace begins\n"
		   "  +0.350 * open 1 by uid 1000, no handheld yet\n"
		   "= 2.000 arrival 1: handheld 0830:0061 (bus 1 address 5), bulk IN 0x82 (64-byte "
		   "packets), OUT 0x02\n"
		   "  +0.012 < 0000  01 ff 00 00 00 16 90 01  00 00 00 00 00 00 00 20  "
		   "|............... |\n"
		   "  +0.012 < 0010  00 00 00 08 01 00 00 00  00 00 00 00              "
		   "|............|\n"
		   "  +0.021 > 0000  01 ff 00 00 00 32 12 01                           "
		   "|.....2..|\n"
		   "  +3.000 * close 1 (the last)\n"
		   "  +3.000 < 0000  7a                                                |z|\n"
		   "  +3.000 * discarded: nobody listens since the last close\n"
		   "= 6.000 departure 1 after 4.000 s: 29 bytes in, 8 out\n"
		   "  +1.000 * open 2 by uid 1000, no handheld yet\n"
		   "= 7.500 arrival 2: handheld 0830:0060 (usbredir 10.0.2.2:4000), bulk IN 0x82 "
		   "(64-byte packets), OUT 0x02\n"
		   "  +0.001 < 0000  61 62                                             |ab|\n"
		   "= 9.000 departure 2 after 1.500 s: 2 bytes in, 0 out\n"
		   "  +0.000 * hung up 1 open file\n"
		   "= 9.000 trace ends\n");
	done();
}

/* A peer that sends n packets of 64 bytes, read by the file fh. */
static void flood(uint64_t fh, int n)
{
	static uint8_t bytes[64];

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)i;
	for (int i = 0; i < n; i++) {
		void *r;

		h.now++;
		handheld_says(bytes, sizeof(bytes));
		r = ph_read(&h, fh, 64, true, h.now);
		CHECK_EQ(ph_ans(&h, r)->len, sizeof(bytes)); /* the bytes flow, traced or not */
	}
}

static bool starts_with(const char *text, const char *prefix)
{
	return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* The text from needle to the end, or NULL. */
static const char *after(const char *text, const char *needle)
{
	return strstr(text, needle);
}

/* The length of text from the line that starts with from to the end of the
 * line that starts with to (both included), or 0 when either is missing. */
static size_t stretch_len(const char *text, const char *from, const char *to)
{
	const char *a = strstr(text, from), *b = a ? strstr(a, to) : NULL, *e;

	if (!b)
		return 0;
	e = strchr(b, '\n');
	return e ? (size_t)(e + 1 - a) : 0;
}

/*
 * No one peer takes the whole trace: a session that floods it stops at
 * its share (half the file) with a '#' line, its departure still shows,
 * and the next session is traced whole; when a session arrives and the
 * file has no room for a share, the file starts over, so the latest
 * session is always there.  The file never passes its limit.
 */
static void test_session_share(void)
{
	const uint64_t limit = 16384, share = 8192;
	struct port p;
	uint64_t fh;
	const char *text;

	setup(&p, limit);
	fh = ph_open(&h, 1000, false, true);
	arrive("handheld 0830:0061 (bus 1 address 5)");
	flood(fh, 200); /* 12800 bytes: some 70 KB of text */
	CHECK(trace_size() <= limit);
	h.now += 1000;
	depart(&p);
	port_release(&p, fh);
	text = trace_text();
	CHECK(after(text, "# this session reached its share of 8192 bytes of the trace; its lines "
			  "stop here\n= ") != NULL); /* the marker, then the departure */
	CHECK(after(text, "departure 1 after 1.200 s: 12800 bytes in, 0 out\n") != NULL);
	CHECK(stretch_len(text, "= 1.000 arrival 1", "= 2.200 departure 1") <= share);
	CHECK(stretch_len(text, "= 1.000 arrival 1", "= 2.200 departure 1") > share - 4 * 320);

	/* the next handheld: traced whole, after the flood */
	fh = ph_open(&h, 1000, false, true);
	h.now += 1000;
	arrive("handheld 0830:0060 (bus 1 address 6)");
	h.now++;
	handheld_says("ab", 2);
	CHECK_EQ(ph_ans(&h, ph_read(&h, fh, 64, true, h.now))->len, 2);
	depart(&p);
	port_release(&p, fh);
	text = trace_text();
	CHECK(after(text, "arrival 2: handheld 0830:0060 (bus 1 address 6)") != NULL);
	CHECK(after(text, "< 0000  61 62 ") != NULL);
	CHECK(after(text, "departure 2 after 0.001 s: 2 bytes in, 0 out\n") != NULL);
	CHECK(trace_size() <= limit);

	/* more floods: each arrival without room for a share starts the file
	 * over, and the file never passes its limit */
	for (int i = 3; i <= 8; i++) {
		char want[64];

		fh = ph_open(&h, 1000, false, true);
		arrive("handheld 0830:0061 (bus 1 address 5)");
		flood(fh, i % 2 ? 200 : 20);
		CHECK(trace_size() <= limit);
		depart(&p);
		port_release(&p, fh);
		CHECK(trace_size() <= limit);
		text = trace_text();
		snprintf(want, sizeof(want), "= %llu.%03u departure %d after",
			 (unsigned long long)(h.now / 1000), (unsigned int)(h.now % 1000), i);
		CHECK(after(text, want) != NULL); /* the latest session is there */
	}
	text = trace_text();
	CHECK(starts_with(text, "# pilotd test trace, format 1: pilotd(8) TRACE FORMAT\n"
				"# the file started over here: it held "));
	trace_end(&tr);
	CHECK(trace_size() <= limit);
	text = trace_text();
	CHECK(strlen(text) > 20 && strcmp(text + strlen(text) - 12, " trace ends\n") == 0);
	done();
}

/*
 * Between sessions a local user who opens and closes /dev/pilot without
 * end fills only that stretch's share; the next handheld is traced.
 */
static void test_between_share(void)
{
	const uint64_t limit = 16384;
	struct port p;
	const char *text;
	uint64_t fh;

	setup(&p, limit);
	for (int i = 0; i < 1000; i++) { /* some 40 KB of opens and closes */
		h.now++;
		port_release(&p, ph_open(&h, 1000, false, true));
	}
	CHECK(trace_size() <= 8192);
	text = trace_text();
	CHECK(after(text, "# the time between sessions reached its share of 8192 bytes of the "
			  "trace; its lines stop here\n") != NULL);
	h.now += 1000;
	fh = ph_open(&h, 1000, false, true);
	arrive("handheld 0830:0061 (bus 1 address 5)");
	h.now++;
	handheld_says("ab", 2);
	CHECK_EQ(ph_ans(&h, ph_read(&h, fh, 64, true, h.now))->len, 2);
	depart(&p);
	text = trace_text();
	CHECK(after(text, "arrival 1: handheld 0830:0061") != NULL);
	CHECK(after(text, "< 0000  61 62 ") != NULL);
	CHECK(after(text, "departure 1 after 0.001 s: 2 bytes in, 0 out\n") != NULL);
	CHECK(trace_size() <= limit);
	done();
}

/*
 * A trace already past its room for a share starts over at once; a file
 * that is no trace (a log named by mistake) is left alone, untraced.
 */
static void test_full_file(void)
{
	const uint64_t limit = 16384;

	h.now = 1000;
	file = tmpfile();
	CHECK(file != NULL);
	CHECK(ftruncate(fileno(file), 9000) == 0);
	CHECK_EQ(trace_start(&tr, fileno(file), limit, fake_clock, "test"), -EFBIG);
	CHECK(!trace_on(&tr));
	CHECK_EQ(trace_size(), 9000);
	CHECK(pwrite(fileno(file), "# pilotd 0.9 trace", 18, 0) == 18);
	CHECK_EQ(trace_start(&tr, fileno(file), limit, fake_clock, "test"), 0);
	CHECK(trace_on(&tr));
	CHECK(starts_with(trace_text(),
			  "# pilotd test trace, format 1: pilotd(8) TRACE FORMAT\n"
			  "# the file started over here: it held 9000 bytes, and pilotd keeps it "
			  "under 16384\n"
			  "= 1.000 trace begins\n"));
	CHECK(trace_size() < 200);
	fclose(file);

	/* a file that is no trace, with room at the start: traced to, and
	 * when a session would not fit, tracing stops; it is not emptied */
	file = tmpfile();
	CHECK(file != NULL);
	CHECK(ftruncate(fileno(file), 8000) == 0);
	CHECK(lseek(fileno(file), 0, SEEK_END) == 8000);
	CHECK_EQ(trace_start(&tr, fileno(file), limit, fake_clock, "test"), 0);
	CHECK(ftruncate(fileno(file), 9000) == 0); /* what others wrote to it */
	tr.size = 9000;
	trace_arrival(&tr, "handheld 0830:0061 (bus 1 address 5)", 0x82, 0x02, 64);
	CHECK(!trace_on(&tr));
	CHECK_EQ(trace_size(), 9000);
	fclose(file);

	/* with room for a share, it is appended to */
	file = tmpfile();
	CHECK(file != NULL);
	CHECK(ftruncate(fileno(file), 8000) == 0);
	CHECK(lseek(fileno(file), 0, SEEK_END) == 8000); /* as O_APPEND writes */
	CHECK_EQ(trace_start(&tr, fileno(file), limit, fake_clock, "test"), 0);
	CHECK(trace_size() > 8000);
	fclose(file);
}

/*
 * A write error (here ENOSPC, /dev/full put in the file's place) stops
 * the trace until the next arrival, which says lines were lost; the
 * session's bytes go on both ways meanwhile.
 */
static void test_write_error(void)
{
	struct port p;
	uint64_t fh;
	int saved, full;
	size_t size;
	void *r;

	setup(&p, TRACE_MAX_BYTES);
	fh = ph_open(&h, 1000, false, true);
	arrive("handheld 0830:0061 (bus 1 address 5)");
	size = trace_size();
	saved = dup(fileno(file));
	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	CHECK(saved >= 0 && full >= 0);
	CHECK(dup2(full, fileno(file)) >= 0);
	handheld_says(net_hello, sizeof(net_hello));
	CHECK(!tr.on);
	r = ph_read(&h, fh, 64, true, h.now);
	CHECK_EQ(ph_ans(&h, r)->len, sizeof(net_hello));
	/* the file back: the trace stays stopped for this session, which goes on */
	CHECK(dup2(saved, fileno(file)) >= 0);
	handheld_says("ab", 2);
	r = ph_read(&h, fh, 64, true, h.now);
	CHECK_EQ(ph_ans(&h, r)->len, 2);
	ph_write(&h, fh, "hi", 2, true);
	CHECK_EQ(fk.out_submitted, 1);
	handheld_takes(2);
	CHECK_EQ(pm.tx_bytes, 2);
	depart(&p);
	CHECK_EQ(trace_size(), size);
	/* the next arrival tries again, and says lines were lost */
	h.now = 3000;
	arrive("handheld 0830:0060 (bus 1 address 6)");
	CHECK(tr.on);
	CHECK(strstr(trace_text(), "# lines were lost before here: a write error (No space left "
				   "on device) stopped the trace until this arrival\n"
				   "= 3.000 arrival 2: handheld 0830:0060") != NULL);
	depart(&p);
	trace_end(&tr);
	close(saved);
	close(full);
	done();
}

int main(void)
{
	test_two_sessions();
	test_session_share();
	test_between_share();
	test_full_file();
	test_write_error();
	return check_result("test_trace");
}
