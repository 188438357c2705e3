/* SPDX-License-Identifier: MIT */
/*
 * The settings a desktop makes first (cfmakeraw()), for tests of the port
 * that move bytes and not lines: nothing is processed on either way.
 */
#ifndef PILOTD_TEST_RAW_TERMIOS_H
#define PILOTD_TEST_RAW_TERMIOS_H

#include <asm/termbits.h>

static inline void make_raw_termios(struct termios2 *t)
{
	t->c_iflag &= ~(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
	t->c_oflag &= ~OPOST;
	t->c_lflag &= ~(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	t->c_cc[VMIN] = 1;
	t->c_cc[VTIME] = 0;
}

#endif
