// SPDX-License-Identifier: MIT
/*
 * The parsers of core/palm.c that read untrusted bytes or strings: the
 * two connection-information replies (from the device, port counts past
 * two taken as two), "VID:PID" and the port path (from the command line),
 * and the port path's formatting (from libusb's numbers); and
 * core/setup.c's reading of a handheld's first bytes (the stack it
 * speaks) and their hex for the log.  A parse either fails with its
 * documented error or gives a value in range, what is formatted parses
 * again, and the hex fits its bound.
 *
 * Input: which (u8 % 6), then the reply's bytes, the string, for the
 * formatting the buffer size (u8 % 64), bus (u32), port count (u8 % 10)
 * and ports (u8 each), or for the stack the most bytes shown (u8 % 32)
 * and the bytes.
 */
#include <errno.h>

#include "core/palm.h"
#include "core/setup.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_port_number(unsigned int port)
{
	FUZZ_CHECK(port >= 1 && port <= 15);
}

static void fuzz_conninfo(struct input *in, bool extended)
{
	size_t len = in->left;
	uint8_t *reply = input_bytes(in, len);
	struct palm_hotsync hs;
	int r = extended ? palm_parse_ext_conninfo(reply, len, &hs)
			 : palm_parse_conninfo(reply, len, &hs);

	free(reply);
	FUZZ_CHECK(r == 0 || r == -EPROTO || r == -ENOENT);
	if (r < 0)
		return;
	FUZZ_CHECK((hs.in_ep & 0xf0) == 0x80);
	FUZZ_CHECK((hs.out_ep & 0xf0) == 0);
	check_port_number(hs.in_ep & 0x0f);
	check_port_number(hs.out_ep);
}

/* The rest of the input as a C string (up to its first NUL). */
static char *input_string(struct input *in)
{
	size_t len = in->left;
	char *s = malloc(len + 1);

	if (!s)
		abort();
	for (size_t i = 0; i < len; i++)
		s[i] = (char)input_u8(in);
	s[len] = '\0';
	return s;
}

static void fuzz_vidpid(struct input *in)
{
	char *s = input_string(in);
	char again[16];
	uint16_t vid, pid, vid2, pid2;
	int r = palm_parse_vidpid(s, &vid, &pid);

	free(s);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r < 0)
		return;
	snprintf(again, sizeof(again), "%04x:%04x", vid, pid);
	FUZZ_CHECK(palm_parse_vidpid(again, &vid2, &pid2) == 0);
	FUZZ_CHECK(vid2 == vid && pid2 == pid);
}

static void fuzz_port_path(struct input *in)
{
	char *s = input_string(in);

	if (palm_valid_port_path(s))
		FUZZ_CHECK(strlen(s) < PALM_PORT_PATH_MAX);
	free(s);
}

static void fuzz_format_port_path(struct input *in)
{
	size_t size = input_u8(in) % 64;
	unsigned int bus = input_u32(in);
	int nports = input_u8(in) % 10;
	uint8_t *ports = input_bytes(in, (size_t)nports);
	char *buf = size ? malloc(size) : NULL;
	int r = palm_format_port_path(buf, size, bus, ports, nports);

	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		FUZZ_CHECK(nports >= 1 && strlen(buf) < size);
		/* USB has 7 tiers: a longer path is formatted, but never taken */
		FUZZ_CHECK(palm_valid_port_path(buf) == (nports <= 7));
	}
	free(buf);
	free(ports);
}

static void fuzz_stack(struct input *in)
{
	size_t max = input_u8(in) % 32;
	size_t len = in->left;
	uint8_t *b = input_bytes(in, len);
	char hex[3 * 32 + 4];
	const char *stack = palm_stack_of(b, len);

	if (stack) {
		FUZZ_CHECK(strcmp(stack, "SLP") == 0 || strcmp(stack, "NetSync") == 0);
		FUZZ_CHECK(len >= 3);
	}
	palm_hex(hex, sizeof(hex), b, len, max);
	FUZZ_CHECK(strlen(hex) <= 3 * max + 3);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { .p = data, .left = size };

	switch (input_u8(&in) % 6) {
	case 0: fuzz_conninfo(&in, false); break;
	case 1: fuzz_conninfo(&in, true); break;
	case 2: fuzz_vidpid(&in); break;
	case 3: fuzz_port_path(&in); break;
	case 4: fuzz_format_port_path(&in); break;
	case 5: fuzz_stack(&in); break;
	}
	return 0;
}
