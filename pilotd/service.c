// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "core/log.h"
#include "core/status.h"
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

#ifdef HAVE_LIBSYSTEMD
static int64_t wall_clock(void)
{
	return (int64_t)time(NULL);
}
#endif

void service_status(struct status_watch *w, const struct port *p, const char *devname,
		    const char *handheld, uint64_t now_ms)
{
#ifdef HAVE_LIBSYSTEMD
	char msg[STATUS_MAX + 8];

	if (!status_update(w, p, devname, handheld, now_ms, wall_clock))
		return;
	snprintf(msg, sizeof(msg), "STATUS=%s", w->text);
	notify(msg);
#else
	(void)w, (void)p, (void)devname, (void)handheld, (void)now_ms;
#endif
}

void service_stopping(void)
{
	notify("STOPPING=1");
}
