// SPDX-License-Identifier: MIT
/*
 * The libusb transport: find the handheld on this machine's USB bus, set
 * it up (core/setup.h), and pump bytes between its bulk endpoints and the
 * port's stream queues.
 *
 * Nothing here waits on the handheld: hotplug callbacks only note what
 * happened (libusb forbids most calls inside them), the connection-info
 * handshake runs as asynchronous control transfers, and the bulk pumps are
 * asynchronous transfers started by the pump (core/pump.h), which drives
 * the stream for both transports: this file carries out its I/O calls.
 * Opening and claiming a device wait on the kernel (usbfs' device lock,
 * held while it configures a new device, 5 s per request the device leaves
 * unanswered, and while visor probes it, 300 ms), so they run on a thread of
 * their own (take_device()), one handheld at a time, and the loop goes
 * on.  docs/design.md, "What the loop waits on".
 *
 * The transfers (the pump's I/O, the handshake's control requests) are in
 * link_libusb_io.c; what both files share in link_libusb_impl.h.
 *
 * Teardown happens in one place, link_progress(), after each batch of
 * libusb events: callbacks and the port's hooks only note what happened
 * (departed, failed, the pump's verdict), so nothing a caller still uses
 * is closed under it.
 */
#include <errno.h>
#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/palm.h"
#include "core/pump.h"
#include "core/setup.h"
#include "link.h"
#include "link_libusb_impl.h"
#include "usb_fds.h"

static bool at_port_path(libusb_device *dev, const char *want)
{
	uint8_t ports[7];
	char path[PALM_PORT_PATH_MAX];
	int n = libusb_get_port_numbers(dev, ports, (int)sizeof(ports));

	return n > 0 &&
	       palm_format_port_path(path, sizeof(path), libusb_get_bus_number(dev), ports, n) ==
		       0 &&
	       strcmp(path, want) == 0;
}

static bool matches(struct usb_link *l, libusb_device *dev,
		    const struct libusb_device_descriptor *d)
{
	if (l->cfg.port_path && !at_port_path(dev, l->cfg.port_path))
		return false;
	return link_match_device(&l->cfg, d->idVendor, d->idProduct);
}

static bool refused(const struct usb_link *l, const libusb_device *dev)
{
	for (int i = 0; i < REFUSED_MAX; i++)
		if (l->refused[i] == dev)
			return true;
	return false;
}

/* Never take dev again while it is on the bus; false if the list is full. */
static bool refuse(struct usb_link *l, libusb_device *dev)
{
	for (int i = 0; i < REFUSED_MAX; i++)
		if (!l->refused[i]) {
			l->refused[i] = libusb_ref_device(dev);
			return true;
		}
	return false;
}

static void forget_refused(struct usb_link *l, const libusb_device *dev)
{
	for (int i = 0; i < REFUSED_MAX; i++)
		if (l->refused[i] && (!dev || l->refused[i] == dev)) {
			libusb_unref_device(l->refused[i]);
			l->refused[i] = NULL;
		}
}

/* A handheld to take: told twice (the start-up scan and libusb's own), or kept out, is not. */
static bool wanted(struct usb_link *l, libusb_device *dev, struct libusb_device_descriptor *d)
{
	if (dev == l->dev || dev == l->arrived || refused(l, dev))
		return false;
	return libusb_get_device_descriptor(dev, d) == 0 && matches(l, dev, d);
}

static int on_hotplug(libusb_context *ctx, libusb_device *dev, libusb_hotplug_event event,
		      void *user)
{
	struct usb_link *l = user;
	struct libusb_device_descriptor d;

	if (event == LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT) {
		if (dev == l->dev)
			l->departed = true;
		if (dev == l->arrived) {
			libusb_unref_device(l->arrived);
			l->arrived = NULL;
		}
		forget_refused(l, dev);
		/* one that waited when a failure could not be kept out: look again */
		l->waiting |= l->waiting_full;
		l->waiting_full = false;
		return 0;
	}
	if (!wanted(l, dev, &d))
		return 0;
	/* One that is leaving does not count: its successor may come first. */
	if ((l->dev && !l->departed && l->state != LINK_CLOSING) || l->arrived) {
		log_warn("handheld %04x:%04x on bus %u address %u waits: another is in use",
			 d.idVendor, d.idProduct, libusb_get_bus_number(dev),
			 libusb_get_device_address(dev));
		l->waiting = true;
		return 0;
	}
	l->arrived = libusb_ref_device(dev);
	l->arrived_tries = 0;
	l->arrived_retry_ms = 0;
	return 0;
}

static unsigned int busy_transfers(const struct usb_link *l)
{
	return l->ctrl_busy + pump_busy(&l->pump);
}

/* Note the first handheld already on the bus, as if it had just arrived,
 * and whether others wait behind it. */
static void scan_for_handheld(struct usb_link *l, const libusb_device *gone)
{
	struct libusb_device_descriptor d;
	libusb_device **list;
	ssize_t n = libusb_get_device_list(l->ctx, &list);

	for (ssize_t i = 0; i < n; i++) {
		if (list[i] == gone) /* libusb may not have noticed it left */
			continue;
		if (!l->arrived)
			on_hotplug(l->ctx, list[i], LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED, l);
		else if (wanted(l, list[i], &d))
			l->waiting =
				true; /* behind the one noted: it may leave before it is taken */
	}
	if (n >= 0)
		libusb_free_device_list(list, 1);
}

static void unclaim(libusb_device_handle *h, bool reattach)
{
	if (reattach)
		libusb_set_auto_detach_kernel_driver(h, 1);
	libusb_release_interface(h, 0);
	libusb_close(h);
}

/*
 * The interface goes back to the kernel's driver only when pilotd stops
 * (auto-detach is on only while take_device() claims it):
 * re-attaching probes the device synchronously (visor asks a handheld
 * for its connection information: 300 ms if it does not answer),
 * which inside the loop would hold every user's requests; and a handheld
 * given up on is not handed to the visor driver either.
 */
static void finish_close(struct usb_link *l, bool reattach)
{
	bool departed = l->departed;
	const libusb_device *gone = l->dev;
	/* given up on: kept out until plugged in again (refuse()) */
	bool scan = !reattach && (departed || refuse(l, l->dev));

	unclaim(l->handle, reattach);
	libusb_unref_device(l->dev);
	l->handle = NULL;
	l->dev = NULL;
	l->departed = false;
	l->state = LINK_IDLE;
	log_info("%s released (%llu bytes in, %llu out)", l->name, l->pump.rx_bytes,
		 l->pump.tx_bytes);
	/* Another handheld may be waiting behind this one (libusb lists the
	 * newest first: each refused one is skipped, so each is tried once).
	 * With REFUSED_MAX kept out, none is looked for until one leaves:
	 * the one given up on would be the first found again. */
	if (!scan && !departed)
		l->waiting_full |= l->waiting;
	l->waiting = false;
	if (scan)
		scan_for_handheld(l, gone);
}

/* Only from link_progress() or stop(): never inside a callback. */
static void begin_close(struct usb_link *l, const char *why)
{
	if (l->state == LINK_CLOSING || l->state == LINK_IDLE)
		return;
	log_info("%s: %s", l->name, why);
	pump_stop(&l->pump); /* cancels what is in flight; before the hooks below */
	if (l->state == LINK_RUNNING)
		port_carrier_down(l->port); /* also discards what it did not take */
	l->state = LINK_CLOSING;
	if (l->ctrl_busy)
		libusb_cancel_transfer(l->ctrl);
}

/* ---- opening a handheld, on a thread of its own ---- */

/*
 * Note interface 0's bulk endpoints, the first pair for the fallback, and
 * its first interrupt IN endpoint (the Treo 90's connection information).
 * The descriptor is read once, here, when the handheld is opened.
 */
static int read_bulk_endpoints(libusb_device *dev, struct palm_endpoints *eps)
{
	struct libusb_config_descriptor *cfg;
	int r = libusb_get_active_config_descriptor(dev, &cfg);

	if (r < 0)
		return r;
	*eps = (struct palm_endpoints){ 0 };
	if (cfg->bNumInterfaces >= 1 && cfg->interface[0].num_altsetting >= 1) {
		const struct libusb_interface_descriptor *id = &cfg->interface[0].altsetting[0];

		for (int e = 0; e < id->bNumEndpoints; e++) {
			const struct libusb_endpoint_descriptor *ep = &id->endpoint[e];

			if ((ep->bmAttributes & 3) == LIBUSB_TRANSFER_TYPE_BULK)
				palm_endpoints_add(eps, ep->bEndpointAddress, ep->wMaxPacketSize);
			else if ((ep->bmAttributes & 3) == LIBUSB_TRANSFER_TYPE_INTERRUPT)
				palm_endpoints_add_interrupt(eps, ep->bEndpointAddress,
							     ep->wMaxPacketSize);
		}
	}
	libusb_free_config_descriptor(cfg);
	return eps->first_in && eps->first_out ? 0 : LIBUSB_ERROR_NOT_SUPPORTED;
}

/*
 * Open, claim (detaching visor, whose driver is given back only at a stop:
 * finish_close()) and read the endpoints; on the opener's thread.  Each
 * step waits on usbfs' device lock, which the kernel holds while it
 * configures a new device (5 s per request the device leaves unanswered)
 * and while drivers probe it (visor asks the handheld for its connection
 * information: 300 ms): the loop goes on meanwhile.
 */
static void *take_device(void *arg)
{
	struct opener *o = arg;
	uint64_t one = 1;
	int r = libusb_open(o->dev, &o->handle);

	if (r == 0) {
		libusb_set_auto_detach_kernel_driver(o->handle, 1);
		r = libusb_claim_interface(o->handle, 0);
		libusb_set_auto_detach_kernel_driver(o->handle, 0);
		if (r == 0 && (r = read_bulk_endpoints(o->dev, &o->eps)) < 0)
			libusb_release_interface(o->handle, 0);
		if (r < 0)
			libusb_close(o->handle);
	}
	if (r < 0)
		o->handle = NULL;
	o->r = r;
	/* one write per thread: an eventfd counter that cannot overflow */
	if (write(o->done.fd, &one, sizeof(one)) < 0)
		abort();
	return NULL;
}

static void start_open(struct usb_link *l)
{
	libusb_device *dev = l->arrived;
	struct libusb_device_descriptor d;

	l->arrived = NULL;
	libusb_get_device_descriptor(dev, &d);
	snprintf(l->name, sizeof(l->name), "handheld %04x:%04x (bus %u address %u)", d.idVendor,
		 d.idProduct, libusb_get_bus_number(dev), libusb_get_device_address(dev));
	l->dev = dev;
	l->departed = false;
	l->state = LINK_OPENING;
	l->open.dev = dev;
	l->open.handle = NULL;
	l->open.busy = true;
	usb_fds_pause(&l->fds); /* until join_opener(): usb_fds.c */
	if (pthread_create(&l->open.thread, NULL, take_device, &l->open) != 0) {
		log_warn("%s: no thread to open it on: opened in the loop", l->name);
		l->open.busy = false; /* nothing to join */
		take_device(&l->open);
	}
}

/* Wait for the opener's thread, if it runs; its result is then in l->open. */
static void join_opener(struct usb_link *l)
{
	uint64_t n;

	if (l->open.busy)
		pthread_join(l->open.thread, NULL);
	l->open.busy = false;
	/* take_device()'s one write, also when it ran inside start_open() */
	if (read(l->open.done.fd, &n, sizeof(n)) != sizeof(n))
		log_warn("%s: the opener's news was not there", l->name);
	usb_fds_sync(&l->fds, l->ctx); /* the fds it opened or closed */
}

/*
 * A handheld that is not on a root port (a port path of more than one
 * number) sits behind a hub: users found that one enumerates there and
 * never syncs (macports-ports pull 33740), so the log says so.
 */
static void say_if_behind_hub(struct usb_link *l)
{
	uint8_t ports[8];
	char path[PALM_PORT_PATH_MAX];
	int n = libusb_get_port_numbers(l->dev, ports, (int)sizeof(ports));

	if (n < 2 ||
	    palm_format_port_path(path, sizeof(path), libusb_get_bus_number(l->dev), ports, n) < 0)
		return;
	log_warn("%s sits behind a hub (port %s): some handhelds enumerate there and never sync; "
		 "if it does not, plug its cable into the computer itself",
		 l->name, path);
}

/* The opener is done: the handshake starts, or the handheld is let go. */
static void opened(struct usb_link *l)
{
	libusb_device *dev = l->dev;
	struct libusb_device_descriptor d;
	struct palm_ctrl req;
	int r;

	join_opener(l);
	r = l->open.r;
	l->dev = NULL;
	l->state = LINK_IDLE;
	/* Gone under the open or the claim (usbfs: ENOENT, ENODEV).  Its
	 * hotplug news comes later: libusb's fds are not watched while the
	 * thread runs (usb_fds_pause()).  Not kept out: it is not there. */
	if (r == LIBUSB_ERROR_NO_DEVICE) {
		log_info("%s left the bus while it was being opened", l->name);
		if (l->waiting) { /* one waiting behind it, not this one again */
			l->waiting = false;
			scan_for_handheld(l, dev);
		}
		libusb_unref_device(dev);
		return;
	}
	/* hotplug tells of a device before the kernel has chosen its
	 * configuration: no interface 0 yet (EINVAL from usbfs) */
	if ((r == LIBUSB_ERROR_INVALID_PARAM || r == LIBUSB_ERROR_NOT_FOUND) &&
	    ++l->arrived_tries < ARRIVE_TRIES_MAX) {
		log_debug("%s: not configured yet; again in %u ms", l->name, ARRIVE_RETRY_MS);
		l->arrived = dev;
		l->arrived_retry_ms = loop_now_ms() + ARRIVE_RETRY_MS;
		return;
	}
	if (r < 0) {
		log_err("%s: cannot take it: %s", l->name, libusb_strerror(r));
		/* kept out until plugged in again; another that waits is tried */
		if (refuse(l, dev)) {
			l->waiting = false;
			scan_for_handheld(l, dev);
		} else {
			l->waiting_full |= l->waiting; /* until one leaves */
			l->waiting = false;
		}
		libusb_unref_device(dev);
		return;
	}
	l->dev = dev;
	l->handle = l->open.handle;
	log_info("%s arrived", l->name);
	say_if_behind_hub(l);
	l->failure = NULL;
	l->state = LINK_HANDSHAKE;
	libusb_get_device_descriptor(dev, &d);
	if (palm_setup_start(&l->setup, l->name, d.idVendor, d.idProduct, &l->open.eps, &req))
		usb_link_start_stream(l);
	else
		usb_link_submit_setup(l, &req);
}

static void opener_done(void *ctx, uint32_t events)
{
	struct usb_link *l = ctx;

	if (l->state == LINK_OPENING)
		opened(l);
}

/* Let the handheld go if a callback or the pump said so. */
static void act_on_notes(struct usb_link *l)
{
	if (l->state != LINK_HANDSHAKE && l->state != LINK_RUNNING)
		return; /* none yet, or already going */
	if (pump_verdict(&l->pump) == PUMP_DEPARTED)
		l->departed = true;
	if (l->departed)
		begin_close(l, "left the bus");
	else if (l->failure)
		begin_close(l, l->failure);
	else if (pump_verdict(&l->pump) == PUMP_GIVE_UP)
		begin_close(l, l->pump.why);
}

/* Is there anything for link_progress() to do at once? */
static bool notes_pending(const struct usb_link *l)
{
	return (l->state == LINK_HANDSHAKE || l->state == LINK_RUNNING) &&
	       (l->departed || l->failure || pump_verdict(&l->pump) != PUMP_FINE ||
		pump_pending(&l->pump));
}

/*
 * After every round of libusb events, and of the loop: act on what was
 * noted.  The one place where a handheld is let go, so no callback tears
 * down what its caller still uses.
 */
static void link_progress(struct usb_link *l)
{
	act_on_notes(l);
	if (l->state == LINK_RUNNING)
		pump_drive(&l->pump, loop_now_ms()); /* what the callbacks recorded */
	act_on_notes(l);
	if (l->state == LINK_CLOSING && busy_transfers(l) == 0)
		finish_close(l, false);
	/* the one being opened again left: one that waited behind it */
	if (l->waiting && l->state == LINK_IDLE && !l->arrived) {
		l->waiting = false;
		scan_for_handheld(l, NULL);
	}
	if (l->state == LINK_IDLE && l->arrived && loop_now_ms() >= l->arrived_retry_ms)
		start_open(l);
}

/* ---- event loop plumbing ---- */

static void handle_events(struct usb_link *l, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	libusb_handle_events_timeout_completed(l->ctx, &tv, NULL);
	loop_read_clock(); /* the reaps may have waited for the device's lock */
	link_progress(l);
}

static void fds_ready(void *ctx)
{
	handle_events(ctx, 0);
}

static int timeout_ms(struct link *base)
{
	struct usb_link *l = (struct usb_link *)base;
	struct timeval tv;

	int ms = -1;

	if (notes_pending(l))
		return 0; /* noted by a hook of the port at the end of the round */
	if (!libusb_pollfds_handle_timeouts(l->ctx) && libusb_get_next_timeout(l->ctx, &tv) == 1)
		ms = (int)(tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000);
	if (l->state == LINK_IDLE && l->arrived) {
		uint64_t now = loop_now_ms();
		int wait = l->arrived_retry_ms > now ? (int)(l->arrived_retry_ms - now) : 0;

		if (ms < 0 || wait < ms)
			ms = wait;
	}
	return ms;
}

static void after_events(struct link *base, bool timed_out)
{
	struct usb_link *l = (struct usb_link *)base;

	if (timed_out)
		handle_events(l, 0);
	else
		link_progress(l);
}

static int alloc_transfers(struct usb_link *l)
{
	l->ctrl = libusb_alloc_transfer(0);
	l->out = libusb_alloc_transfer(0);
	l->out_buf = malloc(OUT_TRANSFER_MAX);
	if (!l->ctrl || !l->out || !l->out_buf)
		return -ENOMEM;
	l->ctrl->callback = usb_link_ctrl_done;
	for (int i = 0; i < PUMP_IN_MAX; i++) {
		l->in[i] = libusb_alloc_transfer(0);
		if (!l->in[i])
			return -ENOMEM;
	}
	pump_init(&l->pump, &usb_link_pump_io, l, l->port, l->out_buf, OUT_TRANSFER_MAX);
	return 0;
}

static void stop(struct link *base);

static const struct link_ops libusb_ops = {
	.timeout_ms = timeout_ms,
	.after_events = after_events,
	.stop = stop,
};

int link_libusb_start(struct link **out, const struct link_match *cfg, struct loop *loop,
		      struct port *port)
{
	struct usb_link *l = calloc(1, sizeof(*l));
	int r;

	*out = l ? &l->base : NULL;
	if (!l)
		return -ENOMEM;
	l->base.ops = &libusb_ops;
	l->base.pump = &l->pump;
	l->cfg = *cfg;
	l->loop = loop;
	l->port = port;
	r = libusb_init(&l->ctx);
	if (r < 0) {
		log_err("libusb: %s", libusb_strerror(r));
		return -EIO;
	}
	if (alloc_transfers(l) < 0)
		return -ENOMEM;
	r = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r < 0) {
		log_err("libusb transport: eventfd: %s", strerror(errno));
		return -EIO;
	}
	l->open.done = (struct watch){ .fd = r, .ready = opener_done, .ctx = l };
	if (loop_add(loop, &l->open.done, EPOLLIN) < 0)
		return -EIO;
	l->fds = (struct usb_fds){ .loop = loop, .ready = fds_ready, .ctx = l };
	usb_fds_watch(&l->fds, l->ctx);
	if (!libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG)) {
		log_err("this libusb cannot report hotplug events");
		return -ENOTSUP;
	}
	r = libusb_hotplug_register_callback(
		l->ctx, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT,
		LIBUSB_HOTPLUG_ENUMERATE, LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
		LIBUSB_HOTPLUG_MATCH_ANY, on_hotplug, l, &l->hotplug);
	if (r < 0) {
		log_err("libusb hotplug: %s", libusb_strerror(r));
		return -EIO;
	}
	/*
	 * One already on the bus is opened in the loop's first round, after
	 * the CUSE device is set up and privileges are dropped: an opener
	 * thread beside the kernel's CUSE set-up (which adds /dev/pilot
	 * before it can be opened: ENXIO) widened that window, and setuid()
	 * would wait for it (glibc changes every thread's ids).
	 */
	if (!l->arrived)
		log_info("waiting for a handheld");
	return 0;
}

static void stop(struct link *base)
{
	struct usb_link *l = (struct usb_link *)base;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100 * 1000 };

	if (!l)
		return;
	if (l->state == LINK_OPENING) {
		/* waits for the kernel, as the open would have in the loop */
		join_opener(l);
		if (l->open.handle)
			unclaim(l->open.handle, true);
		libusb_unref_device(l->dev);
		l->dev = NULL;
		l->state = LINK_IDLE;
	}
	if (l->ctx) {
		/* Give queued bytes time to reach the handheld. */
		for (int i = 0; i < PUMP_STOP_DRAIN_MS / 100 && l->state == LINK_RUNNING &&
				port_tx_queued(l->port);
		     i++)
			handle_events(l, 100);
		begin_close(l, "pilotd is stopping");
		/* Cancelled transfers complete promptly; 2 s guards a wedged host. */
		for (int i = 0; i < 20 && busy_transfers(l) > 0; i++)
			libusb_handle_events_timeout_completed(l->ctx, &tv, NULL);
		if (l->handle && busy_transfers(l) == 0)
			finish_close(l, true);
		libusb_hotplug_deregister_callback(l->ctx, l->hotplug);
		if (l->arrived)
			libusb_unref_device(l->arrived);
		forget_refused(l, NULL);
		usb_fds_unwatch(&l->fds, l->ctx);
	}
	for (int i = 0; i < PUMP_IN_MAX; i++)
		libusb_free_transfer(l->in[i]);
	libusb_free_transfer(l->out);
	libusb_free_transfer(l->ctrl);
	free(l->out_buf);
	if (l->open.done.ready) {
		loop_del(l->loop, &l->open.done);
		close(l->open.done.fd);
	}
	if (l->ctx)
		libusb_exit(l->ctx);
	free(l);
}
