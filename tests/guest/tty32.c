// SPDX-License-Identifier: MIT
/*
 * A 32-bit static program asks /dev/pilot for its terminal settings,
 * changes them and reads them back, as legacy i386 sync tools do.  As on
 * the visor tty, the speed stays (usb-serial's tty_termios_copy_hw) and
 * the rest is stored.  Built
 * with -m32 -static; uses only libc and the kernel's ioctl numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct k_termios { /* the kernel's struct termios, the same on i386 */
	unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[19];
};

int main(void)
{
	struct k_termios t, want, back;
	int fd = open("/dev/pilot", O_RDWR | O_NONBLOCK), lines = 0;

	_Static_assert(sizeof(void *) == 4, "build this with -m32");
	if (fd < 0 || ioctl(fd, TCGETS, &t) < 0) {
		fprintf(stderr, "tty32: FAIL: open/TCGETS: %s\n", strerror(errno));
		return 1;
	}
	want = t;
	t.c_cc[6] = want.c_cc[6] = 9;		       /* VMIN */
	t.c_cflag = (t.c_cflag & ~0010017u) | 0000015; /* B19200: not kept */
	if (ioctl(fd, TCSETS, &t) < 0 || ioctl(fd, TCGETS, &back) < 0 ||
	    memcmp(&want, &back, sizeof(want)) != 0) {
		fprintf(stderr, "tty32: FAIL: TCSETS did not read back: %s\n", strerror(errno));
		return 1;
	}
	if (ioctl(fd, TIOCMGET, &lines) < 0 || !(lines & TIOCM_CD)) {
		fprintf(stderr, "tty32: FAIL: TIOCMGET 0x%x (%s)\n", lines, strerror(errno));
		return 1;
	}
	printf("tty32: a 32-bit program set and read back termios, TIOCMGET 0x%x\n", lines);
	return 0;
}
