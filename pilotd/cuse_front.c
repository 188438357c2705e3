// SPDX-License-Identifier: MIT
/*
 * The CUSE front: every handler hands its request to the port, which
 * answers it at once or parks it (core/port.h); none blocks.  libfuse
 * calls the interrupt callback with the request's lock held, so it only
 * marks the request; the port answers it after the round (docs/design.md).
 */
#define FUSE_USE_VERSION 35
#include <asm/ioctls.h>
#include <cuse_lowlevel.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/caps.h"
#include "core/log.h"
#include "cuse_front.h"
#include "fuse_wire.h"

/* ---- answers ---- */

int front_answer_open(void *req, uint64_t fh)
{
	const struct cuse_front *fr = fuse_req_userdata(req);
	char reply[OPEN_REPLY_MAX];
	/* STREAM is honoured for CUSE only with kernel-patches/0001; the
	 * kernel takes writes only where it offered to (fuse_wire.h) */
	size_t len = open_reply(reply, fh,
				OPEN_DIRECT_IO | OPEN_NONSEEKABLE | OPEN_STREAM |
					(fr->stream_write && !fr->no_stream_write ?
						 OPEN_STREAM_WRITE : 0));

	/* -ENOENT: the opener was interrupted and the kernel has no file. */
	return fuse_reply_buf(req, reply, len) == -ENOENT ? -ENOENT : 0;
}

void front_answer_data(void *req, const void *buf, size_t len)
{
	fuse_reply_buf(req, buf, len);
}

void front_answer_written(void *req, size_t len)
{
	fuse_reply_write(req, len);
}

void front_answer_ioctl(void *req, const void *out, size_t len)
{
	fuse_reply_ioctl(req, 0, out, len);
}

void front_answer_ioctl_fetch(void *req, uintptr_t arg, size_t in, size_t out)
{
	struct iovec iov_in = { (void *)arg, in };
	struct iovec iov_out = { (void *)arg, out };

	fuse_reply_ioctl_retry(req, in ? &iov_in : NULL, in ? 1 : 0, out ? &iov_out : NULL,
			       out ? 1 : 0);
}

void front_answer_err(void *req, int err)
{
	fuse_reply_err(req, err);
}

void front_notify_poll(void *poll_handle)
{
	fuse_lowlevel_notify_poll(poll_handle);
}

void front_drop_poll_handle(void *poll_handle)
{
	fuse_pollhandle_destroy(poll_handle);
}

int front_push_events(struct cuse_front *fr, uint64_t key, unsigned int events,
		      unsigned int wake)
{
	char notice[POLL_EVENTS_MAX];
	size_t len = poll_events_notice(notice, key, events, wake);
	ssize_t n;

	if (fr->closed)
		return 0;
	/* never by trial: another kernel may read the code as another notice */
	if (!fr->poll_events)
		return -EOPNOTSUPP;
	do
		n = write(fuse_session_fd(fr->se), notice, len);
	while (n < 0 && errno == EINTR);
	/* EINVAL: the kernel refused it after all; anything else ends the connection */
	return n < 0 && errno == EINVAL ? -EOPNOTSUPP : 0;
}

int front_push_input(struct cuse_front *fr, uint64_t key, const void *buf, size_t len)
{
	char header[STREAM_DATA_HEADER];
	struct iovec iov[2] = { { header, 0 }, { (void *)buf, len } };
	struct pollfd pending = { .fd = fuse_session_fd(fr->se), .events = POLLIN };
	ssize_t n;

	if (fr->closed)
		return 0;
	/* never by trial: another kernel may read the code as another notice */
	if (!fr->stream_data || fr->no_stream_data || len == 0 || len > STREAM_DATA_MAX)
		return -EOPNOTSUPP;
	if (poll(&pending, 1, 0) > 0)
		return -EAGAIN;
	iov[0].iov_len = stream_data_header(header, key, len);
	do
		n = writev(pending.fd, iov, 2);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		return 0;
	if (errno == ENOSPC || errno == EBUSY || errno == ENOENT)
		return -errno;
	/* the connection ended: the loop sees it on its next read */
	if (errno == ENODEV || errno == ENOTCONN)
		return 0;
	/*
	 * EINVAL (the kernel refused it after all), ENOMEM, or a refusal this
	 * pilotd does not know: the bytes were not taken.  They stay in rxq
	 * and reads come as requests from now on; taking them as pushed would
	 * lose them.
	 */
	return -EOPNOTSUPP;
}

int front_take_back_input(struct cuse_front *fr, uint64_t key)
{
	char notice[STREAM_RETRIEVE_NOTICE];
	size_t len;
	ssize_t n;

	if (fr->closed)
		return -ENODEV;
	/* never by trial: part of CUSE_STREAM_DATA, only where it was taken */
	if (!fr->stream_data || fr->no_stream_data)
		return -EOPNOTSUPP;
	if (fr->take_back_out)
		return -EBUSY;
	/* libfuse's own notify uniques count from 1: the top bit keeps ours apart */
	fr->take_back_unique = (1ull << 63) | ++fr->take_backs;
	len = stream_retrieve_notice(notice, fr->take_back_unique, key);
	do
		n = write(fuse_session_fd(fr->se), notice, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == ENOTCONN ? -ENODEV : -errno;
	fr->take_back_out = true;
	return 0;
}

/* ---- requests ---- */

static struct port *port_of(fuse_req_t req)
{
	struct cuse_front *fr = fuse_req_userdata(req);

	return fr->port;
}

static void on_interrupt(fuse_req_t req, void *data)
{
	port_interrupt(data, req);
}

/* The port parked req: let it hear of interrupts (at once, if one came). */
void front_parked(void *req)
{
	fuse_req_interrupt_func(req, on_interrupt, port_of(req));
}

static void pilot_init_done(void *userdata)
{
	struct cuse_front *fr = userdata;

	log_info("/dev/%s is ready", fr->devname);
	if (fr->ready)
		fr->ready(fr->ready_ctx);
}

/*
 * Who calls (core/port.h "Bounds"): its kuid is the request's uid (the
 * CUSE connection is the initial namespace's); its user namespace is read
 * from /proc/TID/uid_map, which anyone may read (/proc/TID/ns/user would
 * need ptrace rights), and CAP_SYS_ADMIN from /proc/TID/status, each while
 * its request is outstanding (the thread waits in it).  What remains is a
 * race no check here can close: the thread changing its capabilities or
 * namespace, or a thread that dies and whose id is taken by another of the
 * same fsuid, between the call and the read; and a process with CAP_SETUID
 * here may make a user namespace whose map is pilotd's own, which uid_map
 * cannot tell apart.  A caller pilotd cannot see (another pid namespace:
 * pid 0), or whose thread shows credentials not the request's (an
 * io_uring personality: caps_caller_userns()), is "unseen", without such
 * rights.
 */
/* All of a small procfs file, or -1 with errno (EFBIG: it does not fit). */
static ssize_t read_whole(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n = 0;
	int err, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (len < size && (n = read(fd, buf + len, size - len)) > 0)
		len += (size_t)n;
	err = n < 0 ? errno : len == size ? EFBIG : 0;
	close(fd);
	errno = err;
	return err ? -1 : (ssize_t)len;
}

enum userns_view { NS_OWN, NS_FOREIGN, NS_UNKNOWN, NS_UNSEEN };

/*
 * A foreign namespace's id: keyed by a secret of this run, so that no
 * map can be made to have another's id (caps_userns_id()).
 */
static uint64_t userns_id(const char *map, size_t len)
{
	static uint8_t key[16];
	static bool keyed;

	if (!keyed && getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key))
		log_warn("no random key for user namespaces' ids (%s): a caller may choose "
			 "a map whose id is another namespace's",
			 strerror(errno));
	keyed = true;
	return caps_userns_id(map, len, key);
}

/*
 * The caller's /proc/TID/status, read by userns_of() for caller_admin()
 * too: its length, or -1 (status_big: EFBIG, then status holds its first
 * 64 KiB).  Its Groups line may list thousands (a larger one fails closed).
 */
static char status[64 * 1024];
static ssize_t status_len;
static bool status_read, status_big;

static void read_status(int pid)
{
	char path[40];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	status_len = read_whole(path, status, sizeof(status));
	status_big = status_len < 0 && errno == EFBIG;
	status_read = true;
}

/*
 * Is the thread pid, calling as fsuid, in pilotd's own user namespace
 * (core/caps.h)?  *id: else which.  Reads its status for caller_admin().
 */
static enum userns_view userns_of(int pid, uint32_t fsuid, uint64_t *id)
{
	static bool told;
	/* a map has at most 340 lines of 33 bytes ("%10u %10u %10u\n") */
	static char map[16384], own[16384];
	static ssize_t o = -2; /* pilotd's own map, read at the first open */
	static int o_errno;
	enum caps_userns v;
	ssize_t m;
	size_t n;
	char path[40];

	if (o == -2) {
		o = read_whole("/proc/self/uid_map", own, sizeof(own));
		o_errno = o < 0 ? errno : 0;
	}
	/* a kernel without user namespaces (CONFIG_USER_NS=n) has no uid_map
	 * at all: every process is in the one there is */
	if (o < 0)
		return o_errno == ENOENT ? NS_OWN : NS_UNKNOWN;
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	m = read_whole(path, map, sizeof(map));
	/* cannot be, but would be a map pilotd cannot tell apart: unseen */
	if (m < 0 && errno == EFBIG)
		return NS_UNSEEN;
	if (m < 0) {
		/* /proc mounted hidepid=, pilotd not root: nobody's map */
		if (!told)
			log_warn("cannot read %s (%s): callers' user namespaces unknown; "
				 "each counts by its uid, without CAP_SYS_ADMIN", path,
				 strerror(errno));
		told = true;
		return NS_UNKNOWN;
	}
	/* whose map that is: the thread's own credentials', which need not be
	 * the ones it calls with (caps_caller_userns()); its Uid line comes
	 * before Groups, so a status past 64 KiB still has it whole */
	read_status(pid);
	n = status_len >= 0 ? (size_t)status_len : status_big ? sizeof(status) : 0;
	v = caps_caller_userns(map, (size_t)m, own, (size_t)o, status, n, fsuid);
	if (v == CAPS_USERNS_OTHER)
		*id = userns_id(map, (size_t)m);
	return v == CAPS_USERNS_OWN ? NS_OWN : v == CAPS_USERNS_OTHER ? NS_FOREIGN : NS_UNSEEN;
}

/* Where the caller is; *id: its namespace's for the port (PORT_USERNS_*, or another's). */
static enum userns_view caller_ns(fuse_req_t req, uint64_t *id)
{
	const struct fuse_ctx *c = fuse_req_ctx(req);
	enum userns_view ns;

	status_read = false;
	ns = c->pid > 0 ? userns_of((int)c->pid, (uint32_t)c->uid, id) : NS_UNSEEN;
	if (ns == NS_OWN || ns == NS_UNKNOWN)
		*id = PORT_USERNS_OWN;
	else if (ns == NS_UNSEEN)
		*id = PORT_USERNS_UNSEEN;
	return ns;
}

/* After caller_ns() for the same req. */
static bool caller_admin(fuse_req_t req, enum userns_view ns)
{
	const struct fuse_ctx *c = fuse_req_ctx(req);

	if (ns != NS_OWN)
		return false;
	if (!status_read) /* no user namespaces here: not read yet */
		read_status((int)c->pid);
	return status_len > 0 && caps_status_admin(status, (size_t)status_len, (uint32_t)c->uid);
}

/*
 * Has the thread that made req CAP_SYS_ADMIN now (port_hooks.caller_admin)?
 * Asked for each request refused at a share: its status alone answers
 * "no" for all but the capable (one procfs read, not three), and only a
 * capable caller's namespace is looked up (its capability is its own
 * namespace's unless that is pilotd's).
 */
bool front_caller_admin(void *req)
{
	const struct fuse_ctx *c = fuse_req_ctx(req);
	uint64_t id;

	if (c->pid <= 0)
		return false;
	read_status((int)c->pid);
	if (status_len <= 0 || !caps_status_admin(status, (size_t)status_len, (uint32_t)c->uid))
		return false;
	return caller_admin(req, caller_ns(req, &id));
}

static void pilot_open(fuse_req_t req, struct fuse_file_info *fi)
{
	struct cuse_front *fr = fuse_req_userdata(req);
	uint64_t userns;
	enum userns_view ns = caller_ns(req, &userns);
	struct port_open_args a = {
		.uid = fuse_req_ctx(req)->uid,
		.userns = userns,
		.admin = caller_admin(req, ns),
		.nonblock = fi->flags & O_NONBLOCK,
		/* the kernel's handle, to push the file's input under (fuse_wire.h) */
		.input_key = fr->open_kh,
		.input_keyed = fr->stream_data && !fr->no_stream_data && fr->open_kh_seen,
	};

	log_debug("open flags 0%o", fi->flags);
	port_open(port_of(req), req, &a);
}

static void pilot_release(fuse_req_t req, struct fuse_file_info *fi)
{
	log_debug("release fh %llu", (unsigned long long)fi->fh);
	port_release(port_of(req), fi->fh);
	fuse_reply_err(req, 0);
}

static void pilot_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi)
{
	port_read(port_of(req), req, fi->fh, size, fi->flags & O_NONBLOCK, loop_now_ms());
}

static void pilot_write(fuse_req_t req, const char *buf, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	const struct cuse_front *fr = fuse_req_userdata(req);

	/* the kernel's drain of a file's write buffer (fuse_wire.h) */
	if (fr->stream_write && !fr->no_stream_write && (fi->flags & O_ACCMODE) == 0 &&
	    size <= STREAM_WRITE_MAX)
		port_write_buffered(port_of(req), req, fi->fh, buf, size);
	else
		port_write(port_of(req), req, fi->fh, buf, size, fi->flags & O_NONBLOCK);
}

static void pilot_poll(fuse_req_t req, struct fuse_file_info *fi, struct fuse_pollhandle *ph)
{
	struct cuse_front *fr = fuse_req_userdata(req);

	log_debug("poll fh %llu", (unsigned long long)fi->fh);
	fuse_reply_poll(req, port_poll(fr->port, fi->fh, ph, fi->poll_events));
	/* ph: the kernel has the file among those it finds by kh */
	if (ph && fr->poll_kh_seen)
		port_poll_key(fr->port, fi->fh, fr->poll_kh);
}

static void pilot_ioctl(fuse_req_t req, int cmd, void *arg, struct fuse_file_info *fi,
			unsigned int flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	struct tty_ioctl io = {
		.cmd = (unsigned int)cmd,
		.arg = (uintptr_t)arg,
		.in = in_buf,
		.in_len = in_bufsz,
		.out_len = out_bufsz,
		.compat = flags & FUSE_IOCTL_COMPAT,
		/* only these ask (core/tty.h); the others spare the look */
		.caller_admin = tty_ioctl_needs_admin((unsigned int)cmd) && front_caller_admin(req),
	};

	port_ioctl(port_of(req), req, fi->fh, &io);
}

static const struct cuse_lowlevel_ops pilot_ops = {
	.init_done = pilot_init_done,
	.open = pilot_open,
	.read = pilot_read,
	.write = pilot_write,
	.release = pilot_release,
	.ioctl = pilot_ioctl,
	.poll = pilot_poll,
};

/* At init, where the kernel offered to keep input (fuse_wire.h). */
static void log_stream_data(const struct cuse_front *fr)
{
	if (fr->no_stream_data)
		log_info("the kernel offers to keep input (not taken: --no-stream-data)");
	else
		log_info("the kernel keeps input: reads of one raw file come without a request");
}

static void cuse_ready(void *ctx, uint32_t events)
{
	struct cuse_front *fr = ctx;
	struct fuse_buf buf = { .mem = fr->fbuf_mem, .size = fr->fbuf_size };
	int r = fuse_session_receive_buf(fr->se, &buf);

	fr->fbuf_mem = buf.mem;
	fr->fbuf_size = buf.size;
	if (r == -EINTR || r == -EAGAIN)
		return;
	if (r <= 0 || fuse_session_exited(fr->se)) {
		if (!fr->stopping)
			log_err("the kernel closed the CUSE connection (%s)",
				r < 0 ? strerror(-r) : "device removed");
		fr->closed = true;
		loop_del(fr->loop, &fr->watch);
		return;
	}
	/*
	 * The kernel's reply to a take-back (fuse_wire.h) is no request of
	 * libfuse's: it goes to the port, and nothing answers it.  libfuse
	 * reads requests into memory here (no FUSE_CAP_SPLICE_READ on CUSE),
	 * as poll_kh() and open_kh() below need too.
	 */
	if (fr->take_back_out && !(buf.flags & FUSE_BUF_IS_FD)) {
		const void *data;
		uint64_t kh;
		size_t size;

		if (stream_retrieve_reply(buf.mem, (size_t)r, fr->take_back_unique, &kh, &data,
					  &size)) {
			fr->take_back_out = false;
			port_input_returned(fr->port, kh, data, size);
			return;
		}
	}
	fr->poll_kh_seen = !(buf.flags & FUSE_BUF_IS_FD) &&
			   poll_kh(buf.mem, (size_t)r, &fr->poll_kh);
	fr->open_kh_seen =
		!(buf.flags & FUSE_BUF_IS_FD) && open_kh(buf.mem, (size_t)r, &fr->open_kh);
	if (!(buf.flags & FUSE_BUF_IS_FD)) {
		cuse_init_offers_poll_events(buf.mem, (size_t)r, &fr->poll_events);
		if (cuse_init_offers_stream_data(buf.mem, (size_t)r, &fr->stream_data) &&
		    fr->stream_data)
			log_stream_data(fr);
		if (cuse_init_offers(buf.mem, (size_t)r, CUSE_STREAM_WRITE_FLAG,
				     &fr->stream_write) &&
		    fr->stream_write)
			log_info(fr->no_stream_write ?
					 "the kernel offers to take writes (not taken: "
					 "--no-stream-write)" :
					 "the kernel takes writes: write() returns once the "
					 "kernel holds the bytes");
	}
	fuse_session_process_buf(fr->se, &buf);
}

int front_start(struct cuse_front *fr, const char *argv0)
{
	char devinfo[128];
	const char *dev_info_argv[] = { devinfo };
	struct cuse_info ci = {
		.dev_info_argc = 1,
		.dev_info_argv = dev_info_argv,
		/* the kernel takes pushed poll events and input only if asked
		 * (fuse_wire.h); libfuse sends these whatever the kernel offered,
		 * and a kernel without the series ignores them */
		.flags = CUSE_UNRESTRICTED_IOCTL | CUSE_POLL_EVENTS_FLAG |
			 (fr->no_stream_data ? 0 : CUSE_STREAM_DATA_FLAG) |
			 (fr->no_stream_write ? 0 : CUSE_STREAM_WRITE_FLAG),
	};
	/* -f: pilotd does not daemonize; -s: one thread, ours */
	char *argv[] = { (char *)argv0, "-f", "-s", NULL };
	int multithreaded, fd;

	snprintf(devinfo, sizeof(devinfo), "DEVNAME=%s", fr->devname);
	fr->se = cuse_lowlevel_setup(3, argv, &ci, &pilot_ops, &multithreaded, fr);
	if (!fr->se) {
		log_err("cannot create /dev/%s through /dev/cuse (is the cuse module loaded?)",
			fr->devname);
		return -ENODEV;
	}
	fd = fuse_session_fd(fr->se);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fr->watch = (struct watch){ .fd = fd, .ready = cuse_ready, .ctx = fr };
	return loop_add(fr->loop, &fr->watch, EPOLLIN);
}

void front_stop(struct cuse_front *fr)
{
	if (fr->se) {
		if (!fr->closed)
			loop_del(fr->loop, &fr->watch);
		/* Closing the CUSE fd removes /dev/pilot. */
		cuse_lowlevel_teardown(fr->se);
		fr->se = NULL;
	}
	free(fr->fbuf_mem);
	fr->fbuf_mem = NULL;
}
