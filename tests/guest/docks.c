// SPDX-License-Identifier: MIT
/*
 * Two docks: two handhelds of the same model (Tungsten T, 0830:0060), one
 * pilotd per handheld selected by USB port path (--port), each with its
 * own node.  Bytes written to each node reach only its own handheld, and
 * a handheld that leaves and comes back (as on every HotSync) returns to
 * its own pilotd, never the other one.  The guest runs without the usual
 * pilotd (--no-pilotd) and with an extra simulated Tungsten T in echo mode.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib.h"

#define MAIN_NODE  "/dev/pilot-main"
#define OTHER_NODE "/dev/pilot-other"

/* The port paths of the Tungsten Ts on the bus, sorted; returns how many. */
static int tungstens(char paths[2][64])
{
	struct dirent **e;
	int n = scandir("/sys/bus/usb/devices", &e, NULL, alphasort), found = 0;

	for (int i = 0; i < n; i++) {
		char attr[320], ids[16] = "";
		FILE *f;

		if (!strchr(e[i]->d_name, ':') && strchr(e[i]->d_name, '-')) {
			snprintf(attr, sizeof(attr), "/sys/bus/usb/devices/%s/idVendor",
				 e[i]->d_name);
			f = fopen(attr, "r");
			if (f && fgets(ids, sizeof(ids), f) && strncmp(ids, "0830", 4) == 0 &&
			    found < 2 && strlen(e[i]->d_name) < 64)
				memcpy(paths[found++], e[i]->d_name, strlen(e[i]->d_name) + 1);
			if (f)
				fclose(f);
		}
		free(e[i]);
	}
	free(e);
	return found;
}

static pid_t start_pilotd(const char *name, const char *port)
{
	pid_t pid = fork();

	if (pid == 0) {
		execlp("pilotd", "pilotd", "--name", name, "--port", port, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void wait_node(const char *node)
{
	struct stat st;
	double deadline = now_s() + 10;

	while (stat(node, &st) < 0)
		if (now_s() > deadline)
			fail("%s did not appear within 10 s", node);
		else
			usleep(50000);
}

static void echo_through(const char *node, const char *msg)
{
	char got[64] = "";
	int fd = open_node_attached(node, O_RDWR | O_NOCTTY, 30);

	write_full(fd, msg, strlen(msg));
	if (read_full(fd, got, strlen(msg)) != strlen(msg) || memcmp(got, msg, strlen(msg)) != 0)
		fail("%s: wrote '%s', read back '%s'", node, msg, got);
	close(fd);
}

static void stop(pid_t pid, const char *name)
{
	int status;

	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("pilotd --name %s did not stop cleanly (status 0x%x)", name, status);
}

int main(void)
{
	char paths[2][64], now[2][64];
	const char *main_path = NULL, *other_path = NULL;
	double deadline;
	pid_t a, b;

	guest_test_name("docks");
	deadline = now_s() + 20;
	while (tungstens(paths) < 2)
		if (now_s() > deadline)
			fail("two Tungsten Ts not on the bus within 20 s");
		else
			usleep(100000);
	/* which one is the controllable simulated Palm: the one that leaves */
	palm("unplug");
	deadline = now_s() + 10;
	while (!main_path) {
		if (tungstens(now) == 1)
			main_path = strcmp(now[0], paths[0]) == 0 ? paths[1] : paths[0];
		else if (now_s() > deadline)
			fail("the unplugged handheld did not leave the bus");
		usleep(50000);
	}
	other_path = main_path == paths[0] ? paths[1] : paths[0];
	palm("plug");
	note("the controllable handheld is at %s, the other at %s", main_path, other_path);

	a = start_pilotd("pilot-main", main_path);
	b = start_pilotd("pilot-other", other_path);
	wait_node(MAIN_NODE);
	wait_node(OTHER_NODE);
	palm("mode echo");
	palm("reset-stats");
	echo_through(MAIN_NODE, "main dock");
	if (palm_stat("out_bytes") != 9)
		fail("the handheld at %s got %llu bytes, not the 9 written to " MAIN_NODE,
		     main_path, (unsigned long long)palm_stat("out_bytes"));
	echo_through(OTHER_NODE, "the other dock");
	if (palm_stat("out_bytes") != 9)
		fail("bytes written to " OTHER_NODE " reached the handheld at %s", main_path);

	/* a HotSync re-enumerates the handheld: it must come back to its own pilotd */
	for (int round = 0; round < 3; round++) {
		int fd = open_node_attached(MAIN_NODE, O_RDWR | O_NOCTTY, 30);
		struct pollfd p = { .fd = fd, .events = POLLIN };

		palm("unplug");
		/* pilotd has seen it leave once the open file is hung up */
		if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLHUP))
			fail(MAIN_NODE " not hung up within 10 s of the handheld leaving");
		close(fd);
		palm("plug");
		palm_wait_stat("plugged", 1, 10);
		echo_through(MAIN_NODE, "main again");
		echo_through(OTHER_NODE, "other again");
	}
	if (palm_stat("out_bytes") != 9 + 3 * 10)
		fail("the handheld at %s got %llu bytes after three returns, not %d", main_path,
		     (unsigned long long)palm_stat("out_bytes"), 9 + 3 * 10);
	note("each node reached only its own handheld, also after 3 re-enumerations");
	stop(a, "pilot-main");
	stop(b, "pilot-other");
	return 0;
}
