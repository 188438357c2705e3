// SPDX-License-Identifier: MIT
/*
 * pilotd-sync's decisions (pilotd/sync/waiter.c) against a scripted
 * handheld: each wait() on the port takes the script's next step (a
 * press brings the handheld onto the bus, a departure hangs up the open
 * file, as pilotd does), each run of the command takes the steps the
 * sync brings (a real handheld leaves when its sync ends) and an exit
 * status.  Checked: one sync per press, none while a file of ours is
 * open, none again until the handheld has left and come back, and the
 * log line of each edge.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "waiter.h"

enum step { END, ARRIVE, LEAVE, REPLUG /* LEAVE and ARRIVE before the waiter looks */ };

struct sync_script {
	const char *command; /* NULL: none configured */
	enum step during[4]; /* what happens while it runs, END-terminated */
	int exit_status;
	bool timed_out; /* stopped at its limit (SIGTERM) */
};

struct fake {
	/* the port */
	bool carrier, open, hung_up;
	unsigned int changes;
	int missing; /* opens that fail with ENOENT first */
	int pauses;
	int notty; /* states that fail with ENOTTY first */
	/* the script */
	const enum step *steps;		 /* at each wait(), END-terminated */
	const struct sync_script *syncs; /* at each arrival's command(), in order */
	int nsyncs, arrivals, runs, calls;
	bool ended;
	char ran[8][64];
};

static char log_buf[8192];

void sync_log(const char *fmt, ...)
{
	size_t n = strlen(log_buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(log_buf + n, sizeof(log_buf) - n, fmt, ap);
	va_end(ap);
	n = strlen(log_buf);
	snprintf(log_buf + n, sizeof(log_buf) - n, "\n");
}

static int count(const char *needle)
{
	int n = 0;

	for (const char *s = log_buf; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

static void apply(struct fake *f, enum step s)
{
	f->carrier = s == ARRIVE;
	f->changes++;
	if (s == LEAVE && f->open)
		f->hung_up = true;
}

static int f_open(void *ctx)
{
	struct fake *f = ctx;

	if (f->ended || ++f->calls > 1000) /* 1000: the waiter loops */
		return -ESHUTDOWN;
	if (f->missing) {
		f->missing--;
		return -ENOENT;
	}
	CHECK(!f->open);
	f->open = true;
	f->hung_up = false;
	return 0;
}

static int f_state(void *ctx, bool *carrier, unsigned int *changes)
{
	struct fake *f = ctx;

	CHECK(f->open);
	if (f->hung_up)
		return -EIO;
	*carrier = f->carrier;
	*changes = f->changes;
	return 0;
}

static int f_wait(void *ctx)
{
	struct fake *f = ctx;
	enum step s = *f->steps;

	CHECK(f->open && !f->hung_up);
	if (s == END) {
		f->ended = true;
		return -EIO;
	}
	f->steps++;
	if (s == REPLUG) {
		apply(f, LEAVE);
		s = ARRIVE;
	}
	apply(f, s);
	return f->hung_up ? -EIO : 0;
}

static void f_close(void *ctx)
{
	struct fake *f = ctx;

	CHECK(f->open);
	f->open = false;
}

static void f_pause(void *ctx)
{
	((struct fake *)ctx)->pauses++;
}

static const struct sync_script *current(struct fake *f)
{
	int i = f->arrivals - 1;

	return i < f->nsyncs ? &f->syncs[i] : &f->syncs[f->nsyncs - 1];
}

static int f_command(void *ctx, char *buf, size_t size)
{
	struct fake *f = ctx;

	f->arrivals++;
	if (!current(f)->command)
		return -ENOENT;
	snprintf(buf, size, "%s", current(f)->command);
	return 0;
}

static int f_run(void *ctx, const char *command, struct sync_result *res)
{
	struct fake *f = ctx;
	const struct sync_script *s = current(f);

	CHECK(!f->open); /* the command has the port to itself */
	if (f->runs < 8)
		snprintf(f->ran[f->runs], sizeof(f->ran[0]), "%s", command);
	f->runs++;
	for (const enum step *e = s->during; *e != END; e++)
		apply(f, *e);
	res->exit_status = s->exit_status;
	res->signal = s->timed_out ? 15 : 0;
	res->timed_out = s->timed_out;
	res->seconds = 2.5;
	return 0;
}

static const struct waiter_ops fake_ops = {
	.open = f_open,
	.state = f_state,
	.wait = f_wait,
	.close = f_close,
	.pause = f_pause,
	.command = f_command,
	.run = f_run,
};

static void run(struct fake *f)
{
	struct waiter w = { .ops = &fake_ops,
			    .ctx = f,
			    .device = "/dev/pilot",
			    .config = "/home/u/.config/pilotd/sync" };

	log_buf[0] = '\0';
	waiter_run(&w);
	CHECK(f->calls < 1000);
	CHECK_EQ(w.syncs, f->runs);
}

/* Three presses, three syncs; each handheld leaves when its sync ends. */
static void test_three_presses(void)
{
	static const enum step steps[] = { ARRIVE, ARRIVE, ARRIVE, END };
	static const struct sync_script syncs[] = {
		{ .command = "pilot-xfer -l", .during = { LEAVE } },
		{ .command = "palm-sync --like-pilot-link list", .during = { LEAVE } },
	};
	struct fake f = { .steps = steps, .syncs = syncs, .nsyncs = 2 };

	run(&f);
	CHECK_EQ(f.runs, 3);
	CHECK(strcmp(f.ran[0], "pilot-xfer -l") == 0);
	CHECK(strcmp(f.ran[1], "palm-sync --like-pilot-link list") == 0);
	CHECK_EQ(count("HotSync pressed: sync started: "), 3);
	CHECK_EQ(count("sync finished, exit status 0, took 2.5 s"), 3);
	CHECK_EQ(count("still on"), 0);
}

/* A handheld already calling when pilotd-sync starts is a press. */
static void test_calling_at_start(void)
{
	static const enum step steps[] = { END };
	static const struct sync_script syncs[] = { { .command = "x", .during = { LEAVE } } };
	struct fake f = {
		.carrier = true, .changes = 1, .steps = steps, .syncs = syncs, .nsyncs = 1
	};

	run(&f);
	CHECK_EQ(f.runs, 1);
}

/*
 * A command that fails at once leaves the handheld on the bus: it is
 * logged, and nothing runs again until the handheld has left and HotSync
 * is pressed again (never a loop).
 */
static void test_fails_at_once(void)
{
	static const enum step steps[] = { ARRIVE, LEAVE, ARRIVE, END };
	static const struct sync_script syncs[] = {
		{ .command = "pilot-xfer -p /dev/pilot -l", .exit_status = 1 },
		{ .command = "pilot-xfer -p /dev/pilot -l", .during = { LEAVE } },
	};
	struct fake f = { .steps = steps, .syncs = syncs, .nsyncs = 2 };

	run(&f);
	CHECK_EQ(f.runs, 2);
	CHECK_EQ(count("sync failed, exit status 1, took 2.5 s"), 1);
	CHECK_EQ(count("the handheld is still on /dev/pilot: the next sync starts at the next "
		       "press, once it has left"),
		 1);
	CHECK_EQ(count("sync finished, exit status 0"), 1);
}

/*
 * A command stopped at its time limit (pilotd/sync/command.h) is said to
 * be, and the next press runs it again.
 */
static void test_timed_out(void)
{
	static const enum step steps[] = { LEAVE, ARRIVE, END };
	static const struct sync_script syncs[] = {
		{ .command = "jpilot-sync", .timed_out = true },
		{ .command = "jpilot-sync", .during = { LEAVE } },
	};
	struct fake f = { .steps = steps, .syncs = syncs, .nsyncs = 2, .carrier = true };

	run(&f);
	CHECK_EQ(f.runs, 2);
	CHECK_EQ(count("sync stopped after 2.5 s: it ran past its time limit (--timeout); the "
		       "next press starts it again"),
		 1);
	CHECK_EQ(count("killed by signal"), 0);
	CHECK_EQ(count("sync finished, exit status 0"), 1);
}

/*
 * The handheld left and came back before pilotd-sync looked (palm-sim's
 * "sync": unplug, plug): the hangup of its file says a departure came,
 * so the carrier it then sees is a new press.
 */
static void test_quick_replug(void)
{
	static const enum step steps[] = { ARRIVE, REPLUG, END };
	static const struct sync_script syncs[] = {
		{ .command = "x", .exit_status = 1 },
		{ .command = "x", .during = { LEAVE } },
	};
	struct fake f = { .steps = steps, .syncs = syncs, .nsyncs = 2 };

	run(&f);
	CHECK_EQ(f.runs, 2);
}

/* Exit statuses 127 and 126 are the shell's: say what they mean. */
static void test_not_found(void)
{
	static const enum step steps[] = { ARRIVE, ARRIVE, END };
	static const struct sync_script syncs[] = {
		{ .command = "jpilot-sync", .during = { LEAVE }, .exit_status = 127 },
		{ .command = "./sync", .during = { LEAVE }, .exit_status = 126 },
	};
	struct fake f = { .steps = steps, .syncs = syncs, .nsyncs = 2 };

	run(&f);
	CHECK_EQ(f.runs, 2);
	CHECK_EQ(count("exit status 127: the sync command was not found"), 1);
	CHECK_EQ(count("exit status 126: the sync command cannot be run"), 1);
}

/* No command configured: said with the file to write; the next press syncs. */
static void test_no_command(void)
{
	static const enum step steps[] = { ARRIVE, LEAVE, ARRIVE, END };
	static const struct sync_script syncs[] = {
		{ .command = NULL },
		{ .command = "coldsync", .during = { LEAVE } },
	};
	struct fake f = { .steps = steps, .syncs = syncs, .nsyncs = 2 };

	run(&f);
	CHECK_EQ(f.arrivals, 2);
	CHECK_EQ(f.runs, 1);
	CHECK_EQ(count("HotSync pressed, but there is no sync command: write one into "
		       "/home/u/.config/pilotd/sync"),
		 1);
	CHECK_EQ(count("sync finished"), 1);
}

/*
 * A press while the sync runs (its handheld left, another came) goes to
 * the running sync: logged, no second sync while that handheld stays;
 * the press after it has left syncs.
 */
static void test_press_while_running(void)
{
	static const enum step steps[] = { ARRIVE, LEAVE, ARRIVE, END };
	static const struct sync_script syncs[] = {
		{ .command = "jpilot-sync -l", .during = { LEAVE, ARRIVE } },
		{ .command = "jpilot-sync -l", .during = { LEAVE } },
	};
	struct fake f = { .steps = steps, .syncs = syncs, .nsyncs = 2 };

	run(&f);
	CHECK_EQ(f.runs, 2);
	CHECK_EQ(count("HotSync pressed 1 more time while the sync ran: the running sync had it; "
		       "no second sync started"),
		 1);
	CHECK_EQ(count("still on"), 1);
	CHECK_EQ(count("sync finished"), 2);
}

/* Two presses during one sync, the last handheld gone by its end. */
static void test_two_presses_while_running(void)
{
	static const enum step steps[] = { ARRIVE, END };
	static const struct sync_script syncs[] = {
		{ .command = "x", .during = { LEAVE, ARRIVE, LEAVE } },
	};
	struct fake f = { .steps = steps, .syncs = syncs, .nsyncs = 1 };

	run(&f);
	CHECK_EQ(f.runs, 1);
	CHECK_EQ(count("HotSync pressed 1 more time"), 1);
	CHECK_EQ(count("still on"), 0);
}

/* /dev/pilot missing (pilotd not running): said once, tried every second. */
static void test_port_missing(void)
{
	static const enum step steps[] = { ARRIVE, END };
	static const struct sync_script syncs[] = { { .command = "x", .during = { LEAVE } } };
	struct fake f = { .missing = 3, .steps = steps, .syncs = syncs, .nsyncs = 1 };

	run(&f);
	CHECK_EQ(f.pauses, 3);
	CHECK_EQ(count("cannot open /dev/pilot: No such file or directory; trying again every "
		       "second (is pilotd running?)"),
		 1);
	CHECK_EQ(count("/dev/pilot is there again"), 1);
	CHECK_EQ(f.runs, 1);
}

/*
 * A file that is no port (TIOCMGET fails with ENOTTY: a wrong --device)
 * or pilotd gone under it: said once, tried every second, never a loop.
 */
static int notty_state(void *ctx, bool *carrier, unsigned int *changes)
{
	struct fake *f = ctx;

	return f->notty-- > 0 ? -ENOTTY : f_state(ctx, carrier, changes);
}

static void test_not_a_port(void)
{
	static const enum step steps[] = { ARRIVE, END };
	static const struct sync_script syncs[] = { { .command = "x", .during = { LEAVE } } };
	struct waiter_ops ops = fake_ops;
	struct fake f = { .notty = 5, .steps = steps, .syncs = syncs, .nsyncs = 1 };
	struct waiter w = { .ops = &ops, .ctx = &f, .device = "/dev/ttyS0", .config = "c" };

	ops.state = notty_state;
	log_buf[0] = '\0';
	waiter_run(&w);
	CHECK_EQ(f.pauses, 5);
	CHECK_EQ(count("/dev/ttyS0: Inappropriate ioctl for device; trying again every second"), 1);
	CHECK_EQ(count("/dev/ttyS0 is there again"), 1);
	CHECK_EQ(f.runs, 1);
}

int main(void)
{
	test_three_presses();
	test_calling_at_start();
	test_fails_at_once();
	test_timed_out();
	test_not_found();
	test_quick_replug();
	test_no_command();
	test_press_while_running();
	test_two_presses_while_running();
	test_port_missing();
	test_not_a_port();
	if (check_failures)
		fprintf(stderr, "last log:\n%s", log_buf);
	return check_result("test_sync_waiter");
}
