// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "core/log.h"
#include "service.h"

#ifdef HAVE_LIBSYSTEMD
static void notify(const char *state)
{
	int r = sd_notify(0, state);

	if (r < 0)
		log_warn("cannot tell the service manager '%s': %s", state, strerror(-r));
}
#else
static void notify(const char *state)
{
	(void)state;
}
#endif

void service_ready(const char *devname)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=/dev/%s is ready", devname);
	notify(msg);
}

void service_stopping(void)
{
	notify("STOPPING=1");
}
