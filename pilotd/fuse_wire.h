/* SPDX-License-Identifier: MIT */
#ifndef PILOTD_FUSE_WIRE_H
#define PILOTD_FUSE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What pilotd says to the kernel past libfuse's API, in the kernel's own
 * layout.  This lives in its own file because <linux/fuse.h> and
 * libfuse's headers do not mix.
 *
 * libfuse 3.14's fuse_file_info has no bit for FOPEN_STREAM, so the reply
 * to open is a struct fuse_open_out of our own making, sent with
 * fuse_reply_buf().  The flags below map one to one onto the kernel's
 * FOPEN_* bits.
 */
enum open_flag {
	OPEN_DIRECT_IO = 1 << 0,   /* every read and write reaches the server */
	OPEN_NONSEEKABLE = 1 << 1, /* lseek/pread/pwrite fail with ESPIPE */
	OPEN_STREAM = 1 << 2,	   /* no file position: read and write run at once */
};

#define OPEN_REPLY_MAX 64
/* Fill buf (OPEN_REPLY_MAX bytes) and return the reply's length. */
size_t open_reply(void *buf, uint64_t fh, unsigned int flags);

/*
 * FUSE_NOTIFY_POLL_EVENTS (kernel-patches/poll-events): the kernel keeps
 * a file's events and answers poll from them.  Its key is the kh of the
 * file's FUSE_POLL requests, which libfuse does not show: poll_kh() reads
 * it from the request as it came (len bytes at buf).
 *
 * A kernel with the series offers the notification in CUSE_INIT (the
 * CUSE_POLL_EVENTS bit of cuse_init_in.flags) and takes it only from a
 * server that sets the bit in its reply; pilotd pushes only where it was
 * offered, never by trial (an unpatched kernel may one day give the
 * notification's code to another).  libfuse does not show the offer
 * either: cuse_init_offers_poll_events() reads it from the request as it
 * came, and is false for any request but CUSE_INIT.  CUSE_POLL_EVENTS
 * goes into libfuse's reply flags (struct cuse_info), which libfuse sends
 * whatever the kernel offered, as it does CUSE_UNRESTRICTED_IOCTL; a
 * kernel without the series ignores the bit.
 */
#define CUSE_POLL_EVENTS_FLAG (1u << 1)
bool cuse_init_offers_poll_events(const void *buf, size_t len, bool *offered);

bool poll_kh(const void *buf, size_t len, uint64_t *kh);
#define POLL_EVENTS_MAX 32
/* Fill buf (POLL_EVENTS_MAX bytes) with the notification; returns its length. */
size_t poll_events_notice(void *buf, uint64_t kh, unsigned int events, unsigned int wake);

#endif
