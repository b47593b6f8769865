# SPDX-License-Identifier: GPL-2.0
# Out-of-tree build of kstats.ko.
#   make                   build for the running kernel
#   make KVER=6.12.x-amd64 build for another installed headers package
#   make demo              boot a stock kernel in QEMU and show a histogram
#   make playground        a shell in a QEMU guest with kstats loaded
#                          (ARGS="--rootfs --dir DIR SCRIPT": ./playground --help)
#   make check             run every test (see README)
#   make tools             the kstats command-line tool (tools/kstats)
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

modules_install:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

demo:
	bash test/demo.sh

playground:
	./playground $(ARGS)

check:
	bash test/run-all.sh

tools:
	$(MAKE) -C tools

.PHONY: all modules modules_install clean demo playground check tools
