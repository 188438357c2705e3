// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "waiter.h"

#define COMMAND_MAX 4096

/* What the command's exit says to a user (126 and 127 are the shell's). */
static void log_result(const struct sync_result *res)
{
	if (res->timed_out) {
		sync_log("sync stopped after %.1f s: it ran past its time limit (--timeout); "
			 "the next press starts it again",
			 res->seconds);
	} else if (res->signal) {
		sync_log("sync killed by signal %d (%s), took %.1f s", res->signal,
			 strsignal(res->signal), res->seconds);
	} else if (res->exit_status == 127) {
		sync_log(
			"sync failed, exit status 127: the sync command was not found, took %.1f s",
			res->seconds);
	} else if (res->exit_status == 126) {
		sync_log(
			"sync failed, exit status 126: the sync command cannot be run, took %.1f s",
			res->seconds);
	} else if (res->exit_status) {
		sync_log("sync failed, exit status %d, took %.1f s", res->exit_status,
			 res->seconds);
	} else {
		sync_log("sync finished, exit status 0, took %.1f s", res->seconds);
	}
}

/* A press: run the command once, if there is one; true if it ran. */
static bool arrival(struct waiter *w)
{
	char command[COMMAND_MAX];
	struct sync_result res = { 0 };
	int r = w->ops->command(w->ctx, command, sizeof(command));

	if (r == -ENOENT) {
		sync_log("HotSync pressed, but there is no sync command: write one into %s "
			 "(pilotd-sync(1)); waiting for the next press",
			 w->config);
		return false;
	}
	if (r < 0) {
		sync_log("HotSync pressed, but %s cannot be read: %s; waiting for the next press",
			 w->config,
			 r == -E2BIG	? "its command line is too long (not run cut short)"
			 : r == -EINVAL ? "not a regular file"
					: strerror(-r));
		return false;
	}
	sync_log("HotSync pressed: sync started: %s", command);
	r = w->ops->run(w->ctx, command, &res);
	if (r < 0) {
		sync_log("sync not started: %s; waiting for the next press", strerror(-r));
		return false;
	}
	w->syncs++;
	log_result(&res);
	return true;
}

/*
 * What happened on the port while the command ran, from the carrier
 * changes counted since its arrival: each later arrival (a change to
 * down, then one to up) was a press that the running sync had; none
 * starts another.
 */
static void after_sync(const struct waiter *w, bool carrier, unsigned int start,
		       unsigned int changes)
{
	if (changes < start) {
		sync_log("pilotd restarted while the sync ran");
		return;
	}
	unsigned int presses = (changes - start) / 2;

	if (presses)
		sync_log("HotSync pressed %u more time%s while the sync ran: the running sync had "
			 "%s; "
			 "no second sync started",
			 presses, presses > 1 ? "s" : "", presses > 1 ? "them" : "it");
	if (carrier)
		sync_log("the handheld is still on %s: the next sync starts at the next press, "
			 "once it has left",
			 w->device);
}

void waiter_run(struct waiter *w)
{
	bool missing = false;	/* said that the port cannot be watched */
	bool synced = false;	/* a sync ran since the last departure */
	bool ran = false;	/* the port not looked at since the command ran */
	unsigned int start = 0; /* the carrier changes at that arrival */

	sync_log("waiting for HotSync presses on %s; the command comes from %s", w->device,
		 w->config);
	for (;;) {
		int r = w->ops->open(w->ctx);

		if (r == -ESHUTDOWN)
			return;
		if (r < 0) {
			if (!missing)
				sync_log("cannot open %s: %s; trying again every second "
					 "(is pilotd running?)",
					 w->device, strerror(-r));
			missing = true;
			w->ops->pause(w->ctx);
			continue;
		}
		for (;;) {
			bool carrier;
			unsigned int changes;

			r = w->ops->state(w->ctx, &carrier, &changes);
			if (r < 0)
				break;
			if (missing)
				sync_log("%s is there again", w->device);
			missing = false;
			if (ran) {
				after_sync(w, carrier, start, changes);
				ran = false;
				if (changes < start) /* another pilotd: this is an arrival */
					synced = false;
			}
			if (!carrier) {
				synced = false; /* the next rise is a new press */
			} else if (!synced) {
				/* no descriptor of ours while the command has the port */
				w->ops->close(w->ctx);
				synced = true;
				start = changes;
				ran = arrival(w);
				goto reopen;
			}
			r = w->ops->wait(w->ctx);
			if (r < 0)
				break;
		}
		w->ops->close(w->ctx);
		/* EIO: hung up by a departure, so whatever carrier the next
		 * file sees is a new press (a quick unplug and plug included);
		 * open again at once.  Anything else (pilotd gone, not a port at
		 * all) waits a second. */
		if (r == -EIO) {
			synced = false;
		} else {
			if (!missing)
				sync_log("%s: %s; trying again every second", w->device,
					 strerror(-r));
			missing = true;
			w->ops->pause(w->ctx);
		}
	reopen:;
	}
}
