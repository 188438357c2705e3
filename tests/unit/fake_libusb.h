/* SPDX-License-Identifier: MIT */
/*
 * A fake libusb-1.0: the calls pilotd/link_libusb.c, link_libusb_io.c and
 * usb_fds.c make, over devices a test plugs in and pulls out, so that the
 * libusb transport runs on the host without a bus.  What libusb does is
 * modelled where the transport's choices depend on it:
 *
 *   - hotplug arrivals and departures are told by the event handling
 *     (libusb_handle_events_timeout_completed()), which a test's plug or
 *     pull wakes through an eventfd among libusb's pollfds;
 *   - the device list names the newest device first (libusb adds each
 *     new device at the head of its list), and a device only once its
 *     arrival was handled;
 *   - opening a device adds its usbfs file to libusb's pollfds (a pipe
 *     here, never ready), closing removes it, through the pollfd
 *     notifiers, on the thread that opens or closes;
 *   - open and claim answer as each device is set to (fake_dev below),
 *     its device descriptor has its ids, its active configuration bulk
 *     endpoints 0x82 and 0x02 (and interrupt IN 0x83 for a Treo 90);
 *   - the connection-information handshake is answered as a Palm OS 4
 *     handheld answers it (HotSync on endpoints 2), bulk OUT transfers
 *     take all their bytes, bulk IN transfers wait for data that never
 *     comes; everything in flight completes with LIBUSB_TRANSFER_NO_DEVICE
 *     once its device left, or CANCELLED once cancelled.
 *
 * Open may wait (open_waits, below).  Open, claim, release, close, the
 * configuration descriptor and the device references may be called from
 * any thread (a lock); callbacks and notifiers run without it held.  The
 * test reads what pilotd did to a device (below) once no other thread
 * runs.
 */
#ifndef PILOTD_TEST_FAKE_LIBUSB_H
#define PILOTD_TEST_FAKE_LIBUSB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_NEVER	  UINT64_MAX
#define FAKE_OPEN_WAIT_MS 5000 /* usbfs: USB_CTRL_SET_TIMEOUT */
#define FAKE_OUT_KEPT	  64

/* One handheld (or a device that says it is one), plugged in or not. */
struct fake_dev {
	const char *name;
	uint16_t vid, pid; /* its device descriptor's */
	uint8_t address;
	/* how it answers */
	int open_error;		/* libusb_open()'s result: 0, or a LIBUSB_ERROR_* */
	int claim_error;	/* the claim's result until configured_ms (0: none) */
	uint64_t configured_ms; /* from then on the claim succeeds; FAKE_NEVER */
	int ctrl_error;		/* every control submission fails with it (0: none) */
	int interrupt_error;	/* every interrupt submission fails with it (0: none) */
	/* libusb_open() waits, as on usbfs' device lock while the kernel
	 * configures (or a driver probes) a device that does not answer,
	 * until the device is pulled out or FAKE_OPEN_WAIT_MS of real time
	 * passed; then it opens */
	bool open_waits;
	bool in_halts; /* its bulk IN endpoint halts: every transfer stalls, after a clear too */
	/* a Treo 90 (desrod/pilot-link issue 13): it answers the extended
	 * connection-information request empty, and has interrupt IN
	 * endpoint 0x83, on which it sends the reply (HotSync on endpoints 2) */
	bool conninfo_on_interrupt;
	uint8_t hub_port; /* nonzero: it sits behind a hub, on this port of it */

	/* what pilotd did to it */
	int opens; /* libusb_open() calls while it was there */
	uint64_t first_open_ms, last_open_ms;
	bool claimed;		    /* interface 0 held now */
	bool handshake_done;	    /* asked where HotSync is, and told */
	int interrupt_reads;	    /* interrupt IN transfers on 0x83 */
	int clears;		    /* CLEAR_FEATURE(ENDPOINT_HALT) requests */
	uint8_t out[FAKE_OUT_KEPT]; /* what its bulk OUT endpoint took */
	size_t out_len;

	struct libusb_device *dev; /* while plugged in (or pulled, not told yet) */
};

/* Start from an empty bus (before libusb_init()). */
void fake_usb_reset(void);
/* d arrives or leaves: told at the next event handling. */
void fake_usb_plug(struct fake_dev *d);
void fake_usb_pull(struct fake_dev *d);
/* How often pilotd listed the devices (libusb_get_device_list()). */
int fake_usb_device_lists(void);
/* Handles open now. */
int fake_usb_open_handles(void);
/* d's opens so far, while an opener's thread may run. */
int fake_usb_opens(const struct fake_dev *d);
/* pilotd's references on d's libusb_device (the last plugged in). */
int fake_usb_refs(const struct fake_dev *d);
/* Every device's references not libusb's own (0 after pilotd let go),
 * and misuses (a reference dropped that was not held): each reported. */
int fake_usb_stray_refs(void);
/* Free what fake_usb_reset() has kept for fake_usb_stray_refs(). */
void fake_usb_free(void);

#endif
