#!/bin/sh
# DKMS POST_BUILD step, run in DKMS's build directory: keep what client
# modules need next to the built module, since DKMS itself keeps only
# the .ko. DKMS links /var/lib/dkms/kstats/kernel-KVER-ARCH to the
# directory of the installed version, so clients find them at
#   /var/lib/dkms/kstats/kernel-$(uname -r)-$(uname -m)/Module.symvers
#   /var/lib/dkms/kstats/kernel-$(uname -r)-$(uname -m)/include/
# Usage: dkms-post-build.sh DKMS_TREE VERSION KERNELVER ARCH
set -e
dest=$1/kstats/$2/$3/$4
mkdir -p "$dest/include/linux"
cp Module.symvers "$dest/Module.symvers"
cp include/linux/kstats.h "$dest/include/linux/kstats.h"
