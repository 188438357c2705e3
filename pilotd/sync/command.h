/* SPDX-License-Identifier: MIT */
/*
 * pilotd-sync's sync command: read from the user's file at each press,
 * and run by /bin/sh -c to its end, or to its time limit.  main.c gives
 * both to waiter.c; tests/unit/test_sync_command.c runs them for real.
 *
 * The limit: a command that never ends (a desktop waiting on something
 * that never comes) would take every later press with it, unseen.  At
 * run_ms its process group (the shell and what it started, unless they
 * left the group) gets SIGTERM, and kill_ms later SIGKILL; the sync is
 * logged as stopped.  0 for run_ms: no limit (a desktop that serves
 * presses itself).
 */
#ifndef PILOTD_SYNC_COMMAND_H
#define PILOTD_SYNC_COMMAND_H

#include <stddef.h>

#include "waiter.h"

#define SYNC_RUN_MS_DEFAULT (3600u * 1000) /* an hour: a whole backup is minutes */
#define SYNC_KILL_MS	    10000u	   /* after SIGTERM, until SIGKILL */

struct sync_limits {
	unsigned int run_ms; /* 0: none */
	unsigned int kill_ms;
};

/*
 * The first line of path that is neither empty nor a comment, into buf:
 * 0, -ENOENT when there is none, -E2BIG when that line does not fit in
 * buf (it is never run cut short), -EINVAL when path is not a regular
 * file (a FIFO would hold pilotd-sync in open(2)), other -errno.
 */
int sync_read_command(const char *path, char *buf, size_t size);

/*
 * sh -c command with PILOTPORT=device, in a process group of its own, to
 * its end or its limit: 0 and *res, or -errno when it could not start.
 */
int sync_run_command(const char *command, const char *device, const struct sync_limits *lim,
		     struct sync_result *res);

#endif
