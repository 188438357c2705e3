/* SPDX-License-Identifier: MIT */
/*
 * libusb's file descriptors in pilotd's epoll loop, for link_libusb.c:
 * libusb says when it opens and closes them (its pollfd notifiers), and
 * the loop calls ready() when one has events; and the usbfs file of an
 * open device among them, for what libusb has no call for.
 *
 * libusb tells on the thread that opened or closed the fd: a device is
 * opened on a thread of its own (link_libusb.c), whose news is only noted
 * there; the loop then takes libusb's list afresh (usb_fds_sync()).
 */
#ifndef PILOTD_USB_FDS_H
#define PILOTD_USB_FDS_H

#include <libusb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "core/loop.h"

#define USB_FDS_MAX 8

struct usb_fds {
	struct loop *loop;
	void (*ready)(void *ctx); /* libusb has events to handle */
	void *ctx;
	struct watch fds[USB_FDS_MAX];
	pthread_t loop_thread; /* the one that may touch the loop */
	atomic_bool changed;   /* told on another thread: sync before use */
};

/* Watch libusb's fds from now on (f->loop, ready and ctx set). */
void usb_fds_watch(struct usb_fds *f, libusb_context *usb);
void usb_fds_unwatch(struct usb_fds *f, libusb_context *usb);
/* On the loop's thread: watch none of libusb's fds until usb_fds_sync()
 * (while another thread opens a device). */
void usb_fds_pause(struct usb_fds *f);
/* On the loop's thread: watch what libusb has now, if another thread
 * opened or closed an fd since the last call. */
void usb_fds_sync(struct usb_fds *f, libusb_context *usb);
/* Reset the host side of endpoint ep of the open device dev (its data
 * toggle), as usbfs does after its own CLEAR_HALT; 0 or -errno. */
int usb_fds_reset_endpoint(const struct usb_fds *f, libusb_device *dev, uint8_t ep);

#endif
