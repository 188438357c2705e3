// SPDX-License-Identifier: MIT
#include <linux/fuse.h>
#include <string.h>

#include "open_reply.h"

_Static_assert(sizeof(struct fuse_open_out) <= OPEN_REPLY_MAX, "fuse_open_out grew");

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
	memcpy(buf, &out, sizeof(out));
	return sizeof(out);
}
