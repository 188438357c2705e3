/* SPDX-License-Identifier: MIT */
/*
 * pilotd-sync's decisions: when a HotSync press runs the user's sync
 * command, and what each edge says in the log.  Plain C behind a table
 * of calls (the port, the command), so tests/unit/test_sync_waiter.c
 * drives it with a scripted handheld; pilotd/sync/main.c gives it
 * /dev/pilot (TIOCMGET, TIOCGICOUNT, TIOCMIWAIT), command.c the command.
 *
 * A press is an arrival: /dev/pilot's carrier (CD) rises when a handheld
 * comes onto the bus (docs/design.md "Session edges").  The command runs
 * once per arrival, one at a time, with no descriptor of ours open; the
 * next sync needs the carrier to drop and rise again, so a command that
 * exits at once never runs again until the next press.
 */
#ifndef PILOTD_SYNC_WAITER_H
#define PILOTD_SYNC_WAITER_H

#include <stdbool.h>
#include <stddef.h>

struct sync_result {
	int exit_status; /* when !signal */
	int signal;	 /* the signal that ended it, or 0 */
	bool timed_out;	 /* stopped at its time limit (command.h) */
	double seconds;
};

struct waiter_ops {
	/* Open the port without waiting and without taking bytes: 0, or
	 * -errno; -ESHUTDOWN ends waiter_run() (the tests' end). */
	int (*open)(void *ctx);
	/* The carrier now, and the port's count of carrier changes
	 * (TIOCGICOUNT's dcd: each arrival and each departure): 0, or
	 * -errno (-EIO: this file was hung up by a departure). */
	int (*state)(void *ctx, bool *carrier, unsigned int *changes);
	/* Sleep until the carrier changes: 0, or -errno (-EIO: hung up). */
	int (*wait)(void *ctx);
	void (*close)(void *ctx);
	/* Sleep a second: the port is missing (pilotd not running). */
	void (*pause)(void *ctx);
	/* The sync command into buf (one line): 0, -ENOENT when there is
	 * none, other -errno when it cannot be read. */
	int (*command)(void *ctx, char *buf, size_t size);
	/* Run the command to its end: 0, or -errno when it could not start. */
	int (*run)(void *ctx, const char *command, struct sync_result *res);
};

struct waiter {
	const struct waiter_ops *ops;
	void *ctx;
	const char *device; /* for the log */
	const char *config; /* where the command comes from, for the log */
	unsigned int syncs; /* commands run */
};

/* Log one line (main.c: stderr, "pilotd-sync: " first; the tests keep it). */
void sync_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Wait for presses and sync at each; returns when ops->open says
 * -ESHUTDOWN. */
void waiter_run(struct waiter *w);

#endif
