// SPDX-License-Identifier: MIT
/* libusbredirparser as a usb-guest; see redir_parser.h. */
#include <stdlib.h>

#include "core/log.h"
#include "redir_parser.h"

static void on_log(void *priv, int level, const char *msg)
{
	struct redir_conn *c = priv;

	if (level <= usbredirparser_warning) {
		if (c->parser_warnings < REDIR_PARSER_WARNINGS_MAX)
			log_warn("usbredir server %s: %s%s", c->server, msg,
				 ++c->parser_warnings == REDIR_PARSER_WARNINGS_MAX ?
					 " (no more of its warnings on this connection)" :
					 "");
	} else if (level <= usbredirparser_info)
		log_debug("usbredir server %s: %s", c->server, msg);
}

static int on_read(void *priv, uint8_t *data, int count)
{
	return redir_conn_read(priv, data, count);
}

static int on_write(void *priv, uint8_t *data, int count)
{
	return redir_conn_write(priv, data, count);
}

static void on_hello(void *priv, struct usb_redir_hello_header *hello)
{
	redir_conn_hello(priv, hello->version);
}

static void on_interface_info(void *priv, struct usb_redir_interface_info_header *info)
{
	/* the endpoints' interface numbers come with ep_info */
}

/* Packets a usb-guest never asked for: freed, and otherwise ignored. */
static void on_unasked_data(void *priv, uint8_t *data)
{
	struct redir_conn *c = priv;

	log_debug("usbredir server %s: an unasked data packet ignored", c->server);
	if (data)
		usbredirparser_free_packet_data(c->parser, data);
}

static void on_iso_packet(void *priv, uint64_t id, struct usb_redir_iso_packet_header *h,
			  uint8_t *data, int data_len)
{
	on_unasked_data(priv, data);
}

static void on_interrupt_packet(void *priv, uint64_t id,
				struct usb_redir_interrupt_packet_header *h, uint8_t *data,
				int data_len)
{
	on_unasked_data(priv, data);
}

static void on_buffered_bulk_packet(void *priv, uint64_t id,
				    struct usb_redir_buffered_bulk_packet_header *h, uint8_t *data,
				    int data_len)
{
	on_unasked_data(priv, data);
}

/*
 * Status answers to requests pilotd never makes: ignored.  Each must be
 * set, since libusbredirparser calls whatever a server's packet names
 * (a configuration_status, unasked, called a NULL pointer).
 */
static void on_configuration_status(void *priv, uint64_t id,
				    struct usb_redir_configuration_status_header *h)
{
}

static void on_alt_setting_status(void *priv, uint64_t id,
				  struct usb_redir_alt_setting_status_header *h)
{
}

static void on_iso_stream_status(void *priv, uint64_t id,
				 struct usb_redir_iso_stream_status_header *h)
{
}

static void on_interrupt_receiving_status(void *priv, uint64_t id,
					  struct usb_redir_interrupt_receiving_status_header *h)
{
}

static void on_bulk_streams_status(void *priv, uint64_t id,
				   struct usb_redir_bulk_streams_status_header *h)
{
}

static void on_bulk_receiving_status(void *priv, uint64_t id,
				     struct usb_redir_bulk_receiving_status_header *h)
{
}

static void on_filter_reject(void *priv)
{
}

static void on_filter_filter(void *priv, struct usbredirfilter_rule *rules, int count)
{
	free(rules); /* ours to free (usbredirparser.h) */
}

struct usbredirparser *redir_parser_create(struct redir_conn *c)
{
	struct usbredirparser *p = usbredirparser_create();

	if (!p)
		return NULL;
	p->priv = c;
	p->log_func = on_log;
	p->read_func = on_read;
	p->write_func = on_write;
	p->hello_func = on_hello;
	p->interface_info_func = on_interface_info;
	p->iso_packet_func = on_iso_packet;
	p->interrupt_packet_func = on_interrupt_packet;
	p->buffered_bulk_packet_func = on_buffered_bulk_packet;
	p->filter_filter_func = on_filter_filter;
	p->configuration_status_func = on_configuration_status;
	p->alt_setting_status_func = on_alt_setting_status;
	p->iso_stream_status_func = on_iso_stream_status;
	p->interrupt_receiving_status_func = on_interrupt_receiving_status;
	p->bulk_streams_status_func = on_bulk_streams_status;
	p->bulk_receiving_status_func = on_bulk_receiving_status;
	p->filter_reject_func = on_filter_reject;
	return p;
}

void redir_parser_init(struct usbredirparser *p)
{
	uint32_t caps[USB_REDIR_CAPS_SIZE] = { 0 };
	static const int wanted[] = {
		usb_redir_cap_connect_device_version,  usb_redir_cap_device_disconnect_ack,
		usb_redir_cap_ep_info_max_packet_size, usb_redir_cap_64bits_ids,
		usb_redir_cap_32bits_bulk_length,
	};

	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		usbredirparser_caps_set_cap(caps, wanted[i]);
	usbredirparser_init(p, "pilotd " PILOTD_VERSION, caps, USB_REDIR_CAPS_SIZE, 0);
}
