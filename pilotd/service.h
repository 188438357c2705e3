/* SPDX-License-Identifier: MIT */
/*
 * The service manager edge: readiness and status for systemd (sd_notify),
 * when pilotd is built with libsystemd and runs under a unit of
 * Type=notify.  Without libsystemd, or without $NOTIFY_SOCKET, these do
 * nothing.
 */
#ifndef PILOTD_SERVICE_H
#define PILOTD_SERVICE_H

/* /dev/NAME exists: the unit becomes active. */
void service_ready(const char *devname);
void service_stopping(void);

#endif
