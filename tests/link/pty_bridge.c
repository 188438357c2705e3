// SPDX-License-Identifier: MIT
/* A pseudo-terminal in front of the port; see pty_bridge.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "pty_bridge.h"

int pty_bridge_open(struct pty_bridge *b)
{
	struct termios t;
	int slave;

	*b = (struct pty_bridge){ .master = -1 };
	b->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (b->master < 0 || grantpt(b->master) < 0 || unlockpt(b->master) < 0 ||
	    ptsname_r(b->master, b->path, sizeof(b->path)) != 0)
		return -1;
	slave = open(b->path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		return -1;
	if (tcgetattr(slave, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(slave, TCSANOW, &t);
	}
	close(slave); /* termios stays with the pair; POLLHUP until a desktop opens it */
	return 0;
}

bool pty_bridge_desktop_there(const struct pty_bridge *b)
{
	struct pollfd p = { .fd = b->master, .events = 0 };

	return poll(&p, 1, 0) == 0 || !(p.revents & POLLHUP);
}

void pty_bridge_to_desktop(struct pty_bridge *b, const void *data, size_t len)
{
	size_t room = sizeof(b->to_desktop) - b->to_desktop_len;

	if (len > room)
		len = room; /* the client reads no more than the room */
	memcpy(b->to_desktop + b->to_desktop_len, data, len);
	b->to_desktop_len += len;
}

bool pty_bridge_flush(struct pty_bridge *b)
{
	while (b->to_desktop_len > 0) {
		ssize_t n = write(b->master, b->to_desktop, b->to_desktop_len);

		if (n <= 0)
			break;
		memmove(b->to_desktop, b->to_desktop + n, b->to_desktop_len - (size_t)n);
		b->to_desktop_len -= (size_t)n;
	}
	return b->to_desktop_len == 0;
}

size_t pty_bridge_from_desktop(struct pty_bridge *b)
{
	if (b->from_desktop_off < b->from_desktop_len)
		return b->from_desktop_len - b->from_desktop_off;
	b->from_desktop_off = b->from_desktop_len = 0;
	ssize_t n = read(b->master, b->from_desktop, sizeof(b->from_desktop));

	if (n > 0)
		b->from_desktop_len = (size_t)n;
	return b->from_desktop_len;
}

void pty_bridge_close(struct pty_bridge *b)
{
	if (b->master >= 0)
		close(b->master);
	b->master = -1;
}
