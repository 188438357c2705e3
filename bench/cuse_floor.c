// SPDX-License-Identifier: MIT
/*
 * cuse-floor: a CUSE character device that answers every request at once
 * and does nothing else, the floor under any CUSE driver's cost per
 * request.  bench/run-bench times calls on it beside the same calls on
 * /dev/pilot and the visor tty, in the same boot.
 *
 *   cuse-floor [--libfuse-loop]     creates /dev/cuse-floor, runs until killed
 *
 * Its answers: open, release and write at once (a write takes all it is
 * given); read 0 bytes at once, or EAGAIN to a non-blocking reader;
 * poll readable and writable; TIOCOUTQ, TIOCINQ and FIONREAD 0, fetched
 * with one retry as pilotd fetches them (CUSE_UNRESTRICTED_IOCTL: the
 * kernel cannot tell an old-style ioctl's size); ENOTTY to the rest.
 * The loop is an epoll loop like pilotd's (core/loop.c: epoll_wait, read
 * the request, answer), or with --libfuse-loop libfuse's own
 * fuse_session_loop.
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
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

static void floor_open(fuse_req_t req, struct fuse_file_info *fi)
{
	fi->direct_io = 1;
	fi->nonseekable = 1;
	fuse_reply_open(req, fi);
}

static void floor_release(fuse_req_t req, struct fuse_file_info *fi)
{
	(void)fi;
	fuse_reply_err(req, 0);
}

static void floor_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)size;
	(void)off;
	if (fi->flags & O_NONBLOCK)
		fuse_reply_err(req, EAGAIN);
	else
		fuse_reply_buf(req, NULL, 0);
}

static void floor_write(fuse_req_t req, const char *buf, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	(void)buf;
	(void)off;
	(void)fi;
	fuse_reply_write(req, size);
}

static void floor_poll(fuse_req_t req, struct fuse_file_info *fi, struct fuse_pollhandle *ph)
{
	(void)fi;
	fuse_pollhandle_destroy(ph); /* never anything to notify */
	fuse_reply_poll(req, POLLIN | POLLOUT);
}

static void floor_ioctl(fuse_req_t req, int cmd, void *arg, struct fuse_file_info *fi,
			unsigned int flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	const int zero = 0;
	struct iovec out = { arg, sizeof(int) };

	(void)fi;
	(void)flags;
	(void)in_buf;
	(void)in_bufsz;
	if (cmd != TIOCOUTQ && cmd != TIOCINQ) /* TIOCINQ is FIONREAD */
		fuse_reply_err(req, ENOTTY);
	else if (out_bufsz < sizeof(int))
		fuse_reply_ioctl_retry(req, NULL, 0, &out, 1);
	else
		fuse_reply_ioctl(req, 0, &zero, sizeof(zero));
}

static const struct cuse_lowlevel_ops floor_ops = {
	.open = floor_open,
	.read = floor_read,
	.write = floor_write,
	.release = floor_release,
	.ioctl = floor_ioctl,
	.poll = floor_poll,
};

/* pilotd's way: a non-blocking session fd in an epoll set, one request per wake-up. */
static int epoll_loop(struct fuse_session *se)
{
	struct fuse_buf buf = { 0 };
	int fd = fuse_session_fd(se), ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN };

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		perror("cuse-floor: epoll");
		return 1;
	}
	while (!fuse_session_exited(se)) {
		int r;

		if (epoll_wait(ep, &ev, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		r = fuse_session_receive_buf(se, &buf);
		if (r == -EINTR || r == -EAGAIN)
			continue;
		if (r <= 0)
			break;
		fuse_session_process_buf(se, &buf);
	}
	free(buf.mem);
	close(ep);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev_info_argv[] = { "DEVNAME=cuse-floor" };
	struct cuse_info ci = {
		.dev_info_argc = 1,
		.dev_info_argv = dev_info_argv,
		.flags = CUSE_UNRESTRICTED_IOCTL,
	};
	char *fuse_argv[] = { argv[0], "-f", "-s", NULL };
	int libfuse_loop = argc == 2 && strcmp(argv[1], "--libfuse-loop") == 0;
	struct fuse_session *se;
	int multithreaded, r;

	if (argc > 2 || (argc == 2 && !libfuse_loop)) {
		fprintf(stderr, "usage: cuse-floor [--libfuse-loop]\n");
		return 2;
	}
	se = cuse_lowlevel_setup(3, fuse_argv, &ci, &floor_ops, &multithreaded, NULL);
	if (!se) {
		fprintf(stderr, "cuse-floor: cannot create /dev/cuse-floor\n");
		return 1;
	}
	r = libfuse_loop ? fuse_session_loop(se) : epoll_loop(se);
	cuse_lowlevel_teardown(se);
	return r ? 1 : 0;
}
