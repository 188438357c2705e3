// SPDX-License-Identifier: MIT
/*
 * pilotd/fuse_wire.c's readers of requests as the kernel sent them on
 * /dev/cuse, which the front runs before libfuse sees a request:
 * stream_retrieve_reply() (the FUSE_NOTIFY_REPLY to a take-back, bytes the
 * kernel hands back), open_kh(), poll_kh() and cuse_init_offers().  Each
 * is checked against the layout <linux/fuse.h> and fuse_wire.h give: it
 * accepts exactly what that layout says, never reads past the len bytes
 * it was given (the request lies in a heap block of exactly that size,
 * for AddressSanitizer), and what it hands back lies inside them.
 *
 * Input: which (u8 % 4); for stream_retrieve_reply the unique pilotd
 * asked under (u32 low, u32 high), for cuse_init_offers the flag (u8 % 32,
 * a bit number); then the request's bytes, all that is left.
 */
#include <linux/fuse.h>

#include "fuse_wire.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The FUSE_NOTIFY_REPLY of a take-back: fuse_in_header, then kh, size, padding, then the bytes. */
#define RETRIEVE_AT (sizeof(struct fuse_in_header) + 16)

static bool header(const uint8_t *req, size_t len, struct fuse_in_header *in)
{
	if (len < sizeof(*in))
		return false;
	memcpy(in, req, sizeof(*in));
	return true;
}

static void fuzz_retrieve_reply(const uint8_t *req, size_t len, uint64_t unique)
{
	const uint8_t *const none = (const uint8_t *)"";
	const void *bytes = none;
	struct fuse_in_header in;
	uint64_t kh = 0x5a5a, want_kh = 0;
	size_t got = 7777, sum = 0;
	uint32_t want_size = 0;
	bool want = false, ok;

	if (len >= RETRIEVE_AT && header(req, len, &in)) {
		memcpy(&want_kh, req + sizeof(in), 8);
		memcpy(&want_size, req + sizeof(in) + 8, 4);
		want = in.opcode == FUSE_NOTIFY_REPLY && in.unique == unique && in.len <= len &&
		       in.len >= RETRIEVE_AT && want_size <= STREAM_DATA_MAX &&
		       in.len - RETRIEVE_AT == want_size;
	}
	ok = stream_retrieve_reply(req, len, unique, &kh, &bytes, &got);
	FUZZ_CHECK(ok == want);
	if (!ok) {
		/* nothing handed back: the request goes to libfuse */
		FUZZ_CHECK(kh == 0x5a5a && bytes == none && got == 7777);
		return;
	}
	FUZZ_CHECK(kh == want_kh && got == want_size);
	FUZZ_CHECK((const uint8_t *)bytes == req + RETRIEVE_AT && RETRIEVE_AT + got <= len);
	/* every byte handed to port_input_returned() is read, for ASan */
	for (size_t i = 0; i < got; i++)
		sum += ((const uint8_t *)bytes)[i];
	FUZZ_CHECK(sum <= got * 255);
}

static void fuzz_open_kh(const uint8_t *req, size_t len)
{
	const size_t at = sizeof(struct fuse_in_header) + sizeof(struct fuse_open_in);
	struct fuse_in_header in;
	uint64_t kh = 0x5a5a, want_kh = 0;
	bool want = false, ok;

	if (header(req, len, &in) && in.opcode == FUSE_OPEN && in.len >= at + 8 && len >= at + 8) {
		memcpy(&want_kh, req + at, 8);
		want = true;
	}
	ok = open_kh(req, len, &kh);
	FUZZ_CHECK(ok == want && kh == (ok ? want_kh : 0x5a5a));
}

static void fuzz_poll_kh(const uint8_t *req, size_t len)
{
	const size_t at = sizeof(struct fuse_in_header);
	struct fuse_in_header in;
	uint64_t kh = 0x5a5a, want_kh = 0;
	bool want = false, ok;

	if (len >= at + sizeof(struct fuse_poll_in) && header(req, len, &in) &&
	    in.opcode == FUSE_POLL) {
		memcpy(&want_kh, req + at + 8, 8); /* fuse_poll_in: fh, then kh */
		want = true;
	}
	ok = poll_kh(req, len, &kh);
	FUZZ_CHECK(ok == want && kh == (ok ? want_kh : 0x5a5a));
}

static void fuzz_cuse_init(const uint8_t *req, size_t len, uint32_t flag)
{
	const size_t at = sizeof(struct fuse_in_header);
	struct fuse_in_header in;
	struct cuse_init_in init;
	bool offered = false, want = false, ok;

	if (len >= at + sizeof(init) && header(req, len, &in) && in.opcode == CUSE_INIT) {
		memcpy(&init, req + at, sizeof(init));
		want = true;
	}
	ok = cuse_init_offers(req, len, flag, &offered);
	FUZZ_CHECK(ok == want);
	FUZZ_CHECK(!ok ? !offered : offered == !!(init.flags & flag));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	unsigned int which = input_u8(&in) % 4;
	uint64_t unique = 0;
	uint32_t flag = 0;
	uint8_t *req;
	size_t len;

	if (which == 0) {
		unique = input_u32(&in);
		unique |= (uint64_t)input_u32(&in) << 32;
	} else if (which == 3) {
		flag = 1u << (input_u8(&in) % 32);
	}
	len = in.left;
	req = input_bytes(&in, len);
	switch (which) {
	case 0: fuzz_retrieve_reply(req, len, unique); break;
	case 1: fuzz_open_kh(req, len); break;
	case 2: fuzz_poll_kh(req, len); break;
	case 3: fuzz_cuse_init(req, len, flag); break;
	}
	free(req);
	return 0;
}
