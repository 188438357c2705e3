// SPDX-License-Identifier: MIT
/*
 * The set-up state machine (core/setup.c) fed a fuzzed handheld: a known
 * model of any family (or any VID:PID), interface 0's bulk and interrupt
 * endpoints, then one answer per request: completed, refused, timed out
 * or failed, its length and its bytes.  Whatever the answers, set-up ends
 * within SETUP_REQUESTS_MAX requests (none for a family asked nothing),
 * every request fits the transports' buffers (a control request's 20
 * bytes, an interrupt read's PALM_INTERRUPT_LEN_MAX on an interrupt IN
 * endpoint the device has), and the stream it settles on uses endpoints
 * the device has.
 *
 * Input: model index (u8; past the table: vid u16, pid u16), endpoint
 * count (u8 % 8) and per endpoint address (u8) and wMaxPacketSize (u16;
 * bit 15 set: an interrupt endpoint, else bulk), then per answer flags
 * (u8, bit 0: completed, else (flags >> 1) % 3: refused, timed out,
 * failed), length (u8, at most the request's length: libusb and the
 * usbredir link keep to it) and bytes.
 */
#include <stdbool.h>

#include "core/setup.h"
#include "fuzz_input.h"

#define IN_BUFFER_MAX 1024 /* the transports' bulk IN buffers */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_device(struct input *in, uint16_t *vid, uint16_t *pid, struct palm_endpoints *eps)
{
	uint8_t model = input_u8(in);
	unsigned int n;

	if (model < palm_model_count) {
		*vid = palm_models[model].vid;
		*pid = palm_models[model].pid;
	} else {
		*vid = input_u16(in);
		*pid = input_u16(in);
	}
	*eps = (struct palm_endpoints){ 0 };
	n = input_u8(in) % 8;
	for (unsigned int i = 0; i < n; i++) {
		uint8_t addr = input_u8(in);
		uint16_t mps = input_u16(in);

		if (mps & 0x8000)
			palm_endpoints_add_interrupt(eps, addr, mps & 0x7fff);
		else
			palm_endpoints_add(eps, addr, mps);
	}
}

static void check_request(const struct palm_setup *s, const struct palm_ctrl *req)
{
	if (req->interrupt_in) {
		FUZZ_CHECK(req->interrupt_in == s->eps.int_in && (req->interrupt_in & 0x80));
		FUZZ_CHECK(req->length >= 1 && req->length <= PALM_INTERRUPT_LEN_MAX);
		return;
	}
	FUZZ_CHECK(req->reqtype == PALM_REQTYPE_VENDOR_IN ||
		   req->reqtype == USB_REQTYPE_DEVICE_IN ||
		   req->reqtype == USB_REQTYPE_INTERFACE_IN);
	FUZZ_CHECK(req->length >= 1 && req->length <= PALM_EXT_CONNINFO_LEN);
}

static bool has_endpoint(const struct palm_endpoints *eps, uint8_t addr)
{
	return eps->bulk & (1u << PALM_EP_INDEX(addr));
}

/* The stream found: on endpoints the device has, when it has a bulk pair
 * (the transports take no device without one). */
static void check_stream(const struct palm_setup *s)
{
	size_t in_size = palm_setup_in_size(s, IN_BUFFER_MAX);

	FUZZ_CHECK(s->step == SETUP_DONE);
	FUZZ_CHECK(in_size >= 1 && in_size <= IN_BUFFER_MAX);
	if (!s->eps.first_in || !s->eps.first_out)
		return;
	FUZZ_CHECK(s->hs.in_ep & 0x80);
	FUZZ_CHECK(!(s->hs.out_ep & 0x80));
	FUZZ_CHECK(has_endpoint(&s->eps, s->hs.in_ep));
	FUZZ_CHECK(has_endpoint(&s->eps, s->hs.out_ep));
}

/* One answer to req; true when set-up is done. */
static bool reply(struct palm_setup *s, struct input *in, struct palm_ctrl *req)
{
	static const enum palm_answer refusals[] = { PALM_ANSWER_STALL, PALM_ANSWER_TIMEOUT,
						     PALM_ANSWER_FAILED };
	uint8_t flags = input_u8(in);
	enum palm_answer a = flags & 1 ? PALM_ANSWER_OK : refusals[(flags >> 1) % 3];
	size_t len = input_u8(in) % (req->length + 1u);
	uint8_t *bytes = input_bytes(in, len);
	bool done = palm_setup_answer(s, a, bytes, len, req);

	free(bytes);
	return done;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { .p = data, .left = size };
	struct palm_endpoints eps;
	struct palm_setup s;
	struct palm_ctrl req;
	struct palm_hotsync hs;
	uint16_t vid, pid;
	int replies = 0;

	read_device(&in, &vid, &pid, &eps);
	if (palm_setup_start(&s, "fuzzed handheld", vid, pid, &eps, &req)) {
		FUZZ_CHECK(s.family == PALM_FAMILY_NONE && s.requests == 0);
	} else {
		for (;;) {
			check_request(&s, &req);
			FUZZ_CHECK(++replies <= SETUP_REQUESTS_MAX);
			if (reply(&s, &in, &req))
				break;
		}
	}
	FUZZ_CHECK(s.requests == (unsigned int)replies && s.timeouts <= s.requests && s.why);
	check_stream(&s);

	/* a late reply changes nothing */
	hs = s.hs;
	FUZZ_CHECK(palm_setup_reply(&s, false, NULL, 0, &req));
	FUZZ_CHECK(s.hs.in_ep == hs.in_ep && s.hs.out_ep == hs.out_ep);
	return 0;
}
