// SPDX-License-Identifier: MIT
/*
 * What pilotd reads from and writes to /dev/cuse past libfuse
 * (pilotd/fuse_wire.h): whether CUSE_INIT offered FUSE_NOTIFY_POLL_EVENTS,
 * on which pilotd pushes poll events or keeps being asked (kernels with
 * kernel-patches/poll-events and without), the kh of a FUSE_POLL, and the
 * notification itself; and the same for FUSE_NOTIFY_STREAM_DATA
 * (kernel-patches/stream-data): its offer, the kh a FUSE_OPEN carries, its
 * header, and its take-back (FUSE_NOTIFY_STREAM_RETRIEVE and the reply);
 * and the writes the kernel takes (kernel-patches/stream-write):
 * the offer and the open reply's flag.
 */
#include <linux/fuse.h>
#include <string.h>

#include "check.h"
#include "fuse_wire.h"

/* A request as the kernel sends it: header, then the argument. */
static size_t request(void *buf, uint32_t opcode, const void *arg, size_t len)
{
	struct fuse_in_header in = { .len = sizeof(in) + len, .opcode = opcode, .unique = 2 };

	memcpy(buf, &in, sizeof(in));
	memcpy((char *)buf + sizeof(in), arg, len);
	return sizeof(in) + len;
}

static void test_cuse_init(void)
{
	char buf[256];
	struct cuse_init_in init = { .major = 7, .minor = 38 };
	struct fuse_poll_in poll = { .kh = 5 };
	bool offered;
	size_t len;

	/* a kernel with the series offers it beside CUSE_UNRESTRICTED_IOCTL */
	init.flags = CUSE_UNRESTRICTED_IOCTL | CUSE_POLL_EVENTS_FLAG;
	len = request(buf, CUSE_INIT, &init, sizeof(init));
	offered = false;
	CHECK(cuse_init_offers_poll_events(buf, len, &offered));
	CHECK(offered);

	/* today's kernels offer CUSE_UNRESTRICTED_IOCTL alone: no pushes */
	init.flags = CUSE_UNRESTRICTED_IOCTL;
	len = request(buf, CUSE_INIT, &init, sizeof(init));
	offered = true;
	CHECK(cuse_init_offers_poll_events(buf, len, &offered));
	CHECK(!offered);

	/* any other request leaves the answer as it was */
	len = request(buf, FUSE_POLL, &poll, sizeof(poll));
	offered = true;
	CHECK(!cuse_init_offers_poll_events(buf, len, &offered));
	CHECK(offered);

	/* a CUSE_INIT too short to carry its flags */
	init.flags = CUSE_POLL_EVENTS_FLAG;
	len = request(buf, CUSE_INIT, &init, sizeof(init));
	offered = false;
	CHECK(!cuse_init_offers_poll_events(buf, len - 1, &offered));
	CHECK(!offered);

	/* the bit is the series' CUSE_POLL_EVENTS, next to CUSE_UNRESTRICTED_IOCTL */
	CHECK_EQ(CUSE_POLL_EVENTS_FLAG, 2);
}

static void test_poll(void)
{
	char buf[256];
	struct fuse_poll_in poll = { .fh = 1, .kh = 0x123456789abcULL, .flags = 1 };
	struct fuse_out_header oh;
	uint64_t kh = 0;
	uint32_t u32;
	size_t len;

	len = request(buf, FUSE_POLL, &poll, sizeof(poll));
	CHECK(poll_kh(buf, len, &kh));
	CHECK_EQ(kh, 0x123456789abcULL);
	CHECK(!poll_kh(buf, len - 1, &kh));
	len = request(buf, FUSE_READ, &poll, sizeof(poll));
	CHECK(!poll_kh(buf, len, &kh));

	/* the notification: code 10, kh, revents, wake */
	len = poll_events_notice(buf, 7, 0x41, 0);
	CHECK_EQ(len, sizeof(oh) + 16);
	memcpy(&oh, buf, sizeof(oh));
	CHECK_EQ(oh.len, len);
	CHECK_EQ(oh.error, 10);
	CHECK_EQ(oh.unique, 0);
	memcpy(&kh, buf + sizeof(oh), sizeof(kh));
	CHECK_EQ(kh, 7);
	memcpy(&u32, buf + sizeof(oh) + 8, sizeof(u32));
	CHECK_EQ(u32, 0x41);
}

static void test_stream_data(void)
{
	char buf[256];
	struct cuse_init_in init = { .major = 7, .minor = 47 };
	struct {
		struct fuse_open_in open;
		uint64_t kh;
	} open = { .open = { .flags = 2 }, .kh = 0xfeed0000beefULL };
	struct fuse_out_header oh;
	bool offered;
	uint64_t kh = 0;
	uint32_t u32;
	size_t len;

	/* offered beside the poll events by a 7.3 with the series; not by 6.1 */
	init.flags = CUSE_UNRESTRICTED_IOCTL | CUSE_POLL_EVENTS_FLAG | CUSE_STREAM_DATA_FLAG;
	len = request(buf, CUSE_INIT, &init, sizeof(init));
	offered = false;
	CHECK(cuse_init_offers_stream_data(buf, len, &offered));
	CHECK(offered);
	init.flags = CUSE_UNRESTRICTED_IOCTL | CUSE_POLL_EVENTS_FLAG;
	len = request(buf, CUSE_INIT, &init, sizeof(init));
	CHECK(cuse_init_offers_stream_data(buf, len, &offered));
	CHECK(!offered);
	CHECK_EQ(CUSE_STREAM_DATA_FLAG, 4);

	/* the kh after fuse_open_in, only when the request's length has it */
	len = request(buf, FUSE_OPEN, &open, sizeof(open));
	CHECK(open_kh(buf, len, &kh));
	CHECK_EQ(kh, 0xfeed0000beefULL);
	len = request(buf, FUSE_OPEN, &open.open, sizeof(open.open)); /* today's open */
	kh = 0;
	CHECK(!open_kh(buf, sizeof(buf), &kh));
	CHECK_EQ(kh, 0);
	len = request(buf, FUSE_READ, &open, sizeof(open));
	CHECK(!open_kh(buf, len, &kh));

	/* the notification: code 11, kh, size, zero padding; the bytes follow */
	len = stream_data_header(buf, 9, 300);
	CHECK_EQ(len, STREAM_DATA_HEADER);
	memcpy(&oh, buf, sizeof(oh));
	CHECK_EQ(oh.len, STREAM_DATA_HEADER + 300);
	CHECK_EQ(oh.error, 11);
	CHECK_EQ(oh.unique, 0);
	memcpy(&kh, buf + sizeof(oh), sizeof(kh));
	CHECK_EQ(kh, 9);
	memcpy(&u32, buf + sizeof(oh) + 8, sizeof(u32));
	CHECK_EQ(u32, 300);
	memcpy(&u32, buf + sizeof(oh) + 12, sizeof(u32));
	CHECK_EQ(u32, 0);
}

static void test_stream_write(void)
{
	char buf[256];
	struct cuse_init_in init = { .major = 7, .minor = 47 };
	struct fuse_open_out out;
	bool offered;
	size_t len;

	/* offered by a 7.3 with the series; not by 6.1, nor with the others alone */
	init.flags = CUSE_UNRESTRICTED_IOCTL | CUSE_STREAM_DATA_FLAG | CUSE_STREAM_WRITE_FLAG;
	len = request(buf, CUSE_INIT, &init, sizeof(init));
	offered = false;
	CHECK(cuse_init_offers(buf, len, CUSE_STREAM_WRITE_FLAG, &offered));
	CHECK(offered);
	init.flags = CUSE_UNRESTRICTED_IOCTL | CUSE_POLL_EVENTS_FLAG | CUSE_STREAM_DATA_FLAG;
	len = request(buf, CUSE_INIT, &init, sizeof(init));
	CHECK(cuse_init_offers(buf, len, CUSE_STREAM_WRITE_FLAG, &offered));
	CHECK(!offered);
	len = request(buf, FUSE_OPEN, &init, sizeof(init));
	offered = true;
	CHECK(!cuse_init_offers(buf, len, CUSE_STREAM_WRITE_FLAG, &offered));
	CHECK(offered);
	CHECK_EQ(CUSE_STREAM_WRITE_FLAG, 8);

	/* the open reply: FOPEN_STREAM_WRITE (1 << 10) only when asked */
	len = open_reply(buf, 3, OPEN_STREAM | OPEN_STREAM_WRITE);
	CHECK_EQ(len, sizeof(out));
	memcpy(&out, buf, sizeof(out));
	CHECK_EQ(out.fh, 3);
	CHECK_EQ(out.open_flags, FOPEN_STREAM | (1u << 10));
	len = open_reply(buf, 3, OPEN_STREAM);
	memcpy(&out, buf, sizeof(out));
	CHECK_EQ(out.open_flags, FOPEN_STREAM);
}

/* The kernel's FUSE_NOTIFY_REPLY to a take-back: header, kh and size, the bytes. */
static size_t retrieve_reply(void *buf, uint64_t unique, uint64_t kh, const char *bytes,
			     uint32_t size, uint32_t hdr_len)
{
	struct fuse_in_header in = { .len = hdr_len, .opcode = FUSE_NOTIFY_REPLY, .unique = unique };
	struct {
		uint64_t kh;
		uint32_t size, padding;
	} arg = { .kh = kh, .size = size };

	memcpy(buf, &in, sizeof(in));
	memcpy((char *)buf + sizeof(in), &arg, sizeof(arg));
	memcpy((char *)buf + sizeof(in) + sizeof(arg), bytes, strlen(bytes));
	return sizeof(in) + sizeof(arg) + strlen(bytes);
}

/*
 * FUSE_NOTIFY_STREAM_RETRIEVE (kernel-patches/stream-data 0003): the
 * notification (code 12, unique 0; the reply's unique, then kh), and the
 * reply read only when it is of that unique and its lengths agree; any
 * other request goes to libfuse.
 */
static void test_stream_retrieve(void)
{
	static char buf[STREAM_DATA_MAX + 128];
	struct fuse_out_header oh;
	const void *data = NULL;
	uint64_t u64, kh = 0;
	size_t len, size = 0;
	const uint64_t U = (1ull << 63) | 5;

	len = stream_retrieve_notice(buf, U, 0x4b48);
	CHECK_EQ(len, STREAM_RETRIEVE_NOTICE);
	memcpy(&oh, buf, sizeof(oh));
	CHECK_EQ(oh.len, 32);
	CHECK_EQ(oh.error, 12);
	CHECK_EQ(oh.unique, 0);
	memcpy(&u64, buf + sizeof(oh), 8);
	CHECK_EQ(u64, U);
	memcpy(&u64, buf + sizeof(oh) + 8, 8);
	CHECK_EQ(u64, 0x4b48);

	len = retrieve_reply(buf, U, 0x4b48, "bc", 2, 40 + 16 + 2);
	CHECK(stream_retrieve_reply(buf, len, U, &kh, &data, &size));
	CHECK_EQ(kh, 0x4b48);
	CHECK_EQ(size, 2);
	CHECK(memcmp(data, "bc", 2) == 0);
	len = retrieve_reply(buf, U, 7, "", 0, 40 + 16); /* an empty buffer: no bytes */
	CHECK(stream_retrieve_reply(buf, len, U, &kh, &data, &size));
	CHECK_EQ(size, 0);
	CHECK_EQ(kh, 7);

	/* another unique (libfuse's own retrieve), lengths that disagree, a short buffer */
	len = retrieve_reply(buf, 5, 0x4b48, "bc", 2, 40 + 16 + 2);
	CHECK(!stream_retrieve_reply(buf, len, U, &kh, &data, &size));
	len = retrieve_reply(buf, U, 0x4b48, "bc", 3, 40 + 16 + 2);
	CHECK(!stream_retrieve_reply(buf, len, U, &kh, &data, &size));
	len = retrieve_reply(buf, U, 0x4b48, "bc", 2, 40 + 16 + 3);
	CHECK(!stream_retrieve_reply(buf, len + 1, U, &kh, &data, &size));
	CHECK(!stream_retrieve_reply(buf, len - 1, U, &kh, &data, &size));
	len = retrieve_reply(buf, U, 0x4b48, "", STREAM_DATA_MAX + 1, 40 + 16 + STREAM_DATA_MAX + 1);
	CHECK(!stream_retrieve_reply(buf, 40 + 16 + STREAM_DATA_MAX + 1, U, &kh, &data, &size));
	CHECK(!stream_retrieve_reply(buf, 40 + 15, U, &kh, &data, &size));
	len = request(buf, FUSE_READ, "0123456789abcdef", 16);
	CHECK(!stream_retrieve_reply(buf, len, 2, &kh, &data, &size));
}

int main(void)
{
	test_cuse_init();
	test_poll();
	test_stream_data();
	test_stream_write();
	test_stream_retrieve();
	return check_result("test_fuse_wire");
}
