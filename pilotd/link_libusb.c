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
 * One wait remains, on the kernel: opening and claiming a device take
 * usbfs' device lock, which the kernel holds while it configures a new
 * device and while drivers (visor) probe it; a device that leaves those
 * requests unanswered holds libusb_open() or the claim, and the loop, for
 * their timeouts (5 s each).  docs/design.md, "What the loop waits on".
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
#include <sys/time.h>

#include "core/log.h"
#include "core/palm.h"
#include "core/pump.h"
#include "core/setup.h"
#include "link.h"
#include "usb_fds.h"

/*
 * IN transfers are one packet (wMaxPacketSize) each, with no timeout, as
 * the kernel's usb-serial drivers read: a transfer ends on every packet,
 * so bytes a handheld sent before it paused can never wait inside a
 * half-full transfer.  They are cancelled only when nobody listens (the
 * last close: what one brings then is discarded, core/pump.c) or at a
 * stop.  Many in flight keep the pipe full.  docs/design.md "IN
 * transfers" has the trade-off.
 */
#define OUT_TRANSFER_MAX (256u * 1024)
#define CTRL_TIMEOUT_MS	 2000 /* also bounds a CLEAR_FEATURE the device does not answer */
#define ARRIVE_RETRY_MS	 100u /* a device not configured yet is opened again after */
#define ARRIVE_TRIES_MAX 50   /* so for 5 s at most */

enum link_state {
	LINK_IDLE,	/* no handheld */
	LINK_HANDSHAKE, /* asking where HotSync is */
	LINK_RUNNING,	/* bytes flow */
	LINK_CLOSING,	/* waiting for cancelled transfers */
};

struct usb_link {
	struct link base;
	struct link_match cfg;
	struct loop *loop;
	struct port *port;
	libusb_context *ctx;
	libusb_hotplug_callback_handle hotplug;
	struct usb_fds fds;

	libusb_device *arrived; /* noted by hotplug, opened by the loop */
	uint64_t arrived_retry_ms; /* not configured yet: open it again then */
	unsigned int arrived_tries;
	bool waiting; /* a handheld came while another was in use or being opened */
	libusb_device *dev;
	libusb_device_handle *handle;
	char name[64];
	enum link_state state;
	bool departed;	     /* noted by a callback: it left */
	const char *failure; /* noted: a call failed, let it go */
	struct palm_setup setup;
	struct palm_hotsync hs;

	struct libusb_transfer *ctrl;
	uint8_t ctrl_buf[LIBUSB_CONTROL_SETUP_SIZE + 64];
	bool ctrl_busy;
	uint8_t halt_ep; /* of the CLEAR_FEATURE in flight, or 0 */

	struct libusb_transfer *in[PUMP_IN_MAX];
	struct libusb_transfer *out;
	uint8_t *out_buf;
	struct pump pump;
};

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
		return 0;
	}
	if (dev == l->dev || dev == l->arrived)
		return 0; /* told twice (the start-up scan and libusb's own) */
	if (libusb_get_device_descriptor(dev, &d) < 0 || !matches(l, dev, &d))
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

/* Note the first handheld already on the bus, as if it had just arrived. */
static void scan_for_handheld(struct usb_link *l, const libusb_device *gone)
{
	libusb_device **list;
	ssize_t n = libusb_get_device_list(l->ctx, &list);

	for (ssize_t i = 0; i < n && !l->arrived; i++)
		if (list[i] != gone) /* libusb may not have noticed it left */
			on_hotplug(l->ctx, list[i], LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED, l);
	if (n >= 0)
		libusb_free_device_list(list, 1);
}

/*
 * The interface goes back to the kernel's driver only when pilotd stops
 * (auto-detach is on only while open_arrived() claims it):
 * re-attaching probes the device synchronously (visor asks a handheld
 * for its connection information, 5 s per request it does not answer),
 * which inside the loop would hold every user's requests; and a handheld
 * given up on is not handed to the visor driver either.
 */
static void finish_close(struct usb_link *l, bool reattach)
{
	bool departed = l->departed;
	const libusb_device *gone = l->dev;

	if (reattach)
		libusb_set_auto_detach_kernel_driver(l->handle, 1);
	libusb_release_interface(l->handle, 0);
	libusb_close(l->handle);
	libusb_unref_device(l->dev);
	l->handle = NULL;
	l->dev = NULL;
	l->departed = false;
	l->state = LINK_IDLE;
	log_info("%s released (%llu bytes in, %llu out)", l->name, l->pump.rx_bytes,
		 l->pump.tx_bytes);
	/* Another handheld may have been waiting behind this one: any after a
	 * departure; one that came meanwhile after giving up on a broken one
	 * (never that one: it would be taken straight back). */
	if (departed || l->waiting) {
		l->waiting = false;
		scan_for_handheld(l, gone);
	}
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

/* A call failed: note it (link_progress() lets the handheld go); -errno. */
static int submit_failed(struct usb_link *l, int r)
{
	if (r == LIBUSB_ERROR_NO_DEVICE) {
		l->departed = true;
		return -ENODEV;
	}
	if (!l->failure)
		l->failure = libusb_strerror(r);
	return -EIO;
}

static enum pump_status status_of(enum libusb_transfer_status st)
{
	switch (st) {
	case LIBUSB_TRANSFER_COMPLETED: return PUMP_OK;
	case LIBUSB_TRANSFER_CANCELLED: return PUMP_CANCELLED;
	case LIBUSB_TRANSFER_TIMED_OUT: return PUMP_TIMEOUT;
	case LIBUSB_TRANSFER_STALL: return PUMP_STALL;
	case LIBUSB_TRANSFER_OVERFLOW: return PUMP_BABBLE;
	case LIBUSB_TRANSFER_NO_DEVICE: return PUMP_GONE;
	default: return PUMP_ERROR;
	}
}

/* ---- the pump's I/O (core/pump.h): only what libusb does ---- */

static void in_done(struct libusb_transfer *t)
{
	struct usb_link *l = t->user_data;
	int i = 0;

	while (l->in[i] != t)
		i++;
	pump_in_done(&l->pump, i, status_of(t->status), t->buffer,
		     t->actual_length > 0 ? (size_t)t->actual_length : 0);
}

static void out_done(struct libusb_transfer *t)
{
	struct usb_link *l = t->user_data;

	pump_out_done(&l->pump, status_of(t->status),
		      t->actual_length > 0 ? (size_t)t->actual_length : 0);
}

static int io_submit_in(void *ctx, int slot, uint8_t *buf, size_t len)
{
	struct usb_link *l = ctx;
	int r;

	libusb_fill_bulk_transfer(l->in[slot], l->handle, l->hs.in_ep, buf, (int)len, in_done, l,
				  0);
	r = libusb_submit_transfer(l->in[slot]);
	return r < 0 ? submit_failed(l, r) : 0;
}

static int io_submit_out(void *ctx, const uint8_t *buf, size_t len)
{
	struct usb_link *l = ctx;
	int r;

	libusb_fill_bulk_transfer(l->out, l->handle, l->hs.out_ep, (uint8_t *)buf, (int)len,
				  out_done, l, 0);
	r = libusb_submit_transfer(l->out);
	return r < 0 ? submit_failed(l, r) : 0;
}

static void io_cancel_in(void *ctx, int slot)
{
	libusb_cancel_transfer(((struct usb_link *)ctx)->in[slot]);
}

static void io_cancel_out(void *ctx)
{
	libusb_cancel_transfer(((struct usb_link *)ctx)->out);
}

static int submit_ctrl(struct usb_link *l, const struct palm_ctrl *req);

static int io_clear_halt(void *ctx, bool in)
{
	struct usb_link *l = ctx;
	const struct palm_ctrl req = pump_clear_halt_request(in ? l->hs.in_ep : l->hs.out_ep);

	l->halt_ep = (uint8_t)req.index;
	return submit_ctrl(l, &req);
}

static int io_close_notification(void *ctx)
{
	struct usb_link *l = ctx;

	l->halt_ep = 0;
	return submit_ctrl(l, &palm_close_notification);
}

static const struct pump_io pump_io = {
	.submit_in = io_submit_in,
	.submit_out = io_submit_out,
	.cancel_in = io_cancel_in,
	.cancel_out = io_cancel_out,
	.clear_halt = io_clear_halt,
	.close_notification = io_close_notification,
};

/* ---- the connection-information handshake ---- */

/* Inside a completion: the carrier goes up at the pump's next drive. */
static void start_stream(struct usb_link *l)
{
	l->state = LINK_RUNNING;
	l->hs = l->setup.hs;
	pump_start(&l->pump, l->name, palm_setup_in_size(&l->setup, PUMP_IN_SIZE_MAX),
		   OUT_TRANSFER_MAX);
	log_info("%s: HotSync on bulk IN 0x%02x, OUT 0x%02x", l->name, l->hs.in_ep, l->hs.out_ep);
}

static int submit_ctrl(struct usb_link *l, const struct palm_ctrl *req)
{
	int r;

	if (l->ctrl_busy)
		return -EAGAIN;
	libusb_fill_control_setup(l->ctrl_buf, req->reqtype, req->request, req->value, req->index,
				  req->length);
	libusb_fill_control_transfer(l->ctrl, l->handle, l->ctrl_buf, l->ctrl->callback, l,
				     CTRL_TIMEOUT_MS);
	r = libusb_submit_transfer(l->ctrl);
	if (r < 0)
		return submit_failed(l, r);
	l->ctrl_busy = true;
	return 0;
}

static void ctrl_done(struct libusb_transfer *t)
{
	struct usb_link *l = t->user_data;
	struct palm_ctrl next;

	l->ctrl_busy = false;
	if (l->pump.ctrl != PUMP_CTRL_NONE) { /* the pump's: a clear, or the close */
		if (t->status == LIBUSB_TRANSFER_COMPLETED && l->halt_ep &&
		    usb_fds_reset_endpoint(&l->fds, l->dev, l->halt_ep) < 0)
			log_warn("%s: cannot reset the host side of endpoint 0x%02x; its next "
				 "packet may be lost",
				 l->name, l->halt_ep);
		pump_ctrl_done(&l->pump, status_of(t->status));
		return;
	}
	if (l->state != LINK_HANDSHAKE)
		return; /* a cancelled request */
	if (t->status == LIBUSB_TRANSFER_NO_DEVICE) {
		l->departed = true;
		return;
	}
	if (palm_setup_reply(&l->setup, t->status == LIBUSB_TRANSFER_COMPLETED,
			     libusb_control_transfer_get_data(t),
			     t->actual_length > 0 ? (size_t)t->actual_length : 0, &next))
		start_stream(l);
	else
		submit_ctrl(l, &next);
}

/* ---- opening and closing a handheld ---- */

/*
 * Note interface 0's bulk endpoints, and the first pair for the fallback.
 * The descriptor is read once, here, when the handheld is opened.
 */
static int read_bulk_endpoints(struct usb_link *l, struct palm_endpoints *eps)
{
	struct libusb_config_descriptor *cfg;
	int r = libusb_get_active_config_descriptor(l->dev, &cfg);

	if (r < 0)
		return r;
	*eps = (struct palm_endpoints){ 0 };
	if (cfg->bNumInterfaces >= 1 && cfg->interface[0].num_altsetting >= 1) {
		const struct libusb_interface_descriptor *id = &cfg->interface[0].altsetting[0];

		for (int e = 0; e < id->bNumEndpoints; e++) {
			const struct libusb_endpoint_descriptor *ep = &id->endpoint[e];

			if ((ep->bmAttributes & 3) == LIBUSB_TRANSFER_TYPE_BULK)
				palm_endpoints_add(eps, ep->bEndpointAddress, ep->wMaxPacketSize);
		}
	}
	libusb_free_config_descriptor(cfg);
	return eps->first_in && eps->first_out ? 0 : LIBUSB_ERROR_NOT_SUPPORTED;
}

static void open_arrived(struct usb_link *l)
{
	libusb_device *dev = l->arrived;
	struct libusb_device_descriptor d;
	struct palm_endpoints eps;
	struct palm_ctrl req;
	int r;

	l->arrived = NULL;
	libusb_get_device_descriptor(dev, &d);
	snprintf(l->name, sizeof(l->name), "handheld %04x:%04x (bus %u address %u)", d.idVendor,
		 d.idProduct, libusb_get_bus_number(dev), libusb_get_device_address(dev));
	l->dev = dev;
	r = libusb_open(dev, &l->handle);
	if (r == 0) {
		libusb_set_auto_detach_kernel_driver(l->handle, 1);
		r = libusb_claim_interface(l->handle, 0);
		/* detached: a release gives it back only at a stop (finish_close()) */
		libusb_set_auto_detach_kernel_driver(l->handle, 0);
		if (r < 0)
			libusb_close(l->handle);
	}
	if (r == 0 && (r = read_bulk_endpoints(l, &eps)) < 0) {
		libusb_release_interface(l->handle, 0);
		libusb_close(l->handle);
	}
	l->dev = NULL;
	l->handle = r < 0 ? NULL : l->handle;
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
		if (l->waiting) { /* one came while this one was opened again */
			l->waiting = false;
			scan_for_handheld(l, dev);
		}
		libusb_unref_device(dev);
		return;
	}
	l->dev = dev;
	log_info("%s arrived", l->name);
	l->failure = NULL;
	l->departed = false;
	l->state = LINK_HANDSHAKE;
	palm_setup_start(&l->setup, l->name, d.idVendor, d.idProduct, &eps, &req);
	submit_ctrl(l, &req);
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
		open_arrived(l);
}

/* ---- event loop plumbing ---- */

static void handle_events(struct usb_link *l, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	libusb_handle_events_timeout_completed(l->ctx, &tv, NULL);
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
	l->ctrl->callback = ctrl_done;
	for (int i = 0; i < PUMP_IN_MAX; i++) {
		l->in[i] = libusb_alloc_transfer(0);
		if (!l->in[i])
			return -ENOMEM;
	}
	pump_init(&l->pump, &pump_io, l, l->port, l->out_buf, OUT_TRANSFER_MAX);
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
	if (!l->arrived)
		log_info("waiting for a handheld");
	link_progress(l);
	return 0;
}

static void stop(struct link *base)
{
	struct usb_link *l = (struct usb_link *)base;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100 * 1000 };

	if (!l)
		return;
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
		usb_fds_unwatch(&l->fds, l->ctx);
	}
	for (int i = 0; i < PUMP_IN_MAX; i++)
		libusb_free_transfer(l->in[i]);
	libusb_free_transfer(l->out);
	libusb_free_transfer(l->ctrl);
	free(l->out_buf);
	if (l->ctx)
		libusb_exit(l->ctx);
	free(l);
}
