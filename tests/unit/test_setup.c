// SPDX-License-Identifier: MIT
/*
 * The set-up sequence both transports send (core/setup.c), request by
 * request, against what the visor driver asks: palm_os_4_probe()'s
 * extended connection information, visor_probe()'s older request when
 * that fails, the first bulk pair when both fail or name endpoints the
 * device does not have, BYTES_AVAILABLE last; and for the Clie 3.5 only
 * GET_CONFIGURATION and GET_INTERFACE.
 */
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "core/setup.h"

/* One reply the handheld gives, and the request that must follow it. */
struct step {
	bool ok;
	uint8_t data[20];
	size_t len;
	uint8_t next_request; /* 0: set-up done */
};

struct setup_case {
	const char *name;
	uint16_t vid, pid;
	uint8_t first_request;
	struct step steps[4];
	uint8_t in_ep, out_ep; /* the stream found */
	size_t in_size;
};

#define EXT_OK                                                                                     \
	{                                                                                          \
		.ok = true, .data = { 1, 0, 0, 0, 'c', 'n', 'y', 's', 2, 0x22 }, .len = 20,        \
		.next_request = VISOR_REQUEST_BYTES_AVAILABLE                                      \
	}
#define BYTES_AVAILABLE_OK                                                                         \
	{                                                                                          \
		.ok = true, .data = { 0, 0 }, .len = 2                                             \
	}

static const struct setup_case cases[] = {
	{ .name = "extended connection information",
	  .vid = 0x0830,
	  .pid = 0x0060,
	  .first_request = PALM_GET_EXT_CONNECTION_INFORMATION,
	  .steps = { EXT_OK, BYTES_AVAILABLE_OK },
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .in_size = 64 },
	{ .name = "extended refused, the older request answers",
	  .vid = 0x082d,
	  .pid = 0x0100,
	  .first_request = PALM_GET_EXT_CONNECTION_INFORMATION,
	  .steps = { { .ok = false, .next_request = VISOR_GET_CONNECTION_INFORMATION },
		     { .ok = true,
		       .data = { 2, 0, 0, 1, 2, 2 },
		       .len = 6,
		       .next_request = VISOR_REQUEST_BYTES_AVAILABLE },
		     BYTES_AVAILABLE_OK },
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .in_size = 64 },
	{ .name = "both refused: the first bulk pair",
	  .vid = 0x0830,
	  .pid = 0x0060,
	  .first_request = PALM_GET_EXT_CONNECTION_INFORMATION,
	  .steps = { { .ok = false, .next_request = VISOR_GET_CONNECTION_INFORMATION },
		     { .ok = false, .next_request = VISOR_REQUEST_BYTES_AVAILABLE },
		     BYTES_AVAILABLE_OK },
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .in_size = 512 },
	{ .name = "short and garbage replies: the first bulk pair",
	  .vid = 0x0830,
	  .pid = 0x0060,
	  .first_request = PALM_GET_EXT_CONNECTION_INFORMATION,
	  .steps = { { .ok = true,
		       .data = { 1, 0, 0 },
		       .len = 3,
		       .next_request = VISOR_GET_CONNECTION_INFORMATION },
		     { .ok = true,
		       .data = { 0xee, 0x81, 2, 2, 2, 2 },
		       .len = 6,
		       .next_request = VISOR_REQUEST_BYTES_AVAILABLE },
		     BYTES_AVAILABLE_OK },
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .in_size = 512 },
	{ .name = "an endpoint the device does not have is not taken",
	  .vid = 0x0830,
	  .pid = 0x0060,
	  .first_request = PALM_GET_EXT_CONNECTION_INFORMATION,
	  .steps = { { .ok = true,
		       .data = { 1, 0, 0, 0, 'c', 'n', 'y', 's', 5, 0x55 },
		       .len = 20,
		       .next_request = VISOR_GET_CONNECTION_INFORMATION },
		     { .ok = true,
		       .data = { 1, 0, 2, 7, 0, 0 },
		       .len = 6,
		       .next_request = VISOR_REQUEST_BYTES_AVAILABLE },
		     BYTES_AVAILABLE_OK },
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .in_size = 512 },
	{ .name = "a failed BYTES_AVAILABLE does not stop the sync",
	  .vid = 0x0830,
	  .pid = 0x0060,
	  .first_request = PALM_GET_EXT_CONNECTION_INFORMATION,
	  .steps = { EXT_OK, { .ok = false } },
	  .in_ep = 0x82,
	  .out_ep = 0x02,
	  .in_size = 64 },
	{ .name = "Sony Clie 3.5: GET_CONFIGURATION, GET_INTERFACE, first pair",
	  .vid = 0x054c,
	  .pid = 0x0038,
	  .first_request = USB_GET_CONFIGURATION,
	  .steps = { { .ok = true, .data = { 1 }, .len = 1, .next_request = USB_GET_INTERFACE },
		     { .ok = true, .data = { 0 }, .len = 1 } },
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .in_size = 512 },
	{ .name = "Sony Clie 3.5 refusing GET_INTERFACE still syncs",
	  .vid = 0x054c,
	  .pid = 0x0038,
	  .first_request = USB_GET_CONFIGURATION,
	  .steps = { { .ok = false, .next_request = USB_GET_INTERFACE }, { .ok = false } },
	  .in_ep = 0x81,
	  .out_ep = 0x01,
	  .in_size = 512 },
};

/* A device with bulk pairs 0x81/0x01 (512-byte IN packets, as at high
 * speed) and 0x82/0x02 (64 bytes). */
static struct palm_endpoints device_endpoints(void)
{
	struct palm_endpoints e = { 0 };

	palm_endpoints_add(&e, 0x81, 512);
	palm_endpoints_add(&e, 0x01, 512);
	palm_endpoints_add(&e, 0x82, 64);
	palm_endpoints_add(&e, 0x02, 64);
	palm_endpoints_add(&e, 0x00, 64); /* endpoint 0 is never a bulk endpoint */
	return e;
}

static void run_case(const struct setup_case *c)
{
	const struct palm_endpoints eps = device_endpoints();
	struct palm_setup s;
	struct palm_ctrl req;
	bool done = false;
	size_t i;

	fprintf(stderr, "case: %s\n", c->name);
	palm_setup_start(&s, "test handheld", c->vid, c->pid, &eps, &req);
	CHECK_EQ(req.request, c->first_request);
	CHECK(req.reqtype & 0x80); /* every request reads */
	for (i = 0; i < 4 && !done; i++) {
		const struct step *st = &c->steps[i];

		done = palm_setup_reply(&s, st->ok, st->data, st->len, &req);
		if (st->next_request) {
			CHECK(!done);
			CHECK_EQ(req.request, st->next_request);
		} else {
			CHECK(done);
		}
	}
	CHECK(done);
	CHECK_EQ(s.hs.in_ep, c->in_ep);
	CHECK_EQ(s.hs.out_ep, c->out_ep);
	CHECK_EQ(palm_setup_in_size(&s, 1024), c->in_size);
}

static void test_endpoints(void)
{
	struct palm_endpoints e = device_endpoints();
	struct palm_setup s = { .eps = e, .hs = { .in_ep = 0x82 } };

	CHECK_EQ(e.bulk, (1u << 1) | (1u << 2) | (1u << 17) | (1u << 18));
	CHECK_EQ(e.first_in, 0x81);
	CHECK_EQ(e.first_out, 0x01);
	CHECK_EQ(palm_setup_in_size(&s, 1024), 64);
	/* a descriptor that lies about its packet size: full speed's 64 */
	s.eps.in_mps[2] = 0;
	CHECK_EQ(palm_setup_in_size(&s, 1024), 64);
	s.eps.in_mps[2] = 2047;
	CHECK_EQ(palm_setup_in_size(&s, 1024), 64);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_endpoints();
	return check_result("test_setup");
}
