/* SPDX-License-Identifier: MIT */
/*
 * libusbredirparser as a usb-guest, for link_usbredir.c: the parser's
 * socket side goes to the connection (redir_conn.h), and every callback
 * for what a usb-guest never asks is set to ignore it (libusbredirparser
 * calls whatever a server's packet names, a NULL one included).  The
 * parser's priv is the struct redir_conn; the owner sets the callbacks
 * of the device (ep_info, device_connect and _disconnect, control and
 * bulk packets) between create and init.
 */
#ifndef PILOTD_REDIR_PARSER_H
#define PILOTD_REDIR_PARSER_H

#include <usbredirparser.h>

#include "redir_conn.h"

/* A parser for c with the callbacks above set; NULL: no memory. */
struct usbredirparser *redir_parser_create(struct redir_conn *c);
/* Ask for the capabilities pilotd uses, and queue the hello. */
void redir_parser_init(struct usbredirparser *p);

#endif
