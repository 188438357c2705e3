# SPDX-License-Identifier: MIT
# The Debian packages the build, the guest and the tests need.  Sourced.
pilotd_deps=(
	build-essential gcc-multilib meson ninja-build pkg-config python3 debhelper lintian
	libfuse3-dev libusb-1.0-0-dev libusbredirparser-dev libsystemd-dev
	qemu-system-x86 busybox-static cpio iproute2
	linux-source-6.1 flex bison bc libelf-dev libssl-dev
	clang libclang-rt-14-dev
)
