/* SPDX-License-Identifier: MIT */
/*
 * The service manager edge: readiness and status for systemd (sd_notify),
 * when pilotd is built with libsystemd and runs under a unit of
 * Type=notify.  Without libsystemd, or without $NOTIFY_SOCKET, these do
 * nothing.
 */
#ifndef PILOTD_SERVICE_H
#define PILOTD_SERVICE_H

#include <stdint.h>

#include "core/port.h"
#include "core/status.h"

/* /dev/NAME exists: the unit becomes active. */
void service_ready(const char *devname);
/*
 * After a round of the loop: STATUS= with what `systemctl status` shows
 * (core/status.h), sent only when it changed.  handheld: the transport's
 * name for the one attached, or NULL.
 */
void service_status(struct status_watch *w, const struct port *p, const char *devname,
		    const char *handheld, uint64_t now_ms);
void service_stopping(void);

#endif
