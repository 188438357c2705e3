// SPDX-License-Identifier: MIT
/*
 * What `systemctl status pilotd` shows (core/status.h): the exact text
 * for each state, and status_update() sending it only when it changed.
 */
#include <string.h>

#include "check.h"
#include "core/status.h"

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		if (strcmp((a), (b)) != 0) {                                                       \
			fprintf(stderr, "%s:%d: \"%s\", expected \"%s\"\n", __FILE__, __LINE__,    \
				(a), (b));                                                         \
			check_failures++;                                                          \
		}                                                                                  \
	} while (0)

static void test_format(void)
{
	static const struct {
		struct status_facts f;
		const char *text;
	} cases[] = {
		{ .f = { .devname = "pilot" },
		  .text = "/dev/pilot: no handheld; 0 files open; no HotSync yet" },
		{ .f = { .devname = "pilot",
			 .handheld = "handheld 0830:0001 (bus 1 address 3)",
			 .files = 1 },
		  .text = "Palm m500 (0830:0001, bus 1 address 3) on /dev/pilot; 1 file open; no "
			  "HotSync yet" },
		{ .f = { .devname = "pilot-dock",
			 .handheld = "handheld 0830:0001 (usbredir cradle.example:4000)",
			 .files = 2,
			 .last = { .valid = true,
				   .start = 1796619012,
				   .ms = 3250,
				   .rx = 1234,
				   .tx = 567 } },
		  .text = "Palm m500 (0830:0001, usbredir cradle.example:4000) on /dev/pilot-dock; "
			  "2 files "
			  "open; last HotSync 2026-12-07 04:50:12 UTC, 3.2 s, 1234 bytes in, 567 "
			  "out" },
		/* an ID no model has, and a name in another shape, as they are */
		{ .f = { .devname = "pilot", .handheld = "handheld 1234:5678 (bus 2 address 9)" },
		  .text = "a handheld (1234:5678, bus 2 address 9) on /dev/pilot; 0 files open; no "
			  "HotSync yet" },
		{ .f = { .devname = "pilot", .handheld = "a Palm on the network" },
		  .text = "a Palm on the network on /dev/pilot; 0 files open; no HotSync yet" },
	};
	char buf[STATUS_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ(status_format(buf, sizeof(buf), &cases[i].f), strlen(cases[i].text));
		CHECK_STR(buf, cases[i].text);
	}
	/* cut, never overrun */
	CHECK_EQ(status_format(buf, 10, &cases[2].f), 9);
	CHECK_STR(buf, "Palm m500");
}

static int64_t fake_wall;

static int64_t wall_clock(void)
{
	return fake_wall;
}

static bool update(struct status_watch *w, const struct port *p, const char *handheld,
		   uint64_t now_ms, int64_t wall)
{
	fake_wall = wall;
	return status_update(w, p, "pilot", handheld, now_ms, wall_clock);
}

/* A docking, a sync, a departure: one text each, none on an idle round. */
static void test_update(void)
{
	static const char hh[] = "handheld 0830:0001 (bus 1 address 3)";
	struct status_watch w = { 0 };
	struct port p = { 0 };

	CHECK(update(&w, &p, NULL, 1000, 1796619000));
	CHECK_STR(w.text, "/dev/pilot: no handheld; 0 files open; no HotSync yet");
	CHECK(!update(&w, &p, NULL, 2000, 1796619001)); /* nothing changed */

	p.carrier = true; /* the button pressed */
	p.session = 1;
	CHECK(update(&w, &p, hh, 10000, 1796619010));
	CHECK_STR(w.text, "Palm m500 (0830:0001, bus 1 address 3) on /dev/pilot; 0 files open; "
			  "no HotSync yet");
	p.nfiles = 1; /* the desktop opens /dev/pilot */
	CHECK(update(&w, &p, hh, 10500, 1796619010));
	CHECK_STR(w.text, "Palm m500 (0830:0001, bus 1 address 3) on /dev/pilot; 1 file open; "
			  "no HotSync yet");
	p.stats.rx_bytes = 1234; /* bytes flow: not in the text, nothing sent */
	p.stats.tx_bytes = 567;
	for (int i = 0; i < 100; i++)
		CHECK(!update(&w, &p, hh, 11000 + i, 1796619011));

	p.carrier = false; /* the sync ends, the handheld leaves */
	CHECK(update(&w, &p, hh, 13250, 1796619013));
	CHECK_STR(w.text, "/dev/pilot: no handheld; 1 file open; last HotSync 2026-12-07 04:50:10 "
			  "UTC, 3.2 s, 1234 bytes in, 567 out");
	p.nfiles = 0;
	CHECK(update(&w, &p, NULL, 13300, 1796619013));
	CHECK_STR(w.text, "/dev/pilot: no handheld; 0 files open; last HotSync 2026-12-07 04:50:10 "
			  "UTC, 3.2 s, 1234 bytes in, 567 out");
	CHECK(!update(&w, &p, NULL, 99999, 1796615000));

	/* the next press: the last HotSync stays until this one ends */
	p.carrier = true;
	p.session = 2;
	p.stats.rx_bytes = p.stats.tx_bytes = 0;
	CHECK(update(&w, &p, hh, 100000, 1796615100));
	CHECK_STR(w.text, "Palm m500 (0830:0001, bus 1 address 3) on /dev/pilot; 0 files open; "
			  "last HotSync 2026-12-07 04:50:10 UTC, 3.2 s, 1234 bytes in, 567 out");
}

int main(void)
{
	test_format();
	test_update();
	return check_result("test_status");
}
