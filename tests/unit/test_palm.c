// SPDX-License-Identifier: MIT
/*
 * Connection-information parsing against replies as palm-protocol.md
 * section 2 lays them out: good ones, short ones, oversized ones and
 * garbage.  A bad reply must be an error, never a crash or a wild read
 * (ASan watches the latter).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/palm.h"

struct conninfo_case {
	const char *name;
	uint8_t data[32];
	size_t len;
	int ret;
	uint8_t in_ep, out_ep;
};

static const struct conninfo_case visor_cases[] = {
	{ .name = "visor: generic 1, hotsync 2",
	  .data = { 2, 0, 0, 1, 2, 2 },
	  .len = 6,
	  .ret = 0,
	  .in_ep = 0x82,
	  .out_ep = 0x02 },
	{ .name = "visor: hotsync first",
	  .data = { 2, 0, 2, 3, 0, 1 },
	  .len = 6,
	  .ret = 0,
	  .in_ep = 0x83,
	  .out_ep = 0x03 },
	{ .name = "visor: one port",
	  .data = { 1, 0, 2, 1, 0xff, 0xff },
	  .len = 6,
	  .ret = 0,
	  .in_ep = 0x81,
	  .out_ep = 0x01 },
	{ .name = "visor: oversized reply",
	  .data = { 2, 0, 0, 1, 2, 2, 9, 9, 9 },
	  .len = 9,
	  .ret = 0,
	  .in_ep = 0x82,
	  .out_ep = 0x02 },
	{ .name = "visor: short", .data = { 2, 0, 0 }, .len = 3, .ret = -EPROTO },
	{ .name = "visor: empty", .len = 0, .ret = -EPROTO },
	/* visor.c palm_os_3_probe() takes a count of 0 or past 2 as 2 */
	{ .name = "visor: zero ports, taken as two",
	  .data = { 0, 0, 2, 2, 2, 2 },
	  .len = 6,
	  .ret = 0,
	  .in_ep = 0x82,
	  .out_ep = 0x02 },
	{ .name = "visor: absurd port count, taken as two",
	  .data = { 0xee, 0x81, 0, 1, 2, 3 },
	  .len = 6,
	  .ret = 0,
	  .in_ep = 0x83,
	  .out_ep = 0x03 },
	{ .name = "visor: absurd port count, no HotSync in the two",
	  .data = { 0xee, 0x81, 0, 1, 1, 2 },
	  .len = 6,
	  .ret = -ENOENT },
	{ .name = "visor: no hotsync", .data = { 2, 0, 0, 1, 1, 2 }, .len = 6, .ret = -ENOENT },
	{ .name = "visor: hotsync on port 0",
	  .data = { 1, 0, 2, 0, 0, 0 },
	  .len = 6,
	  .ret = -EPROTO },
	{ .name = "visor: hotsync on port 16",
	  .data = { 1, 0, 2, 16, 0, 0 },
	  .len = 6,
	  .ret = -EPROTO },
};

static const struct conninfo_case ext_cases[] = {
	{ .name = "ext: cnys on port 2",
	  .data = { 1, 0, 0, 0, 'c', 'n', 'y', 's', 2, 0x22 },
	  .len = 20,
	  .ret = 0,
	  .in_ep = 0x82,
	  .out_ep = 0x02 },
	{ .name = "ext: endpoints differ",
	  .data = { 1, 1, 0, 0, 'c', 'n', 'y', 's', 2, 0x31 },
	  .len = 20,
	  .ret = 0,
	  .in_ep = 0x83,
	  .out_ep = 0x01 },
	{ .name = "ext: cnys second",
	  .data = { 2, 0, 0, 0, 'r', 'f', 's', 'L', 1, 0x11, 0, 0, 'c', 'n', 'y', 's', 3 },
	  .len = 20,
	  .ret = 0,
	  .in_ep = 0x83,
	  .out_ep = 0x03 },
	{ .name = "ext: ppp_ when no cnys",
	  .data = { 2, 0, 0, 0, 'p', 'p', 'p', '_', 1, 0, 0, 0, 'r', 'f', 's', 'L', 2 },
	  .len = 20,
	  .ret = 0,
	  .in_ep = 0x81,
	  .out_ep = 0x01 },
	{ .name = "ext: cnys beats ppp_",
	  .data = { 2, 0, 0, 0, 'p', 'p', 'p', '_', 1, 0, 0, 0, 'c', 'n', 'y', 's', 2 },
	  .len = 20,
	  .ret = 0,
	  .in_ep = 0x82,
	  .out_ep = 0x02 },
	{ .name = "ext: oversized reply",
	  .data = { 1, 0, 0, 0, 'c', 'n', 'y', 's', 2, 0 },
	  .len = 32,
	  .ret = 0,
	  .in_ep = 0x82,
	  .out_ep = 0x02 },
	{ .name = "ext: short",
	  .data = { 1, 0, 0, 0, 'c', 'n', 'y', 's', 2, 0 },
	  .len = 10,
	  .ret = -EPROTO },
	{ .name = "ext: empty", .len = 0, .ret = -EPROTO },
	/* the Treo 90's count of 16 (desrod/pilot-link issue 13): two are read */
	{ .name = "ext: absurd port count, taken as two",
	  .data = { 0xee, 0, 0, 0, 'c', 'n', 'y', 's', 2 },
	  .len = 20,
	  .ret = 0,
	  .in_ep = 0x82,
	  .out_ep = 0x02 },
	{ .name = "ext: absurd port count, HotSync past the two",
	  .data = { 16,	 0,   0,   0, 'r', 'f', 's', 'L', 1,   0,   0,	 0, 'r',
		    'f', 's', 'L', 1, 0,   0,	0,   'c', 'n', 'y', 's', 2 },
	  .len = 28,
	  .ret = -ENOENT },
	{ .name = "ext: no ports",
	  .data = { 0, 0, 0, 0, 'c', 'n', 'y', 's', 2 },
	  .len = 20,
	  .ret = -ENOENT },
	{ .name = "ext: bad flag",
	  .data = { 1, 7, 0, 0, 'c', 'n', 'y', 's', 2 },
	  .len = 20,
	  .ret = -EPROTO },
	{ .name = "ext: no sync port",
	  .data = { 1, 0, 0, 0, 'r', 'f', 's', 'L', 2 },
	  .len = 20,
	  .ret = -ENOENT },
	{ .name = "ext: endpoint nibble zero",
	  .data = { 1, 1, 0, 0, 'c', 'n', 'y', 's', 2, 0x20 },
	  .len = 20,
	  .ret = -EPROTO },
};

static void run_cases(const struct conninfo_case *cases, size_t n,
		      int (*parse)(const uint8_t *, size_t, struct palm_hotsync *))
{
	for (size_t i = 0; i < n; i++) {
		const struct conninfo_case *c = &cases[i];
		/* exactly len bytes on the heap, so a read past them trips ASan */
		uint8_t *buf = malloc(c->len ? c->len : 1);
		struct palm_hotsync hs = { 0 };
		int r;

		memcpy(buf, c->data, c->len < sizeof(c->data) ? c->len : sizeof(c->data));
		if (c->len > sizeof(c->data))
			memset(buf + sizeof(c->data), 0, c->len - sizeof(c->data));
		r = parse(buf, c->len, &hs);
		if (r != c->ret || (r == 0 && (hs.in_ep != c->in_ep || hs.out_ep != c->out_ep))) {
			fprintf(stderr,
				"%s: got %d in 0x%02x out 0x%02x, expected %d 0x%02x 0x%02x\n",
				c->name, r, hs.in_ep, hs.out_ep, c->ret, c->in_ep, c->out_ep);
			check_failures++;
		}
		free(buf);
	}
}

/* Every byte string up to 24 bytes long of a few patterns: no crash. */
static void test_garbage(void)
{
	struct palm_hotsync hs;
	uint32_t x = 12345;

	for (int round = 0; round < 20000; round++) {
		size_t len = (size_t)(round % 25);
		uint8_t *buf = malloc(len ? len : 1);

		for (size_t i = 0; i < len; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (uint8_t)(x >> 16);
		}
		int a = palm_parse_conninfo(buf, len, &hs);
		int b = palm_parse_ext_conninfo(buf, len, &hs);

		CHECK(a == 0 || a == -EPROTO || a == -ENOENT);
		CHECK(b == 0 || b == -EPROTO || b == -ENOENT);
		free(buf);
	}
}

static void test_models(void)
{
	CHECK(palm_find_model(0x0830, 0x0060) != NULL);
	CHECK(palm_find_model(0x082d, 0x0100) != NULL);
	CHECK(palm_find_model(0x054c, 0x0169) != NULL);
	CHECK(palm_find_model(0x0830, 0x0062) != NULL); /* pilot-link's extra */
	CHECK(palm_find_model(0x1d6b, 0x0002) == NULL); /* a root hub */
	CHECK(palm_find_model(0x0830, 0x0000) == NULL);
}

/*
 * Each family's IDs, as docs/devices.md gives them; every other known ID
 * is generic, and an ID no tool knows is set up as generic too (it can be
 * named with --device).
 */
static void test_families(void)
{
	static const struct {
		uint16_t vid, pid;
		enum palm_family family;
	} special[] = {
		{ 0x082d, 0x0100, PALM_FAMILY_VISOR },
		{ 0x082d, 0x0200, PALM_FAMILY_TREO_90 },
		{ 0x0830, 0x0061, PALM_FAMILY_TAPWAVE },
		{ 0x12ef, 0x0100, PALM_FAMILY_TAPWAVE },
		{ 0x0830, 0x0080, PALM_FAMILY_NONE },
		{ 0x054c, 0x0038, PALM_FAMILY_SONY_EARLY },
		{ 0x054c, 0x009a, PALM_FAMILY_SONY_EARLY },
		{ 0x054c, 0x0169, PALM_FAMILY_SONY_EARLY },
	};
	size_t n = sizeof(special) / sizeof(special[0]), generic = 0;

	for (size_t i = 0; i < n; i++)
		CHECK_EQ(palm_model_family(special[i].vid, special[i].pid), special[i].family);
	for (size_t i = 0; i < palm_model_count; i++)
		generic += palm_models[i].family == PALM_FAMILY_GENERIC;
	CHECK_EQ(generic, palm_model_count - n);
	CHECK_EQ(palm_model_count, 45); /* the union of the three tables */
	CHECK_EQ(palm_model_family(0x1209, 0x0001), PALM_FAMILY_GENERIC);
	for (int f = PALM_FAMILY_GENERIC; f <= PALM_FAMILY_TREO_90; f++)
		CHECK(strcmp(palm_family_name((enum palm_family)f), "?") != 0);
}

static void test_vidpid(void)
{
	uint16_t v = 0, p = 0;

	CHECK_EQ(palm_parse_vidpid("0830:0060", &v, &p), 0);
	CHECK(v == 0x0830 && p == 0x0060);
	CHECK_EQ(palm_parse_vidpid("82d:100", &v, &p), 0);
	CHECK(v == 0x082d && p == 0x0100);
	CHECK_EQ(palm_parse_vidpid("0830", &v, &p), -EINVAL);
	CHECK_EQ(palm_parse_vidpid("0830:", &v, &p), -EINVAL);
	CHECK_EQ(palm_parse_vidpid(":0060", &v, &p), -EINVAL);
	CHECK_EQ(palm_parse_vidpid("10000:1", &v, &p), -EINVAL);
	CHECK_EQ(palm_parse_vidpid("0830:0060x", &v, &p), -EINVAL);
}

/*
 * The udev rules give the pilotd group every known handheld's USB node,
 * exactly: a model missing there would sync as root only, a stale line
 * would hand out another device.
 */
static void test_udev_rules(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t usb_lines = 0;
	bool *seen = calloc(palm_model_count, sizeof(bool));

	CHECK(f != NULL && seen != NULL);
	if (!f || !seen)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned int vid, pid;
		const char *v = strstr(line, "ATTR{idVendor}==\""),
			   *p = strstr(line, "ATTR{idProduct}==\"");
		const struct palm_model *m;

		if (line[0] == '#' || !strstr(line, "SUBSYSTEM==\"usb\""))
			continue;
		usb_lines++;
		CHECK(v && p && strstr(line, "GROUP=\"pilotd\"") && strstr(line, "MODE=\"0660\""));
		if (!v || !p || sscanf(v, "ATTR{idVendor}==\"%4x\"", &vid) != 1 ||
		    sscanf(p, "ATTR{idProduct}==\"%4x\"", &pid) != 1)
			continue;
		m = palm_find_model((uint16_t)vid, (uint16_t)pid);
		if (!m) {
			fprintf(stderr, "rule for %04x:%04x, which is no known handheld\n", vid,
				pid);
			CHECK(m != NULL);
			continue;
		}
		CHECK(!seen[m - palm_models]); /* once */
		seen[m - palm_models] = true;
	}
	for (size_t i = 0; i < palm_model_count; i++)
		if (!seen[i]) {
			fprintf(stderr, "no udev rule for %04x:%04x (%s)\n", palm_models[i].vid,
				palm_models[i].pid, palm_models[i].name);
			CHECK(seen[i]);
		}
	CHECK(usb_lines == palm_model_count);
	free(seen);
	fclose(f);
}

static void test_port_path(void)
{
	static const char *const good[] = { "1-1", "1-1.2", "12-3.4.5.6", "2-10",
					    "1-1.2.3.4.5.6.7" };
	static const char *const bad[] = { "",	  "1",	   "1-",  "-1",	    "1-1.",
					   "1.1", "1-1-2", "1-a", "1-1..2", "1-1.2.3.4.5.6.7.8",
					   " 1-1" };
	static const uint8_t ports[] = { 1, 12, 3 };
	char buf[PALM_PORT_PATH_MAX];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(palm_valid_port_path(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (palm_valid_port_path(bad[i])) {
			fprintf(stderr, "port path '%s' taken as valid\n", bad[i]);
			CHECK(!palm_valid_port_path(bad[i]));
		}
	CHECK(palm_format_port_path(buf, sizeof(buf), 3, ports, 3) == 0);
	CHECK(strcmp(buf, "3-1.12.3") == 0);
	CHECK(palm_format_port_path(buf, sizeof(buf), 1, ports, 1) == 0);
	CHECK(strcmp(buf, "1-1") == 0);
	CHECK(palm_format_port_path(buf, sizeof(buf), 1, ports, 0) < 0); /* a root hub */
	CHECK(palm_format_port_path(buf, 4, 3, ports, 3) < 0);		 /* does not fit */
}

int main(int argc, char **argv)
{
	run_cases(visor_cases, sizeof(visor_cases) / sizeof(visor_cases[0]), palm_parse_conninfo);
	run_cases(ext_cases, sizeof(ext_cases) / sizeof(ext_cases[0]), palm_parse_ext_conninfo);
	test_garbage();
	test_models();
	test_families();
	test_vidpid();
	test_port_path();
	CHECK(argc == 2); /* the rules file */
	if (argc == 2)
		test_udev_rules(argv[1]);
	return check_result("test_palm");
}
