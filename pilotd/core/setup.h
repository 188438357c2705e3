/* SPDX-License-Identifier: MIT */
/*
 * Setting a handheld up: the requests that find its HotSync stream, as
 * the sync tools send them to its family (core/palm.h enum palm_family;
 * docs/devices.md has each family's sequence and its sources).  Sans
 * I/O: a transport sends each request it is given (a control request, or
 * one interrupt IN transfer) and hands the answer back, whatever carries
 * it (libusb, or a usbredir connection).  Each request and answer is
 * logged as it happens, in hex, and the endpoints chosen with the reason:
 * a set-up is at most SETUP_REQUESTS_MAX requests, so its log is bounded.
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

/*
 * Interface 0's bulk (and interrupt IN) endpoints, in descriptor order,
 * as the kernel has them (drivers/usb/core/config.c usb_parse_endpoint():
 * the reserved bits 4-6 of an address cleared, a duplicate address
 * skipped, the first kept), so that an endpoint chosen is one usbfs
 * takes transfers for, however the descriptor (read raw by libusb) lies.
 */
struct palm_endpoints {
	uint32_t bulk;		       /* 1 << PALM_EP_INDEX(addr) */
	uint32_t seen;		       /* the same, of every endpoint noted */
	uint16_t in_mps[16];	       /* wMaxPacketSize of each bulk IN endpoint */
	uint8_t first_in, first_out;   /* the first bulk pair: the fallback */
	uint8_t second_in, second_out; /* the second of each, or 0 */
	uint8_t last_in, last_out;     /* the last of each */
	uint8_t int_in;		       /* the first interrupt IN endpoint, or 0 */
	uint16_t int_in_mps;
};

/* Note a bulk endpoint of interface 0 (addr as the descriptor says). */
void palm_endpoints_add(struct palm_endpoints *e, uint8_t addr, uint16_t max_packet_size);
/* Note an interrupt endpoint of interface 0 (only the first IN is kept). */
void palm_endpoints_add_interrupt(struct palm_endpoints *e, uint8_t addr, uint16_t max_packet_size);

/*
 * One request, device-to-host: a control request, or, when interrupt_in
 * is set, one interrupt IN transfer of at most length bytes on that
 * endpoint, which a transport ends after PALM_INTERRUPT_WAIT_MS with
 * PALM_ANSWER_TIMEOUT if nothing came.
 */
struct palm_ctrl {
	uint8_t reqtype, request;
	uint16_t value, index, length;
	uint8_t interrupt_in;
};

#define PALM_INTERRUPT_WAIT_MS 2000
#define PALM_INTERRUPT_LEN_MAX 64 /* one full-speed packet; a reply is 20 bytes */
#define SETUP_REQUESTS_MAX     6  /* the longest family's sequence (docs/devices.md) */

enum palm_setup_step {
	SETUP_EXT_CONNINFO,
	SETUP_CONNINFO,
	SETUP_TAPWAVE_AGAIN,	  /* the extended request twice more */
	SETUP_INTERRUPT_CONNINFO, /* Treo 90 */
	SETUP_BYTES_AVAILABLE,
	SETUP_GET_CONFIGURATION, /* early Clies */
	SETUP_GET_INTERFACE,
	SETUP_DONE,
};

/* How an answer came (the transports' statuses, as far as set-up cares). */
enum palm_answer {
	PALM_ANSWER_OK,
	PALM_ANSWER_STALL,   /* the device refused the request */
	PALM_ANSWER_TIMEOUT, /* nothing came in time */
	PALM_ANSWER_FAILED,  /* anything else */
};

struct palm_setup {
	const char *name; /* of the handheld, for the log */
	uint16_t vid, pid;
	enum palm_family family;
	struct palm_endpoints eps;
	enum palm_setup_step step;
	struct palm_ctrl asked; /* the request in flight, for the log */
	unsigned int again;	/* Tapwave: extended requests still to send */
	unsigned int requests;	/* sent so far */
	unsigned int timeouts;	/* of them, left unanswered */
	bool found;		/* hs came from the device's own answer */
	const char *why;	/* how hs was chosen, for the log */
	struct palm_hotsync hs; /* the answer, once step is SETUP_DONE */
};

/*
 * Begin with a handheld whose endpoints are eps.  Returns true when its
 * family asks nothing (s->hs is then set), else false with *req the
 * first request.
 */
bool palm_setup_start(struct palm_setup *s, const char *name, uint16_t vid, uint16_t pid,
		      const struct palm_endpoints *eps, struct palm_ctrl *req);
/*
 * The answer to the last request, and the bytes it brought (untrusted).
 * Returns true when the stream is known (s->hs), false with *next the
 * request to send now.
 */
bool palm_setup_answer(struct palm_setup *s, enum palm_answer a, const uint8_t *data, size_t len,
		       struct palm_ctrl *next);
/* The same, with ok for PALM_ANSWER_OK and else PALM_ANSWER_FAILED. */
bool palm_setup_reply(struct palm_setup *s, bool ok, const uint8_t *data, size_t len,
		      struct palm_ctrl *next);

/*
 * The stack a handheld speaks, from the first bytes it sends
 * (palm-protocol.md section 4): "NetSync" for the NET handshake (a data
 * packet whose body begins 0x90), "SLP" for an SLP frame (BE EF ED), or
 * NULL when the bytes are neither (or too few: 7 decide).
 */
#define PALM_STACK_BYTES 7
const char *palm_stack_of(const uint8_t *b, size_t len);
/* "xx xx ..." of at most max bytes, "..." after when there were more;
 * returns buf.  size >= 3 * max + 4. */
char *palm_hex(char *buf, size_t size, const uint8_t *b, size_t len, size_t max);
/* Sent on every last close of the port, as the visor driver does. */
extern const struct palm_ctrl palm_close_notification;

/* The size of each bulk IN transfer: one packet of the HotSync endpoint. */
size_t palm_setup_in_size(const struct palm_setup *s, size_t max);

#endif
