/* SPDX-License-Identifier: MIT */
/*
 * Setting a handheld up: the control requests that find its HotSync
 * stream, in the order the kernel's visor driver sends them
 * (palm-protocol.md section 2; visor.c palm_os_4_probe(),
 * visor_probe(), clie_3_5_startup()).  Sans I/O: a transport sends each
 * request it is given and hands the reply back, whatever carries it
 * (libusb, or a usbredir connection).
 */
#ifndef PILOTD_SETUP_H
#define PILOTD_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "palm.h"

/* A bit per endpoint address: OUT 1-15 in bits 1-15, IN in bits 17-31,
 * the order of usbredir's ep_info arrays too. */
#define PALM_EP_INDEX(addr) ((((addr)&0x80) >> 3) | ((addr)&0x0f))

/* Interface 0's bulk endpoints, as the device's descriptor lists them. */
struct palm_endpoints {
	uint32_t bulk;		     /* 1 << PALM_EP_INDEX(addr) */
	uint16_t in_mps[16];	     /* wMaxPacketSize of each bulk IN endpoint */
	uint8_t first_in, first_out; /* the first bulk pair: the fallback */
};

/* Note a bulk endpoint of interface 0. */
void palm_endpoints_add(struct palm_endpoints *e, uint8_t addr, uint16_t max_packet_size);

/* One control request, device-to-host. */
struct palm_ctrl {
	uint8_t reqtype, request;
	uint16_t value, index, length;
};

enum palm_setup_step {
	SETUP_EXT_CONNINFO,
	SETUP_CONNINFO,
	SETUP_BYTES_AVAILABLE,
	SETUP_GET_CONFIGURATION, /* Clie 3.5 */
	SETUP_GET_INTERFACE,
	SETUP_DONE,
};

struct palm_setup {
	const char *name; /* of the handheld, for the log */
	struct palm_endpoints eps;
	enum palm_setup_step step;
	struct palm_hotsync hs; /* the answer, once step is SETUP_DONE */
};

/* Begin with a handheld whose endpoints are eps; *req is the first request. */
void palm_setup_start(struct palm_setup *s, const char *name, uint16_t vid, uint16_t pid,
		      const struct palm_endpoints *eps, struct palm_ctrl *req);
/*
 * The reply to the last request: ok when the transfer completed, and the
 * bytes it brought (untrusted).  Returns true when the stream is known
 * (s->hs), false with *next the request to send now.
 */
bool palm_setup_reply(struct palm_setup *s, bool ok, const uint8_t *data, size_t len,
		      struct palm_ctrl *next);
/* Sent on every last close of the port, as the visor driver does. */
extern const struct palm_ctrl palm_close_notification;

/* The size of each bulk IN transfer: one packet of the HotSync endpoint. */
size_t palm_setup_in_size(const struct palm_setup *s, size_t max);

#endif
