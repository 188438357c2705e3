// SPDX-License-Identifier: MIT
/*
 * The libusb transport: find the handheld on this machine's USB bus, set
 * it up (core/setup.h), and pump bytes between its bulk endpoints and the
 * port's stream queues.
 *
 * Nothing here blocks the event loop: hotplug callbacks only note what
 * happened (libusb forbids most calls inside them), the connection-info
 * handshake runs as asynchronous control transfers, and the bulk pumps are
 * asynchronous transfers.  Backpressure: an IN transfer is submitted only
 * while rxq has room for all it could bring, so a slow reader stalls the
 * device (it NAKs) instead of losing bytes; an OUT transfer takes bytes from
 * txq, which drops them only once the device has accepted them.
 */
#include <errno.h>
#include <libusb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/time.h>

#include "core/log.h"
#include "core/palm.h"
#include "core/setup.h"
#include "link.h"

/*
 * IN transfers are one packet (wMaxPacketSize) each, with no timeout, as
 * the kernel's usb-serial drivers read: a transfer ends on every packet,
 * so bytes a handheld sent before it paused can never wait inside a
 * half-full transfer, and no transfer is ever cancelled while it may hold
 * data (usb-redir returns none of a cancelled one).  Many in flight keep
 * the pipe full.  docs/design.md "IN transfers" has the trade-off.
 */
#define IN_TRANSFERS	 32
#define IN_BUFFER_SIZE	 1024u /* the largest wMaxPacketSize of a bulk endpoint */
#define OUT_TRANSFER_MAX (256u * 1024)
#define CTRL_TIMEOUT_MS	 2000
/* Errors in a row, with no transfer succeeding between them, before the
 * handheld is given up as broken. */
#define MAX_ERRORS_IN_A_ROW 10
#define MAX_USB_FDS	    8

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
	struct watch fds[MAX_USB_FDS];

	libusb_device *arrived; /* noted by hotplug, opened by the loop */
	libusb_device *dev;
	libusb_device_handle *handle;
	char name[64];
	enum link_state state;
	bool departed;
	struct palm_setup setup;
	struct palm_hotsync hs;
	size_t in_size; /* of each IN transfer: one packet */

	struct libusb_transfer *ctrl;
	uint8_t ctrl_buf[LIBUSB_CONTROL_SETUP_SIZE + 64];
	bool ctrl_busy;

	struct libusb_transfer *in[IN_TRANSFERS];
	bool in_busy[IN_TRANSFERS];
	struct libusb_transfer *out;
	bool out_busy;
	uint8_t *out_buf;

	/* an endpoint that failed waits here until its halt is cleared */
	bool in_halted, out_halted;
	unsigned int errors_in_a_row;

	unsigned long long rx_bytes, tx_bytes;
};

static void kick_tx(struct usb_link *l);

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
		log_warn("handheld %04x:%04x on bus %u address %u ignored: one is in use",
			 d.idVendor, d.idProduct, libusb_get_bus_number(dev),
			 libusb_get_device_address(dev));
		return 0;
	}
	l->arrived = libusb_ref_device(dev);
	return 0;
}

static int in_busy_count(const struct usb_link *l)
{
	int n = 0;

	for (int i = 0; i < IN_TRANSFERS; i++)
		n += l->in_busy[i];
	return n;
}

static int busy_transfers(const struct usb_link *l)
{
	return l->ctrl_busy + l->out_busy + in_busy_count(l);
}

/* Cancel the IN transfers in flight: only when the handheld is going away. */
static void cancel_in(struct usb_link *l)
{
	for (int i = 0; i < IN_TRANSFERS; i++)
		if (l->in_busy[i])
			libusb_cancel_transfer(l->in[i]);
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

static void finish_close(struct usb_link *l)
{
	bool departed = l->departed;
	const libusb_device *gone = l->dev;

	libusb_release_interface(l->handle, 0);
	libusb_close(l->handle);
	libusb_unref_device(l->dev);
	l->handle = NULL;
	l->dev = NULL;
	l->departed = false;
	l->state = LINK_IDLE;
	log_info("%s released (%llu bytes in, %llu out)", l->name, l->rx_bytes, l->tx_bytes);
	/* Another handheld may have been waiting behind this one.  Not after
	 * giving up on a broken one: that would take it straight back. */
	if (departed)
		scan_for_handheld(l, gone);
}

static void begin_close(struct usb_link *l, const char *why)
{
	if (l->state == LINK_CLOSING || l->state == LINK_IDLE)
		return;
	log_info("%s: %s", l->name, why);
	if (l->state == LINK_RUNNING)
		port_carrier_down(l->port); /* also discards what it did not take */
	l->state = LINK_CLOSING;
	if (l->ctrl_busy)
		libusb_cancel_transfer(l->ctrl);
	if (l->out_busy)
		libusb_cancel_transfer(l->out);
	cancel_in(l);
}

static void device_gone(struct usb_link *l)
{
	l->departed = true;
	begin_close(l, "left the bus");
}

static void submit_failed(struct usb_link *l, int r)
{
	if (r == LIBUSB_ERROR_NO_DEVICE)
		device_gone(l);
	else
		begin_close(l, libusb_strerror(r));
}

/* ---- USB errors ---- */

/*
 * A bulk transfer failed with the device still there.  Stop that pump;
 * once its other transfers are back, recover() clears the halt and
 * resumes.  The other IN transfers are not cancelled but come back by
 * themselves (a halted endpoint stalls them all): a cancel can cross a
 * completion that already carries a packet, and usb-redir drops the data
 * of a cancelled transfer.  OUT bytes leave txq only when the device took
 * them.
 */
static void transfer_failed(struct usb_link *l, struct libusb_transfer *t, bool *halted, uint8_t ep)
{
	if (*halted)
		return;
	log_warn("%s: bulk %s 0x%02x failed (%s); recovering", l->name, ep & 0x80 ? "IN" : "OUT",
		 ep, libusb_error_name(t->status));
	*halted = true;
	if (++l->errors_in_a_row > MAX_ERRORS_IN_A_ROW) {
		begin_close(l, "too many USB errors in a row; giving up on it");
		return;
	}
}

/* ---- bulk IN: device -> rxq ---- */

/* Room in rxq promised to the IN transfers in flight. */
static size_t rx_reserved(const struct usb_link *l)
{
	return (size_t)in_busy_count(l) * l->in_size;
}

static void submit_in(struct usb_link *l)
{
	for (int i = 0; i < IN_TRANSFERS && l->state == LINK_RUNNING && !l->in_halted; i++) {
		int r;

		if (l->in_busy[i])
			continue;
		/* backpressure: the reader is behind, or nobody listens */
		if (port_rx_room(l->port) < rx_reserved(l) + l->in_size)
			return;
		r = libusb_submit_transfer(l->in[i]);
		if (r < 0) {
			submit_failed(l, r);
			return;
		}
		l->in_busy[i] = true;
	}
}

static void in_done(struct libusb_transfer *t)
{
	struct usb_link *l = t->user_data;
	int i = 0;

	while (l->in[i] != t)
		i++;
	l->in_busy[i] = false;
	if (t->actual_length > 0) {
		l->rx_bytes += (unsigned long long)t->actual_length;
		port_rx(l->port, t->buffer, (size_t)t->actual_length, loop_now_ms());
	}
	switch (t->status) {
	case LIBUSB_TRANSFER_COMPLETED: l->errors_in_a_row = 0; break;
	case LIBUSB_TRANSFER_TIMED_OUT:
	case LIBUSB_TRANSFER_CANCELLED: break;
	case LIBUSB_TRANSFER_NO_DEVICE: device_gone(l); break;
	default: /* STALL, OVERFLOW (babble), ERROR */
		transfer_failed(l, t, &l->in_halted, l->hs.in_ep);
		break;
	}
	submit_in(l);
}

static void rx_room(struct link *base)
{
	submit_in((struct usb_link *)base);
}

/* ---- bulk OUT: txq -> device ---- */

static void kick_tx(struct usb_link *l)
{
	size_t n;
	int r;

	if (l->state != LINK_RUNNING || l->out_busy || l->out_halted)
		return;
	n = port_tx_take(l->port, l->out_buf, OUT_TRANSFER_MAX);
	if (n == 0)
		return;
	libusb_fill_bulk_transfer(l->out, l->handle, l->hs.out_ep, l->out_buf, (int)n,
				  l->out->callback, l, 0);
	r = libusb_submit_transfer(l->out);
	if (r < 0) {
		submit_failed(l, r);
		return;
	}
	l->out_busy = true;
}

static void kick_tx_op(struct link *base)
{
	kick_tx((struct usb_link *)base);
}

static void out_done(struct libusb_transfer *t)
{
	struct usb_link *l = t->user_data;

	l->out_busy = false;
	if (l->state == LINK_CLOSING)
		return; /* txq was discarded */
	/* Bytes the device took leave the queue; the rest are sent again. */
	l->tx_bytes += (unsigned long long)t->actual_length;
	switch (t->status) {
	case LIBUSB_TRANSFER_COMPLETED: l->errors_in_a_row = 0; break;
	case LIBUSB_TRANSFER_NO_DEVICE: device_gone(l); return;
	default: transfer_failed(l, t, &l->out_halted, l->hs.out_ep); break;
	}
	port_tx_done(l->port, (size_t)t->actual_length);
	kick_tx(l);
}

/*
 * Clear a halted endpoint and resume its pump.  Runs from the loop, never
 * inside a libusb callback; libusb_clear_halt() is one synchronous
 * control transfer (CLEAR_FEATURE), bounded by the kernel's 5 s timeout.
 */
/* Clear ep's halt; false when the device is beyond saving (closing). */
static bool clear_halt(struct usb_link *l, uint8_t ep, bool *halted)
{
	int r = libusb_clear_halt(l->handle, ep);

	if (r < 0 && r != LIBUSB_ERROR_NOT_FOUND) {
		submit_failed(l, r);
		return false;
	}
	*halted = false;
	log_info("%s: bulk %s 0x%02x recovered", l->name, ep & 0x80 ? "IN" : "OUT", ep);
	return true;
}

static void recover(struct usb_link *l)
{
	if (l->state != LINK_RUNNING)
		return;
	if (l->in_halted && in_busy_count(l) == 0 && clear_halt(l, l->hs.in_ep, &l->in_halted))
		submit_in(l);
	if (l->state == LINK_RUNNING && l->out_halted && !l->out_busy &&
	    clear_halt(l, l->hs.out_ep, &l->out_halted))
		kick_tx(l);
}

/* ---- the connection-information handshake ---- */

static void start_stream(struct usb_link *l)
{
	l->state = LINK_RUNNING;
	l->hs = l->setup.hs;
	l->in_size = palm_setup_in_size(&l->setup, IN_BUFFER_SIZE);
	for (int i = 0; i < IN_TRANSFERS; i++)
		libusb_fill_bulk_transfer(l->in[i], l->handle, l->hs.in_ep, l->in[i]->buffer,
					  (int)l->in_size, in_done, l, 0);
	log_info("%s: HotSync on bulk IN 0x%02x, OUT 0x%02x", l->name, l->hs.in_ep, l->hs.out_ep);
	port_carrier_up(l->port);
	submit_in(l);
	kick_tx(l);
}

static void submit_ctrl(struct usb_link *l, const struct palm_ctrl *req)
{
	int r;

	libusb_fill_control_setup(l->ctrl_buf, req->reqtype, req->request, req->value, req->index,
				  req->length);
	libusb_fill_control_transfer(l->ctrl, l->handle, l->ctrl_buf, l->ctrl->callback, l,
				     CTRL_TIMEOUT_MS);
	r = libusb_submit_transfer(l->ctrl);
	if (r < 0) {
		submit_failed(l, r);
		return;
	}
	l->ctrl_busy = true;
}

static void ctrl_done(struct libusb_transfer *t)
{
	struct usb_link *l = t->user_data;
	struct palm_ctrl next;

	l->ctrl_busy = false;
	if (l->state != LINK_HANDSHAKE)
		return; /* the close notification, or a cancelled request */
	if (t->status == LIBUSB_TRANSFER_NO_DEVICE) {
		device_gone(l);
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
		if (r < 0)
			libusb_close(l->handle);
	}
	if (r == 0 && (r = read_bulk_endpoints(l, &eps)) < 0) {
		libusb_release_interface(l->handle, 0);
		libusb_close(l->handle);
	}
	if (r < 0) {
		log_err("%s: cannot take it: %s", l->name, libusb_strerror(r));
		libusb_unref_device(dev);
		l->dev = NULL;
		l->handle = NULL;
		return;
	}
	log_info("%s arrived", l->name);
	l->rx_bytes = l->tx_bytes = 0;
	l->in_halted = l->out_halted = false;
	l->errors_in_a_row = 0;
	l->state = LINK_HANDSHAKE;
	palm_setup_start(&l->setup, l->name, d.idVendor, d.idProduct, &eps, &req);
	submit_ctrl(l, &req);
}

/* Called after every round of libusb events: act on what they noted. */
static void link_progress(struct usb_link *l)
{
	if (l->departed)
		device_gone(l);
	if (l->in_halted || l->out_halted)
		recover(l);
	if (l->state == LINK_CLOSING && busy_transfers(l) == 0)
		finish_close(l);
	if (l->state == LINK_IDLE && l->arrived)
		open_arrived(l);
}

/* The visor driver tells the handheld on every close of the port. */
static void last_close(struct link *base)
{
	struct usb_link *l = (struct usb_link *)base;

	if (l->state == LINK_RUNNING && !l->ctrl_busy)
		submit_ctrl(l, &palm_close_notification);
}

/* ---- event loop plumbing ---- */

static void handle_events(struct usb_link *l)
{
	struct timeval zero = { 0 };

	libusb_handle_events_timeout_completed(l->ctx, &zero, NULL);
	link_progress(l);
}

static void fd_ready(void *ctx, uint32_t events)
{
	handle_events(ctx);
}

static uint32_t epoll_events(short poll_events)
{
	return (poll_events & POLLIN ? EPOLLIN : 0) | (poll_events & POLLOUT ? EPOLLOUT : 0);
}

static void fd_added(int fd, short events, void *user)
{
	struct usb_link *l = user;

	for (int i = 0; i < MAX_USB_FDS; i++) {
		if (l->fds[i].ready)
			continue;
		l->fds[i] = (struct watch){ .fd = fd, .ready = fd_ready, .ctx = l };
		if (loop_add(l->loop, &l->fds[i], epoll_events(events)) < 0)
			log_err("cannot watch libusb fd %d", fd);
		return;
	}
	log_err("libusb opened more than %d fds; USB events may be missed", MAX_USB_FDS);
}

static void fd_removed(int fd, void *user)
{
	struct usb_link *l = user;

	for (int i = 0; i < MAX_USB_FDS; i++) {
		if (l->fds[i].ready && l->fds[i].fd == fd) {
			loop_del(l->loop, &l->fds[i]); /* also from the batch in hand */
			l->fds[i] = (struct watch){ 0 };
		}
	}
}

static int timeout_ms(struct link *base)
{
	struct usb_link *l = (struct usb_link *)base;
	struct timeval tv;

	if (libusb_pollfds_handle_timeouts(l->ctx) || libusb_get_next_timeout(l->ctx, &tv) != 1)
		return -1;
	return (int)(tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000);
}

static void after_events(struct link *base, bool timed_out)
{
	if (timed_out)
		handle_events((struct usb_link *)base);
}

static int alloc_transfers(struct usb_link *l)
{
	l->ctrl = libusb_alloc_transfer(0);
	l->out = libusb_alloc_transfer(0);
	l->out_buf = malloc(OUT_TRANSFER_MAX);
	if (!l->ctrl || !l->out || !l->out_buf)
		return -ENOMEM;
	l->ctrl->callback = ctrl_done;
	l->out->callback = out_done;
	for (int i = 0; i < IN_TRANSFERS; i++) {
		l->in[i] = libusb_alloc_transfer(0);
		if (!l->in[i])
			return -ENOMEM;
		l->in[i]->buffer = malloc(IN_BUFFER_SIZE);
		if (!l->in[i]->buffer)
			return -ENOMEM;
	}
	return 0;
}

static void stop(struct link *base);

static const struct link_ops libusb_ops = {
	.timeout_ms = timeout_ms,
	.after_events = after_events,
	.kick_tx = kick_tx_op,
	.rx_room = rx_room,
	.last_close = last_close,
	.stop = stop,
};

int link_libusb_start(struct link **out, const struct link_match *cfg, struct loop *loop,
		      struct port *port)
{
	struct usb_link *l = calloc(1, sizeof(*l));
	const struct libusb_pollfd **fds;
	int r;

	*out = l ? &l->base : NULL;
	if (!l)
		return -ENOMEM;
	l->base.ops = &libusb_ops;
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
	fds = libusb_get_pollfds(l->ctx);
	for (int i = 0; fds && fds[i]; i++)
		fd_added(fds[i]->fd, fds[i]->events, l);
	libusb_free_pollfds(fds);
	libusb_set_pollfd_notifiers(l->ctx, fd_added, fd_removed, l);
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
		/* Give queued bytes up to 2 s to reach the handheld. */
		for (int i = 0; i < 20 && l->state == LINK_RUNNING && port_tx_queued(l->port); i++)
			libusb_handle_events_timeout_completed(l->ctx, &tv, NULL);
		begin_close(l, "pilotd is stopping");
		/* Cancelled transfers complete promptly; 2 s guards a wedged host. */
		for (int i = 0; i < 20 && busy_transfers(l) > 0; i++)
			libusb_handle_events_timeout_completed(l->ctx, &tv, NULL);
		if (l->handle && busy_transfers(l) == 0)
			finish_close(l);
		libusb_hotplug_deregister_callback(l->ctx, l->hotplug);
		if (l->arrived)
			libusb_unref_device(l->arrived);
		libusb_set_pollfd_notifiers(l->ctx, NULL, NULL, NULL);
	}
	for (int i = 0; i < IN_TRANSFERS; i++) {
		if (l->in[i])
			free(l->in[i]->buffer);
		libusb_free_transfer(l->in[i]);
	}
	libusb_free_transfer(l->out);
	libusb_free_transfer(l->ctrl);
	free(l->out_buf);
	if (l->ctx)
		libusb_exit(l->ctx);
	free(l);
}
