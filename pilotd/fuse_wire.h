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
	OPEN_STREAM_WRITE = 1 << 3, /* the kernel takes writes (CUSE_STREAM_WRITE, below) */
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


/*
 * FUSE_NOTIFY_STREAM_DATA (kernel-patches/stream-data): the kernel keeps
 * bytes pushed for a file and answers its read()s from them without a
 * FUSE_READ.  Offered as CUSE_INIT's CUSE_STREAM_DATA bit (read from the
 * request as it came, as the poll events' bit), taken from a server that
 * sets it back; on such a connection FUSE_OPEN carries the file's kh after
 * fuse_open_in: open_kh() reads it (false for any other request, or an
 * open without it).  stream_data_header() fills the notification's header
 * (STREAM_DATA_HEADER bytes) for len bytes that follow it in the same
 * write.
 */
#define CUSE_STREAM_DATA_FLAG (1u << 2)
#define STREAM_DATA_MAX	      4096u /* FUSE_STREAM_DATA_MAX */
#define STREAM_DATA_HEADER    32u
bool cuse_init_offers_stream_data(const void *buf, size_t len, bool *offered);
bool open_kh(const void *buf, size_t len, uint64_t *kh);
size_t stream_data_header(void *buf, uint64_t kh, size_t len);

/*
 * FUSE_NOTIFY_STREAM_RETRIEVE (kernel-patches/stream-data 0003, part of
 * CUSE_STREAM_DATA's negotiation): stream_retrieve_notice() fills the
 * notification (STREAM_RETRIEVE_NOTICE bytes) that asks for the bytes of
 * file kh that its read()s did not take; the kernel answers with a
 * FUSE_NOTIFY_REPLY request of that unique, which the server does not
 * answer.  stream_retrieve_reply() reads one from the request as it came
 * (len bytes at buf): true for a FUSE_NOTIFY_REPLY of unique whose
 * lengths agree (struct fuse_notify_stream_retrieve_in, then size bytes,
 * at most STREAM_DATA_MAX), with kh and the bytes (*data, *size);
 * false for anything else, which goes to libfuse.
 */
#define STREAM_RETRIEVE_NOTICE 32u
size_t stream_retrieve_notice(void *buf, uint64_t unique, uint64_t kh);
bool stream_retrieve_reply(const void *buf, size_t len, uint64_t unique, uint64_t *kh,
			   const void **data, size_t *size);

/*
 * Writes taken by the kernel (kernel-patches/stream-write): offered as
 * CUSE_INIT's CUSE_STREAM_WRITE bit, taken from a server that sets it back
 * and, per file, FOPEN_STREAM_WRITE in the open reply (OPEN_STREAM_WRITE).
 * write() then copies into a 4096-byte buffer of the file and returns; the
 * kernel hands the bytes on in FUSE_WRITEs of its own, one at a time per
 * file, each answered with how many bytes pilotd took: a blocking write
 * as any other, which pilotd answers once it queued them all.  A drain's
 * fuse_write_in.flags is 0, where a write()'s are its file's f_flags,
 * O_WRONLY or O_RDWR among them (the request's pid is whoever started the
 * drain: a writer or the kernel's worker); a drain holds at most the
 * buffer's bytes, and a write() of more goes as its own request, as
 * without the buffer.
 * cuse_init_offers() reads a CUSE_INIT bit from the request as it came
 * (false for any other request).
 */
#define CUSE_STREAM_WRITE_FLAG	(1u << 3)
#define FOPEN_STREAM_WRITE_FLAG (1u << 10)
#define STREAM_WRITE_MAX	4096u /* FUSE_STREAM_WRITE_MAX: a drain is no longer */
bool cuse_init_offers(const void *buf, size_t len, uint32_t flag, bool *offered);

#endif
