/* SPDX-License-Identifier: MIT */
#ifndef PILOTD_OPEN_REPLY_H
#define PILOTD_OPEN_REPLY_H

#include <stddef.h>
#include <stdint.h>

/*
 * libfuse 3.14's fuse_file_info has no bit for FOPEN_STREAM, so pilotd
 * answers open with a struct fuse_open_out of its own making.  This lives
 * in its own file because <linux/fuse.h> and libfuse's headers do not mix.
 * Returns the reply's length; buf must hold OPEN_REPLY_MAX bytes.
 */
#define OPEN_REPLY_MAX 64
size_t open_reply_stream(void *buf, uint64_t fh);

#endif
