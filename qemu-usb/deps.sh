# SPDX-License-Identifier: MIT
# The Debian packages the build, the guest and the tests need.  Sourced.
# demo_deps: what ./demo needs (pilotd, the guest, Debian's kernel image
# with the series' modules built against its headers: downloaded into the
# cache, not installed); pilotd_deps: everything ./run-tests needs besides
# (the Debian package, the fuzzers, and our allnoconfig kernel, which
# build-kernel.sh builds from linux-source-6.1).
demo_deps=(
	build-essential gcc-multilib meson ninja-build pkg-config python3
	libfuse3-dev libusb-1.0-0-dev libusbredirparser-dev libsystemd-dev
	qemu-system-x86 busybox-static cpio kmod xz-utils zstd
)
pilotd_deps=(
	"${demo_deps[@]}" debhelper dh-dkms lintian iproute2 dkms mmdebstrap
	linux-source-6.1 flex bison bc libelf-dev libssl-dev
	clang libclang-rt-14-dev
)
