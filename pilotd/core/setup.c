// SPDX-License-Identifier: MIT
#include <errno.h>

#include "log.h"
#include "setup.h"

void palm_endpoints_add(struct palm_endpoints *e, uint8_t addr, uint16_t max_packet_size)
{
	if ((addr & 0x0f) == 0)
		return; /* endpoint 0 is control, whatever a peer says */
	e->bulk |= 1u << PALM_EP_INDEX(addr);
	if (addr & 0x80) {
		e->in_mps[addr & 0x0f] = max_packet_size & 0x7ff;
		if (!e->first_in)
			e->first_in = addr;
	} else if (!e->first_out) {
		e->first_out = addr;
	}
}

const struct palm_ctrl palm_close_notification = {
	.reqtype = PALM_REQTYPE_VENDOR_IN,
	.request = VISOR_CLOSE_NOTIFICATION,
	.length = VISOR_CLOSE_NOTIFICATION_LEN,
};

static void vendor_request(struct palm_ctrl *req, uint8_t request, uint16_t index, uint16_t length)
{
	*req = (struct palm_ctrl){ .reqtype = PALM_REQTYPE_VENDOR_IN,
				   .request = request,
				   .index = index,
				   .length = length };
}

void palm_setup_start(struct palm_setup *s, const char *name, uint16_t vid, uint16_t pid,
		      const struct palm_endpoints *eps, struct palm_ctrl *req)
{
	*s = (struct palm_setup){ .name = name, .eps = *eps };
	if (palm_model_startup(vid, pid) == PALM_STARTUP_CLIE_3_5) {
		s->step = SETUP_GET_CONFIGURATION;
		*req = (struct palm_ctrl){ .reqtype = USB_REQTYPE_DEVICE_IN,
					   .request = USB_GET_CONFIGURATION,
					   .length = 1 };
		return;
	}
	s->step = SETUP_EXT_CONNINFO;
	vendor_request(req, PALM_GET_EXT_CONNECTION_INFORMATION, 0, PALM_EXT_CONNINFO_LEN);
}

static bool endpoints_exist(const struct palm_setup *s, const struct palm_hotsync *hs)
{
	return (s->eps.bulk & (1u << PALM_EP_INDEX(hs->in_ep))) &&
	       (s->eps.bulk & (1u << PALM_EP_INDEX(hs->out_ep))) && (hs->in_ep & 0x80) &&
	       !(hs->out_ep & 0x80);
}

/* Take a connection-information reply; true when it names usable endpoints. */
static bool take_conninfo(struct palm_setup *s, bool ok, const uint8_t *data, size_t len)
{
	struct palm_hotsync hs;
	int r;

	if (!ok)
		return false;
	if (s->step == SETUP_EXT_CONNINFO)
		r = palm_parse_ext_conninfo(data, len, &hs);
	else
		r = palm_parse_conninfo(data, len, &hs);
	if (r < 0) {
		log_warn("%s: connection information unusable (%zu bytes, %s)", s->name, len,
			 r == -ENOENT ? "no HotSync port" : "malformed");
		return false;
	}
	if (!endpoints_exist(s, &hs)) {
		log_warn("%s: connection information names endpoints 0x%02x/0x%02x, which the "
			 "device does not have",
			 s->name, hs.in_ep, hs.out_ep);
		return false;
	}
	s->hs = hs;
	return true;
}

static void first_bulk_pair(struct palm_setup *s)
{
	s->hs = (struct palm_hotsync){ .in_ep = s->eps.first_in, .out_ep = s->eps.first_out };
}

bool palm_setup_reply(struct palm_setup *s, bool ok, const uint8_t *data, size_t len,
		      struct palm_ctrl *next)
{
	switch (s->step) {
	case SETUP_EXT_CONNINFO:
		if (!take_conninfo(s, ok, data, len)) {
			s->step = SETUP_CONNINFO;
			vendor_request(next, VISOR_GET_CONNECTION_INFORMATION, 0,
				       VISOR_CONNINFO_LEN);
			return false;
		}
		break;
	case SETUP_CONNINFO:
		if (!take_conninfo(s, ok, data, len)) {
			first_bulk_pair(s);
			log_warn("%s: no usable connection information; falling back to the first "
				 "bulk pair",
				 s->name);
		}
		break;
	case SETUP_GET_CONFIGURATION:
		s->step = SETUP_GET_INTERFACE;
		*next = (struct palm_ctrl){ .reqtype = USB_REQTYPE_INTERFACE_IN,
					    .request = USB_GET_INTERFACE,
					    .length = 1 };
		return false;
	case SETUP_GET_INTERFACE:
		/* the kernel insists on both answers; we only note a refusal */
		if (!ok || len != 1)
			log_warn("%s: GET_INTERFACE failed; syncing anyway", s->name);
		first_bulk_pair(s);
		s->step = SETUP_DONE;
		return true;
	case SETUP_BYTES_AVAILABLE:
	case SETUP_DONE:
		s->step = SETUP_DONE; /* the reply carries nothing we need */
		return true;
	}
	s->step = SETUP_BYTES_AVAILABLE;
	vendor_request(next, VISOR_REQUEST_BYTES_AVAILABLE, 5, 2);
	return false;
}

size_t palm_setup_in_size(const struct palm_setup *s, size_t max)
{
	size_t n = s->eps.in_mps[s->hs.in_ep & 0x0f];

	return n == 0 || n > max ? 64 : n; /* a descriptor that lies: full speed's size */
}
