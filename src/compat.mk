# SPDX-License-Identifier: GPL-2.0
# Feature probes for src/compat.h, read from the target kernel's headers and
# .config (not its version number). Included by the top Kbuild and by the
# benchmark-only module in test/bench-floor/, so both build alike.
ifeq ($(CONFIG_FPROBE),y)
ifneq ($(shell grep -s -c 'unsigned long ret_ip, struct pt_regs \*regs' $(srctree)/include/linux/fprobe.h),0)
ccflags-y += -DKS_FPROBE_PT_REGS_RET_IP
endif
endif
ifneq ($(shell grep -s -c 'objpool' $(srctree)/include/linux/rethook.h),0)
ccflags-y += -DKS_RETHOOK_OBJPOOL
endif
ifneq ($(shell grep -s -c 'unsigned int prev_state' $(srctree)/include/trace/events/sched.h),0)
ccflags-y += -DKS_SCHED_SWITCH_PREV_STATE
endif
