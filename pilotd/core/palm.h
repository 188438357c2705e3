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

/*
 * How a model is set up: which requests find its HotSync stream.  Each
 * family is what a sync tool sends (docs/devices.md has the table, with
 * where each fact comes from).
 */
enum palm_family {
	/* PALM_GET_EXT_CONNECTION_INFORMATION, then the Visor's request when
	 * it fails, then BYTES_AVAILABLE (visor.c palm_os_4_probe() and
	 * visor_probe(); pilot-link USB_configure_generic()) */
	PALM_FAMILY_GENERIC,
	/* VISOR_GET_CONNECTION_INFORMATION, then BYTES_AVAILABLE (visor.c
	 * palm_os_3_probe(); pilot-link USB_INIT_VISOR) */
	PALM_FAMILY_VISOR,
	/* the extended request three times, no BYTES_AVAILABLE (pilot-link
	 * 0.15 USB_INIT_TAPWAVE: "the TwUSBD.sys driver on Windows sends the
	 * ext-connection-info packet two additional times") */
	PALM_FAMILY_TAPWAVE,
	/* no request at all (pilot-link and palm-sync: USB_INIT_NONE, the m100) */
	PALM_FAMILY_NONE,
	/* GET_CONFIGURATION and GET_INTERFACE (visor.c clie_3_5_startup();
	 * pilot-link 0.15 USB_INIT_SONY_CLIE; palm-sync EARLY_SONY_CLIE) */
	PALM_FAMILY_SONY_EARLY,
	/* the extended request is answered empty; the connection information
	 * comes on the interrupt pipe (desrod/pilot-link issue 13, pull 14) */
	PALM_FAMILY_TREO_90,
};

struct palm_model {
	uint16_t vid, pid;
	const char *name;
	enum palm_family family;
};

/* The family of VID:PID; PALM_FAMILY_GENERIC for one no tool knows. */
enum palm_family palm_model_family(uint16_t vid, uint16_t pid);
/* A family's name and the source that defines it, for the log. */
const char *palm_family_name(enum palm_family f);

/* Standard requests (USB 2.0 section 9.4) the early Clies expect. */
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
 * A port count past 2 is taken as 2, as visor.c and pilot-link do ("device
 * lied about number of ports"); the Visor's reply with 0 ports too (visor.c).
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
