// SPDX-License-Identifier: MIT
/*
 * Several handhelds, or the wrong device, on the bus: pilotd takes the
 * first Palm and leaves every other device alone.  Read from sysfs: the
 * interface pilotd claimed is bound to usbfs, the other Palms stay with
 * the kernel's visor driver, and a non-Palm device is not touched.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guestlib.h"

static unsigned int hex_attr(const char *dev, const char *attr)
{
	char path[300];
	unsigned int v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/%s", dev, attr);
	f = fopen(path, "r");
	if (f && fscanf(f, "%x", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	return v;
}

static const char *iface_driver(const char *dev)
{
	static char target[300];
	char path[300];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s:1.0/driver", dev);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return "none";
	target[n] = '\0';
	return strrchr(target, '/') + 1;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		fail("usage: several NUMBER-OF-PALMS");
	int palms = 0, claimed = 0, visor = 0, others = 0, fd;
	double deadline = now_s() + 20;
	DIR *d;
	struct dirent *e;

	guest_test_name("several");
	/* /dev/pilot working means pilotd has taken its handheld */
	fd = open_attached(O_RDWR, 30);
	if (fd < 0)
		fail("open: %s", strerror(errno));
	write_full(fd, "x", 1);
	palm_wait_stat("plugged", 1, 5);
	while (now_s() < deadline) {
		palms = claimed = visor = others = 0;
		d = opendir("/sys/bus/usb/devices");
		while (d && (e = readdir(d))) {
			unsigned int vid;
			const char *drv;

			if (e->d_name[0] == '.' || strchr(e->d_name, ':') ||
			    strncmp(e->d_name, "usb", 3) == 0)
				continue;
			vid = hex_attr(e->d_name, "idVendor");
			drv = iface_driver(e->d_name);
			if (vid == 0x0830 || vid == 0x082d) {
				palms++;
				claimed += strcmp(drv, "usbfs") == 0;
				visor += strcmp(drv, "usbserial_generic") == 0 ||
					 strcmp(drv, "visor") == 0;
			} else if (vid == 0x1209) {
				others++;
				if (strcmp(drv, "usbfs") == 0)
					fail("pilotd claimed the device that is not a Palm");
			}
		}
		if (d)
			closedir(d);
		if (palms == atoi(argv[1]) && claimed == 1 && visor == palms - 1)
			break;
		usleep(100000);
	}
	note("%d Palms and %d other device on the bus: %d claimed by pilotd, %d left to visor",
	     palms, others, claimed, visor);
	if (argc != 2 || palms != atoi(argv[1]) || claimed != 1 || visor != palms - 1)
		fail("expected %s Palms, one claimed, the rest with visor",
		     argc == 2 ? argv[1] : "?");
	close(fd);
	return 0;
}
