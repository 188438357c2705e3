// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "palm.h"

/*
 * Every ID in the kernel's visor.c tables, pilot-link 0.15's known_devices
 * and palm-sync's usb-device-configs.ts; docs/devices.md says which tool
 * names which, and where they disagree about the set-up.
 */
#define F(f) PALM_FAMILY_##f
const struct palm_model palm_models[] = {
	{ 0x082d, 0x0100, "Handspring Visor, Treo 300", F(VISOR) },
	{ 0x082d, 0x0200, "Handspring Treo (90)", F(TREO_90) },
	{ 0x082d, 0x0300, "Handspring Treo 600", F(GENERIC) },
	{ 0x0830, 0x0001, "Palm m500", F(GENERIC) },
	{ 0x0830, 0x0002, "Palm m505", F(GENERIC) },
	{ 0x0830, 0x0003, "Palm m515", F(GENERIC) },
	{ 0x0830, 0x0010, "Palm handheld", F(GENERIC) },
	{ 0x0830, 0x0011, "Palm handheld", F(GENERIC) },
	{ 0x0830, 0x0020, "Palm i705", F(GENERIC) },
	{ 0x0830, 0x0030, "Palm Tungsten|Z", F(GENERIC) },
	{ 0x0830, 0x0031, "Palm Tungsten|W, Tungsten Z", F(GENERIC) },
	{ 0x0830, 0x0040, "Palm m125", F(GENERIC) },
	{ 0x0830, 0x0050, "Palm m130", F(GENERIC) },
	{ 0x0830, 0x0051, "Palm handheld", F(GENERIC) },
	{ 0x0830, 0x0052, "Palm handheld", F(GENERIC) },
	{ 0x0830, 0x0053, "Palm handheld", F(GENERIC) },
	{ 0x0830, 0x0060, "Palm Tungsten T, Zire 71", F(GENERIC) },
	{ 0x0830, 0x0061, "Palm Zire 31/72, Z22, Treo 650 and later", F(TAPWAVE) },
	{ 0x0830, 0x0062, "Palm handheld", F(GENERIC) },
	{ 0x0830, 0x0063, "Palm handheld", F(GENERIC) },
	{ 0x0830, 0x0070, "Palm Zire", F(GENERIC) },
	{ 0x0830, 0x0071, "Palm handheld", F(GENERIC) },
	{ 0x0830, 0x0080, "Palm m100", F(NONE) },
	{ 0x0830, 0x0099, "Palm handheld", F(GENERIC) },
	{ 0x0830, 0x0100, "Palm handheld", F(GENERIC) },
	{ 0x054c, 0x000a, "Sony Clie NR (Palm OS 4.1)", F(GENERIC) },
	{ 0x054c, 0x0038, "Sony Clie S300/S320 (Palm OS 3.5)", F(SONY_EARLY) },
	{ 0x054c, 0x0066, "Sony Clie T, SJ (Palm OS 4.0)", F(GENERIC) },
	{ 0x054c, 0x0095, "Sony Clie S360", F(GENERIC) },
	{ 0x054c, 0x009a, "Sony Clie NR70V/U (Palm OS 4.1)", F(SONY_EARLY) },
	{ 0x054c, 0x00da, "Sony Clie NX60", F(GENERIC) },
	{ 0x054c, 0x00e9, "Sony Clie NZ90V", F(GENERIC) },
	{ 0x054c, 0x0144, "Sony Clie UX50, TH55", F(GENERIC) },
	{ 0x054c, 0x0169, "Sony Clie TJ25", F(SONY_EARLY) },
	{ 0x115e, 0xf100, "GSPDA Xplore M68", F(GENERIC) },
	{ 0x0502, 0x0001, "Acer S10", F(GENERIC) },
	{ 0x04e8, 0x8001, "Samsung SCH-I330", F(GENERIC) },
	{ 0x04e8, 0x6601, "Samsung SPH-I500", F(GENERIC) },
	{ 0x12ef, 0x0100, "Tapwave Zodiac, Zodiac2", F(TAPWAVE) },
	{ 0x091e, 0x0004, "Garmin iQue 3600", F(GENERIC) },
	{ 0x4766, 0x0001, "Aceeca MEZ1000", F(GENERIC) },
	{ 0x0c88, 0x0021, "Kyocera 7135", F(GENERIC) },
	{ 0x0c88, 0xa226, "Kyocera 6035", F(GENERIC) },
	{ 0x0e67, 0x0002, "Fossil Abacus", F(GENERIC) },
	{ 0x081e, 0xdf00, "AlphaSmart Dana", F(GENERIC) },
};
#undef F
const size_t palm_model_count = sizeof(palm_models) / sizeof(palm_models[0]);

enum palm_family palm_model_family(uint16_t vid, uint16_t pid)
{
	const struct palm_model *m = palm_find_model(vid, pid);

	return m ? m->family : PALM_FAMILY_GENERIC;
}

const char *palm_family_name(enum palm_family f)
{
	switch (f) {
	case PALM_FAMILY_GENERIC: return "generic Palm OS 4 (visor.c palm_os_4_probe)";
	case PALM_FAMILY_VISOR: return "Visor (pilot-link USB_INIT_VISOR, visor.c palm_os_3_probe)";
	case PALM_FAMILY_TAPWAVE: return "Tapwave (pilot-link 0.15 USB_INIT_TAPWAVE)";
	case PALM_FAMILY_NONE: return "none (pilot-link USB_INIT_NONE)";
	case PALM_FAMILY_SONY_EARLY:
		return "early Sony Clie (pilot-link 0.15 USB_INIT_SONY_CLIE, visor.c "
		       "clie_3_5_startup)";
	case PALM_FAMILY_TREO_90:
		return "Treo 90 (connection information on the interrupt pipe: "
		       "desrod/pilot-link pull 14)";
	}
	return "?";
}

const struct palm_model *palm_find_model(uint16_t vid, uint16_t pid)
{
	for (size_t i = 0; i < palm_model_count; i++)
		if (palm_models[i].vid == vid && palm_models[i].pid == pid)
			return &palm_models[i];
	return NULL;
}

static int valid_port(unsigned int port)
{
	return port >= 1 && port <= 15;
}

/* visor_connection_info: le16 num_ports, then {u8 function, u8 port} x 2 */
int palm_parse_conninfo(const uint8_t *buf, size_t len, struct palm_hotsync *hs)
{
	unsigned int num_ports;

	if (len < VISOR_CONNINFO_LEN)
		return -EPROTO;
	num_ports = buf[0] | (unsigned int)buf[1] << 8;
	if (num_ports < 1 || num_ports > 2)
		num_ports = 2; /* visor.c palm_os_3_probe(): "no valid connect info" */
	for (unsigned int i = 0; i < num_ports; i++) {
		unsigned int function = buf[2 + 2 * i], port = buf[3 + 2 * i];

		if (function != VISOR_FUNCTION_HOTSYNC)
			continue;
		if (!valid_port(port))
			return -EPROTO;
		hs->in_ep = (uint8_t)(0x80 | port);
		hs->out_ep = (uint8_t)port;
		return 0;
	}
	return -ENOENT;
}

/*
 * palm_ext_connection_info: u8 num_ports, u8 endpoint_numbers_different,
 * le16 reserved, then {u32 function creator, u8 port, u8 end_point_info,
 * le16 reserved} x 2.  "cnys" is HotSync; "ppp_" also syncs on some
 * devices and is taken when there is no "cnys".
 */
int palm_parse_ext_conninfo(const uint8_t *buf, size_t len, struct palm_hotsync *hs)
{
	unsigned int num_ports, different;
	int found = -1;

	if (len < PALM_EXT_CONNINFO_LEN)
		return -EPROTO;
	num_ports = buf[0];
	different = buf[1];
	if (different > 1)
		return -EPROTO;
	if (num_ports > 2)
		num_ports = 2; /* the reply has room for two; pilot-link read past it */
	for (unsigned int i = 0; i < num_ports; i++) {
		const uint8_t *e = buf + 4 + 8 * i;

		if (memcmp(e, "cnys", 4) == 0) {
			found = (int)i;
			break;
		}
		if (memcmp(e, "ppp_", 4) == 0 && found < 0)
			found = (int)i;
	}
	if (found < 0)
		return -ENOENT;

	const uint8_t *e = buf + 4 + 8 * found;
	unsigned int in = different ? e[5] >> 4 : e[4];
	unsigned int out = different ? e[5] & 0x0f : e[4];

	if (!valid_port(in) || !valid_port(out))
		return -EPROTO;
	hs->in_ep = (uint8_t)(0x80 | in);
	hs->out_ep = (uint8_t)out;
	return 0;
}

int palm_parse_vidpid(const char *s, uint16_t *vid, uint16_t *pid)
{
	char *end;
	unsigned long v, p;

	v = strtoul(s, &end, 16);
	if (end == s || *end != ':' || v > 0xffff)
		return -EINVAL;
	s = end + 1;
	p = strtoul(s, &end, 16);
	if (end == s || *end != '\0' || p > 0xffff)
		return -EINVAL;
	*vid = (uint16_t)v;
	*pid = (uint16_t)p;
	return 0;
}

/* "BUS-PORT[.PORT]...", decimal, as the kernel names USB devices in sysfs. */
bool palm_valid_port_path(const char *s)
{
	int numbers = 0; /* the bus, then the ports */
	bool digit = false;

	if (strlen(s) >= PALM_PORT_PATH_MAX)
		return false;
	for (const char *c = s;; c++) {
		if (*c >= '0' && *c <= '9') {
			digit = true;
			continue;
		}
		if (!digit || (numbers == 0 && *c != '-') || (numbers > 0 && *c != '.' && *c))
			return false;
		numbers++;
		digit = false;
		if (!*c)
			return numbers >= 2 && numbers <= 8; /* 1 to 7 ports: USB has 7 tiers */
	}
}

int palm_format_port_path(char *buf, size_t size, unsigned int bus, const uint8_t *ports,
			  int nports)
{
	int n = snprintf(buf, size, "%u", bus);

	for (int i = 0; i < nports && n > 0 && (size_t)n < size; i++)
		n += snprintf(buf + n, size - (size_t)n, "%c%u", i ? '.' : '-', ports[i]);
	return nports > 0 && n > 0 && (size_t)n < size ? 0 : -EINVAL;
}
