// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "setup.h"

/*
 * The address as the kernel keeps it (setup.h struct palm_endpoints), or
 * 0 when it keeps none: endpoint 0 (control, whatever a peer says), or
 * one noted before.
 */
static uint8_t kernel_address(struct palm_endpoints *e, uint8_t addr)
{
	addr &= 0x8f;
	if ((addr & 0x0f) == 0 || (e->seen & (1u << PALM_EP_INDEX(addr))))
		return 0;
	e->seen |= 1u << PALM_EP_INDEX(addr);
	return addr;
}

void palm_endpoints_add(struct palm_endpoints *e, uint8_t addr, uint16_t max_packet_size)
{
	addr = kernel_address(e, addr);
	if (!addr)
		return;
	e->bulk |= 1u << PALM_EP_INDEX(addr);
	if (addr & 0x80) {
		e->in_mps[addr & 0x0f] = max_packet_size & 0x7ff;
		if (!e->first_in)
			e->first_in = addr;
		else if (!e->second_in)
			e->second_in = addr;
		e->last_in = addr;
	} else {
		if (!e->first_out)
			e->first_out = addr;
		else if (!e->second_out)
			e->second_out = addr;
		e->last_out = addr;
	}
}

void palm_endpoints_add_interrupt(struct palm_endpoints *e, uint8_t addr, uint16_t max_packet_size)
{
	addr = kernel_address(e, addr);
	if (!addr || !(addr & 0x80) || e->int_in)
		return;
	e->int_in = addr;
	e->int_in_mps = max_packet_size & 0x7ff;
}

const struct palm_ctrl palm_close_notification = {
	.reqtype = PALM_REQTYPE_VENDOR_IN,
	.request = VISOR_CLOSE_NOTIFICATION,
	.length = VISOR_CLOSE_NOTIFICATION_LEN,
};

/* ---- the log: one line a request, one an answer ---- */

#define HEX_SHOWN 24 /* bytes of an answer in the log; a reply is 20 */

char *palm_hex(char *buf, size_t size, const uint8_t *b, size_t len, size_t max)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < len && i < max && n + 4 < size; i++)
		n += (size_t)snprintf(buf + n, size - n, i ? " %02x" : "%02x", b[i]);
	if (len > max && n + 4 < size)
		snprintf(buf + n, size - n, n ? " ..." : "...");
	return buf;
}

static const char *request_name(const struct palm_ctrl *r)
{
	if (r->reqtype == PALM_REQTYPE_VENDOR_IN) {
		switch (r->request) {
		case VISOR_REQUEST_BYTES_AVAILABLE: return "BYTES_AVAILABLE";
		case VISOR_GET_CONNECTION_INFORMATION: return "GET_CONNECTION_INFORMATION";
		case PALM_GET_EXT_CONNECTION_INFORMATION: return "GET_EXT_CONNECTION_INFORMATION";
		}
	}
	if (r->request == USB_GET_CONFIGURATION)
		return "GET_CONFIGURATION";
	if (r->request == USB_GET_INTERFACE)
		return "GET_INTERFACE";
	return "?";
}

/* Send r: note it, and log it. */
static void ask(struct palm_setup *s, struct palm_ctrl *out, const struct palm_ctrl *r)
{
	*out = *r;
	s->asked = *r;
	s->requests++;
	if (r->interrupt_in)
		log_info("%s: set-up > interrupt IN 0x%02x, up to %u bytes: the connection "
			 "information",
			 s->name, r->interrupt_in, r->length);
	else
		log_info("%s: set-up > %02x %02x value %04x index %04x length %u: %s", s->name,
			 r->reqtype, r->request, r->value, r->index, r->length, request_name(r));
}

static void log_answer(struct palm_setup *s, enum palm_answer a, const uint8_t *data, size_t len)
{
	char hex[3 * HEX_SHOWN + 8];

	switch (a) {
	case PALM_ANSWER_OK:
		log_info("%s: set-up < %zu byte%s%s%s", s->name, len, len == 1 ? "" : "s",
			 len ? ": " : "", palm_hex(hex, sizeof(hex), data, len, HEX_SHOWN));
		break;
	case PALM_ANSWER_STALL: log_info("%s: set-up < refused (stall)", s->name); break;
	case PALM_ANSWER_TIMEOUT:
		s->timeouts++;
		log_info("%s: set-up < no answer in time", s->name);
		break;
	case PALM_ANSWER_FAILED: log_info("%s: set-up < failed", s->name); break;
	}
}

/* ---- the sequences ---- */

static void vendor_request(struct palm_ctrl *req, uint8_t request, uint16_t index, uint16_t length)
{
	*req = (struct palm_ctrl){ .reqtype = PALM_REQTYPE_VENDOR_IN,
				   .request = request,
				   .index = index,
				   .length = length };
}

/*
 * BYTES_AVAILABLE's wIndex: 5 as visor.c sends it; 0 as pilot-link does,
 * for the families only pilot-link knows the set-up of.
 */
static uint16_t bytes_available_index(const struct palm_setup *s)
{
	return s->family == PALM_FAMILY_SONY_EARLY || s->family == PALM_FAMILY_TREO_90 ? 0 : 5;
}

static bool endpoints_exist(const struct palm_setup *s, const struct palm_hotsync *hs)
{
	return (s->eps.bulk & (1u << PALM_EP_INDEX(hs->in_ep))) &&
	       (s->eps.bulk & (1u << PALM_EP_INDEX(hs->out_ep))) && (hs->in_ep & 0x80) &&
	       !(hs->out_ep & 0x80);
}

/* Take a connection-information reply (ext: the extended layout, else the
 * Visor's); true when it names usable endpoints. */
static bool take_conninfo(struct palm_setup *s, bool ext, enum palm_answer a, const uint8_t *data,
			  size_t len, const char *why)
{
	struct palm_hotsync hs;
	int r;

	if (a != PALM_ANSWER_OK)
		return false;
	r = ext ? palm_parse_ext_conninfo(data, len, &hs) : palm_parse_conninfo(data, len, &hs);
	if (r < 0) {
		log_warn("%s: connection information unusable (%zu bytes, %s)", s->name, len,
			 r == -ENOENT ? "no HotSync port"
			 : len	      ? "malformed"
				      : "empty");
		return false;
	}
	if (!endpoints_exist(s, &hs)) {
		log_warn("%s: connection information names endpoints 0x%02x/0x%02x, which the "
			 "device does not have",
			 s->name, hs.in_ep, hs.out_ep);
		return false;
	}
	s->hs = hs;
	s->found = true;
	s->why = why;
	return true;
}

/*
 * No usable connection information: the pair the tools would use.
 * pilotd's rule is the first bulk pair (palm-protocol.md section 2, the
 * kernel's first port), except where a source says otherwise for the
 * device (docs/devices.md "Endpoints").
 */
static void fallback(struct palm_setup *s)
{
	const struct palm_endpoints *e = &s->eps;
	bool moved = (s->vid == 0x082d || s->vid == 0x0c88) && e->int_in;

	moved |= s->vid == 0x054c && s->pid == 0x0144;
	if ((s->family == PALM_FAMILY_NONE ||
	     (s->family == PALM_FAMILY_SONY_EARLY && s->pid != 0x0038)) &&
	    e->last_in && e->last_out) {
		s->hs = (struct palm_hotsync){ .in_ep = e->last_in, .out_ep = e->last_out };
		s->why = "no connection information asked: the last bulk pair, as pilot-link "
			 "0.15 takes it";
	} else if (moved && e->second_out) {
		s->hs = (struct palm_hotsync){ .in_ep = e->first_in, .out_ep = e->second_out };
		s->why = "no usable connection information: the first bulk IN with the second "
			 "bulk OUT, as visor.c moves them for this device (treo_attach, "
			 "clie_5_attach)";
	} else {
		s->hs = (struct palm_hotsync){ .in_ep = e->first_in, .out_ep = e->first_out };
		s->why = s->family == PALM_FAMILY_SONY_EARLY
				 ? "no connection information asked: the first bulk pair, as "
				   "visor.c's clie_3_5 port"
				 : "no usable connection information: falling back to the first "
				   "bulk pair";
	}
}

static bool finish(struct palm_setup *s)
{
	s->step = SETUP_DONE;
	if (!s->found && !s->why)
		fallback(s);
	log_info("%s: set-up done after %u requests: HotSync on bulk IN 0x%02x, OUT 0x%02x: %s",
		 s->name, s->requests, s->hs.in_ep, s->hs.out_ep, s->why);
	if (s->requests && s->timeouts == s->requests)
		log_warn("%s: enumerated but answered none of its %u set-up requests in time: "
			 "is HotSync running on it, and is it on the computer's own port (not "
			 "a hub)?",
			 s->name, s->requests);
	return true;
}

static bool send_bytes_available(struct palm_setup *s, struct palm_ctrl *next)
{
	struct palm_ctrl r;

	if (!s->found)
		fallback(s);
	s->step = SETUP_BYTES_AVAILABLE;
	vendor_request(&r, VISOR_REQUEST_BYTES_AVAILABLE, bytes_available_index(s), 2);
	ask(s, next, &r);
	return false;
}

bool palm_setup_start(struct palm_setup *s, const char *name, uint16_t vid, uint16_t pid,
		      const struct palm_endpoints *eps, struct palm_ctrl *req)
{
	struct palm_ctrl r;

	*s = (struct palm_setup){ .name = name,
				  .vid = vid,
				  .pid = pid,
				  .eps = *eps,
				  .family = palm_model_family(vid, pid) };
	log_info("%s: set-up as %s", s->name, palm_family_name(s->family));
	switch (s->family) {
	case PALM_FAMILY_NONE: return finish(s);
	case PALM_FAMILY_SONY_EARLY:
		s->step = SETUP_GET_CONFIGURATION;
		r = (struct palm_ctrl){ .reqtype = USB_REQTYPE_DEVICE_IN,
					.request = USB_GET_CONFIGURATION,
					.length = 1 };
		break;
	case PALM_FAMILY_VISOR:
		s->step = SETUP_CONNINFO;
		vendor_request(&r, VISOR_GET_CONNECTION_INFORMATION, 0, VISOR_CONNINFO_LEN);
		break;
	case PALM_FAMILY_TAPWAVE:
		s->again = 2;
		/* fall through */
	case PALM_FAMILY_GENERIC:
	case PALM_FAMILY_TREO_90:
	default:
		s->step = SETUP_EXT_CONNINFO;
		vendor_request(&r, PALM_GET_EXT_CONNECTION_INFORMATION, 0, PALM_EXT_CONNINFO_LEN);
		break;
	}
	ask(s, req, &r);
	return false;
}

/* The interrupt transfer the Treo 90's connection information comes in:
 * whole packets, at least a reply's 20 bytes, at most one 64-byte packet. */
static uint16_t interrupt_length(const struct palm_endpoints *e)
{
	unsigned int mps = e->int_in_mps, n = mps;

	if (mps == 0 || mps > PALM_INTERRUPT_LEN_MAX)
		return PALM_INTERRUPT_LEN_MAX;
	while (n < PALM_EXT_CONNINFO_LEN)
		n += mps;
	return (uint16_t)(n < PALM_INTERRUPT_LEN_MAX ? n : PALM_INTERRUPT_LEN_MAX);
}

static bool after_ext(struct palm_setup *s, enum palm_answer a, const uint8_t *data, size_t len,
		      struct palm_ctrl *next)
{
	bool usable =
		take_conninfo(s, true, a, data, len, "from the extended connection information");
	struct palm_ctrl r;

	switch (s->family) {
	case PALM_FAMILY_TAPWAVE:
		s->step = SETUP_TAPWAVE_AGAIN;
		vendor_request(&r, PALM_GET_EXT_CONNECTION_INFORMATION, 0, PALM_EXT_CONNINFO_LEN);
		s->again--;
		ask(s, next, &r);
		return false;
	case PALM_FAMILY_TREO_90:
		if (usable)
			return send_bytes_available(s, next);
		if (!s->eps.int_in) {
			log_warn("%s: no interrupt IN endpoint to read the connection information "
				 "on",
				 s->name);
			return send_bytes_available(s, next);
		}
		s->step = SETUP_INTERRUPT_CONNINFO;
		r = (struct palm_ctrl){ .interrupt_in = s->eps.int_in,
					.length = interrupt_length(&s->eps) };
		ask(s, next, &r);
		return false;
	default:
		if (usable)
			return send_bytes_available(s, next);
		s->step = SETUP_CONNINFO;
		vendor_request(&r, VISOR_GET_CONNECTION_INFORMATION, 0, VISOR_CONNINFO_LEN);
		ask(s, next, &r);
		return false;
	}
}

bool palm_setup_answer(struct palm_setup *s, enum palm_answer a, const uint8_t *data, size_t len,
		       struct palm_ctrl *next)
{
	struct palm_ctrl r;

	if (s->step == SETUP_DONE)
		return true; /* a late answer carries nothing we need */
	log_answer(s, a, data, len);
	switch (s->step) {
	case SETUP_EXT_CONNINFO: return after_ext(s, a, data, len, next);
	case SETUP_TAPWAVE_AGAIN:
		if (!s->found)
			take_conninfo(s, true, a, data, len,
				      "from a repeated extended connection information");
		if (s->again == 0)
			return finish(s); /* pilot-link sends no BYTES_AVAILABLE to these */
		s->again--;
		vendor_request(&r, PALM_GET_EXT_CONNECTION_INFORMATION, 0, PALM_EXT_CONNINFO_LEN);
		ask(s, next, &r);
		return false;
	case SETUP_INTERRUPT_CONNINFO:
		/* the same bytes as the control reply (pull 14): the extended
		 * layout, or the Visor's when that is all that came */
		if (len >= PALM_EXT_CONNINFO_LEN)
			take_conninfo(s, true, a, data, len,
				      "from the connection information on the interrupt pipe");
		else
			take_conninfo(s, false, a, data, len,
				      "from the connection information on the interrupt pipe");
		return send_bytes_available(s, next);
	case SETUP_CONNINFO:
		take_conninfo(s, false, a, data, len, "from the connection information");
		return send_bytes_available(s, next);
	case SETUP_GET_CONFIGURATION:
		s->step = SETUP_GET_INTERFACE;
		/* the interface recipient, as visor.c asks (pilot-link asks 0x80) */
		r = (struct palm_ctrl){ .reqtype = USB_REQTYPE_INTERFACE_IN,
					.request = USB_GET_INTERFACE,
					.length = 1 };
		ask(s, next, &r);
		return false;
	case SETUP_GET_INTERFACE:
		/* visor.c insists on both answers; we only note a refusal */
		if (a != PALM_ANSWER_OK || len != 1)
			log_warn("%s: GET_INTERFACE failed; syncing anyway", s->name);
		return send_bytes_available(s, next); /* pilot-link 0.15 sends it */
	case SETUP_BYTES_AVAILABLE:
	case SETUP_DONE: break; /* the reply carries nothing we need */
	}
	return finish(s);
}

bool palm_setup_reply(struct palm_setup *s, bool ok, const uint8_t *data, size_t len,
		      struct palm_ctrl *next)
{
	return palm_setup_answer(s, ok ? PALM_ANSWER_OK : PALM_ANSWER_FAILED, data, len, next);
}

size_t palm_setup_in_size(const struct palm_setup *s, size_t max)
{
	size_t n = s->eps.in_mps[s->hs.in_ep & 0x0f];

	return n == 0 || n > max ? 64 : n; /* a descriptor that lies: full speed's size */
}

const char *palm_stack_of(const uint8_t *b, size_t len)
{
	if (len >= 3 && b[0] == 0xbe && b[1] == 0xef && b[2] == 0xed)
		return "SLP";
	/* NET: type 1 (data), txid, u32 length, then the handshake's 0x90 */
	if (len >= PALM_STACK_BYTES && b[0] == 1 && b[6] == 0x90)
		return "NetSync";
	return NULL;
}
