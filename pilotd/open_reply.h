/* SPDX-License-Identifier: MIT */
#ifndef PILOTD_OPEN_REPLY_H
#define PILOTD_OPEN_REPLY_H

#include <stddef.h>
#include <stdint.h>

/*
 * libfuse 3.14's fuse_file_info has no bit for FOPEN_STREAM, so the reply
 * to open is a struct fuse_open_out of our own making, sent with
 * fuse_reply_buf().  This lives in its own file because <linux/fuse.h>
 * and libfuse's headers do not mix.  The flags below map one to one onto
 * the kernel's FOPEN_* bits.
 */
enum open_flag {
	OPEN_DIRECT_IO = 1 << 0,   /* every read and write reaches the server */
	OPEN_NONSEEKABLE = 1 << 1, /* lseek/pread/pwrite fail with ESPIPE */
	OPEN_STREAM = 1 << 2,	   /* no file position: read and write run at once */
};

#define OPEN_REPLY_MAX 64
/* Fill buf (OPEN_REPLY_MAX bytes) and return the reply's length. */
size_t open_reply(void *buf, uint64_t fh, unsigned int flags);

#endif
