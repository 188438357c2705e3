/* SPDX-License-Identifier: MIT */
/*
 * Palm specifics: which USB devices are Palm handhelds, and where their
 * HotSync stream is, parsed from the connection-information replies of
 * palm-protocol.md section 2 (the kernel's drivers/usb/serial/visor.h).
 * Everything here reads untrusted bytes from the device: lengths are
 * checked before anything is read, and a bad reply is an error, never a
 * crash.
 */
#ifndef PILOTD_PALM_H
#define PILOTD_PALM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Vendor control requests, all device-to-host (bmRequestType 0xc2). */
#define PALM_REQTYPE_VENDOR_IN		    0xc2
#define VISOR_REQUEST_BYTES_AVAILABLE	    0x01
#define VISOR_CLOSE_NOTIFICATION	    0x02
#define VISOR_GET_CONNECTION_INFORMATION    0x03
#define PALM_GET_EXT_CONNECTION_INFORMATION 0x04

#define VISOR_CONNINFO_LEN	     6
#define PALM_EXT_CONNINFO_LEN	     20
#define VISOR_CLOSE_NOTIFICATION_LEN 0x12

/* visor_connection_info port function ids */
#define VISOR_FUNCTION_HOTSYNC 2

/* How a model says where HotSync is. */
enum palm_startup {
	PALM_STARTUP_CONNINFO, /* connection-information requests (most) */
	/*
	 * Sony Clie 3.5: none; it expects GET_CONFIGURATION and GET_INTERFACE
	 * and syncs on the first bulk pair (visor.c clie_3_5_startup()).
	 */
	PALM_STARTUP_CLIE_3_5,
};

struct palm_model {
	uint16_t vid, pid;
	const char *name;
};

enum palm_startup palm_model_startup(uint16_t vid, uint16_t pid);

/* Standard requests (USB 2.0 section 9.4) the Clie 3.5 expects. */
#define USB_REQTYPE_DEVICE_IN	 0x80
#define USB_REQTYPE_INTERFACE_IN 0x81
#define USB_GET_CONFIGURATION	 0x08
#define USB_GET_INTERFACE	 0x0a

/* Every known handheld (also listed in pilotd/60-pilotd.rules). */
extern const struct palm_model palm_models[];
extern const size_t palm_model_count;

/* The model with this VID:PID, or NULL when it is not a known handheld. */
const struct palm_model *palm_find_model(uint16_t vid, uint16_t pid);

/* Where the HotSync stream flows. */
struct palm_hotsync {
	uint8_t in_ep;	/* bulk IN endpoint address (0x80 | n) */
	uint8_t out_ep; /* bulk OUT endpoint address */
};

/*
 * Parse a reply to VISOR_GET_CONNECTION_INFORMATION or
 * PALM_GET_EXT_CONNECTION_INFORMATION.  Returns 0 and fills *hs, -EPROTO
 * for a short or malformed reply, -ENOENT when no port is a sync port.
 */
int palm_parse_conninfo(const uint8_t *buf, size_t len, struct palm_hotsync *hs);
int palm_parse_ext_conninfo(const uint8_t *buf, size_t len, struct palm_hotsync *hs);

/* Parse "VID:PID" in hex; returns 0 or -EINVAL. */
int palm_parse_vidpid(const char *s, uint16_t *vid, uint16_t *pid);

/*
 * Where a device sits: "BUS-PORT[.PORT]..." as in /sys/bus/usb/devices,
 * e.g. "1-1.2" (bus 1, hub on root port 1, its port 2).  A handheld that
 * re-enumerates for each HotSync comes back on the same path.
 */
#define PALM_PORT_PATH_MAX 40
bool palm_valid_port_path(const char *s);
int palm_format_port_path(char *buf, size_t size, unsigned int bus, const uint8_t *ports,
			  int nports);

#endif
