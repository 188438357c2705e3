// SPDX-License-Identifier: MIT
/*
 * pilotd: creates /dev/pilot with CUSE and forwards its byte stream to a
 * Palm handheld over USB, on this machine's bus or through a usbredir
 * server.  This file is the daemon's lifecycle: options, the event loop,
 * signals and an orderly shutdown.
 *
 *   pilotd [--name pilot] [--device VID:PID] [--port PATH | --usbredir SERVER |
 *          --netsync [ADDR:]PORT [--netsync-allow ADDR[/PREFIX]]...] [--user USER] [--trace FILE]
 *          [--no-stream-data] [--no-stream-write] [--verbose]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/palm.h"
#include "core/pump.h"
#include "pilotd.h"
#include "service.h"

/* ---- the port's hooks: answers go to the front, the rest to the link ---- */

static int hook_answer_open(void *ctx, void *req, uint64_t fh)
{
	return front_answer_open(req, fh);
}

static void hook_answer_data(void *ctx, void *req, const void *buf, size_t len)
{
	front_answer_data(req, buf, len);
}

static void hook_answer_written(void *ctx, void *req, size_t len)
{
	front_answer_written(req, len);
}

static void hook_answer_ioctl(void *ctx, void *req, const void *out, size_t len)
{
	front_answer_ioctl(req, out, len);
}

static void hook_answer_ioctl_fetch(void *ctx, void *req, uintptr_t arg, size_t in, size_t out)
{
	front_answer_ioctl_fetch(req, arg, in, out);
}

static void hook_answer_err(void *ctx, void *req, int err)
{
	front_answer_err(req, err);
}

static void hook_parked(void *ctx, void *req)
{
	front_parked(req);
}

static bool hook_caller_admin(void *ctx, void *req, uint64_t fh)
{
	return front_caller_admin(req);
}

static void hook_notify_poll(void *ctx, void *poll_handle)
{
	front_notify_poll(poll_handle);
}

static void hook_drop_poll_handle(void *ctx, void *poll_handle)
{
	front_drop_poll_handle(poll_handle);
}

static int hook_push_events(void *ctx, uint64_t key, unsigned int events, unsigned int wake)
{
	struct pilotd *pd = ctx;

	return front_push_events(&pd->front, key, events, wake);
}

static int hook_push_input(void *ctx, uint64_t key, const void *buf, size_t len)
{
	struct pilotd *pd = ctx;

	return front_push_input(&pd->front, key, buf, len);
}

static int hook_take_back_input(void *ctx, uint64_t key)
{
	struct pilotd *pd = ctx;

	return front_take_back_input(&pd->front, key);
}

static void hook_tx_ready(void *ctx)
{
	struct pilotd *pd = ctx;

	if (pd->link)
		link_tx_ready(pd->link);
}

static void hook_tx_abort(void *ctx)
{
	struct pilotd *pd = ctx;

	if (pd->link)
		link_tx_abort(pd->link);
}

static void hook_rx_room(void *ctx)
{
	struct pilotd *pd = ctx;

	if (pd->link)
		link_rx_room(pd->link);
}

static void hook_rx_stop(void *ctx)
{
	struct pilotd *pd = ctx;

	if (pd->link)
		link_rx_stop(pd->link);
}

static void hook_last_close(void *ctx)
{
	struct pilotd *pd = ctx;

	if (pd->link)
		link_last_close(pd->link);
}

static int port_start(struct pilotd *pd)
{
	const struct port_config cfg = {
		.rxq_size = RXQ_SIZE,
		.txq_size = TXQ_SIZE,
		.read_max = FRONT_READ_MAX,
		.files_max = PORT_FILES_MAX,
		.parked_max = PORT_PARKED_MAX,
		.parked_write_bytes = PORT_PARKED_WRITE_BYTES,
		.closing_wait_ms = PORT_CLOSING_WAIT_MS,
		/* the IN requests in flight, of the largest packets a device may name */
		.rx_inflight_max = PUMP_IN_WINDOW,
	};
	const struct port_hooks hooks = {
		.ctx = pd,
		.answer_open = hook_answer_open,
		.answer_data = hook_answer_data,
		.answer_written = hook_answer_written,
		.answer_ioctl = hook_answer_ioctl,
		.answer_ioctl_fetch = hook_answer_ioctl_fetch,
		.answer_err = hook_answer_err,
		.parked = hook_parked,
		.caller_admin = hook_caller_admin,
		.notify_poll = hook_notify_poll,
		.drop_poll_handle = hook_drop_poll_handle,
		.push_events = hook_push_events,
		.push_input = hook_push_input,
		.take_back_input = hook_take_back_input,
		.tx_ready = hook_tx_ready,
		.tx_abort = hook_tx_abort,
		.rx_room = hook_rx_room,
		.rx_stop = hook_rx_stop,
		.last_close = hook_last_close,
	};

	return port_init(&pd->port, &cfg, &hooks);
}

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"usage: %s [options]\n"
		"Create /dev/NAME with CUSE and forward its byte stream to a Palm handheld\n"
		"over USB: on this machine's bus, or exported by a usbredir server such as\n"
		"usbredirect; or from a network HotSync (--netsync).  Runs in the\n"
		"foreground until SIGTERM or SIGINT.\n\n"
		"  -n, --name NAME       device node name under /dev (default: pilot)\n"
		"  -d, --device VID:PID  use this USB device (hex) instead of any known Palm\n"
		"  -p, --port PATH       only the handheld at this USB port, as the kernel\n"
		"                        names it in /sys/bus/usb/devices (e.g. 1-1.2)\n"
		"  -r, --usbredir SERVER the handheld a usbredir server exports, instead of\n"
		"                        this machine's USB bus: HOST:PORT, [IPv6]:PORT or\n"
		"                        a Unix socket path (with a '/'); called again\n"
		"                        whenever the connection ends\n"
		"      --netsync [ADDR:]PORT  a handheld's or an emulator's network HotSync,\n"
		"                        instead of USB: listen on TCP PORT (the Palm's is\n"
		"                        14238) of ADDR (numeric IPv4 or [IPv6]; default\n"
		"                        127.0.0.1 and ::1); one connection at a time is\n"
		"                        the handheld on /dev/NAME, its end a departure\n"
		"      --netsync-allow ADDR[/PREFIX]  take network HotSync only from these\n"
		"                        peers (repeatable, at most 16; default: any that\n"
		"                        reaches ADDR)\n"
		"  -u, --user USER       once /dev/cuse is open, run as USER (and its groups);\n"
		"                        USER must be able to open the handheld's USB nodes\n"
		"      --trace FILE      append each handheld session's bytes, both ways,\n"
		"                        with times, to FILE (a new or regular file, not a\n"
		"                        symbolic link; created 0600); at most 64 MiB, and\n"
		"                        32 MiB a session or between two; it starts over\n"
		"                        when a session would not fit\n"
		"      --no-stream-data  do not hand the handheld's bytes to the kernel where\n"
		"                        it offers to keep them (kernel-patches/stream-data;\n"
		"                        by default reads of one raw file then come without\n"
		"                        a request): every read is a request, as on kernels\n"
		"                        without it (--stream-data: the default)\n"
		"      --no-stream-write do not let the kernel take writes where it offers\n"
		"                        to (kernel-patches/stream-write; by default write()\n"
		"                        returns once the kernel holds the bytes): every\n"
		"                        write is a request, as on kernels without it\n"
		"                        (--stream-write: the default)\n"
		"  -v, --verbose         log every open, release and poll request, and USB\n"
		"                        details\n"
		"  -h, --help            show this help\n"
		"  -V, --version         show the version\n",
		argv0);
}

enum { /* long options only */
	OPT_TRACE = 0x100,
	OPT_STREAM_DATA,
	OPT_NO_STREAM_DATA,
	OPT_STREAM_WRITE,
	OPT_NO_STREAM_WRITE,
};

static int parse_args(struct pilotd *pd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "device", required_argument, NULL, 'd' },
		{ "port", required_argument, NULL, 'p' },
		{ "usbredir", required_argument, NULL, 'r' },
		{ "user", required_argument, NULL, 'u' },
		{ "netsync", required_argument, NULL, 'N' },
		{ "netsync-allow", required_argument, NULL, 'A' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "trace", required_argument, NULL, OPT_TRACE },
		{ "stream-data", no_argument, NULL, OPT_STREAM_DATA },
		{ "no-stream-data", no_argument, NULL, OPT_NO_STREAM_DATA },
		{ "stream-write", no_argument, NULL, OPT_STREAM_WRITE },
		{ "no-stream-write", no_argument, NULL, OPT_NO_STREAM_WRITE },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:d:p:r:u:vhV", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!*optarg || strchr(optarg, '/') || strlen(optarg) > 64) {
				fprintf(stderr,
					"pilotd: bad --name '%s': a plain name, at most 64 "
					"characters\n",
					optarg);
				return -1;
			}
			pd->devname = optarg;
			break;
		case 'd':
			if (palm_parse_vidpid(optarg, &pd->match.vid, &pd->match.pid) < 0) {
				fprintf(stderr,
					"pilotd: bad --device '%s': expected VID:PID in hex, "
					"e.g. 0830:0060\n",
					optarg);
				return -1;
			}
			pd->match.any_palm = false;
			break;
		case 'p':
			if (!palm_valid_port_path(optarg)) {
				fprintf(stderr,
					"pilotd: bad --port '%s': expected BUS-PORT[.PORT]..., "
					"e.g. 1-1.2\n",
					optarg);
				return -1;
			}
			pd->match.port_path = optarg;
			break;
		case 'r':
			if (!*optarg) {
				fprintf(stderr, "pilotd: bad --usbredir '': expected HOST:PORT, "
						"[IPv6]:PORT or a socket path\n");
				return -1;
			}
			pd->usbredir = optarg;
			break;
		case 'N': pd->netsync.listen = optarg; break;
		case 'A':
			if (pd->netsync.nallow == NETSYNC_ALLOW_MAX ||
			    netsync_parse_net(optarg, &pd->netsync.allow[pd->netsync.nallow++]) < 0) {
				fprintf(stderr,
					"pilotd: bad --netsync-allow '%s': expected a numeric "
					"ADDR[/PREFIX], at most %d of them\n",
					optarg, NETSYNC_ALLOW_MAX);
				return -1;
			}
			break;
		case 'u': {
			const struct passwd *pw = getpwnam(optarg);

			if (!pw) {
				fprintf(stderr, "pilotd: bad --user '%s': no such user\n", optarg);
				return -1;
			}
			pd->user = optarg;
			pd->uid = pw->pw_uid;
			pd->gid = pw->pw_gid;
			break;
		}
		case OPT_TRACE: pd->trace_path = optarg; break;
		case OPT_STREAM_DATA: pd->no_stream_data = false; break;
		case OPT_NO_STREAM_DATA: pd->no_stream_data = true; break;
		case OPT_STREAM_WRITE: pd->no_stream_write = false; break;
		case OPT_NO_STREAM_WRITE: pd->no_stream_write = true; break;
		case 'v': pilotd_verbose = true; break;
		case 'h': usage(stdout, argv[0]); exit(0);
		case 'V': printf("pilotd %s\n", PILOTD_VERSION); exit(0);
		default: usage(stderr, argv[0]); return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "pilotd: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (pd->netsync.nallow && !pd->netsync.listen) {
		fprintf(stderr, "pilotd: --netsync-allow needs --netsync\n");
		return -1;
	}
	if (pd->netsync.listen && (pd->usbredir || pd->match.port_path || !pd->match.any_palm)) {
		fprintf(stderr, "pilotd: --netsync takes the handheld from the network; it cannot "
				"be used with --usbredir, --port or --device\n");
		return -1;
	}
	if (pd->usbredir && pd->match.port_path) {
		fprintf(stderr, "pilotd: --port names a port of this machine's USB bus; it "
				"cannot be used with --usbredir\n");
		return -1;
	}
	return 0;
}

/*
 * --trace FILE (core/trace.h): opened before --user drops root, so the
 * file may be root's.  Appended to, emptied only when it is a trace with
 * no room left (read: O_RDWR, core/trace.c); created 0600, as it
 * holds whatever the handheld holds.  Not a symbolic link (pilotd runs
 * as root: a link planted in /tmp must not make it write elsewhere), and
 * only a regular file: a FIFO or a device could block the loop.
 */
static int trace_open(struct pilotd *pd)
{
	struct stat st;
	int fd;

	pd->trace_fd = -1;
	if (!pd->trace_path)
		return 0;
	fd = open(pd->trace_path,
		  O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0) {
		log_err("--trace %s: %s", pd->trace_path,
			errno == ELOOP ? "a symbolic link; name the file itself" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		log_err("--trace %s: not a regular file", pd->trace_path);
		close(fd);
		return -1;
	}
	pd->trace_fd = fd;
	/* a file with no room for a session starts over (logged) */
	if (trace_start(&pd->trace, fd, TRACE_MAX_BYTES, loop_now_ms, PILOTD_VERSION) == 0)
		pd->port.trace = &pd->trace;
	return 0;
}

static void signal_ready(void *ctx, uint32_t events)
{
	struct pilotd *pd = ctx;
	struct signalfd_siginfo si;

	while (read(pd->sig_watch.fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			continue; /* no configuration to reload */
		log_info("%s: shutting down", strsignal((int)si.ssi_signo));
		pd->stop = true;
	}
}

static int signals_start(struct pilotd *pd)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	pd->sig_watch = (struct watch){ .fd = fd, .ready = signal_ready, .ctx = pd };
	return loop_add(&pd->loop, &pd->sig_watch, EPOLLIN);
}

static void read_timer_ready(void *ctx, uint32_t events)
{
	struct pilotd *pd = ctx;
	uint64_t expirations;

	if (read(pd->read_timer.fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		log_warn("read timer: %s", strerror(errno));
	pd->armed_ms = 0; /* it fired, so it is disarmed */
			  /* the port serves the reads whose time came after this round */
}

static int timer_start(struct pilotd *pd)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -errno;
	pd->read_timer = (struct watch){ .fd = fd, .ready = read_timer_ready, .ctx = pd };
	return loop_add(&pd->loop, &pd->read_timer, EPOLLIN);
}

/* Arm the timer for the port's next deadline (0: disarm). */
static void arm_timer(struct pilotd *pd, uint64_t deadline_ms)
{
	struct itimerspec its = { 0 };

	if (deadline_ms == pd->armed_ms)
		return; /* a syscall saved on every round */
	pd->armed_ms = deadline_ms;
	its.it_value.tv_sec = (time_t)(deadline_ms / 1000);
	its.it_value.tv_nsec = (long)(deadline_ms % 1000) * 1000000;
	timerfd_settime(pd->read_timer.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/*
 * --user: root is needed only to open /dev/cuse (done by now) and, with
 * libusb, nothing else: the handhelds' USB nodes are the user's through
 * udev (60-pilotd.rules).  All of uid, gid and groups change, for good.
 */
static int drop_privileges(const struct pilotd *pd)
{
	if (!pd->user || (getuid() == pd->uid && geteuid() == pd->uid))
		return 0;
	if (initgroups(pd->user, pd->gid) < 0 || setresgid(pd->gid, pd->gid, pd->gid) < 0 ||
	    setresuid(pd->uid, pd->uid, pd->uid) < 0) {
		log_err("cannot run as %s: %s%s", pd->user, strerror(errno),
			errno == EPERM ? " (only root can switch users)" : "");
		return -1;
	}
	if (pd->uid != 0 && setuid(0) == 0) {
		log_err("still able to become root after switching to %s", pd->user);
		return -1;
	}
	log_info("running as %s (uid %u, gid %u)", pd->user, (unsigned int)pd->uid,
		 (unsigned int)pd->gid);
	return 0;
}

static void front_ready(void *ctx)
{
	const struct pilotd *pd = ctx;

	service_ready(pd->devname);
}

static int run(struct pilotd *pd)
{
	while (!pd->stop && !pd->front.closed) {
		int n = loop_run_once(&pd->loop, pd->link->ops->timeout_ms(pd->link));

		if (n < 0) {
			log_err("epoll_wait: %s", strerror(-n));
			return 1;
		}
		pd->link->ops->after_events(pd->link, n == 0);
		arm_timer(pd, port_after_events(&pd->port, loop_now_ms()));
		service_status(&pd->status, &pd->port, pd->devname,
			       pd->port.carrier ? pd->link->pump->name : NULL, loop_now_ms());
	}
	return pd->front.closed ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct pilotd pd = {
		.devname = "pilot",
		.match = { .any_palm = true },
		.sig_watch = { .fd = -1 },
		.read_timer = { .fd = -1 },
	};
	int r;

	if (parse_args(&pd, argc, argv) < 0)
		return 2;
	if (loop_init(&pd.loop) < 0 || port_start(&pd) < 0) {
		log_err("out of resources: %s", strerror(errno));
		return 1;
	}
	pd.front = (struct cuse_front){ .loop = &pd.loop,
					.port = &pd.port,
					.devname = pd.devname,
					.ready = front_ready,
					.no_stream_data = pd.no_stream_data,
					.no_stream_write = pd.no_stream_write,
					.ready_ctx = &pd };
	if (trace_open(&pd) < 0)
		return 2;
	r = signals_start(&pd);
	if (r == 0)
		r = timer_start(&pd);
	if (r == 0 && pd.netsync.listen)
		r = link_netsync_start(&pd.link, &pd.netsync, &pd.loop, &pd.port);
	else if (r == 0 && pd.usbredir)
		r = link_usbredir_start(&pd.link, &pd.match, pd.usbredir, &pd.loop, &pd.port);
	else if (r == 0)
		r = link_libusb_start(&pd.link, &pd.match, &pd.loop, &pd.port);
	if (r == 0)
		r = front_start(&pd.front, argv[0]);
	if (r == 0)
		r = drop_privileges(&pd);
	if (r == 0)
		r = run(&pd);
	else
		r = r == -EINVAL ? 2 : 1; /* a --usbredir or --netsync that is no address */

	/* Every parked request is answered before the CUSE fd closes. */
	service_stopping();
	pd.front.stopping = true;
	port_shutdown(&pd.port);
	log_info("reads: %llu came as requests; input kept by the kernel: %llu bytes "
		 "in %llu pushes, %llu refused for room, %llu for a read in flight",
		 (unsigned long long)pd.port.stats.read_requests,
		 (unsigned long long)pd.port.stats.rx_pushed,
		 (unsigned long long)pd.port.stats.input_pushes,
		 (unsigned long long)pd.port.stats.input_push_full,
		 (unsigned long long)pd.port.stats.input_push_busy);
	log_info("input taken back: %llu take-backs, %llu bytes back",
		 (unsigned long long)pd.port.stats.take_backs,
		 (unsigned long long)pd.port.stats.rx_taken_back);
	log_info("writes: %llu came as requests, %llu bytes sent to the handheld",
		 (unsigned long long)pd.port.stats.write_requests,
		 (unsigned long long)pd.port.stats.tx_bytes);
	if (pd.link)
		pd.link->ops->stop(pd.link);
	pd.link = NULL;
	trace_end(pd.port.trace);
	front_stop(&pd.front);
	port_free(&pd.port);
	if (pd.trace_fd >= 0)
		close(pd.trace_fd);
	if (pd.sig_watch.fd >= 0)
		close(pd.sig_watch.fd);
	if (pd.read_timer.fd >= 0)
		close(pd.read_timer.fd);
	loop_free(&pd.loop);
	return r;
}
