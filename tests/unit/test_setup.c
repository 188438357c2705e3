// SPDX-License-Identifier: MIT
/*
 * The set-up sequence both transports send (core/setup.c), request by
 * request, for each family of docs/devices.md: the exact requests (type,
 * request, wIndex, wLength, or the interrupt read), what the handheld
 * answers (good, refused, timed out, empty, short, junk), and the bulk
 * pair HotSync is taken on.  And the log a user pastes into a bug report:
 * each request and answer in hex, the endpoints and why, a handheld that
 * answered nothing, bounded in size (pilotd_log() wrapped at link time).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/setup.h"
#include "kept_log.h"

/* ---- the log (kept_log.h) ---- */

/* Did pilotd log this?  Says what it logged when not. */
static bool logged_or_say(const char *what)
{
	if (logged(what))
		return true;
	fprintf(stderr, "not in the log: '%s'; the log:\n%s", what, kept_log);
	return false;
}

/* ---- the cases ---- */

/* A request pilotd must send: a control request, or an interrupt read. */
struct want {
	uint8_t reqtype, request;
	uint16_t index, length;
	uint8_t interrupt_in;
};

#define REQ(t, r, i, l)                                                                            \
	{                                                                                          \
		.reqtype = (t), .request = (r), .index = (i), .length = (l)                        \
	}
#define EXT	   REQ(0xc2, 0x04, 0, 20)
#define VISOR	   REQ(0xc2, 0x03, 0, 6)
#define BA(i)	   REQ(0xc2, 0x01, (i), 2)
#define GET_CONFIG REQ(0x80, 0x08, 0, 1)
#define GET_IFACE  REQ(0x81, 0x0a, 0, 1)
#define INTR(ep, l)                                                                                \
	{                                                                                          \
		.interrupt_in = (ep), .length = (l)                                                \
	}

/* One answer the handheld gives. */
struct step {
	enum palm_answer a;
	uint8_t data[64];
	size_t len;
};

#define OK(...)                                                                                    \
	{                                                                                          \
		.a = PALM_ANSWER_OK, .data = { __VA_ARGS__ },                                      \
		.len = sizeof((uint8_t[]){ __VA_ARGS__ })                                          \
	}
#define EXT_PORT2                                                                                  \
	{                                                                                          \
		.a = PALM_ANSWER_OK, .data = { 1, 0, 0, 0, 'c', 'n', 'y', 's', 2 }, .len = 20      \
	}
#define VISOR_PORT2 OK(2, 0, 0, 1, 2, 2)
#define EMPTY                                                                                      \
	{                                                                                          \
		.a = PALM_ANSWER_OK, .len = 0                                                      \
	}
#define STALL                                                                                      \
	{                                                                                          \
		.a = PALM_ANSWER_STALL                                                             \
	}
#define TIMEOUT                                                                                    \
	{                                                                                          \
		.a = PALM_ANSWER_TIMEOUT                                                           \
	}
#define FAILED                                                                                     \
	{                                                                                          \
		.a = PALM_ANSWER_FAILED                                                            \
	}

enum device { TWO_PAIRS, TWO_PAIRS_INTERRUPT };

struct setup_case {
	const char *name;
	uint16_t vid, pid;
	enum device dev;
	struct want req[SETUP_REQUESTS_MAX]; /* each request, in order */
	struct step answer[SETUP_REQUESTS_MAX];
	int requests; /* how many */
	uint8_t in_ep, out_ep;
	const char *why; /* in the log's last line */
};

static const struct setup_case cases[] = {
	/* ---- generic Palm OS 4: visor.c palm_os_4_probe(), visor_probe() ---- */
	{ .name = "generic: extended connection information",
	  .vid = 0x0830,
	  .pid = 0x0060,
	  .req = { EXT, BA(5) },
	  .answer = { EXT_PORT2, OK(0, 0) },
	  .requests = 2,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "from the extended connection information" },
	{ .name = "generic: extended refused, the Visor's request answers",
	  .vid = 0x0830,
	  .pid = 0x0060,
	  .req = { EXT, VISOR, BA(5) },
	  .answer = { STALL, VISOR_PORT2, OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "from the connection information" },
	{ .name = "generic: both refused, the first bulk pair",
	  .vid = 0x0830,
	  .pid = 0x0060,
	  .req = { EXT, VISOR, BA(5) },
	  .answer = { STALL, FAILED, OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .why = "falling back to the first bulk pair" },
	{ .name = "generic: short, then a junk port count taken as two (visor.c)",
	  .vid = 0x0830,
	  .pid = 0x0060,
	  .req = { EXT, VISOR, BA(5) },
	  .answer = { OK(1, 0, 0), OK(0xee, 0x81, 2, 2, 2, 2), OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "from the connection information" },
	{ .name = "generic: endpoints the device does not have are not taken",
	  .vid = 0x0830,
	  .pid = 0x0060,
	  .req = { EXT, VISOR, BA(5) },
	  .answer = { { .a = PALM_ANSWER_OK,
			.data = { 1, 0, 0, 0, 'c', 'n', 'y', 's', 5, 0x55 },
			.len = 20 },
		      OK(1, 0, 2, 7, 0, 0),
		      OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .why = "first bulk pair" },
	{ .name = "generic: a failed BYTES_AVAILABLE does not stop the sync",
	  .vid = 0x0830,
	  .pid = 0x0060,
	  .req = { EXT, BA(5) },
	  .answer = { EXT_PORT2, TIMEOUT },
	  .requests = 2,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "extended" },
	{ .name = "generic: an ID no tool knows (--device) is set up as generic",
	  .vid = 0x1209,
	  .pid = 0x0001,
	  .req = { EXT, BA(5) },
	  .answer = { EXT_PORT2, OK(0, 0) },
	  .requests = 2,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "extended" },
	{ .name = "generic: UX50 without connection information: visor.c's clie_5 move",
	  .vid = 0x054c,
	  .pid = 0x0144,
	  .req = { EXT, VISOR, BA(5) },
	  .answer = { STALL, STALL, OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x81,
	  .out_ep = 0x02,
	  .why = "clie_5_attach" },
	{ .name = "generic: Kyocera with interrupt endpoints: visor.c's Treo move",
	  .vid = 0x0c88,
	  .pid = 0x0021,
	  .dev = TWO_PAIRS_INTERRUPT,
	  .req = { EXT, VISOR, BA(5) },
	  .answer = { STALL, STALL, OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x81,
	  .out_ep = 0x02,
	  .why = "treo_attach" },
	/* ---- Visor: pilot-link USB_INIT_VISOR, visor.c palm_os_3_probe() ---- */
	{ .name = "Visor: the Visor's request only",
	  .vid = 0x082d,
	  .pid = 0x0100,
	  .req = { VISOR, BA(5) },
	  .answer = { VISOR_PORT2, OK(0, 0) },
	  .requests = 2,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "from the connection information" },
	{ .name = "Visor: refused, the first bulk pair",
	  .vid = 0x082d,
	  .pid = 0x0100,
	  .req = { VISOR, BA(5) },
	  .answer = { STALL, OK(0, 0) },
	  .requests = 2,
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .why = "first bulk pair" },
	/* ---- Tapwave: pilot-link 0.15 USB_INIT_TAPWAVE ---- */
	{ .name = "Tapwave: 0830:0061 gets the extended request three times, no BYTES_AVAILABLE",
	  .vid = 0x0830,
	  .pid = 0x0061,
	  .req = { EXT, EXT, EXT },
	  .answer = { EXT_PORT2, EXT_PORT2, EXT_PORT2 },
	  .requests = 3,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "from the extended connection information" },
	{ .name = "Tapwave: the Zodiac too",
	  .vid = 0x12ef,
	  .pid = 0x0100,
	  .req = { EXT, EXT, EXT },
	  .answer = { EXT_PORT2, STALL, TIMEOUT },
	  .requests = 3,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "from the extended connection information" },
	{ .name = "Tapwave: empty at first, told on the third",
	  .vid = 0x0830,
	  .pid = 0x0061,
	  .req = { EXT, EXT, EXT },
	  .answer = { EMPTY, OK(0xee), EXT_PORT2 },
	  .requests = 3,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "repeated" },
	{ .name = "Tapwave: all refused, the first bulk pair",
	  .vid = 0x0830,
	  .pid = 0x0061,
	  .req = { EXT, EXT, EXT },
	  .answer = { STALL, STALL, STALL },
	  .requests = 3,
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .why = "first bulk pair" },
	/* ---- none: the m100 (pilot-link, palm-sync USB_INIT_NONE) ---- */
	{ .name = "none: the m100 is asked nothing; pilot-link's last bulk pair",
	  .vid = 0x0830,
	  .pid = 0x0080,
	  .requests = 0,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "last bulk pair" },
	/* ---- early Sony: visor.c clie_3_5_startup(), pilot-link 0.15 USB_INIT_SONY_CLIE ---- */
	{ .name = "early Sony: Clie 3.5, the first bulk pair (visor.c: one port)",
	  .vid = 0x054c,
	  .pid = 0x0038,
	  .req = { GET_CONFIG, GET_IFACE, BA(0) },
	  .answer = { OK(1), OK(0), OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .why = "clie_3_5 port" },
	{ .name = "early Sony: Clie 3.5 refusing GET_INTERFACE still syncs",
	  .vid = 0x054c,
	  .pid = 0x0038,
	  .req = { GET_CONFIG, GET_IFACE, BA(0) },
	  .answer = { FAILED, STALL, STALL },
	  .requests = 3,
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .why = "first bulk pair" },
	{ .name = "early Sony: NR70V (palm-sync, pilot-link 0.15), the last bulk pair",
	  .vid = 0x054c,
	  .pid = 0x009a,
	  .req = { GET_CONFIG, GET_IFACE, BA(0) },
	  .answer = { OK(1), OK(0), OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "last bulk pair" },
	{ .name = "early Sony: TJ25 (pilot-link 0.15)",
	  .vid = 0x054c,
	  .pid = 0x0169,
	  .req = { GET_CONFIG, GET_IFACE, BA(0) },
	  .answer = { OK(1), OK(0), OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "last bulk pair" },
	/* ---- Treo 90: desrod/pilot-link issue 13, pull 14 ---- */
	{ .name = "Treo 90: extended answered empty, the interrupt pipe tells",
	  .vid = 0x082d,
	  .pid = 0x0200,
	  .dev = TWO_PAIRS_INTERRUPT,
	  .req = { EXT, INTR(0x83, 32), BA(0) },
	  .answer = { EMPTY, EXT_PORT2, OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "on the interrupt pipe" },
	{ .name = "Treo 90: the Visor's layout on the interrupt pipe",
	  .vid = 0x082d,
	  .pid = 0x0200,
	  .dev = TWO_PAIRS_INTERRUPT,
	  .req = { EXT, INTR(0x83, 32), BA(0) },
	  .answer = { EMPTY, VISOR_PORT2, OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "on the interrupt pipe" },
	{ .name = "Treo 90: nothing on the interrupt pipe, visor.c's Treo move",
	  .vid = 0x082d,
	  .pid = 0x0200,
	  .dev = TWO_PAIRS_INTERRUPT,
	  .req = { EXT, INTR(0x83, 32), BA(0) },
	  .answer = { EMPTY, TIMEOUT, OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x81,
	  .out_ep = 0x02,
	  .why = "treo_attach" },
	{ .name = "Treo 90: junk on the interrupt pipe",
	  .vid = 0x082d,
	  .pid = 0x0200,
	  .dev = TWO_PAIRS_INTERRUPT,
	  .req = { EXT, INTR(0x83, 32), BA(0) },
	  .answer = { EMPTY, OK(0x10, 0x93, 0xff), OK(0, 0) },
	  .requests = 3,
	  .in_ep = 0x81,
	  .out_ep = 0x02,
	  .why = "treo_attach" },
	{ .name = "Treo 90: a good extended answer needs no interrupt read",
	  .vid = 0x082d,
	  .pid = 0x0200,
	  .dev = TWO_PAIRS_INTERRUPT,
	  .req = { EXT, BA(0) },
	  .answer = { EXT_PORT2, OK(0, 0) },
	  .requests = 2,
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .why = "extended" },
	{ .name = "Treo 90: no interrupt endpoint to read",
	  .vid = 0x082d,
	  .pid = 0x0200,
	  .req = { EXT, BA(0) },
	  .answer = { EMPTY, OK(0, 0) },
	  .requests = 2,
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .why = "first bulk pair" },
};

/* Bulk pairs 0x81/0x01 (512-byte IN packets, as at high speed) and
 * 0x82/0x02 (64 bytes); with interrupt IN 0x83 and 0x84 (16 bytes). */
static struct palm_endpoints device_endpoints(enum device dev)
{
	struct palm_endpoints e = { 0 };

	palm_endpoints_add(&e, 0x81, 512);
	palm_endpoints_add(&e, 0x01, 512);
	palm_endpoints_add(&e, 0x82, 64);
	palm_endpoints_add(&e, 0x02, 64);
	palm_endpoints_add(&e, 0x00, 64); /* endpoint 0 is never a bulk endpoint */
	if (dev == TWO_PAIRS_INTERRUPT) {
		palm_endpoints_add_interrupt(&e, 0x03, 16); /* OUT: not for reading */
		palm_endpoints_add_interrupt(&e, 0x83, 16);
		palm_endpoints_add_interrupt(&e, 0x84, 16); /* only the first is kept */
	}
	return e;
}

static void check_request(const struct palm_ctrl *got, const struct want *w)
{
	CHECK_EQ(got->interrupt_in, w->interrupt_in);
	CHECK_EQ(got->length, w->length);
	if (w->interrupt_in)
		return;
	CHECK_EQ(got->reqtype, w->reqtype);
	CHECK_EQ(got->request, w->request);
	CHECK_EQ(got->index, w->index);
	CHECK_EQ(got->value, 0);
}

static void run_case(const struct setup_case *c)
{
	const struct palm_endpoints eps = device_endpoints(c->dev);
	struct palm_setup s;
	struct palm_ctrl req;
	bool done;
	int i;

	fprintf(stderr, "case: %s\n", c->name);
	kept_log_reset();
	done = palm_setup_start(&s, "test handheld", c->vid, c->pid, &eps, &req);
	for (i = 0; !done && i < SETUP_REQUESTS_MAX; i++) {
		const struct step *st = &c->answer[i];

		CHECK(i < c->requests);
		if (i >= c->requests)
			break;
		check_request(&req, &c->req[i]);
		done = palm_setup_answer(&s, st->a, st->data, st->len, &req);
	}
	CHECK(done);
	CHECK_EQ(i, c->requests);
	CHECK_EQ(s.requests, (unsigned int)c->requests);
	CHECK_EQ(s.step, SETUP_DONE);
	CHECK_EQ(s.hs.in_ep, c->in_ep);
	CHECK_EQ(s.hs.out_ep, c->out_ep);
	CHECK(logged_or_say("HotSync on bulk IN"));
	CHECK(logged_or_say(c->why));
	/* the log of one set-up: a line for the family, one per request and
	 * answer, the result, perhaps a warning per answer and a summary */
	CHECK(kept_log_lines <= 2 + 3 * SETUP_REQUESTS_MAX);
	/* a late answer changes nothing */
	CHECK(palm_setup_reply(&s, true, (const uint8_t[]){ 1, 0, 0, 0, 'c', 'n', 'y', 's', 3 }, 20,
			       &req));
	CHECK_EQ(s.hs.in_ep, c->in_ep);
}

/* What a user pastes: each request and answer in hex, the endpoints and why. */
static void test_log(void)
{
	const struct palm_endpoints eps = device_endpoints(TWO_PAIRS_INTERRUPT);
	static const uint8_t ext[20] = { 1, 0, 0, 0, 'c', 'n', 'y', 's', 2, 0x22 };
	uint8_t big[PALM_INTERRUPT_LEN_MAX];
	struct palm_setup s;
	struct palm_ctrl req;

	kept_log_reset();
	CHECK(!palm_setup_start(&s, "handheld 082d:0200", 0x082d, 0x0200, &eps, &req));
	CHECK(logged_or_say("handheld 082d:0200: set-up as Treo 90"));
	CHECK(logged_or_say("set-up > c2 04 value 0000 index 0000 length 20: "
			    "GET_EXT_CONNECTION_INFORMATION"));
	CHECK(!palm_setup_answer(&s, PALM_ANSWER_OK, NULL, 0, &req));
	CHECK(logged_or_say("set-up < 0 bytes\n"));
	CHECK(logged_or_say("set-up > interrupt IN 0x83, up to 32 bytes"));
	CHECK(!palm_setup_answer(&s, PALM_ANSWER_OK, ext, sizeof(ext), &req));
	CHECK(logged_or_say(
		"set-up < 20 bytes: 01 00 00 00 63 6e 79 73 02 22 00 00 00 00 00 00 00 00 "
		"00 00\n"));
	CHECK(palm_setup_answer(&s, PALM_ANSWER_STALL, NULL, 0, &req));
	CHECK(logged_or_say("set-up < refused (stall)"));
	CHECK(logged_or_say(
		"set-up done after 3 requests: HotSync on bulk IN 0x82, OUT 0x02: from the "
		"connection information on the interrupt pipe"));
	CHECK(!strstr(kept_log, "answered none"));

	/* a long answer: its hex is capped */
	kept_log_reset();
	memset(big, 0xab, sizeof(big));
	palm_setup_start(&s, "h", 0x0830, 0x0060, &eps, &req);
	palm_setup_answer(&s, PALM_ANSWER_OK, big, sizeof(big), &req);
	CHECK(logged_or_say("set-up < 64 bytes: ab ab"));
	CHECK(logged_or_say("ab ab ...\n"));
	CHECK(kept_log_longest < 140);

	/* a handheld that enumerated and answered nothing */
	kept_log_reset();
	palm_setup_start(&s, "h", 0x0830, 0x0060, &eps, &req);
	CHECK(!palm_setup_answer(&s, PALM_ANSWER_TIMEOUT, NULL, 0, &req));
	CHECK(logged_or_say("set-up < no answer in time"));
	CHECK(!palm_setup_answer(&s, PALM_ANSWER_TIMEOUT, NULL, 0, &req));
	CHECK(palm_setup_answer(&s, PALM_ANSWER_TIMEOUT, NULL, 0, &req));
	CHECK(logged_or_say("enumerated but answered none of its 3 set-up requests in time"));

	/* one that answered something is not called silent */
	kept_log_reset();
	palm_setup_start(&s, "h", 0x0830, 0x0060, &eps, &req);
	palm_setup_answer(&s, PALM_ANSWER_TIMEOUT, NULL, 0, &req);
	palm_setup_answer(&s, PALM_ANSWER_STALL, NULL, 0, &req);
	CHECK(palm_setup_answer(&s, PALM_ANSWER_TIMEOUT, NULL, 0, &req));
	CHECK(!strstr(kept_log, "answered none"));
}

/* palm-protocol.md section 4: the stack from the first bytes. */
static void test_stack(void)
{
	static const uint8_t net[] = { 0x01, 0xff, 0x00, 0x00, 0x00, 0x16, 0x90, 0x01 };
	static const uint8_t slp[] = { 0xbe, 0xef, 0xed, 0x03, 0x03, 0x02 };
	static const uint8_t other[] = { 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };
	char hex[64];

	CHECK(strcmp(palm_stack_of(net, sizeof(net)), "NetSync") == 0);
	CHECK(palm_stack_of(net, 6) == NULL); /* not yet */
	CHECK(strcmp(palm_stack_of(slp, 3), "SLP") == 0);
	CHECK(palm_stack_of(other, sizeof(other)) == NULL);
	CHECK(palm_stack_of(slp, 2) == NULL);
	CHECK(strcmp(palm_hex(hex, sizeof(hex), slp, sizeof(slp), 3), "be ef ed ...") == 0);
	CHECK(strcmp(palm_hex(hex, sizeof(hex), slp, 0, 3), "") == 0);
}

static void test_endpoints(void)
{
	struct palm_endpoints e = device_endpoints(TWO_PAIRS_INTERRUPT);
	struct palm_setup s = { .eps = e, .hs = { .in_ep = 0x82 } };

	CHECK_EQ(e.bulk, (1u << 1) | (1u << 2) | (1u << 17) | (1u << 18));
	CHECK_EQ(e.first_in, 0x81);
	CHECK_EQ(e.first_out, 0x01);
	CHECK_EQ(e.second_out, 0x02);
	CHECK_EQ(e.last_in, 0x82);
	CHECK_EQ(e.int_in, 0x83);
	CHECK_EQ(e.int_in_mps, 16);
	CHECK_EQ(palm_setup_in_size(&s, 1024), 64);
	/* a descriptor that lies about its packet size: full speed's 64 */
	s.eps.in_mps[2] = 0;
	CHECK_EQ(palm_setup_in_size(&s, 1024), 64);
	s.eps.in_mps[2] = 2047;
	CHECK_EQ(palm_setup_in_size(&s, 1024), 64);
}

/*
 * A descriptor that lies as the kernel forgives (drivers/usb/core/config.c
 * usb_parse_endpoint()): reserved bits in an address are cleared, and a
 * duplicate address is skipped, the first kept.  The endpoints chosen
 * are the kernel's, so usbfs takes transfers for them.
 */
static void test_endpoints_as_the_kernel_has_them(void)
{
	struct palm_endpoints e = { 0 };
	struct palm_setup s;
	struct palm_ctrl req;

	palm_endpoints_add(&e, 0xe1, 64);	    /* IN 1, reserved bits set */
	palm_endpoints_add(&e, 0x71, 64);	    /* OUT 1, reserved bits set */
	palm_endpoints_add(&e, 0x81, 512);	    /* IN 1 again: skipped */
	palm_endpoints_add(&e, 0x01, 512);	    /* OUT 1 again: skipped */
	palm_endpoints_add_interrupt(&e, 0x82, 16); /* interrupt IN 2 */
	palm_endpoints_add(&e, 0x82, 64);	    /* bulk IN 2: a duplicate, skipped */
	palm_endpoints_add(&e, 0x83, 64);	    /* IN 3 */
	palm_endpoints_add(&e, 0x12, 64);	    /* OUT 2, reserved bit set */
	CHECK_EQ(e.bulk, (1u << 1) | (1u << 2) | (1u << 17) | (1u << 19));
	CHECK_EQ(e.first_in, 0x81);
	CHECK_EQ(e.first_out, 0x01);
	CHECK_EQ(e.second_in, 0x83);
	CHECK_EQ(e.second_out, 0x02);
	CHECK_EQ(e.last_out, 0x02);
	CHECK_EQ(e.in_mps[1], 64); /* the first one's */
	CHECK_EQ(e.int_in, 0x82);

	/* the m100 takes the last pair (pilot-link 0.15): IN 0x83, OUT 0x02 */
	kept_log_reset();
	CHECK(palm_setup_start(&s, "test handheld", 0x0830, 0x0080, &e, &req));
	CHECK_EQ(s.hs.in_ep, 0x83);
	CHECK_EQ(s.hs.out_ep, 0x02);
	/* a Treo that answers nothing: the first IN with the second OUT
	 * (visor.c treo_attach), the second OUT being 0x02, not OUT 1 again */
	CHECK(!palm_setup_start(&s, "test handheld", 0x082d, 0x0300, &e, &req));
	for (int i = 0;
	     i < SETUP_REQUESTS_MAX && !palm_setup_answer(&s, PALM_ANSWER_STALL, NULL, 0, &req);
	     i++)
		;
	CHECK_EQ(s.step, SETUP_DONE);
	CHECK_EQ(s.hs.in_ep, 0x81);
	CHECK_EQ(s.hs.out_ep, 0x02);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_log();
	test_stack();
	test_endpoints();
	test_endpoints_as_the_kernel_has_them();
	return check_result("test_setup");
}
