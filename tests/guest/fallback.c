// SPDX-License-Identifier: MIT
/*
 * A handheld whose connection information is unusable (short, garbage,
 * or a stalled request) still gets a working /dev/pilot: pilotd says so
 * and falls back to the first bulk endpoint pair, as the facts in
 * palm-protocol.md section 2 ask.  The simulated Palm counts what lands
 * on that pair.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "guestlib.h"

int main(void)
{
	char buf[100] = "fallback";
	int fd;

	guest_test_name("fallback");
	fd = open_attached(O_RDWR, 30);
	if (fd < 0)
		fail("open: %s", strerror(errno));
	write_full(fd, buf, sizeof(buf));
	palm_wait_stat("other_out_bytes", sizeof(buf), 30);
	if (palm_stat("out_bytes") != 0)
		fail("bytes went to the HotSync pair, which the device never announced");
	note("unusable connection information: %zu bytes went to the first bulk pair", sizeof(buf));
	close(fd);
	return 0;
}
