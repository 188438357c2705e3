// SPDX-License-Identifier: MIT
#include <linux/fuse.h>
#include <string.h>

#include "fuse_wire.h"

_Static_assert(sizeof(struct fuse_open_out) <= OPEN_REPLY_MAX, "fuse_open_out grew");

/*
 * A notification's header and argument into buf, for payload bytes that
 * follow in the same write: unique 0, error its code.  Returns the length
 * of header and argument.
 */
static size_t notice(void *buf, int code, const void *arg, size_t arg_len, size_t payload)
{
	struct fuse_out_header oh = {
		.len = (uint32_t)(sizeof(oh) + arg_len + payload),
		.error = code,
	};

	memcpy(buf, &oh, sizeof(oh));
	memcpy((char *)buf + sizeof(oh), arg, arg_len);
	return sizeof(oh) + arg_len;
}

size_t open_reply(void *buf, uint64_t fh, unsigned int flags)
{
	struct fuse_open_out out;

	memset(&out, 0, sizeof(out));
	out.fh = fh;
	if (flags & OPEN_DIRECT_IO)
		out.open_flags |= FOPEN_DIRECT_IO;
	if (flags & OPEN_NONSEEKABLE)
		out.open_flags |= FOPEN_NONSEEKABLE;
	if (flags & OPEN_STREAM)
		out.open_flags |= FOPEN_STREAM;
	if (flags & OPEN_STREAM_WRITE)
		out.open_flags |= FOPEN_STREAM_WRITE_FLAG;
	memcpy(buf, &out, sizeof(out));
	return sizeof(out);
}

bool poll_kh(const void *buf, size_t len, uint64_t *kh)
{
	struct fuse_in_header in;
	struct fuse_poll_in poll;

	if (len < sizeof(in) + sizeof(poll))
		return false;
	memcpy(&in, buf, sizeof(in));
	if (in.opcode != FUSE_POLL)
		return false;
	memcpy(&poll, (const char *)buf + sizeof(in), sizeof(poll));
	*kh = poll.kh;
	return true;
}

/* Not in <linux/fuse.h> before the series: its values, as the series has them. */
#define NOTIFY_POLL_EVENTS 10
#ifdef CUSE_POLL_EVENTS
_Static_assert(CUSE_POLL_EVENTS == CUSE_POLL_EVENTS_FLAG, "the series' CUSE_INIT flag");
#endif

/* The flags of a CUSE_INIT request as it came; false for any other request. */
static bool cuse_init_flags(const void *buf, size_t len, uint32_t *flags)
{
	struct fuse_in_header in;
	struct cuse_init_in init;

	if (len < sizeof(in) + sizeof(init))
		return false;
	memcpy(&in, buf, sizeof(in));
	if (in.opcode != CUSE_INIT)
		return false;
	memcpy(&init, (const char *)buf + sizeof(in), sizeof(init));
	*flags = init.flags;
	return true;
}

bool cuse_init_offers_poll_events(const void *buf, size_t len, bool *offered)
{
	uint32_t flags;

	if (!cuse_init_flags(buf, len, &flags))
		return false;
	*offered = flags & CUSE_POLL_EVENTS_FLAG;
	return true;
}

struct notify_poll_events_out {
	uint64_t kh;
	uint32_t revents;
	uint32_t wake;
};

_Static_assert(sizeof(struct fuse_out_header) + sizeof(struct notify_poll_events_out) <=
		       POLL_EVENTS_MAX,
	       "the notification grew");

size_t poll_events_notice(void *buf, uint64_t kh, unsigned int events, unsigned int wake)
{
	struct notify_poll_events_out out = { .kh = kh, .revents = events, .wake = wake };

	return notice(buf, NOTIFY_POLL_EVENTS, &out, sizeof(out), 0);
}

/* Not in <linux/fuse.h> before the series: its values, as the series has them. */
#define NOTIFY_STREAM_DATA 11
#ifdef CUSE_STREAM_DATA
_Static_assert(CUSE_STREAM_DATA == CUSE_STREAM_DATA_FLAG, "the series' CUSE_INIT flag");
#endif

bool cuse_init_offers(const void *buf, size_t len, uint32_t flag, bool *offered)
{
	uint32_t flags;

	if (!cuse_init_flags(buf, len, &flags))
		return false;
	*offered = flags & flag;
	return true;
}

bool cuse_init_offers_stream_data(const void *buf, size_t len, bool *offered)
{
	return cuse_init_offers(buf, len, CUSE_STREAM_DATA_FLAG, offered);
}

#ifdef CUSE_STREAM_WRITE
_Static_assert(CUSE_STREAM_WRITE == CUSE_STREAM_WRITE_FLAG, "the series' CUSE_INIT flag");
_Static_assert(FOPEN_STREAM_WRITE == FOPEN_STREAM_WRITE_FLAG, "the series' open flag");
#endif

bool open_kh(const void *buf, size_t len, uint64_t *kh)
{
	struct fuse_in_header in;
	size_t at = sizeof(in) + sizeof(struct fuse_open_in);

	if (len < sizeof(in))
		return false;
	memcpy(&in, buf, sizeof(in));
	/* the request's own length, not the buffer's, says whether kh came */
	if (in.opcode != FUSE_OPEN || in.len < at + sizeof(*kh) || len < at + sizeof(*kh))
		return false;
	memcpy(kh, (const char *)buf + at, sizeof(*kh));
	return true;
}

struct notify_stream_data_out {
	uint64_t kh;
	uint32_t size;
	uint32_t padding;
};

_Static_assert(sizeof(struct fuse_out_header) + sizeof(struct notify_stream_data_out) ==
		       STREAM_DATA_HEADER,
	       "the notification's header grew");

size_t stream_data_header(void *buf, uint64_t kh, size_t len)
{
	struct notify_stream_data_out out = { .kh = kh, .size = (uint32_t)len };

	return notice(buf, NOTIFY_STREAM_DATA, &out, sizeof(out), len);
}

/* Not in <linux/fuse.h> before the series: its values, as the series has them. */
#define NOTIFY_STREAM_RETRIEVE 12

struct notify_stream_retrieve_out {
	uint64_t notify_unique;
	uint64_t kh;
};

struct notify_stream_retrieve_in {
	uint64_t kh;
	uint32_t size;
	uint32_t padding;
};

_Static_assert(sizeof(struct fuse_out_header) + sizeof(struct notify_stream_retrieve_out) ==
		       STREAM_RETRIEVE_NOTICE,
	       "the notification grew");

size_t stream_retrieve_notice(void *buf, uint64_t unique, uint64_t kh)
{
	struct notify_stream_retrieve_out out = { .notify_unique = unique, .kh = kh };

	return notice(buf, NOTIFY_STREAM_RETRIEVE, &out, sizeof(out), 0);
}

bool stream_retrieve_reply(const void *buf, size_t len, uint64_t unique, uint64_t *kh,
			   const void **data, size_t *size)
{
	struct fuse_in_header in;
	struct notify_stream_retrieve_in arg;
	size_t at = sizeof(in) + sizeof(arg);

	if (len < at)
		return false;
	memcpy(&in, buf, sizeof(in));
	if (in.opcode != FUSE_NOTIFY_REPLY || in.unique != unique || in.len > len)
		return false;
	memcpy(&arg, (const char *)buf + sizeof(in), sizeof(arg));
	/* the request's own length, not the buffer's, says how many bytes came */
	if (in.len < at || arg.size > STREAM_DATA_MAX || in.len - at != arg.size)
		return false;
	*kh = arg.kh;
	*data = (const char *)buf + at;
	*size = arg.size;
	return true;
}
