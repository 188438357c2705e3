/* SPDX-License-Identifier: MIT */
/*
 * A pseudo-terminal in front of the port, for redir-client --pty: a
 * desktop program (palm-sync) opens its slave as it would /dev/pilot, and
 * the client moves bytes between the port and the master.  The slave is
 * raw from the start, so nothing the handheld sends before the desktop
 * sets its termios is changed by the pty's line discipline.
 */
#ifndef PTY_BRIDGE_H
#define PTY_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PTY_BRIDGE_CHUNK 4096

struct pty_bridge {
	int master;
	char path[64];
	uint8_t to_desktop[PTY_BRIDGE_CHUNK]; /* read from the port, not yet in the pty */
	size_t to_desktop_len;
	uint8_t from_desktop[PTY_BRIDGE_CHUNK]; /* read from the pty, not yet in the port */
	size_t from_desktop_len, from_desktop_off;
};

int pty_bridge_open(struct pty_bridge *b);
/* Has a desktop the slave open now? (the master hangs up while none has) */
bool pty_bridge_desktop_there(const struct pty_bridge *b);
/* Bytes from the port for the desktop (at most the room left). */
void pty_bridge_to_desktop(struct pty_bridge *b, const void *data, size_t len);
/* Write what waits for the desktop; true when nothing waits any more. */
bool pty_bridge_flush(struct pty_bridge *b);
/* Read what the desktop wrote, if nothing of it waits; returns what waits. */
size_t pty_bridge_from_desktop(struct pty_bridge *b);
void pty_bridge_close(struct pty_bridge *b);

#endif
