/* SPDX-License-Identifier: MIT */
/*
 * The USB edge: find the handheld, learn where its HotSync stream is, and
 * move bytes between its bulk endpoints and the port (core/port.h): it
 * reports arrival (port_carrier_up), departure (port_carrier_down) and
 * what came (port_rx), takes what to send (port_tx_take/port_tx_done),
 * and reads only while the port has room (port_rx_room).
 */
#ifndef PILOTD_USB_LINK_H
#define PILOTD_USB_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/loop.h"
#include "core/port.h"

struct usb_link_config {
	bool match_any_palm;
	uint16_t vid, pid;
	const char *port_path; /* only the device there ("1-1.2"), or NULL */
};

struct usb_link;

int usb_link_start(struct usb_link **l, const struct usb_link_config *cfg, struct loop *loop,
		   struct port *port);
/* When libusb wants usb_link_handle_events() by time, in ms, or -1. */
int usb_link_timeout_ms(struct usb_link *l);
void usb_link_handle_events(struct usb_link *l);
void usb_link_kick_tx(struct usb_link *l); /* the port has bytes to send */
void usb_link_rx_room(struct usb_link *l); /* the port has room again */
void usb_link_last_close(struct usb_link *l);
void usb_link_stop(struct usb_link *l);

#endif
