// SPDX-License-Identifier: MIT
#include <linux/fuse.h>
#include <string.h>

#include "open_reply.h"

_Static_assert(sizeof(struct fuse_open_out) <= OPEN_REPLY_MAX, "fuse_open_out grew");

size_t open_reply_stream(void *buf, uint64_t fh)
{
	struct fuse_open_out out;

	memset(&out, 0, sizeof(out));
	out.fh = fh;
	/*
	 * DIRECT_IO: every read and write reaches pilotd, no page cache.
	 * STREAM: no file position, so read and write can run at the same
	 * time; honoured for CUSE only with kernel-patches/0001.
	 * NONSEEKABLE: lseek/pread/pwrite fail with ESPIPE.
	 */
	out.open_flags = FOPEN_DIRECT_IO | FOPEN_STREAM | FOPEN_NONSEEKABLE;
	memcpy(buf, &out, sizeof(out));
	return sizeof(out);
}
