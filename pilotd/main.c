// SPDX-License-Identifier: MIT
/*
 * pilotd: creates /dev/pilot with CUSE and forwards its byte stream to a
 * Palm handheld over USB.  This file is the daemon's lifecycle: options,
 * the event loop, signals and an orderly shutdown.
 *
 *   pilotd [--name pilot] [--device VID:PID] [--in-timeout MS] [--verbose]
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "core/palm.h"
#include "log.h"
#include "pilotd.h"

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int loop_add(struct pilotd *pd, struct watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	return epoll_ctl(pd->epfd, EPOLL_CTL_ADD, w->fd, &ev) < 0 ? -errno : 0;
}

int loop_mod(struct pilotd *pd, struct watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	return epoll_ctl(pd->epfd, EPOLL_CTL_MOD, w->fd, &ev) < 0 ? -errno : 0;
}

void loop_del(struct pilotd *pd, struct watch *w)
{
	epoll_ctl(pd->epfd, EPOLL_CTL_DEL, w->fd, NULL);
}

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"usage: %s [options]\n"
		"Create /dev/NAME with CUSE and forward its byte stream to a Palm handheld\n"
		"over USB.  Runs in the foreground until SIGTERM or SIGINT.\n\n"
		"  -n, --name NAME       device node name under /dev (default: pilot)\n"
		"  -d, --device VID:PID  use this USB device (hex) instead of any known Palm\n"
		"  -t, --in-timeout MS   hand over a half-full bulk IN transfer after MS\n"
		"                        milliseconds without data (default %u, 0: never)\n"
		"  -v, --verbose         log every open and release, and USB details\n"
		"  -h, --help            show this help\n"
		"  -V, --version         show the version\n",
		argv0, DEFAULT_IN_TIMEOUT_MS);
}

static int parse_args(struct pilotd *pd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "device", required_argument, NULL, 'd' },
		{ "in-timeout", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:d:t:vhV", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!*optarg || strchr(optarg, '/') || strlen(optarg) > 64) {
				fprintf(stderr,
					"pilotd: bad --name '%s': a plain name, at most 64 "
					"characters\n",
					optarg);
				return -1;
			}
			pd->cfg.devname = optarg;
			break;
		case 'd':
			if (palm_parse_vidpid(optarg, &pd->cfg.vid, &pd->cfg.pid) < 0) {
				fprintf(stderr,
					"pilotd: bad --device '%s': expected VID:PID in hex, "
					"e.g. 0830:0060\n",
					optarg);
				return -1;
			}
			pd->cfg.match_any_palm = false;
			break;
		case 't': {
			char *end;
			unsigned long ms = strtoul(optarg, &end, 10);

			if (end == optarg || *end || ms > 60000) {
				fprintf(stderr,
					"pilotd: bad --in-timeout '%s': milliseconds, 0 to "
					"60000\n",
					optarg);
				return -1;
			}
			pd->cfg.in_timeout_ms = (unsigned int)ms;
			break;
		}
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
	return 0;
}

static void signal_ready(struct pilotd *pd, struct watch *w, uint32_t events)
{
	struct signalfd_siginfo si;

	while (read(w->fd, &si, sizeof(si)) == sizeof(si)) {
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
	pd->sig_watch = (struct watch){ .fd = fd, .ready = signal_ready };
	return loop_add(pd, &pd->sig_watch, EPOLLIN);
}

static int run(struct pilotd *pd)
{
	struct epoll_event ev[16];

	while (!pd->stop) {
		int n = epoll_wait(pd->epfd, ev, 16, usb_link_timeout_ms(pd));

		if (n < 0 && errno != EINTR) {
			log_err("epoll_wait: %s", strerror(errno));
			return 1;
		}
		if (n == 0)
			usb_link_handle_events(pd);
		for (int i = 0; i < n; i++) {
			struct watch *w = ev[i].data.ptr;

			w->ready(pd, w, ev[i].events);
		}
		front_after_events(pd);
	}
	return pd->exit_status;
}

int main(int argc, char **argv)
{
	struct pilotd pd = {
		.cfg = { .devname = "pilot",
			 .match_any_palm = true,
			 .in_timeout_ms = DEFAULT_IN_TIMEOUT_MS },
		.epfd = -1,
	};
	int r;

	if (parse_args(&pd, argc, argv) < 0)
		return 2;
	tty_init(&pd.tty);
	pd.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (pd.epfd < 0 || byteq_init(&pd.rxq, RXQ_SIZE) < 0 || byteq_init(&pd.txq, TXQ_SIZE) < 0) {
		log_err("out of resources: %s", strerror(errno));
		return 1;
	}
	r = signals_start(&pd);
	if (r == 0)
		r = usb_link_start(&pd);
	if (r == 0)
		r = front_start(&pd, argv[0]);
	if (r == 0)
		r = run(&pd);
	else
		r = 1;

	front_shutdown(&pd);
	usb_link_stop(&pd);
	front_stop(&pd);
	byteq_free(&pd.rxq);
	byteq_free(&pd.txq);
	if (pd.sig_watch.fd > 0)
		close(pd.sig_watch.fd);
	close(pd.epfd);
	return r;
}
