# SPDX-License-Identifier: GPL-2.0
# Feature probes for src/compat.h, read from the target kernel's headers and
# .config (not its version number). Included by the top Kbuild and by the
# benchmark-only module in bench/floor/, so both build alike.
#
# fprobe's handlers: pt_regs and a rethook pool (6.3 to 6.13), or
# ftrace_regs on the function-graph tracer (6.14 on). Neither found with
# CONFIG_FPROBE=y is an fprobe API kstats does not know: the build says
# so, and so do the load message and any "method fprobe" refusal.
ifeq ($(CONFIG_FPROBE),y)
ifneq ($(shell grep -s -c 'unsigned long ret_ip, struct pt_regs \*regs' $(srctree)/include/linux/fprobe.h),0)
ccflags-y += -DKS_FPROBE_PT_REGS_RET_IP
KS_METHODS_FPROBE := fprobe
else ifneq ($(shell grep -s -c 'unsigned long ret_ip, struct ftrace_regs \*regs' $(srctree)/include/linux/fprobe.h),0)
ccflags-y += -DKS_FPROBE_FTRACE_REGS
KS_METHODS_FPROBE := fprobe
else
$(info kstats: CONFIG_FPROBE=y, but its handlers in include/linux/fprobe.h are not ones kstats knows: building without fprobe)
ccflags-y += -DKS_FPROBE_UNKNOWN_API
endif
endif
# What this build can attach with: modinfo's "methods", and the load message.
KS_METHODS := kretprobe $(KS_METHODS_FPROBE) kprobe tracepoint
ccflags-y += -DKS_METHODS='"$(strip $(KS_METHODS))"'
# hrtimer_setup() replaced hrtimer_init() in 6.13 (hrtimer_init is gone in 6.15).
ifneq ($(shell grep -s -c 'void hrtimer_setup.struct hrtimer ' $(srctree)/include/linux/hrtimer.h),0)
ccflags-y += -DKS_HAVE_HRTIMER_SETUP
endif
# arm64's user return addresses lose their PAC with ptrauth_strip_user_insn_pac() since 6.5.
ifneq ($(shell grep -s -c 'ptrauth_strip_user_insn_pac' $(srctree)/arch/arm64/include/asm/compiler.h),0)
ccflags-y += -DKS_HAVE_PTRAUTH_STRIP_USER
endif
ifneq ($(shell grep -s -c 'objpool' $(srctree)/include/linux/rethook.h),0)
ccflags-y += -DKS_RETHOOK_OBJPOOL
endif
ifneq ($(shell grep -s -c 'unsigned int prev_state' $(srctree)/include/trace/events/sched.h),0)
ccflags-y += -DKS_SCHED_SWITCH_PREV_STATE
endif
