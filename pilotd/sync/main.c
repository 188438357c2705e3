// SPDX-License-Identifier: MIT
/*
 * pilotd-sync: run a user's sync command (pilot-xfer, jpilot-sync,
 * coldsync, palm-sync...) once at every HotSync press.
 *
 * It watches /dev/pilot's carrier (a handheld on the bus) with TIOCMGET,
 * TIOCGICOUNT and TIOCMIWAIT on a descriptor opened O_NONBLOCK, which
 * never reads, never waits in open and is closed while the command runs,
 * so the command is the port's only user.  The decisions are waiter.c's.
 * Run it as the user whose sync it is (pilotd-sync@USER.service); see
 * pilotd-sync(1).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/serial.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "waiter.h"

struct sync_port {
	const char *device;
	const char *config;
	struct sync_limits limits;
	int fd;
};

void sync_log(const char *fmt, ...)
{
	va_list ap;

	fputs("pilotd-sync: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int port_open(void *ctx)
{
	struct sync_port *p = ctx;

	p->fd = open(p->device, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return p->fd < 0 ? -errno : 0;
}

static int port_state(void *ctx, bool *carrier, unsigned int *changes)
{
	struct sync_port *p = ctx;
	struct serial_icounter_struct ic;
	int lines;

	if (ioctl(p->fd, TIOCMGET, &lines) < 0 || ioctl(p->fd, TIOCGICOUNT, &ic) < 0)
		return -errno;
	*carrier = lines & TIOCM_CD;
	*changes = (unsigned int)ic.dcd;
	return 0;
}

static int port_wait(void *ctx)
{
	struct sync_port *p = ctx;

	while (ioctl(p->fd, TIOCMIWAIT, TIOCM_CD) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static void port_close(void *ctx)
{
	struct sync_port *p = ctx;

	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

static void port_pause(void *ctx)
{
	(void)ctx;
	sleep(1);
}

static int read_command(void *ctx, char *buf, size_t size)
{
	struct sync_port *p = ctx;

	return sync_read_command(p->config, buf, size);
}

/* sh -c COMMAND, with PILOTPORT (pilot-link's and J-Pilot's port variable). */
static int run_command(void *ctx, const char *command, struct sync_result *res)
{
	struct sync_port *p = ctx;

	return sync_run_command(command, p->device, &p->limits, res);
}

static const struct waiter_ops port_ops = {
	.open = port_open,
	.state = port_state,
	.wait = port_wait,
	.close = port_close,
	.pause = port_pause,
	.command = read_command,
	.run = run_command,
};

static void usage(FILE *out)
{
	fputs("Usage: pilotd-sync [--device PATH] [--config FILE] [--timeout SECONDS]\n"
	      "Run a sync command once at every HotSync press on /dev/pilot (served by pilotd).\n"
	      "\n"
	      "  -d, --device PATH  the port to watch (default /dev/pilot); the command\n"
	      "                     finds it in $PILOTPORT\n"
	      "  -c, --config FILE  the file whose first line (not empty, not #) is the\n"
	      "                     command, run by /bin/sh -c at each press and read anew\n"
	      "                     each time (default ~/.config/pilotd/sync)\n"
	      "  -t, --timeout SECONDS  stop a sync still running after SECONDS (SIGTERM\n"
	      "                     to its process group, SIGKILL 10 s later; default\n"
	      "                     3600; 0: never)\n"
	      "  -h, --help         this text\n"
	      "  -V, --version      the version\n"
	      "\n"
	      "One sync at a time: a press while it runs goes to the running sync; the\n"
	      "next sync needs the handheld to leave and HotSync to be pressed again.\n"
	      "Never runs as root.  As a service: systemctl enable --now pilotd-sync@USER\n"
	      "(pilotd-sync(1)).\n",
	      out);
}

static char *default_config(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;
	char *path;

	if (!home || !*home) {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : "/";
	}
	if (asprintf(&path, "%s/.config/pilotd/sync", home) < 0)
		return NULL;
	return path;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	struct sync_port port = { .device = "/dev/pilot",
				  .limits = { .run_ms = SYNC_RUN_MS_DEFAULT,
					      .kill_ms = SYNC_KILL_MS },
				  .fd = -1 };
	unsigned long seconds;
	char *end;
	struct waiter w = { .ops = &port_ops, .ctx = &port };
	int c;

	while ((c = getopt_long(argc, argv, "d:c:t:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'd': port.device = optarg; break;
		case 'c': port.config = optarg; break;
		case 't':
			errno = 0;
			seconds = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' ||
			    seconds > 24ul * 3600) {
				sync_log("--timeout: whole seconds, 0 (never) to 86400");
				return 2;
			}
			port.limits.run_ms = (unsigned int)seconds * 1000;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("pilotd-sync %s\n", PILOTD_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (getuid() == 0 || geteuid() == 0) {
		sync_log("will not run a sync command as root: run it as the user whose "
			 "handheld it is (systemctl enable --now pilotd-sync@USER)");
		return 78; /* EX_CONFIG: the unit does not restart it */
	}
	if (!port.config && !(port.config = default_config()))
		return 1;
	setvbuf(stderr, NULL, _IOLBF, 0);
	w.device = port.device;
	w.config = port.config;
	waiter_run(&w);
	return 0;
}
