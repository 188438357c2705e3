// SPDX-License-Identifier: MIT
/*
 * pty-handheld: the simulated handheld's HotSync side (link.c and
 * dlp_server.c, as palm-sim runs them) on the master side of a pty, with
 * a desktop program on the slave side.  Tests palm-sync against the
 * handheld on the host, without QEMU, in seconds and under ASan.
 *
 *   pty-handheld [--slp] [--wakeup-baud N] [--dlp-version 1.1|...|1.4|R/A] [--drop-ack]
 *                [--capacity BYTES] [--overstate-free BYTES]
 *                [--store FILE]... [--export DIR] [--user FILE]
 *                -- palm-sync --port @PTY@ list
 *
 * @PTY@ in the command becomes the slave's path.  Exits with the
 * command's status; with --export, the store is written out afterwards.
 * --user FILE keeps the user info (ids, lastSyncPC, sync dates, name)
 * from one run to the next, as a handheld keeps it between syncs; without
 * it (or with no such file yet) the handheld has never synced (lastSyncPC 0).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "dlp.h"
#include "dlp_server.h"
#include "link.h"
#include "store.h"

static void user_load(const char *path, struct dlp_user *u)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	long long last = 0, ok = 0;

	if (!f)
		return;
	if (fscanf(f, "%" SCNu32 " %" SCNu32 " %" SCNx32 " %lld %lld %40[^\n]", &u->user_id,
		   &u->viewer_id, &u->last_sync_pc, &last, &ok, u->name) >= 5) {
		u->last_sync = (time_t)last;
		u->successful_sync = (time_t)ok;
	}
	fclose(f);
}

static void user_save(const char *path, const struct dlp_user *u)
{
	FILE *f = path ? fopen(path, "w") : NULL;

	if (!f)
		return;
	fprintf(f, "%" PRIu32 " %" PRIu32 " %" PRIx32 " %lld %lld %s\n", u->user_id, u->viewer_id,
		u->last_sync_pc, (long long)u->last_sync, (long long)u->successful_sync, u->name);
	fclose(f);
}

static int write_all(int fd, struct hs_buf *b)
{
	while (b->len) {
		ssize_t n = write(fd, b->data, b->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		hs_buf_consume(b, (size_t)n);
	}
	return 0;
}

static int open_pty(int *master, char *slave_path, size_t size, int *slave)
{
	struct termios t;

	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*master < 0 || grantpt(*master) < 0 || unlockpt(*master) < 0 ||
	    ptsname_r(*master, slave_path, size) != 0)
		return -errno;
	/* raw before the desktop opens it: no echo of the handheld's bytes */
	*slave = open(slave_path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*slave < 0 || tcgetattr(*slave, &t) < 0)
		return -errno;
	cfmakeraw(&t);
	return tcsetattr(*slave, TCSANOW, &t) < 0 ? -errno : 0;
}

static pid_t run(char **cmd, const char *slave_path)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (int i = 0; cmd[i]; i++)
			if (strcmp(cmd[i], "@PTY@") == 0)
				cmd[i] = (char *)slave_path;
		execvp(cmd[0], cmd);
		fprintf(stderr, "pty-handheld: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/* Serve until the desktop program exits; returns its wait status. */
static int serve(int master, pid_t child, struct hs_link *link, struct dlp_server *dlp)
{
	struct hs_buf resp = { 0 };
	int status = 0;
	bool serving = true;

	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		int64_t dl = hs_link_deadline(link);
		uint8_t buf[65536];
		ssize_t n;
		int r;

		if (waitpid(child, &status, WNOHANG) == child)
			break;
		if (serving && write_all(master, &link->out) < 0)
			serving = false;
		if (poll(&p, 1, dl < 0 ? 50 : (int)(dl > hs_now_ms() ? dl - hs_now_ms() : 0)) < 0 &&
		    errno != EINTR)
			break;
		if (serving && hs_link_tick(link, hs_now_ms()) < 0)
			serving = false;
		if (!(p.revents & POLLIN))
			continue;
		n = read(master, buf, sizeof(buf));
		if (n <= 0 || !serving)
			continue;
		if (hs_link_input(link, buf, (size_t)n, hs_now_ms()) < 0) {
			fprintf(stderr, "pty-handheld: link failed: %s\n", link->error);
			serving = false;
		}
		while (serving && (r = dlp_server_answer(dlp, link, &resp, hs_now_ms())))
			serving = r > 0;
	}
	hs_buf_free(&resp);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "slp", no_argument, NULL, 's' },
		{ "dlp-version", required_argument, NULL, 'd' },
		{ "drop-ack", no_argument, NULL, 'a' },
		{ "store", required_argument, NULL, 'f' },
		{ "export", required_argument, NULL, 'e' },
		{ "user", required_argument, NULL, 'u' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "wakeup-baud", required_argument, NULL, 'b' },
		{ "overstate-free", required_argument, NULL, 'o' },
		{ 0 },
	};
	struct store store = { .capacity = STORE_DEFAULT_CAPACITY };
	struct hs_link link = { 0 };
	struct dlp_server dlp;
	enum hs_stack stack = HS_NET;
	uint16_t version, reported;
	uint32_t overstate = 0;
	const char *export_dir = NULL, *user_file = NULL;
	char slave_path[128];
	bool drop_ack = false;
	int master = -1, slave = -1, c, status;
	pid_t child;

	dlp_server_version_parse(DLP_SERVER_DEFAULT_VERSION, &version, &reported);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': stack = HS_SLP; break;
		case 'a': drop_ack = true; break;
		case 'e': export_dir = optarg; break;
		case 'u': user_file = optarg; break;
		case 'c': store.capacity = strtoul(optarg, NULL, 10); break;
		case 'o': overstate = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'b': link.wakeup_baud = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'd':
			if (dlp_server_version_parse(optarg, &version, &reported) < 0) {
				fprintf(stderr, "pty-handheld: bad --dlp-version '%s'\n", optarg);
				return 2;
			}
			break;
		case 'f': {
			struct pdb *db = calloc(1, sizeof(*db));

			if (!db || pdb_load(optarg, db) < 0 || store_add(&store, db) < 0) {
				fprintf(stderr, "pty-handheld: cannot load %s\n", optarg);
				return 2;
			}
			break;
		}
		default: return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: pty-handheld [options] -- COMMAND...\n");
		return 2;
	}
	if (open_pty(&master, slave_path, sizeof(slave_path), &slave) < 0) {
		perror("pty-handheld: pty");
		return 1;
	}
	dlp_server_init(&dlp, &store, version);
	dlp.reported = reported;
	dlp.overstate_free = overstate;
	user_load(user_file, &dlp.user);
	hs_link_init(&link, HS_HANDHELD, stack, hs_now_ms());
	link.drop_acks = drop_ack ? 1 : 0;
	child = run(argv + optind, slave_path);
	close(slave);
	status = serve(master, child, &link, &dlp);
	user_save(user_file, &dlp.user);
	if (export_dir && store_export(&store, export_dir) < 0)
		fprintf(stderr, "pty-handheld: cannot export to %s\n", export_dir);
	/* idle=1: the desktop acknowledged everything, the last answer too */
	printf("pty-handheld: requests=%llu errors=%llu duplicates=%llu end_of_sync=%d reset=%d "
	       "idle=%d baud=%u long_headers=%d tickles=%llu\n",
	       (unsigned long long)dlp.requests, (unsigned long long)dlp.errors,
	       (unsigned long long)link.stats.duplicates, dlp.end_of_sync, dlp.reset_requested,
	       hs_link_idle(&link), link.baud, link.long_headers,
	       (unsigned long long)link.stats.tickles_seen);
	hs_link_free(&link);
	dlp_server_free(&dlp);
	store_free(&store);
	close(master);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
