/* SPDX-License-Identifier: MIT */
/*
 * libusb's file descriptors in pilotd's epoll loop, for link_libusb.c:
 * libusb says when it opens and closes them (its pollfd notifiers), and
 * the loop calls ready() when one has events; and the usbfs file of an
 * open device among them, for what libusb has no call for.
 */
#ifndef PILOTD_USB_FDS_H
#define PILOTD_USB_FDS_H

#include <libusb.h>
#include <stdint.h>

#include "core/loop.h"

#define USB_FDS_MAX 8

struct usb_fds {
	struct loop *loop;
	void (*ready)(void *ctx); /* libusb has events to handle */
	void *ctx;
	struct watch fds[USB_FDS_MAX];
};

/* Watch libusb's fds from now on (f->loop, ready and ctx set). */
void usb_fds_watch(struct usb_fds *f, libusb_context *usb);
void usb_fds_unwatch(struct usb_fds *f, libusb_context *usb);
/* Reset the host side of endpoint ep of the open device dev (its data
 * toggle), as usbfs does after its own CLEAR_HALT; 0 or -errno. */
int usb_fds_reset_endpoint(const struct usb_fds *f, libusb_device *dev, uint8_t ep);

#endif
