// SPDX-License-Identifier: MIT
/*
 * Which handheld the libusb transport takes: pilotd/link_libusb.c and
 * link_libusb_io.c, run by pilotd's loop as main.c runs them, over a fake
 * libusb (fake_libusb.h) with handhelds plugged in and pulled out, a port
 * behind the harness's fake front (port_harness.h) and a fake clock.
 * Each scenario is what a user with more than one device on the bus sees:
 * which handheld a desktop's bytes on /dev/pilot reach, that one that
 * waited is taken, that one not configured yet is tried again for 5 s and
 * no longer, that one that could not be taken or was given up on stays
 * out until it is plugged in again, that devices that all fail do not
 * make pilotd list the bus over and over, and that the loop goes on while
 * a device's open waits on the kernel (it runs on the opener's thread).
 *
 * The clock (loop_now_ms(), wrapped at link time: -Wl,--wrap) moves on
 * only when the loop would sleep: nothing is ready, and no other thread
 * of this process runs (a thread that opens a device posts its result
 * before it ends), so the scenarios take a fraction of their time and
 * happen in the same order on a loaded machine.
 */
#include <dirent.h>
#include <stdarg.h>
#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "core/log.h"
#include "core/loop.h"
#include "core/port.h"
#include "fake_libusb.h"
#include "kept_log.h"
#include "link.h"
#include "link_libusb_impl.h"
#include "port_harness.h"

#define TICK_MS	       100   /* the most the clock moves while the loop would sleep */
#define THREAD_WAIT_MS 10    /* real time: for another thread's result */
#define REAL_LIMIT_MS  60000 /* a scenario that takes longer is stuck */
#define RETRIES_MS     ((ARRIVE_TRIES_MAX - 1) * ARRIVE_RETRY_MS)

/* a Palm Tungsten T, answering as the fake's handhelds do, at an address of its own */
#define HANDHELD(n, addr) .name = (n), .vid = 0x0830, .pid = 0x0060, .address = (addr)
/* not configured yet: usbfs has no interface 0 to claim (EINVAL) */
#define UNCONFIGURED(ms) .claim_error = LIBUSB_ERROR_INVALID_PARAM, .configured_ms = (ms)

/* ---- the clock ---- */

static uint64_t clock_ms = 1000000; /* loop_now_ms() is never 0 */

uint64_t __wrap_loop_now_ms(void);

/*
 * Real time, for the guards: not __real_loop_now_ms(), which is the time
 * the last round of any loop woke at (one reading a round), so stands still
 * between rounds and across a scenario's end and the next one's start.
 */
static uint64_t real_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t __wrap_loop_now_ms(void)
{
	return __atomic_load_n(&clock_ms, __ATOMIC_ACQUIRE);
}

static uint64_t now(void)
{
	return __wrap_loop_now_ms();
}

/* ---- the log a user reads: kept_log.h ---- */

/* This process's threads (a sanitizer's own among them). */
static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int threads_before_pilotd;

/* Does a thread of pilotd's run (one opening a device)? */
static bool other_thread_runs(void)
{
	return threads() > threads_before_pilotd;
}

/* ---- pilotd: its loop, the port, the libusb transport ---- */

static struct {
	struct loop loop;
	struct port port;
	struct ph h; /* the front: a desktop's requests */
	struct link *link;
	uint64_t real_start;
	bool stuck;
} pd;

static void start_pilotd_for(const struct link_match *match)
{
	pd.real_start = real_ms();
	kept_log_reset();
	kept_log_echo = true;
	threads_before_pilotd = threads();
	pd.stuck = false;
	CHECK_EQ(loop_init(&pd.loop), 0);
	CHECK_EQ(ph_init(&pd.h, &pd.port, &ph_config_pilotd, 64), 0);
	CHECK_EQ(link_libusb_start(&pd.link, match, &pd.loop, &pd.port), 0);
	pd.h.pump = pd.link->pump; /* the port's hooks, as main.c wires them */
	pd.h.clock = now;
}

static void start_pilotd(void)
{
	const struct link_match any_palm = { .any_palm = true };

	start_pilotd_for(&any_palm);
}

/* One round of main.c's loop; the clock moves on if it would sleep. */
static void loop_round(void)
{
	int timeout = pd.link->ops->timeout_ms(pd.link);
	bool thread = other_thread_runs(); /* before the wait: its result is posted then */
	int n = loop_run_once(&pd.loop, timeout != 0 && thread ? THREAD_WAIT_MS : 0);

	if (n == 0 && timeout != 0 && !thread)
		__atomic_add_fetch(&clock_ms, timeout < 0 || timeout > TICK_MS ? TICK_MS : timeout,
				   __ATOMIC_ACQ_REL);
	pd.link->ops->after_events(pd.link, n == 0);
	port_after_events(&pd.port, now());
	if (!pd.stuck && real_ms() - pd.real_start > REAL_LIMIT_MS) {
		fprintf(stderr, "the scenario is stuck: %d ms of real time\n", REAL_LIMIT_MS);
		pd.stuck = true;
		check_failures++;
	}
}

/*
 * Rounds until no opener's thread runs and the loop took its result (it
 * joined the thread): what the fake noted is then the test's to read.
 */
static void settle(void)
{
	while (other_thread_runs() && !pd.stuck)
		loop_round();
	loop_round();
}

static void run_for(uint64_t ms)
{
	uint64_t end = now() + ms;

	while (now() < end && !pd.stuck)
		loop_round();
	settle();
}

/* Does a desktop on /dev/pilot talk to d: its interface held, the
 * handshake answered, the carrier up? */
static bool talks_to(const struct fake_dev *d)
{
	return d->claimed && d->handshake_done && pd.port.carrier;
}

/* Run until pilotd talks to d, for ms at most; true if it does. */
static bool run_until_talks_to(const struct fake_dev *d, uint64_t ms)
{
	uint64_t end = now() + ms;

	while (now() < end && !pd.stuck && (other_thread_runs() || !talks_to(d)))
		loop_round();
	settle();
	return talks_to(d);
}

/* A desktop opens /dev/pilot, writes, closes: do its bytes reach d? */
static bool desktop_reaches(const struct fake_dev *d)
{
	char msg[32];
	uint64_t fh = ph_open(&pd.h, 1000, true, false);
	int len = snprintf(msg, sizeof(msg), "to %s", d->name);
	bool reached;

	if (!fh)
		return false;
	ph_write(&pd.h, fh, msg, (size_t)len, true);
	run_for(TICK_MS);
	reached = d->out_len == (size_t)len && memcmp(d->out, msg, (size_t)len) == 0;
	port_release(&pd.port, fh);
	run_for(TICK_MS);
	return reached;
}

/* pilotd stops: every device closed, every reference back to libusb. */
static void stop_pilotd(void)
{
	pd.link->ops->stop(pd.link);
	CHECK_EQ(fake_usb_open_handles(), 0);
	CHECK_EQ(fake_usb_stray_refs(), 0);
	ph_free(&pd.h);
	loop_free(&pd.loop);
	fake_usb_reset();
}

/* ---- the scenarios ---- */

/* One handheld: taken at once, a desktop's bytes reach it. */
static void test_one_handheld(void)
{
	struct fake_dev a = { HANDHELD("A", 5) };

	fake_usb_plug(&a);
	start_pilotd();
	CHECK(run_until_talks_to(&a, 1000));
	CHECK(desktop_reaches(&a));
	CHECK_EQ(a.opens, 1);
	stop_pilotd();
}

/*
 * A Treo 90 answers the extended connection-information request empty
 * and sends the reply on its interrupt pipe (desrod/pilot-link issue 13):
 * the transport carries the set-up's interrupt read, and HotSync runs on
 * the endpoints it names.
 */
static void test_treo_90(void)
{
	struct fake_dev t = { .name = "Treo",
			      .vid = 0x082d,
			      .pid = 0x0200,
			      .address = 6,
			      .conninfo_on_interrupt = true };

	fake_usb_plug(&t);
	start_pilotd();
	CHECK(run_until_talks_to(&t, 1000));
	CHECK_EQ(t.interrupt_reads, 1);
	CHECK(logged("set-up > interrupt IN 0x83, up to 32 bytes"));
	CHECK(logged("set-up < 20 bytes: 01 00 00 00 63 6e 79 73 02"));
	CHECK(logged("HotSync on bulk IN 0x82, OUT 0x02: from the connection information on the "
		     "interrupt pipe"));
	CHECK(desktop_reaches(&t));
	stop_pilotd();
}

/*
 * The kernel will not take the Treo 90's interrupt read (usbfs refuses an
 * endpoint it does not have: EINVAL): the set-up goes on without it, as
 * over usbredir when interrupt receiving is refused, and HotSync runs on
 * the first bulk pair; the handheld is not given up.
 */
static void test_treo_90_interrupt_refused(void)
{
	struct fake_dev t = { .name = "Treo",
			      .vid = 0x082d,
			      .pid = 0x0200,
			      .address = 6,
			      .conninfo_on_interrupt = true,
			      .interrupt_error = LIBUSB_ERROR_INVALID_PARAM };

	fake_usb_plug(&t);
	start_pilotd();
	CHECK(run_until_talks_to(&t, 1000));
	CHECK(logged("set-up > interrupt IN 0x83"));
	CHECK(logged("set-up < failed"));
	CHECK(logged("BYTES_AVAILABLE"));
	CHECK(logged("HotSync on bulk IN 0x82, OUT 0x02"));
	CHECK(desktop_reaches(&t));
	stop_pilotd();
}

/* The m100 is asked nothing (pilot-link USB_INIT_NONE): its stream starts
 * when it is opened, with no request in flight. */
static void test_asked_nothing(void)
{
	struct fake_dev m = { .name = "m100", .vid = 0x0830, .pid = 0x0080, .address = 7 };

	fake_usb_plug(&m);
	start_pilotd();
	run_for(1000);
	CHECK(m.claimed && pd.port.carrier);
	CHECK(!m.handshake_done); /* no BYTES_AVAILABLE either */
	CHECK(logged("set-up done after 0 requests"));
	CHECK(desktop_reaches(&m));
	stop_pilotd();
}

/* A handheld behind a hub is said to be there (macports-ports 33740); one
 * on a root port is not. */
static void test_behind_hub(void)
{
	struct fake_dev a = { HANDHELD("A", 5), .hub_port = 3 };
	struct fake_dev b = { HANDHELD("B", 4) };

	fake_usb_plug(&a);
	start_pilotd();
	CHECK(run_until_talks_to(&a, 1000));
	CHECK(logged("sits behind a hub (port 1-3.5)"));
	stop_pilotd();
	fake_usb_plug(&b);
	start_pilotd();
	CHECK(run_until_talks_to(&b, 1000));
	CHECK(!strstr(kept_log, "behind a hub"));
	stop_pilotd();
}

/* An ID no tool knows is taken when named (pilotd --device), and set up
 * as a generic Palm OS 4 handheld; without --device it is not. */
static void test_named_unknown(void)
{
	const struct link_match named = { .vid = 0x1209, .pid = 0x0001 };
	struct fake_dev u = { .name = "new", .vid = 0x1209, .pid = 0x0001, .address = 8 };

	fake_usb_plug(&u);
	start_pilotd();
	run_for(1000);
	CHECK_EQ(u.opens, 0);
	stop_pilotd();
	fake_usb_plug(&u);
	start_pilotd_for(&named);
	CHECK(run_until_talks_to(&u, 1000));
	CHECK(logged("set-up as generic Palm OS 4"));
	CHECK(desktop_reaches(&u));
	stop_pilotd();
}

/* A device that is no Palm handheld is never opened, whenever it comes
 * (pilotd --any-palm: the known models only). */
static void test_not_a_handheld(void)
{
	struct fake_dev m = { .name = "mouse", .vid = 0x046d, .pid = 0xc077, .address = 4 };
	struct fake_dev a = { HANDHELD("A", 5) };

	fake_usb_plug(&m);
	start_pilotd();
	run_for(1000);
	fake_usb_plug(&a);
	CHECK(run_until_talks_to(&a, 1000));
	fake_usb_pull(&a);
	run_for(1000);
	CHECK_EQ(m.opens, 0);
	CHECK(!pd.port.carrier);
	stop_pilotd();
}

/* One arrives while another is in use: it waits, and is taken when the
 * one in use leaves. */
static void test_waits_for_departure(void)
{
	struct fake_dev a = { HANDHELD("A", 5) };
	struct fake_dev b = { HANDHELD("B", 6) };

	fake_usb_plug(&a);
	start_pilotd();
	CHECK(run_until_talks_to(&a, 1000));
	fake_usb_plug(&b);
	run_for(10000);
	CHECK_EQ(b.opens, 0);
	CHECK(desktop_reaches(&a)); /* the one in use is not disturbed */
	fake_usb_pull(&a);
	CHECK(run_until_talks_to(&b, 1000));
	CHECK(desktop_reaches(&b));
	CHECK_EQ(fake_usb_refs(&a), 0); /* nothing of it kept once it left */
	stop_pilotd();
}

/* One that waited leaves before its turn: never opened, nothing of it
 * kept; the next one to come is taken. */
static void test_waiting_one_leaves(void)
{
	struct fake_dev a = { HANDHELD("A", 5) };
	struct fake_dev b = { HANDHELD("B", 6) };
	struct fake_dev c = { HANDHELD("C", 7) };

	fake_usb_plug(&a);
	start_pilotd();
	CHECK(run_until_talks_to(&a, 1000));
	fake_usb_plug(&b);
	run_for(1000);
	fake_usb_pull(&b);
	run_for(1000);
	fake_usb_pull(&a);
	run_for(1000);
	CHECK_EQ(b.opens, 0);
	CHECK_EQ(fake_usb_refs(&b), 0);
	CHECK(!pd.port.carrier);
	fake_usb_plug(&c);
	CHECK(run_until_talks_to(&c, 1000));
	stop_pilotd();
}

/* Hotplug tells of a device before the kernel configured it: opened again
 * every ARRIVE_RETRY_MS until it can be claimed (usbfs: EINVAL, or
 * ENOENT while the interface is being set up). */
static void test_configured_late(int claim_error)
{
	struct fake_dev a = { HANDHELD("A", 5), .claim_error = claim_error,
			      .configured_ms = now() + 3 * ARRIVE_RETRY_MS };

	fake_usb_plug(&a);
	start_pilotd();
	CHECK(run_until_talks_to(&a, 2000));
	CHECK_EQ(a.opens, 4); /* at 0, 100, 200 and 300 ms */
	CHECK_EQ(a.last_open_ms - a.first_open_ms, 3 * ARRIVE_RETRY_MS);
	stop_pilotd();
}

/* One never configured: tried every 100 ms for 5 s, then left alone while
 * it stays; plugged in again (configured), it is taken. */
static void test_retries_end(void)
{
	struct fake_dev a = { HANDHELD("A", 5), UNCONFIGURED(FAKE_NEVER) };

	fake_usb_plug(&a);
	start_pilotd();
	run_for(60000);
	CHECK_EQ(a.opens, ARRIVE_TRIES_MAX);
	CHECK(a.last_open_ms - a.first_open_ms >= RETRIES_MS);
	CHECK(a.last_open_ms - a.first_open_ms <= 6000); /* pilotd.8: about 5 s */
	CHECK_EQ(fake_usb_open_handles(), 0);
	fake_usb_pull(&a);
	run_for(1000);
	CHECK_EQ(fake_usb_refs(&a), 0);
	a.configured_ms = 0;
	fake_usb_plug(&a);
	CHECK(run_until_talks_to(&a, 1000));
	stop_pilotd();
}

/* One that cannot be taken (another program holds it) is not tried again
 * while it is on the bus, however often pilotd looks for a handheld; once
 * plugged in again it is taken. */
static void test_refused_kept_out(void)
{
	struct fake_dev a = { HANDHELD("A", 5), .claim_error = LIBUSB_ERROR_BUSY,
			      .configured_ms = FAKE_NEVER };
	struct fake_dev b = { HANDHELD("B", 6) };

	fake_usb_plug(&a);
	start_pilotd();
	run_for(1000);
	CHECK_EQ(a.opens, 1);
	for (int i = 0; i < 3; i++) { /* each departure looks for one that waits */
		fake_usb_plug(&b);
		CHECK(run_until_talks_to(&b, 1000));
		fake_usb_pull(&b);
		run_for(1000);
	}
	CHECK_EQ(a.opens, 1);
	CHECK(!pd.port.carrier);
	fake_usb_pull(&a);
	run_for(1000);
	CHECK_EQ(fake_usb_refs(&a), 0); /* forgotten once it left */
	a.claim_error = 0;
	fake_usb_plug(&a);
	CHECK(run_until_talks_to(&a, 1000));
	stop_pilotd();
}

/* E in use; D, a handheld, and then G, whose set-up fails, wait (libusb
 * lists G first).  E leaves: G is taken and given up on, D is taken.
 * D leaves: G, still on the bus, is not taken again (attacker round 7,
 * R7-1 and R7-2). */
static void test_given_up_kept_out(void)
{
	struct fake_dev e = { HANDHELD("E", 4) };
	struct fake_dev d = { HANDHELD("D", 5) };
	struct fake_dev g = { HANDHELD("G", 6), .ctrl_error = LIBUSB_ERROR_IO };

	fake_usb_plug(&e);
	start_pilotd();
	CHECK(run_until_talks_to(&e, 1000));
	fake_usb_plug(&d);
	run_for(300);
	fake_usb_plug(&g);
	run_for(300);
	fake_usb_pull(&e);
	CHECK(run_until_talks_to(&d, 2000));
	CHECK_EQ(g.opens, 1);
	CHECK(desktop_reaches(&d));
	fake_usb_pull(&d);
	run_for(10000);
	CHECK_EQ(g.opens, 1);
	CHECK(!pd.port.carrier);
	stop_pilotd();
}

/* A's bulk IN endpoint halts again after every clear.  Once a desktop
 * listens, A is given up on within PUMP_HALTS_MAX halts, B (waiting) is
 * taken; B leaves, and A is not taken again while it stays on the bus. */
static void test_halting_given_up(void)
{
	struct fake_dev a = { HANDHELD("A", 5), .in_halts = true };
	struct fake_dev b = { HANDHELD("B", 6) };
	uint64_t fh;

	fake_usb_plug(&a);
	start_pilotd();
	CHECK(run_until_talks_to(&a, 1000));
	fake_usb_plug(&b);
	run_for(1000);
	CHECK_EQ(a.clears, 0); /* nobody listens: nothing is read from A */
	fh = ph_open(&pd.h, 1000, true, true);
	CHECK(run_until_talks_to(&b, 10000));
	CHECK(a.clears >= 1);
	CHECK(a.clears <= PUMP_HALTS_MAX);
	fake_usb_pull(&b);
	run_for(10000);
	CHECK_EQ(a.opens, 1);
	CHECK(!pd.port.carrier);
	port_release(&pd.port, fh);
	stop_pilotd();
}

/* A, never configured, is being tried; B, a handheld, comes and waits;
 * Z, never configured either, comes after it (libusb lists it first).
 * A's tries end, Z's tries end, B is taken (R7-1, "shadow"); A and Z are
 * each tried for 5 s once. */
static void test_waits_behind_unconfigured(void)
{
	struct fake_dev a = { HANDHELD("A", 5), UNCONFIGURED(FAKE_NEVER) };
	struct fake_dev b = { HANDHELD("B", 6) };
	struct fake_dev z = { HANDHELD("Z", 7), UNCONFIGURED(FAKE_NEVER) };

	fake_usb_plug(&a);
	start_pilotd();
	run_for(500);
	fake_usb_plug(&b);
	run_for(500);
	fake_usb_plug(&z);
	CHECK(run_until_talks_to(&b, 2 * RETRIES_MS + 2000));
	CHECK_EQ(a.opens, ARRIVE_TRIES_MAX);
	CHECK_EQ(z.opens, ARRIVE_TRIES_MAX);
	run_for(20000);
	CHECK_EQ(a.opens, ARRIVE_TRIES_MAX);
	CHECK_EQ(z.opens, ARRIVE_TRIES_MAX);
	CHECK(talks_to(&b));
	stop_pilotd();
}

/* The one being tried leaves while B waits: B is taken at once (R6-4,
 * "left"; R7-1, "shadow-left"). */
static void test_retried_one_leaves(void)
{
	struct fake_dev a = { HANDHELD("A", 5), UNCONFIGURED(FAKE_NEVER) };
	struct fake_dev b = { HANDHELD("B", 6) };

	fake_usb_plug(&a);
	start_pilotd();
	run_for(500);
	fake_usb_plug(&b);
	run_for(1500);
	CHECK_EQ(b.opens, 0);
	fake_usb_pull(&a);
	CHECK(run_until_talks_to(&b, 1000));
	CHECK(a.opens < ARRIVE_TRIES_MAX);
	stop_pilotd();
}

/* A's open waits on the kernel (a probe it does not answer): the loop
 * goes on meanwhile, B's arrival is noted, and when A leaves before its
 * open returned, the log says so (not that A could not be taken), B is
 * taken and nothing of A is kept (R6-6). */
static void test_open_waits(void)
{
	struct fake_dev a = { HANDHELD("A", 5), .open_waits = true };
	struct fake_dev b = { HANDHELD("B", 6) };
	uint64_t begin = real_ms();

	fake_usb_plug(&a);
	start_pilotd();
	fake_usb_plug(&b);
	for (int i = 0; i < 20; i++)
		loop_round();
	/* 20 rounds of at most THREAD_WAIT_MS, not FAKE_OPEN_WAIT_MS */
	CHECK(real_ms() - begin < FAKE_OPEN_WAIT_MS / 2);
	CHECK_EQ(b.opens, 0);
	fake_usb_pull(&a);
	CHECK(run_until_talks_to(&b, 1000));
	CHECK_EQ(fake_usb_refs(&a), 0);
	CHECK(logged("address 5) left the bus while it was being opened"));
	CHECK(!logged("cannot take it"));
	stop_pilotd();
}

/*
 * X is in use, Y waits, Z comes last (libusb lists it first).  X leaves:
 * the scan notes Z, and Z leaves before it is taken, while its open waits
 * on the kernel or while it waits to be opened again.  Y, which waited
 * behind it, is taken (R8-1: the scan stopped at Z and nothing scanned
 * again, so Y waited until it was plugged in again).
 */
static void test_scanned_one_leaves(bool while_opening)
{
	struct fake_dev x = { HANDHELD("X", 5) };
	struct fake_dev y = { HANDHELD("Y", 6) };
	struct fake_dev z = { HANDHELD("Z", 7) };

	if (while_opening)
		z.open_waits = true;
	else
		z = (struct fake_dev){ HANDHELD("Z", 7), UNCONFIGURED(FAKE_NEVER) };
	fake_usb_plug(&x);
	start_pilotd();
	CHECK(run_until_talks_to(&x, 1000));
	fake_usb_plug(&y);
	fake_usb_plug(&z);
	run_for(500);
	fake_usb_pull(&x);
	/* Z is being opened (its open waits), or was tried once and waits
	 * to be tried again */
	if (while_opening) {
		for (int i = 0; i < 20 && !other_thread_runs(); i++)
			loop_round();
		CHECK(other_thread_runs());
	} else {
		/* pulled while it waits to be opened again: its first open
		 * ended (the thread is gone), the next is ARRIVE_RETRY_MS away */
		for (int i = 0; i < 20 && (fake_usb_opens(&z) == 0 || other_thread_runs()); i++)
			loop_round();
		CHECK_EQ(fake_usb_opens(&z), 1);
	}
	CHECK_EQ(y.opens, 0);
	fake_usb_pull(&z);
	CHECK(run_until_talks_to(&y, 2000));
	CHECK(desktop_reaches(&y));
	stop_pilotd();
}

/* REFUSED_MAX devices another program holds, then pilotd: each is tried
 * once and kept out. */
static void start_with_kept_out(struct fake_dev *devs, char (*names)[8])
{
	for (int i = 0; i < REFUSED_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "R%d", i);
		devs[i] = (struct fake_dev){ HANDHELD(names[i], (uint8_t)(20 + i)),
					     .open_error = LIBUSB_ERROR_ACCESS };
		fake_usb_plug(&devs[i]);
	}
	start_pilotd();
	run_for(2000);
}

/*
 * With REFUSED_MAX kept out, X (whose set-up fails: given up on) is taken
 * and Y waits.  X cannot be kept out too: Y is taken at the next
 * departure, that of a kept-out one, and X is not taken again (R9-1: Y
 * waited until it was plugged in again).
 */
static void test_full_give_up(void)
{
	struct fake_dev kept[REFUSED_MAX];
	char names[REFUSED_MAX][8];
	struct fake_dev x = { HANDHELD("X", 5), .ctrl_error = LIBUSB_ERROR_IO };
	struct fake_dev y = { HANDHELD("Y", 6) };

	start_with_kept_out(kept, names);
	fake_usb_plug(&x);
	fake_usb_plug(&y);
	run_for(5000);
	CHECK_EQ(fake_usb_opens(&x), 1);
	fake_usb_pull(&kept[0]);
	CHECK(run_until_talks_to(&y, 20000));
	CHECK(x.opens <= 2);
	stop_pilotd();
}

/*
 * With REFUSED_MAX kept out, X's open waits on the kernel and Y comes
 * meanwhile; X leaves, its open fails (no device) before libusb's news of
 * the departure is heard: X left, it is not a failure to keep out, and Y
 * is taken (R9-1).
 */
static void test_full_left_while_opening(void)
{
	struct fake_dev kept[REFUSED_MAX];
	char names[REFUSED_MAX][8];
	struct fake_dev x = { HANDHELD("X", 5), .open_waits = true };
	struct fake_dev y = { HANDHELD("Y", 6) };

	start_with_kept_out(kept, names);
	fake_usb_plug(&x);
	for (int i = 0; i < 20 && !other_thread_runs(); i++)
		loop_round();
	fake_usb_plug(&y);
	for (int i = 0; i < 5; i++)
		loop_round();
	CHECK(other_thread_runs());
	fake_usb_pull(&x);
	CHECK(run_until_talks_to(&y, 5000));
	stop_pilotd();
}

/* n devices on the bus that all fail to open: each is tried once, and
 * pilotd lists the bus once after each failure at most, never in a loop
 * (with more than REFUSED_MAX, it stops looking rather than loop). */
static void test_all_fail(int n)
{
	struct fake_dev devs[REFUSED_MAX + 2];
	char names[REFUSED_MAX + 2][8];
	int tried = 0;

	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "X%d", i);
		devs[i] = (struct fake_dev){ HANDHELD(names[i], (uint8_t)(10 + i)),
					     .open_error = LIBUSB_ERROR_ACCESS };
		fake_usb_plug(&devs[i]);
	}
	start_pilotd();
	run_for(20000);
	for (int i = 0; i < n; i++) {
		CHECK(devs[i].opens <= 1);
		tried += devs[i].opens;
	}
	CHECK_EQ(tried, n < REFUSED_MAX ? n : REFUSED_MAX + 1);
	CHECK(fake_usb_device_lists() <= (n < REFUSED_MAX ? n : REFUSED_MAX));
	stop_pilotd();
}

int main(void)
{
	fake_usb_reset();
	test_one_handheld();
	test_treo_90();
	test_treo_90_interrupt_refused();
	test_asked_nothing();
	test_behind_hub();
	test_named_unknown();
	test_not_a_handheld();
	test_waits_for_departure();
	test_waiting_one_leaves();
	test_configured_late(LIBUSB_ERROR_INVALID_PARAM);
	test_configured_late(LIBUSB_ERROR_NOT_FOUND);
	test_retries_end();
	test_refused_kept_out();
	test_given_up_kept_out();
	test_halting_given_up();
	test_waits_behind_unconfigured();
	test_retried_one_leaves();
	test_open_waits();
	test_scanned_one_leaves(true);
	test_scanned_one_leaves(false);
	test_full_give_up();
	test_full_left_while_opening();
	test_all_fail(2);
	test_all_fail(REFUSED_MAX + 2);
	fake_usb_free();
	return check_result("test_link_libusb");
}
