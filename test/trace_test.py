#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""_control tests of kstats.ko in a stock-kernel QEMU guest.

  trace_test.py gen GUEST_SCRIPT SERIES [ARCH]
                                   write the busybox script the guest runs
                                   (SERIES 6.1 or 6.12, ARCH x86_64 or arm64)
  trace_test.py check LOGFILE      assert on the guest's console log

Durations come from kstats_test_target.ko (spins, usleep_range,
recursion, migration) and from static programs (signals, syscalls), so each
sample has a known lower bound. The host can stall a TCG vCPU inside any
call for any time, so no upper bound comes from a nominal duration: the
caller times the same calls on the same clock (the target module and
sigpair print "measured N min_ns MIN max_ns MAX"), and every sample must lie
between the known duration and the caller's longest measurement.
"""
import re
import sys

from basic_test import Results, at_least, console_series, parse, ref_slot, report

FB = 3
D = "/sys/kernel/debug/kstats"


NMI_SKIP = ("x86 only: the nmi:nmi_handler tracepoint and sysrq NMI backtraces; "
            "Debian's arm64 kernels lack CONFIG_ARM64_PSEUDO_NMI, so nothing runs in NMI")


def function_methods(series, arch):
    # Debian's amd64 kernels have CONFIG_FPROBE from 6.12 on (6.1 does
    # not); its arm64 6.12 has none (no FUNCTION_GRAPH_RETVAL).
    fprobe = arch == "x86_64" and at_least(series, "6.12")
    return ["kretprobe", "fprobe"] if fprobe else ["kretprobe"]


def default_method(series, arch):
    return function_methods(series, arch)[-1]


def sys_entry(arch, call):
    """The syscall entry point, as arch/*/include/asm/syscall_wrapper.h names it."""
    return {"x86_64": "__x64_sys_", "arm64": "__arm64_sys_"}[arch] + call


def arch_of(log):
    m = re.search(r"KSTATS-GUEST-START \S+-(arm64|amd64) ", log)
    return "arm64" if m and m.group(1) == "arm64" else "x86_64"


# A lock and unlock function, out of line, run with IRQs off from any
# context. Debian's arm64 kernels inline every _raw_spin_* function
# (ARCH_INLINE_SPIN_*, no PREEMPT), so there it is the run-queue lock's.
SPIN_PAIR = {"x86_64": ("_raw_spin_lock_irqsave", "_raw_spin_unlock_irqrestore"),
             "arm64": ("raw_spin_rq_lock_nested", "raw_spin_rq_unlock")}

# A function on each arch's kprobe blacklist (NOKPROBE_SYMBOL).
BLACKLISTED = {"x86_64": "do_int3", "arm64": "do_mem_abort"}


# (name, command, errno text) for every refusal, checked on both kernels.
def REFUSALS(arch):
    return [
    ("unknown symbol", "trace x start kst_no_such_function", "No such file or directory"),
    ("kprobe blacklist (kstats_record)", "trace x start kstats_record", "Invalid argument"),
    ("kstats' own function", "trace x start ks_trace_add", "Invalid argument"),
    ("kprobe blacklist (%s)" % BLACKLISTED[arch], "trace x start " + BLACKLISTED[arch],
     "Invalid argument"),
    ("duplicate name", "trace dup start kst_target_delay", "File exists"),
    ("a NAME that looks like a GAP node", "trace GAP-dup start kst_target_delay", "Invalid argument"),
    ("remove of an unknown name", "remove nosuch", "No such file or directory"),
    ("bits out of range", "trace x start kst_target_delay bits 6", "Invalid argument"),
    ("bits not a number", "trace x start kst_target_delay bits three", "Invalid argument"),
    ("missing value", "trace x start kst_target_delay bits", "Invalid argument"),
    ("a stray word after start's value", "trace x start kst_target_delay extra", "Invalid argument"),
    ("unknown keyword", "trace x start kst_target_delay color red", "Invalid argument"),
    ("keyword twice", "trace x start kst_target_delay bits 2 bits 3", "Invalid argument"),
    ("too many words", "trace x" + " bits 1" * 25 + " q y z", "Invalid argument"),
    ("unknown command", "frob x", "Invalid argument"),
    ("command alone", "trace", "Invalid argument"),
    ("remove with extra words", "remove dup now", "Invalid argument"),
    ("maxactive 0", "trace x start kst_target_delay maxactive 0", "Invalid argument"),
    ("maxactive 4097", "trace x start kst_target_delay maxactive 4097", "Invalid argument"),
    ("unknown method", "trace x start kst_target_delay method uprobe", "Invalid argument"),
    ("gap neither on nor off", "trace x start kst_target_delay gap maybe", "Invalid argument"),
    ("method kprobe without end", "trace x start kst_target_delay method kprobe", "Invalid argument"),
    ("kretprobe with end", "trace x start kst_section_begin end kst_section_end method kretprobe", "Invalid argument"),
    ("tracepoint without end", "trace x start __tracepoint_sched_switch", "Invalid argument"),
    ("tracepoint with function end", "trace x start __tracepoint_sched_switch end kst_section_end", "Invalid argument"),
    ("method tracepoint on functions", "trace x start kst_section_begin end kst_section_end method tracepoint", "Invalid argument"),
    ("end same as start", "trace x start kst_section_end end kst_section_end", "Invalid argument"),
    # One function under two names: the pair would time kstats' own
    # handlers at one hit (found in a fresh user's review).
    ("end the same function as start, by its alias",
     "trace x start kst_alias_null end kst_impl_null", "Invalid argument"),
    ("end the same function as start, as MODULE:FUNCTION",
     "trace x start kst_section_begin end kstats_test_target:kst_section_begin", "Invalid argument"),
    ("matched end the same function as start, by its alias",
     "trace x start kst_alias_null end kst_impl_null match arg0", "Invalid argument"),
    ("unknown tracepoint", "trace x start __tracepoint_kst_nosuch end __tracepoint_sched_switch", "No such file or directory"),
    ("unknown end function", "trace x start kst_section_begin end kst_no_such_end", "No such file or directory"),
    ("name with /", "trace a/b start kst_target_delay", "Invalid argument"),
    ("name starting with _", "trace _x start kst_target_delay", "Invalid argument"),
    ("name of 60 bytes", "trace %s start kst_target_delay" % ("n" * 60), "File name too long"),
    ("start symbol of 512 bytes", "trace x start %s" % ("s" * 512), "File name too long"),
    ("NUL byte in the command", "trace x start kst_target_delay\\0junk", "Invalid argument"),
    ("two commands in one write", "trace x start kst_target_delay\\ntrace y", "Invalid argument"),
    ] + (NO_SITE_REFUSALS if arch == "x86_64" else [])


# On amd64 (CONFIG_KPROBES_ON_FTRACE), kstats probes only functions with
# an ftrace site, as kprobe_events does ("Could not probe notrace
# function"): a notrace function, a module's __exit function (which
# kallsyms sizes past the module's text: the kprobe optimizer's decoding
# of it oopsed 6.12), and patterns that match only such functions are
# refused, whatever the method, before any probe is placed.
NO_SITE_REFUSALS = [
    ("notrace function", "trace x start kst_target_notrace", "Invalid argument"),
    ("notrace function by kretprobe", "trace x start kst_target_notrace method kretprobe",
     "Invalid argument"),
    ("a module's __exit function", "trace x start kstats_test_target:kst_exit", "Invalid argument"),
    ("a module's __exit function by its bare name", "trace x start kst_exit", "Invalid argument"),
    ("a module's __exit function as a section end",
     "trace x start kst_section_begin end kst_exit", "Invalid argument"),
    ("a module's __exit function as a matched end",
     "trace x start kst_obj_begin end kst_exit match arg0", "Invalid argument"),
    ("a list with a module's __exit function only", "trace x start kst_exit,kst_target_notrace",
     "No such file or directory"),
    ("a pattern matching only a module's __exit function", "trace x start kst_exi*",
     "No such file or directory"),
    ("a pattern matching only notrace functions", "trace x start kst_target_notr?ce",
     "No such file or directory"),
]
NO_SITE_DMESG = [
    "trace x: kst_target_notrace has no ftrace site (notrace, __init or __exit code, or not plain text)",
    "trace x: kstats_test_target:kst_exit has no ftrace site",
    "trace x: kst_exi* matches no function with an ftrace site",
]


def SPELLINGS(series, arch):
    """(command, method, start) of spellings bpftrace and perf users write."""
    fn = default_method(series, arch)
    return [
        ("trace sp1 start sched_wakeup end sched_switch", "tracepoint", "__tracepoint_sched_wakeup"),
        ("trace sp2 start tracepoint:signal:signal_generate end signal:signal_deliver",
         "tracepoint", "__tracepoint_signal_generate"),
        ("trace sp3 start syscall:getppid", fn, sys_entry(arch, "getppid")),
        ("trace sp4 start sys_getppid method kretprobe", "kretprobe", sys_entry(arch, "getppid")),
        ("trace sp5 start kretprobe:kst_target_delay", "kretprobe", "kst_target_delay"),
        ("trace sp6 start kprobe:kst_section_begin end kprobe:kst_section_end", "kprobe",
         "kst_section_begin"),
        # kfree is a function and a tracepoint (kmem:kfree): the function wins.
        ("trace sp7 start kfree", fn, "kfree"),
        # A tracepoint with no trace event (DECLARE_TRACE; named *_tp, and
        # since 6.15 every one is): in no group, so named without one.
        ("trace sp10 start tracepoint:sched_update_nr_running_tp end sched_switch",
         "tracepoint", "__tracepoint_sched_update_nr_running_tp"),
    ] + ([("trace sp8 start fentry:kst_target_null", "fprobe", "kst_target_null"),
          ("trace sp9 start kfunc:kst_target_null", "fprobe", "kst_target_null")]
         if "fprobe" in function_methods(series, arch) else [])


# (command, errno text, the exact dmesg line) of refusals that teach.
def SPELLING_REFUSALS(arch):
    return [
    ("trace rd vfs_read", "Invalid argument",
     "trace rd: 'vfs_read' is not a keyword; did you mean 'start vfs_read'?"),
    # An end without a start: not taken for the function NAME.
    ("trace q11 end vfs_read", "Invalid argument",
     "trace q11: end vfs_read without start: give start FUNC (alone, NAME is the function)"),
    # A stray word after start's value: not a hint to give start again.
    ("trace rd start vfs_read extra", "Invalid argument",
     "trace rd: 'extra' is not a keyword; start is given (start vfs_read) and takes one word"),
    ("trace rd start vfs_read extra key comm", "Invalid argument",
     "trace rd: 'extra' is not a keyword; start is given (start vfs_read) and takes one word"),
    ("trace rd key comm extra start vfs_read", "Invalid argument",
     "trace rd: 'extra' is not a keyword; start is given (start vfs_read) and takes one word"),
    # The stray word is the one at a keyword's place, not the last word.
    ("trace rd vfs_read key comm", "Invalid argument",
     "trace rd: 'vfs_read' is not a keyword; did you mean 'start vfs_read'?"),
    ("trace rd offcpu comm dd extra", "Invalid argument",
     "trace rd: 'extra' is not a keyword; an off-CPU trace takes no start, and each keyword one word"),
    ("trace rd start vfs_read gap=off", "Invalid argument",
     "trace rd: 'gap=off': a keyword and its value are two words: 'gap off'"),
    ("trace x start kprobe:sched_wakeup", "No such file or directory",
     "trace x: no function sched_wakeup; the tracepoint is tracepoint:sched_wakeup"),
    ("trace x start syscalls:sys_enter_getppid end syscalls:sys_exit_getppid",
     "No such file or directory",
     "trace x: syscalls:sys_enter_getppid is a syscall event, not a tracepoint; use syscall:getppid"),
    ("trace x start tracepoint:irq:sched_wakeup end sched_switch", "No such file or directory",
     "trace x: no tracepoint tracepoint:irq:sched_wakeup: sched_wakeup is not in group irq"),
    ("trace x start syscall:nosuch", "No such file or directory",
     "trace x: no syscall nosuch (no function %s)" % sys_entry(arch, "nosuch")),
    ("trace x start kretprobe:vfs_read method fprobe", "Invalid argument",
     "trace x: kretprobe:vfs_read asks for method kretprobe, but the line says method fprobe"),
    ("trace x start nosuchthing", "No such file or directory",
     "trace x: no function or tracepoint nosuchthing in the kernel or its modules"),
    ("trace x bits", "Invalid argument", "trace x: keyword bits needs a value"),
    ("frob x", "Invalid argument", "_control: 'frob' is not a command: expected trace, remove, start, stop or reset"),
    ("frobnicate", "Invalid argument", "_control: 'frobnicate' is not a command: expected trace, remove, start, stop or reset"),
    ("trace x start tracepoint:syscalls:sys_enter_getppid", "No such file or directory",
     "trace x: tracepoint:syscalls:sys_enter_getppid is a syscall event, not a tracepoint; use syscall:getppid"),
    ("trace x start sys_enter_getppid end sys_exit_getppid", "No such file or directory",
     "trace x: sys_enter_getppid is a syscall event, not a tracepoint; use syscall:getppid"),
    ("trace x start tracepoint:sched:sched_*", "Invalid argument",
     "trace x: tracepoint:sched:sched_*: lists and patterns are of functions only"),
    ("trace x start kprobe:vfs_read+4", "No such file or directory",
     "trace x: no function vfs_read+4: kstats times functions and sections, not offsets"),
    ("trace x start kst_target_delay,,kst_target_null", "Invalid argument",
     "trace x: kst_target_delay,,kst_target_null: an empty name in the list"),
    # GROUP:EVENT that is no tracepoint: ENOENT naming it, not a kind mismatch.
    ("trace x start sched:nosuch end sched:sched_switch", "No such file or directory",
     "trace x: no tracepoint or function sched:nosuch in the kernel or its modules"),
    ("trace x start irq:sched_switch end sched:sched_wakeup", "No such file or directory",
     "trace x: no tracepoint irq:sched_switch: sched_switch is not in group irq"),
    ("trace x start sched:sched_update_nr_running_tp end sched_switch",
     "No such file or directory",
     "trace x: no tracepoint sched:sched_update_nr_running_tp: "
     "sched_update_nr_running_tp is not in group sched"),
    # A write's framing, said as what is wrong with it.
    ("trace x1 start kst_target_delay\\ntrace y1", "Invalid argument",
     "_control: a newline inside the write; one command per write, ending in one newline at most"),
    ("trace x1 start kst_target_delay\\0junk", "Invalid argument",
     "_control: a NUL byte in the write; one command per write"),
    ("trace x start sched_wakeup end kst_section_end", "Invalid argument",
     "trace x: start sched_wakeup and end kst_section_end must both be tracepoints or both functions"),
    ]


# Traces on one function (kst_target_null): default, then method fprobe.
# 20 default traces are the 5 fprobes that fill a 7.x function's room and
# 15 kretprobes past it (40 took twice the guest time, most of it in
# handlers: round i runs i traces' handlers, and the twenty traces past
# the 20th only repeated the kretprobe fallback's check).
N_SHARED, N_SHARED_FP, SHARED_CALLS = 20, 8, 100


def fprobes_per_function(series, arch):
    """kstats' fprobes one function takes where fprobe keeps its calls'
    data on the shadow stack (6.14 on): fgraph's block of 32 words per
    call, for a header word and the 40-byte struct ks_call (5 words) each;
    None where fprobe has a pool per probe, or no fprobe at all."""
    if "fprobe" not in function_methods(series, arch) or fprobe_has_pool(series):
        return None
    return 32 // (1 + 5)


def gen(path, series, arch):
    out = ["""set -u
D=%s
C=$D/_control
T=/sys/kernel/debug/kstats_test_target
ctl() { (echo -e "$1" > $C) 2>/tmp/err; echo "@@CTL rc=$? $(sed 's/.*: //' /tmp/err) :: $1"; }
tgt() { echo "$1" > $T || echo "@@TGTFAIL $1"; }
meas() { echo "@@MEAS $1 $(grep '^measured ' $T)"; }
# together N CMD: N tasks run CMD from the same moment, so their calls
# overlap however slowly a loaded host forks them.
together() {
	rm -f /tmp/go /tmp/rdy.*
	for i in $(seq 1 $1); do
		(touch /tmp/rdy.$i; while [ ! -e /tmp/go ]; do usleep 1000; done; eval "$2") &
	done
	while [ $(ls /tmp/rdy.* 2>/dev/null | wc -l) -lt $1 ]; do usleep 1000; done
	touch /tmp/go
	wait
}
show() { echo "@@BEGIN $1"; cat "$D/$1"; echo "@@END $1 rc=$?"; }
step() { echo "@@STEP $1 $(cut -d" " -f1 /proc/uptime)"; }
listing() { echo "@@LIST-BEGIN $1"; cat $C; echo "@@LIST-END $1"; }
insmod /modules/kstats.ko || echo "@@FAIL insmod kstats"
insmod /modules/kstats_test_target.ko || echo "@@FAIL insmod target"
""" % D]
    for m in function_methods(series, arch) + ["default"]:
        mm = "" if m == "default" else " method " + m
        out.append("""step fn-%(m)s
ctl "trace d_%(m)s start kst_target_delay%(mm)s"
listing d_%(m)s
tgt clear
tgt "delay 20000 10"
meas d_%(m)s
show d_%(m)s
ctl "remove d_%(m)s"
ctl "trace r_%(m)s start kst_target_recurse%(mm)s"
tgt clear
tgt "recurse 3 10000 6"
meas r_%(m)s
show r_%(m)s
ctl "remove r_%(m)s"
ctl "trace s_%(m)s start kst_target_sleep%(mm)s"
tgt clear
together 8 'tgt "sleep 100000 2"'
meas s_%(m)s
show s_%(m)s
listing s_%(m)s
ctl "remove s_%(m)s"
ctl "trace m_%(m)s start kst_target_migrate%(mm)s"
tgt clear
tgt "migrate 40000 5"
meas m_%(m)s
show m_%(m)s
ctl "remove m_%(m)s"
ctl "trace g_%(m)s start kst_target_delay%(mm)s"
tgt clear
tgt "gap 20000 11"
meas g_%(m)s
show g_%(m)s
show GAP-g_%(m)s
ctl "remove g_%(m)s"
ctl "trace ma_%(m)s start kst_target_sleep maxactive 1%(mm)s"
together 4 'tgt "sleep 20000 3"'
show ma_%(m)s
listing ma_%(m)s
ctl "remove ma_%(m)s"
ctl "trace gp_%(m)s start %(gp)s%(mm)s"
/modules/syscall_loop 1000
show gp_%(m)s
ctl "remove gp_%(m)s"
""" % {"m": m, "mm": mm, "gp": sys_entry(arch, "getppid")})
    # Traces sharing one function: each new one is added between rounds
    # of calls, so every earlier trace must count every round.
    out.append("""step shared
row() { echo "@@ROW $1 $(grep '^# samples' $D/$1 | awk '{print $3}') $(awk -v n=$1 '$1==n{for(j=1;j<NF;j++) if($j=="method"||$j=="missed") printf "%%s %%s ", $j, $(j+1)}' $C)"; }
for i in $(seq 1 %(n)d); do ctl "trace sh$i start kst_target_null"; tgt "bench %(calls)d"; done
for i in $(seq 1 %(n)d); do row sh$i; done
for i in $(seq 1 %(n)d); do ctl "remove sh$i"; done
""" % {"n": N_SHARED, "calls": SHARED_CALLS})
    if "fprobe" in function_methods(series, arch):
        out.append("""for i in $(seq 1 %(n)d); do ctl "trace sf$i start kst_target_null method fprobe"; tgt "bench %(calls)d"; done
for i in $(seq 1 %(n)d); do [ -e $D/sf$i ] && row sf$i; done
for i in $(seq 1 %(n)d); do [ -e $D/sf$i ] && ctl "remove sf$i"; done
""" % {"n": N_SHARED_FP, "calls": SHARED_CALLS})
    out.append("""step notrace
echo "@@AFF-NOTRACE $(grep -c '^kst_target_notrace ' /sys/kernel/debug/tracing/available_filter_functions)"
ctl "trace nt start kst_target_notrace"
listing nt
tgt "notrace 50"
show nt
ctl "remove nt"
step kprobe-pair
ctl "trace sec start kst_section_begin end kst_section_end"
listing sec
tgt clear
tgt "section 20000 10"
meas sec
show sec
tgt "end_only 5"
listing sec-end-only
show sec
ctl "remove sec"
ctl "trace full start kst_section_begin end kst_section_end maxactive 1"
together 6 'tgt "section_sleep 20000 3"'
show full
listing full
ctl "remove full"
ctl "trace nest start kst_section_begin end kst_section_end"
tgt clear
tgt "nest 400 20 20"
meas nest
show nest
listing nest
ctl "remove nest"
ctl "trace irqe start kst_section_begin end kst_section_end"
tgt clear
tgt "irqend 4000 5"
meas irqe
show irqe
ctl "remove irqe"
ctl "trace irqs start kst_section_begin end kst_section_end"
tgt clear
tgt "irqsection 4000 5"
meas irqs
show irqs
listing irqs
ctl "remove irqs"
ctl "trace mix start kst_section_begin end kst_target_notrace"
tgt clear
tgt "mixed 1000 10"
meas mix
show mix
ctl "remove mix"
step tracepoint-pair
ctl "trace sig start __tracepoint_signal_generate end __tracepoint_signal_deliver"
listing sig
/modules/sigpair 10 50000 > /tmp/sp
cat /tmp/sp
echo "@@MEAS sig $(grep '^measured ' /tmp/sp)"
show sig
ctl "remove sig"
ctl "trace rq start __tracepoint_sched_wakeup end __tracepoint_sched_switch"
/modules/sigpair 5 10000
show rq
listing rq
ctl "remove rq"
step gap-off
# gap off: no GAP-NAME, every sample still recorded; gap on is the default.
ctl "trace gf start kst_target_delay gap off"
ctl "trace gk start kst_section_begin end kst_section_end gap off"
ctl "trace gn start kst_target_recurse gap on"
listing gap-off
tgt clear
tgt "gap 20000 11"
tgt "section 20000 10"
for n in GAP-gf GAP-gk GAP-gn; do [ -e $D/$n ] && echo "@@NODE $n"; done
show gf
show gk
ctl "remove gf"
ctl "remove gk"
ctl "remove gn"
step matched
# Sections matched on an object: A ended in the task, B from a hard
# hrtimer, each by its own end function (arg0, and arg1 of kst_obj_end2).
ctl "trace mo start kst_obj_begin end kst_obj_end match arg0"
ctl "trace mi start kst_obj_begin end kst_obj_end2 match arg0,arg1"
listing matched
tgt clear
tgt "objs 2000 10"
meas objs
show mo
show mi
ctl "remove mo"
ctl "remove mi"
# Expiry: a table of 2 slots, two starts never ended; a third start
# after they are older than expire takes their room.
ctl "trace ex start kst_obj_begin end kst_obj_end match arg0 expire 200000000 maxactive 1"
tgt "objbegin 2"
tgt "objbegin 3"
sleep 1
tgt "objpair 4"
tgt "objpair 5"
tgt "objbegin 6"
sleep 1
tgt "objend 6"
tgt "objend 2"
show ex
listing expire
ctl "remove ex"
# An expire beyond the time since boot drops nothing: a full table is full.
ctl "trace ex2 start kst_obj_begin end kst_obj_end match arg0 maxactive 1 expire 18446744073709551615"
tgt "objbegin 2"
tgt "objbegin 3"
tgt "objbegin 4"
tgt "objend 2"
show ex2
ctl "remove ex2"
# A start of an object that has one replaces it; with repeat keep it is
# dropped and the first stays.
ctl "trace rp start kst_obj_begin end kst_obj_end match arg0"
ctl "trace rk start kst_obj_begin end kst_obj_end match arg0 repeat keep"
listing repeat
tgt "objbegin 1"
sleep 1
tgt "objbegin 1"
tgt "objend 1"
show rp
show rk
show KEY-rp
show KEY-rk
ctl "remove rp"
ctl "remove rk"
# A tracepoint pair on the work item: queue_work's third argument and
# execute_start's first, started by this shell only.
ctl "trace wq start workqueue:workqueue_queue_work end workqueue:workqueue_execute_start match arg2,arg0 pid $$"
listing matched-wq
tgt clear
tgt "work 25"
meas wq
show wq
ctl "remove wq"
# Values: kst_ret_long(i, 1000 i) fails with -EAGAIN for i % 4 == 0 and
# -ENOENT for i % 4 == 1; kst_ret_int(i) alike, as an int.
ctl "trace v1 start kst_ret_long if ret<0"
ctl "trace v2 start kst_ret_long if ret==-11"
ctl "trace v3 start kst_ret_long if arg1>=50000 if ret>0"
ctl "trace v4 start kst_ret_long if arg0&3"
ctl "trace v5 start kst_ret_int if ret:s32<0"
ctl "trace v6 start kst_ret_long method kretprobe if ret<0 if arg0<40"
ctl "trace v7 start kst_ret_int if ret:u8==254"
ctl "trace v8 start kst_ret_long end kst_ret_int if arg1<10000"
ctl "trace v9 start kst_obj_begin end kst_obj_end match arg0 if arg0==0"
ctl "trace v10 start kst_ret_long if arg0<010"
ctl "trace v11 start kst_ret_long if arg0<0x10"
listing values
tgt "ret 100"
tgt "objpair 3"
for n in v1 v2 v3 v4 v5 v6 v7 v8 v9 v10 v11; do show $n; ctl "remove $n"; done
ctl "trace vx start kst_ret_long end kst_ret_int if ret<0"
ctl "trace vx start kst_ret_long if arg5>1"
ctl "trace vx start kst_ret_long,kst_ret_int if size>1"
ctl "trace vx start vfs_read if size>1"
ctl "trace vx start kst_ret_long if a-b>1"
ctl "trace vx start kst_ret_long if ret:s7<0"
ctl "trace vx start kst_ret_long if ret<<0"
ctl "trace vx start kst_ret_long if ret:s8<200"
ctl "trace vx start kst_ret_long if ret<0 if ret<1 if ret<2 if ret<3 if ret<4"
ctl "trace vx offcpu if arg0>1"
ctl "trace vx start sched:sched_wakeup end sched:sched_switch if arg0>1"
# Refusals.
ctl "trace mx start kst_obj_begin match arg0"
ctl "trace mx start kst_obj_begin end kst_obj_end match arg5"
ctl "trace mx start kst_obj_begin end kst_obj_end match obj"
ctl "trace mx start kst_obj_begin end kst_obj_end match arg00"
ctl "trace mx start kst_obj_begin end kst_obj_end match arg0,"
ctl "trace mx start kst_obj_begin end kst_obj_end match arg0 key comm"
ctl "trace mx start kst_obj_begin expire 5"
ctl "trace mx start kst_obj_begin end kst_obj_end match arg0 expire 0"
ctl "trace mx start kst_obj_begin end kst_obj_end repeat keep"
ctl "trace mx start kst_obj_begin end kst_obj_end match arg0 repeat first"
listing matched-after
step hostile
# Pairs on the spinlock functions and in NMI: their handlers take no lock.
ctl "trace h start @@LOCK@@ end @@UNLOCK@@"
ls -R /sys > /dev/null 2>&1
show h
ctl "remove h"
%(nmi)s
echo "@@HOSTILE-DONE"
step refusals
ctl "trace dup start kst_target_delay"
""")
    for _, cmd, _ in REFUSALS(arch):
        out.append('ctl "%s"' % cmd)
    # A data symbol: kallsyms lists data only with CONFIG_KALLSYMS_ALL
    # (Debian's arm64 6.1 has it off: there it is no symbol at all).
    # Both symbols from one read of /proc/kallsyms (about a second of a
    # TCG guest).
    out.append('grep -w -e jiffies_64 -e __per_cpu_start /proc/kallsyms > /tmp/dsyms\n'
               'echo "@@KALLSYMS_DATA $(grep -qw jiffies_64 /tmp/dsyms && echo yes || echo no)"\n'
               'ctl "trace x start jiffies_64"')
    # A per-CPU symbol: x86-64 lists them at 0, as offsets, where a hidden
    # address would be 0 too; it is data all the same.
    out.append('echo "@@PERCPU $(grep -w __per_cpu_start /tmp/dsyms | cut -d\' \' -f1,2)"\n'
               'ctl "trace y start __per_cpu_start"')
    # NMIs come from sysrq-l (backtraces of all CPUs). On 6.12 sysrq forces
    # its own CPU's backtrace onto the console, which the console check
    # rightly fails on, so NMIs are raised on 6.1 only.
    nmi = "" if series != "6.1" else """# NMI backtraces of every CPU; keep their stack dumps off the console.
old=$(cat /proc/sys/kernel/printk | awk '{print $1}')
echo 1 > /proc/sys/kernel/printk
# Apart: sysrq raises the console loglevel while it prints its header,
# and a backtrace still being flushed then would reach the console.
for i in $(seq 1 10); do echo l > /proc/sysrq-trigger; sleep 0.5; done
sleep 2
echo $old > /proc/sys/kernel/printk"""
    nmi = """ctl "trace n1 start __tracepoint_nmi_handler end __tracepoint_sys_enter"
ctl "trace n2 start __tracepoint_sys_exit end __tracepoint_nmi_handler"
/modules/syscall_loop 20000 > /dev/null &
/modules/syscall_loop 20000 > /dev/null &
%s
wait
show n1
ctl "remove n1"
ctl "remove n2"
""".rstrip("\n") % nmi
    if arch != "x86_64":
        # nmi:nmi_handler is x86's; Debian's arm64 kernels have no
        # CONFIG_ARM64_PSEUDO_NMI, so no NMI ever runs there.
        nmi = 'echo "@@SKIP NMI pair: %s"' % NMI_SKIP
    out = [o.replace("%(nmi)s", nmi) for o in out]
    spell = "\n".join('ctl "%s"' % cmd
                      for cmd, _, _ in SPELLINGS(series, arch) + SPELLING_REFUSALS(arch))
    out.append("""(head -c 3000 /dev/zero | tr '\\0' 'a' > $C) 2>/tmp/err; echo "@@CTL rc=$? $(sed 's/.*: //' /tmp/err) :: over-long write"
ctl "trace %s start kst_target_delay"
ls $D | sed 's/^/@@NODE /'
ctl "remove %s"
ctl "remove dup"
ls $D | sed 's/^/@@LEFT /'
listing after-refusals
step gone
ctl "trace gn start kst_target_delay"
rmmod kstats_test_target && echo "@@OK target unloaded"
listing gone
show gn
ctl "remove gn"
insmod /modules/kstats_test_target.ko || echo "@@FAIL reinsmod target"
step remove-pending
for m in %s; do
	ctl "trace ps_$m start kst_target_sleep method $m"
	tgt "sleep 400000 2" &
	sleep 0.2
	ctl "remove ps_$m"
	wait
done
step read-while-removed
ctl "trace rr start kst_target_delay"
(while [ -e $D/rr ]; do cat $D/rr > /dev/null 2>&1; cat $D/GAP-rr > /dev/null 2>&1; done) &
(for i in 1 2 3 4 5 6 7 8 9 10; do tgt "delay 10 50"; done) &
sleep 1
ctl "remove rr"
wait
step concurrent
ctl "trace cc start kst_target_delay bits 2"
(for i in 1 2 3 4 5 6 7 8; do echo "trace c1 start kst_target_delay" > $C; tgt "delay 5 20"; echo "remove c1" > $C; done) 2>/dev/null &
(for i in 1 2 3 4 5 6 7 8; do echo "trace c2 start __tracepoint_sys_enter end __tracepoint_sys_exit" > $C; cat $C > /dev/null; echo "remove c2" > $C; done) 2>/dev/null &
(for i in $(seq 1 40); do echo reset > $D/cc; echo stop > $D/cc; echo START > $D/cc; done) &
(for i in $(seq 1 40); do cat $D/cc $D/GAP-cc $C > /dev/null 2>&1; tgt "delay 5 10"; done) &
wait
listing concurrent
ctl "remove cc"
ls $D | sed 's/^/@@LEFT2 /'
step spellings
@@SPELL@@
listing spellings
/modules/syscall_loop 1000 > /dev/null
show sp3
show sp4
for n in $(awk '{print $1}' $C); do ctl "remove $n"; done
step wildcards
ctl "trace w1 start kst_target_*"
ctl "trace w17 start kst_target_* method kretprobe"
ctl "trace w2 start kst_target_delay,kst_target_null"
ctl "trace w3 start kst_target_delay,kst_target_null method kretprobe"
ctl "trace w4 start kst_nomatch_*"
ctl "trace w5 start kst_target_delay,kstats_record"
ctl "trace w6 start kst_target_delay,kst_nosuch"
ctl "trace w7 start kst_target_*,vfs_read"
ctl "trace w13 start kst_target_delay,kstats_test_target:kst_target_delay method kretprobe"
ctl "trace w14 start kst_alias_*"
ctl "trace w15 start kst_alias_null"
A=/sys/kernel/debug/tracing/available_filter_functions
echo "@@AFF impl $(grep -c '^kst_impl_null ' $A) alias $(grep -c '^kst_alias_null ' $A)"
echo "@@ENABLED before $(wc -l < /sys/kernel/debug/tracing/enabled_functions)"
ctl "trace w8 start !kst_target_*"
ctl "trace w9 start *"
ctl "trace w10 start kst_target:kst_*"
ctl "trace w11 start 1*"
ctl "trace w12 start kst_[ab"
ctl "trace w18 start kst_[!]*"
ctl "trace w1 start kst_*"
ctl "trace w16 start * method kretprobe"
echo "@@ENABLED after $(wc -l < /sys/kernel/debug/tracing/enabled_functions)"
listing wildcards
tgt "delay 0 3"
tgt "notrace 5"
tgt "bench 7"
tgt "recurse 2 0 4"
tgt "alias 4"
for n in w1 w17 w2 w3 w5 w13 w14 w15; do show $n; done
for n in $(awk '{print $1}' $C); do ctl "remove $n"; done
listing wildcards-removed
# Last of the refusals: it spends the burst of dmesg lines.
step ratelimit
t0=$(date +%%s)
for i in $(seq 1 300); do echo "trace rl$i color red" > $C 2>/dev/null; done
echo "@@RL $(dmesg | grep -c "kstats: trace rl[0-9]*: 'color' is not a keyword") $(( $(date +%%s) - t0 ))"
# A SCHED_FIFO task takes CPU 1 whole (no RT throttling): an interval
# read, a remove beside interval reads, and the unload of a traced module
# must each end while it still spins, with nothing to run on CPU 1.
step busy-cpu
ctl "trace bz start kst_target_delay"
ctl "trace bz2 start kst_target_null"
tgt "delay 5 20"
tgt "bench 20"
cat $D/_interval/bz $D/_interval/bz2 > /dev/null
rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
taskset -pc 0 $$ > /dev/null
echo -1 > /proc/sys/kernel/sched_rt_runtime_us
echo "@@BUSYRT $(uname -v | grep -c PREEMPT_RT)"
# The spin lasts until every op below has begun (kstask spin's FLAG),
# then %d ms more at most, or until they have all ended.
printf 0 > /tmp/spin.flag
/modules/kstask kspin spin %d 1 /tmp/spin.flag > /tmp/spin 2>&1 &
for i in $(seq 1 500); do grep -q start /tmp/spin && break; usleep 10000; done
# opstart NAME CMD...: starts CMD under kstask, which notes when it
# begins and ends (taken by the waiting parent, not by a shell that
# polls: the shell shares CPU 0 with the reads below) and prints its
# kernel stack if it still runs after 1 s; opend NAME...: waits for each.
opstart() {
	w=$1; shift
	/modules/kstask $w run /tmp/op.$w "$@" > /tmp/op.$w.rep 2>&1 &
	eval "p_$w=$!"
}
opend() {
	for w in "$@"; do
		eval "wait \$p_$w"
		cat /tmp/op.$w.rep
	done
}
op() { opstart "$@"; opend $1; }
tgt "delay 5 20"
op ival cat $D/_interval/bz
echo "@@BUSYIV $(awk '/^# samples /{print $3}' /tmp/op.ival)"
op read cat $D/bz
(while [ ! -e /tmp/busy.stop ]; do cat $D/_interval/bz2 > /dev/null && echo "@@BZ2 $(/modules/kstask t now)"; done) > /tmp/busy.reads 2>&1 &
# Both at once: rmmod must not wait for the remove of a trace on its module.
opstart remove sh -c "echo 'remove bz' > $C"
opstart rmmod rmmod kstats_test_target
printf 1 | dd of=/tmp/spin.flag conv=notrunc 2>/dev/null
opend remove rmmod
printf 2 | dd of=/tmp/spin.flag conv=notrunc 2>/dev/null
# One read of bz2 ending after the remove, unless reads are held back.
n=$(wc -l < /tmp/busy.reads); i=0
while [ "$(wc -l < /tmp/busy.reads)" -le "$n" ] && [ $i -lt 500 ]; do usleep 10000; i=$((i + 1)); done
touch /tmp/busy.stop
wait
cat /tmp/spin /tmp/busy.reads
echo $rt > /proc/sys/kernel/sched_rt_runtime_us
taskset -pc 0-$(($(nproc) - 1)) $$ > /dev/null
ctl "remove bz2"
listing busy-cpu
insmod /modules/kstats_test_target.ko || echo "@@FAIL reinsmod target"
step rmmod-with-traces
ctl "trace z1 start kst_target_sleep method kretprobe"
ctl "trace z2 start kst_section_begin end kst_section_end"
ctl "trace z3 start __tracepoint_sched_wakeup end __tracepoint_sched_switch"
ctl "trace z4 start kst_target_delay"
tgt "sleep 300000 2" &
tgt "section_sleep 300000 2" &
sleep 0.2
rmmod kstats; echo "@@RMMOD rc=$?"
wait
test -e $D && echo "@@STALE kstats dir"
rmmod kstats_test_target; echo "@@RMMOD target rc=$?"
step done
""" % ("n" * 59, "n" * 59, " ".join(function_methods(series, arch)), BUSY_SPIN_MS, BUSY_SPIN_MS))
    out = [o.replace("@@SPELL@@", spell).replace("@@LOCK@@", SPIN_PAIR[arch][0])
           .replace("@@UNLOCK@@", SPIN_PAIR[arch][1]) for o in out]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def nodes(step_lines):
    """name -> (CPUS lines as (slot, count), '#' lines)."""
    res, cur, name = {}, None, None
    for l in step_lines:
        if l.startswith("@@BEGIN "):
            name, cur = l.split()[1], []
        elif l.startswith("@@END ") and cur is not None:
            cpus = [(int(x.split()[1]), int(x.split()[5])) for x in cur
                    if re.match(r"slot \d+ +CPUS ", x)]
            res.setdefault(name, []).append((cpus, [x for x in cur if x.startswith("#")]))
            cur = None
        elif cur is not None:
            cur.append(l)
    return res


def listings(step_lines):
    res, cur, name = {}, None, None
    for l in step_lines:
        if l.startswith("@@LIST-BEGIN "):
            name, cur = l.split()[1], []
        elif l.startswith("@@LIST-END ") and cur is not None:
            res[name] = cur
            cur = None
        elif cur is not None and not l.startswith("["):
            cur.append(l)
    return res


def ctls(step_lines):
    res = []
    for l in step_lines:
        m = re.match(r"@@CTL rc=(\d+) (.*?) :: (.*)$", l)
        if m:
            res.append((m.group(3), m.group(1), m.group(2).strip()))
    return res


def total(cpus):
    return sum(c for _, c in cpus)


def measured(step_lines):
    """tag -> (calls, min_ns, max_ns) the caller measured ('@@MEAS' lines)."""
    res = {}
    for l in step_lines:
        m = re.match(r"@@MEAS (\S+) measured (\d+) min_ns (\d+) max_ns (\d+)$", l)
        if m:
            res[m.group(1)] = tuple(int(x) for x in m.group(2, 3, 4))
    return res


def check_bound(r, what, cpus, bound_ns, meas, count, n_meas=None):
    """Exactly count samples, each >= bound_ns and <= the longest of the
    n_meas calls the caller timed around the same calls (one slot of
    rounding allowed); meas is (calls, min_ns, max_ns) or None."""
    n = total(cpus)
    r.check(n == count, "%s: count %d == calls %d" % (what, n, count))
    low = ref_slot(FB, bound_ns)
    r.check(n > 0 and all(s >= low for s, _ in cpus),
            "%s: no sample below %d ns (slot %d)" % (what, bound_ns, low), str(cpus))
    n_meas = count if n_meas is None else n_meas
    r.check(meas is not None and meas[0] == n_meas,
            "%s: caller timed all %d calls" % (what, n_meas), str(meas))
    high = ref_slot(FB, meas[2]) + 1 if meas else -1
    r.check(n > 0 and all(s <= high for s, _ in cpus),
            "%s: no sample above the caller's longest measurement %s ns (slot %d + 1)"
            % (what, meas and meas[2], high - 1), str(cpus))


def check_nesting(r, st, arch):
    """Sections pair within one task and context level, and nest."""
    nd, ls, ms = nodes(st), listings(st), measured(st)

    def hdr_count(name, word):
        h = " ".join(nd[name][0][1]) if name in nd else ""
        m = re.search(r"\b%s (\d+)" % word, h)
        return int(m.group(1)) if m else None

    # 20 sections of 20 us, each inside one of 400 + 20 us.
    desc = samples_desc(nd["nest"][0][0]) if "nest" in nd else []
    high = ref_slot(FB, ms["nest"][2]) + 1 if "nest" in ms else -1
    r.check(len(desc) == 40 and min(desc[:20]) >= ref_slot(FB, 420000) and
            min(desc[20:]) >= ref_slot(FB, 20000) and max(desc) <= high,
            "nested pair: 20 outer sections >= 420 us and 20 inner >= 20 us, "
            "none above the caller's longest (%s)" % (ms.get("nest"),), str(desc))
    r.check(missed_of(ls.get("nest", []), "nest") == 0 and hdr_count("nest", "no_start") == 0,
            "nested pair: nothing missed, no end without its start")
    # An end in a hard interrupt inside each of 5 task sections of 4 ms:
    # it pairs with no start (its level has none), and the task's stays.
    cpus = nd["irqe"][0][0] if "irqe" in nd else []
    check_bound(r, "pair ended from a hard hrtimer inside a 4 ms task section",
                cpus, 4000000, ms.get("irqe"), 5)
    r.check(hdr_count("irqe", "no_start") == 5 and hdr_count("irqe", "missed") == 0,
            "pair ended in hardirq: the 5 interrupt ends are no_start, nothing missed",
            str(nd.get("irqe", [(0, [])])[0][1]))
    # A whole 5 us section in the hard interrupt, inside each task section:
    # at least its 5 us spin, at most the longest task section the target
    # measured (a host that stalls the vCPU in the interrupt can make it
    # longer than 4 ms: CI51 saw one in slot 160).
    desc = samples_desc(nd["irqs"][0][0]) if "irqs" in nd else []
    high = ref_slot(FB, ms["irqs"][2]) + 1 if "irqs" in ms else -1
    r.check(len(desc) == 10 and min(desc[:5]) >= ref_slot(FB, 4000000) and
            min(desc[5:]) >= ref_slot(FB, 5000) and max(desc) <= high,
            "a hard hrtimer's own section inside each of 5 task sections: 5 samples >= 4 ms "
            "and 5 of the interrupt's >= 5 us", str(desc))
    r.check(missed_of(ls.get("irqs", []), "irqs") == 0 and hdr_count("irqs", "no_start") == 0,
            "pair in hardirq inside a task's: nothing missed, no end without its start")
    # kst_target_notrace() has no ftrace site: on x86 its kprobe is an
    # int3, whose handler runs inside nmi_enter(); the section is still
    # the task's, at task level, and pairs with the ftrace-site start.
    if arch == "x86_64":
        r.check(dict((cmd, err) for cmd, rc, err in ctls(st)).get(
            "trace mix start kst_section_begin end kst_target_notrace") == "Invalid argument",
                "pair ending at a function without ftrace site: refused, EINVAL")
    else:
        check_bound(r, "pair from a function with an ftrace site to one without",
                    nd["mix"][0][0] if "mix" in nd else [], 1000000, ms.get("mix"), 10)


def check_matched(r, st, lines):
    """Sections paired on an object (match), across tasks and contexts."""
    nd, ls, ms = nodes(st), listings(st), measured(st)
    c = {cmd: (rc, err) for cmd, rc, err in ctls(st)}

    def hdr(name, word):
        h = " ".join(nd[name][0][1]) if name in nd else ""
        m = re.search(r"\b%s (\d+)" % word, h)
        return int(m.group(1)) if m else None

    lm = " ".join(ls.get("matched", []))
    r.check(" method kprobe " in lm and " match arg0,arg0 expire 10000000000" in lm and
            " match arg0,arg1 expire 10000000000" in lm,
            "match: the listing shows the arguments and the default expire (10 s)", lm)
    # 10 rounds: A (task end, >= 2 ms) and B (hardirq end, >= 4 ms); each
    # trace never sees the other's end, so its other object's start is
    # replaced at each round (9) and one stays open.
    for name, low, what in (("mo", 2000000, "A, ended in the task"),
                            ("mi", 4000000, "B, ended from a hard hrtimer, arg1")):
        check_bound(r, "match %s" % what, nd[name][0][0] if name in nd else [], low,
                    ms.get("objs"), 10, n_meas=20)
        r.check(hdr(name, "replaced") == 9 and hdr(name, "missed") == 9 and
                hdr(name, "no_start") == 0 and hdr(name, "table_full") == 0,
                "match %s: the other object's 9 replaced starts are its only misses" % name,
                str(nd.get(name, [(0, [])])[0][1]))
    # Expiry: objects 2 and 3 fill the table; 4 finds them 1 s old and
    # takes their room (2 expired); 4 and 5 are samples; 6 is ended 1 s
    # after its start (expired at its end); 2's end finds nothing.
    r.check("ex" in nd and total(nd["ex"][0][0]) == 2,
            "expire: the two starts after the expired ones are samples",
            str(nd.get("ex")))
    r.check(hdr("ex", "expired") == 3 and hdr("ex", "table_full") == 0 and
            hdr("ex", "no_start") == 1 and hdr("ex", "missed") == 3,
            "expire: 2 starts dropped for room and 1 at its end, counted expired; "
            "the end of a dropped one is no_start", str(nd.get("ex", [(0, [])])[0][1]))
    r.check("ex2" in nd and total(nd["ex2"][0][0]) == 1 and hdr("ex2", "expired") == 0 and
            hdr("ex2", "table_full") == 1,
            "expire past the time since boot: no start expires; the third finds the table full",
            str(nd.get("ex2", [(0, [])])[0][1][-1:]))
    le = " ".join(ls.get("expire", []))
    r.check(" expire 200000000" in le and " maxactive 1 " in le,
            "expire: the listing shows it", le)
    r.check("rp" in nd and total(nd["rp"][0][0]) == 1,
            "a second start of one object replaces the first: 1 sample, 1 replaced",
            str(nd.get("rp")))
    r.check(hdr("rp", "replaced") == 1 and hdr("rp", "missed") == 1,
            "replaced counts as missed", str(nd.get("rp", [(0, [])])[0][1]))
    r.check("rk" in nd and total(nd["rk"][0][0]) == 1 and hdr("rk", "replaced") == 1 and
            hdr("rk", "missed") == 1,
            "repeat keep: the second start is dropped, counted replaced; 1 sample",
            str(nd.get("rk")))
    lr = " ".join(ls.get("repeat", []))
    r.check(" expire 10000000000 repeat replace" in lr and
            " expire 10000000000 repeat keep" in lr, "the listing says repeat replace or keep", lr)

    def slowest(name):
        """The exact values (ns) of KEY-name's slowest lines."""
        out, inside = [], False
        for l in st:
            if l.startswith("@@BEGIN ") or l.startswith("@@END "):
                inside = l.startswith("@@BEGIN KEY-%s" % name)
            elif inside and l.startswith("slowest value "):
                out.append(int(l.split()[2]))
        return out
    # Both traced the same three calls: keep's sample is from the first
    # begin, replace's from the second, a "sleep 1" later.
    sp, sk = slowest("rp"), slowest("rk")
    r.check(len(sp) == 1 and len(sk) == 1 and sk[0] - sp[0] >= 1000000000,
            "repeat keep times from the first start, replace from the last: "
            "they differ by at least the 1 s slept between them", "%s %s" % (sp, sk))
    lw = " ".join(ls.get("matched-wq", []))
    r.check(" method tracepoint " in lw and " match arg2,arg0 " in lw,
            "match on tracepoints: method tracepoint, arg2 to arg0", lw)
    check_bound(r, "workqueue_queue_work .. execute_start matched on the work item",
                nd["wq"][0][0] if "wq" in nd else [], 0, ms.get("wq"), 25)
    r.check(hdr("wq", "missed") == 0, "workqueue pair: nothing missed",
            str(nd.get("wq", [(0, [])])[0][1]))
    for cmd, errno, text in (
            ("trace mx start kst_obj_begin match arg0", "Invalid argument",
             "match pairs a section's start and end: give end"),
            ("trace mx start kst_obj_begin end kst_obj_end match arg5", "Invalid argument",
             "match arg5: expected argI or argI,argJ, each arg0..arg4"),
            ("trace mx start kst_obj_begin end kst_obj_end match obj", "Invalid argument",
             "match obj: expected argI or argI,argJ, each arg0..arg4"),
            ("trace mx start kst_obj_begin end kst_obj_end match arg00", "Invalid argument",
             "match arg00: expected argI or argI,argJ, each arg0..arg4"),
            ("trace mx start kst_obj_begin end kst_obj_end match arg0,", "Invalid argument",
             "match arg0,: expected argI or argI,argJ, each arg0..arg4"),
            ("trace mx start kst_obj_begin end kst_obj_end match arg0 key comm", "Invalid argument",
             "key comm: a matched section may end in another task or an interrupt"),
            ("trace mx start kst_obj_begin expire 5", "Invalid argument",
             "expire bounds the age of a section's start: give end"),
            ("trace mx start kst_obj_begin end kst_obj_end match arg0 expire 0", "Invalid argument",
             "expire 0: must be a number of ns, 1 to 18446744073709551615"),
            ("trace mx start kst_obj_begin end kst_obj_end repeat keep", "Invalid argument",
             "repeat says which start of an object is kept: give match"),
            ("trace mx start kst_obj_begin end kst_obj_end match arg0 repeat first",
             "Invalid argument", "repeat first: must be replace or keep")):
        r.check(c.get(cmd, ("?", ""))[1] == errno and
                any(("kstats: trace mx: " + text) in l for l in lines),
                "%s -> %s, dmesg: %s" % (cmd.split(" ", 3)[3], errno, text), str(c.get(cmd)))
    # "if": exact counts of 100 calls (i = 0..99).
    lv = " ".join(ls.get("values", []))
    r.check(" if ret<0 " in lv + " " and " if arg1>=50000 if ret>0" in lv and
            " if ret:s32<0" in lv, "if: the listing shows each if word as written", lv)
    want = {
        "v1": (sum(1 for i in range(100) if i % 4 < 2), "ret<0: the failures"),
        "v2": (sum(1 for i in range(100) if i % 4 == 0), "ret==-11: -EAGAIN only"),
        "v3": (sum(1 for i in range(100) if i >= 50 and i % 4 >= 2),
               "arg1>=50000 and ret>0: both, ANDed"),
        "v4": (sum(1 for i in range(100) if i & 3), "arg0&3: a mask test"),
        "v5": (sum(1 for i in range(100) if i % 4 < 2), "ret:s32<0 on an int function"),
        "v6": (sum(1 for i in range(40) if i % 4 < 2), "ret<0 and arg0<40, by kretprobe"),
        "v7": (sum(1 for i in range(100) if i % 4 == 1), "ret:u8==254: -ENOENT's low byte"),
        "v8": (10, "a kprobe pair's start filtered on arg1<10000"),
        "v9": (0, "a matched pair filtered out by arg0==0: nothing"),
        "v10": (10, "arg0<010: decimal, not octal"),
        "v11": (16, "arg0<0x10: hex"),
    }
    for name, (n, what) in want.items():
        got = total(nd[name][0][0]) if name in nd else None
        r.check(got == n and hdr(name, "missed") == 0 and hdr(name, "no_start") == 0,
                "if %s: %d samples, nothing missed, no no_start" % (what, n),
                "%s %s" % (got, nd.get(name, [(0, [])])[0][1]))
    for cmd, text in (
            ("trace vx start kst_ret_long end kst_ret_int if ret<0",
             "if ret<0: a return value is a function's; trace a function (no end)"),
            ("trace vx start kst_ret_long if arg5>1",
             "if arg5>1: 'arg5' is neither ret, arg0..arg4 nor a parameter's name"),
            ("trace vx start kst_ret_long,kst_ret_int if size>1",
             "if size>1: a parameter by name needs the BTF of one function, and "
             "kst_ret_long,kst_ret_int has none"),
            ("trace vx start vfs_read if size>1",
             "if size>1: 'size' is not a parameter of vfs_read that kstats reads (its parameters: file buf count pos)"),
            ("trace vx start kst_ret_long if a-b>1", "if a-b>1: 'a-b' is neither ret"),
            ("trace vx start kst_ret_long if ret:s7<0",
             "if ret:s7<0: type 's7' is none of s8 s16 s32 s64 u8 u16 u32 u64"),
            ("trace vx start kst_ret_long if ret<<0",
             "if ret<<0: expected a comparison (== != < <= > >= &) and a number that fits s64"),
            ("trace vx start kst_ret_long if ret:s8<200",
             "if ret:s8<200: expected a comparison (== != < <= > >= &) and a number that fits s8"),
            ("trace vx start kst_ret_long if ret<0 if ret<1 if ret<2 if ret<3 if ret<4",
             "if ret<4: at most 4 if words"),
            ("trace vx offcpu if arg0>1", "if arg0>1: an off-CPU wait has no arguments to compare"),
            ("trace vx start sched:sched_wakeup end sched:sched_switch if arg0>1",
             "if arg0>1: a run-queue wait is the scheduler's; it has no arguments to compare")):
        r.check(c.get(cmd, ("?", ""))[1] == "Invalid argument" and
                any(("kstats: trace vx: " + text) in l for l in lines),
                "%s -> EINVAL, dmesg: %s" % (cmd.split(" ", 3)[3], text), str(c.get(cmd)))
    r.check(ls.get("matched-after") == [], "nothing left after the matched traces and refusals",
            str(ls.get("matched-after")))


def samples_desc(cpus):
    """Slots of every sample, largest first."""
    return sorted((s for s, c in cpus for _ in range(c)), reverse=True)


def missed_of(listing_lines, name):
    for l in listing_lines:
        w = l.split()
        if w and w[0] == name and "missed" in w:
            return int(w[w.index("missed") + 1])
    return None


def field_of(listing_lines, name, field):
    for l in listing_lines:
        w = l.split()
        if w and w[0] == name and field in w:
            return w[w.index(field) + 1]
    return None


def fprobe_has_pool(series):
    """fprobe kept calls in a rethook pool of nr_maxactive up to 6.13; from
    6.14 on it runs on the function-graph tracer, on the tasks' shadow stacks."""
    return not at_least(series, "6.14")


def method_of(listing_lines, name):
    for l in listing_lines:
        w = l.split()
        if w and w[0] == name and "method" in w:
            return w[w.index("method") + 1]
    return None


def check_shared(r, st, series, arch):
    """N_SHARED traces on one function, one more before each round of
    SHARED_CALLS calls: trace i counts the rounds from its own on, and
    misses none. Default traces take fprobe while the function's block on
    the shadow stack has room for one more, then kretprobes; method fprobe
    beyond that is refused with ENOSPC and a dmesg line."""
    cap = fprobes_per_function(series, arch)
    rows = {}
    for l in st:
        w = l.split()
        if w and w[0] == "@@ROW" and len(w) >= 7:
            rows[w[1]] = (int(w[2]) if w[2].isdigit() else -1, w[4], w[6])
    c = ctls(st)
    for pre, n in (("sh", N_SHARED), ("sf", N_SHARED_FP)):
        if pre == "sf" and "fprobe" not in function_methods(series, arch):
            continue
        for i in range(1, n + 1):
            name = "%s%d" % (pre, i)
            refused = pre == "sf" and cap is not None and i > cap
            if pre == "sh":
                want = default_method(series, arch)
                if cap is not None and i > cap:
                    want = "kretprobe"
            else:
                want = "fprobe"
            rc = [(rc, err) for cmd, rc, err in c if cmd.startswith("trace %s " % name)]
            if refused:
                r.check(rc == [("1", "No space left on device")] and name not in rows,
                        "shared: %s, fprobe %d on kst_target_null (room for %d): refused, ENOSPC"
                        % (name, i, cap), str(rc))
                continue
            want_n = (n - i + 1) * SHARED_CALLS
            r.check(rc == [("0", "")] and rows.get(name) == (want_n, want, "0"),
                    "shared: %s, trace %d of %d on kst_target_null: %s, %d calls counted, missed 0"
                    % (name, i, n, want, want_n), str((rc, rows.get(name))))
    if cap is not None:
        fn = r"kst_target_null( \[kstats_test_target\])?"
        refusal = re.compile(r"trace sf%d: fprobe: %s already has %d of kstats' fprobes, "
                             r"as many as its per-call data on the shadow stack holds; "
                             r"remove one, or use method kretprobe$" % (cap + 1, fn, cap))
        fallback = re.compile(r"trace sh%d: %s already has %d of kstats' fprobes, .*: "
                              r"using kretprobes$" % (cap + 1, fn, cap))
        r.check(any(refusal.search(l) for l in st),
                "shared: the refusal's dmesg line names the function and kstats' count")
        r.check(any(fallback.search(l) for l in st),
                "shared: the fallback's dmesg line names the function")


# How long the SCHED_FIFO task holds CPU 1 in the busy-cpu step once
# the ops it must outlast have all begun, unless they end first.
BUSY_SPIN_MS = 8000


# Frames of a task waiting for an RCU grace period of some flavour.
GRACE_PERIOD_WAIT = re.compile(r"\b(__wait_rcu_gp|wait_rcu_gp|synchronize_rcu\w*|"
                               r"synchronize_srcu\w*|__synchronize_srcu|rcu_barrier\w*)\+")


def check_busy_cpu(r, st):
    """Each operation began after the spinner took CPU 1 and ended before
    it let go (an interval cut that waited for a task or worker on CPU 1
    ends only after it); the figures are printed for the record.

    A remove or an rmmod may still outlast the spinner by waiting in the
    kernel for an RCU grace period, which a CPU-bound SCHED_FIFO task can
    hold back: on PREEMPT_RT, RCU's kthreads run below it at FIFO 1
    (Documentation/RCU/stallwarn.rst); on 6.1 it was seen in most runs.
    That wait is the kernel's own unregistration and
    module unload: a remove still running after 1 s must be waiting for
    a grace period, and an rmmod must be waiting outside kstats (6.12-rt:
    on ftrace_lock, which ftrace_shutdown() holds across RCU Tasks);
    another metric's interval reads must go on meanwhile, so kstats
    holds nothing they need across it."""
    txt = "\n".join(st)
    spin = dict(re.findall(r"@@SPIN kspin (start|end) (\d+)", txt))
    ops = {m[0]: (m[1], int(m[2]), int(m[3]))
           for m in re.findall(r"@@BUSY (\w+) rc=(\d+) (\d+) (\d+)", txt)}
    stacks = {}
    for op, frame in re.findall(r"@@OPSTACK (\w+) (.*)", txt):
        stacks.setdefault(op, []).append(frame)
    rt = re.search(r"@@BUSYRT (\d+)", txt)
    r.check(rt is not None, "busy-cpu: the guest says whether it is PREEMPT_RT")
    r.check(len(spin) == 2, "busy-cpu: the SCHED_FIFO task spun on CPU 1", str(spin))
    s0, s1 = int(spin.get("start", 0)), int(spin.get("end", 0))
    for op, what in (("ival", "an interval read"), ("read", "a cumulative read"),
                     ("remove", "remove beside interval reads"),
                     ("rmmod", "rmmod of a traced module")):
        rc, t0, t1 = ops.get(op, ("?", 0, 0))
        prompt = rc == "0" and s0 < t0 <= t1 < s1
        stack = stacks.get(op, [])
        if op == "remove":
            # Its own frames call the kernel's unregistration.
            waits = [f for f in stack if GRACE_PERIOD_WAIT.search(f)]
        elif op == "rmmod":
            # Not in kstats (its module notifier) at all.
            waits = stack[:1] if stack and not any("[kstats]" in f for f in stack) else []
        else:
            waits = []
        in_kernel = rc == "0" and waits
        r.check(prompt or in_kernel,
                "busy-cpu: %s ends in %d ms, %s"
                % (what, (t1 - t0) // 1000000,
                   "while CPU 1 is taken (%d ms into a %d ms spin)"
                   % ((t1 - s0) // 1000000, (s1 - s0) // 1000000)
                   if prompt else "after waiting in the kernel at %s" % (waits[0].split()[-1] if waits else "?")),
                "rc %s %d %d %d %d; stack after 1 s: %s"
                % (rc, s0, t0, t1, s1, stacks.get(op)))
    # The other metric's interval reads, each stamped as it ended: the
    # longest stretch of the remove without one ending.
    _, t0, t1 = ops.get("remove", ("?", 0, 0))
    reads = sorted(int(x) for x in re.findall(r"@@BZ2 (\d+)", txt))
    marks = [t0] + [x for x in reads if t0 < x < t1] + [t1]
    gap = max(b - a for a, b in zip(marks, marks[1:])) // 1000000 if t1 > t0 else -1
    after = any(x > t1 for x in reads)
    # A reader held back by the remove would wait about as long as it.
    # On a loaded host one read (a fork of cat under TCG) can take over a
    # second: two reads ending inside the remove mean the second ran
    # wholly inside it, which a reader held back could not.
    took = (t1 - t0) // 1000000
    inside = len(marks) - 2
    r.check(0 <= gap and (took < 2000 or gap < took // 2 or inside >= 2) and after,
            "busy-cpu: interval reads of another metric go on during the remove "
            "(longest wait %d ms, %d reads)" % (gap, len(marks) - 2),
            "reads %d, after the remove: %s" % (len(reads), after))
    iv = re.search(r"@@BUSYIV (\d+)", txt)
    r.check(iv is not None and iv.group(1) == "20",
            "busy-cpu: that interval holds the 20 calls made since the last",
            iv.group(0) if iv else "none")


def check(logpath):
    r = Results()
    log = open(logpath, errors="replace").read()
    lines, steps = parse(log)
    series = console_series(log)
    arch = arch_of(log)
    r.check(not any("@@FAIL" in l or "@@TGTFAIL" in l for l in lines),
            "modules load and every workload command succeeds",
            str([l for l in lines if "FAIL" in l][:5]))
    want_steps = ["fn-%s" % m for m in function_methods(series, arch) + ["default"]] + [
        "shared", "notrace", "kprobe-pair", "tracepoint-pair", "hostile", "refusals", "gone",
        "remove-pending", "read-while-removed", "concurrent",
        "spellings", "wildcards", "gap-off", "matched", "ratelimit", "busy-cpu", "rmmod-with-traces", "done"]
    for s in want_steps:
        r.check(s in steps, "step %s reached" % s)
    if "done" not in steps:
        return r

    for meth in function_methods(series, arch) + ["default"]:
        st = steps["fn-" + meth]
        nd, ls = nodes(st), listings(st)
        c = ctls(st)
        r.check(all(rc == "0" for _, rc, _ in c), "%s: every trace/remove accepted" % meth, str(c))
        expect = meth if meth != "default" else default_method(series, arch)
        r.check(method_of(ls.get("d_" + meth, []), "d_" + meth) == expect,
                "%s: listing says method %s" % (meth, expect), str(ls.get("d_" + meth)))
        ms = measured(st)
        check_bound(r, "%s 20 ms spin" % meth, nd["d_" + meth][0][0], 20000000,
                    ms.get("d_" + meth), 10)
        # The caller times the outermost calls, which hold the nested ones.
        cpus = nd["r_" + meth][0][0]
        check_bound(r, "%s recursion depth 3 x 10 ms" % meth, cpus, 10000000,
                    ms.get("r_" + meth), 18, 6)
        desc = samples_desc(cpus)
        r.check(len(desc) == 18 and min(desc[:6]) >= ref_slot(FB, 30000000)
                and min(desc[6:12]) >= ref_slot(FB, 20000000),
                "%s recursion: 6 samples >= 30 ms (depth 3), 6 more >= 20 ms (depth 2)" % meth,
                str(cpus))
        check_bound(r, "%s 8 tasks sleeping 100 ms at once" % meth, nd["s_" + meth][0][0],
                    100000000, ms.get("s_" + meth), 16)
        r.check(missed_of(ls.get("s_" + meth, []), "s_" + meth) == 0,
                "%s: no miss with 8 sleepers and default maxactive" % meth)
        check_bound(r, "%s migrating CPU inside a 40 ms call" % meth,
                    nd["m_" + meth][0][0], 40000000, ms.get("m_" + meth), 5)
        r.check(total(nd["g_" + meth][0][0]) == 11, "%s: 11 calls counted" % meth)
        # The caller times each gap from one call's entry to the next's return.
        check_bound(r, "%s GAP of 20 ms between calls" % meth,
                    nd["GAP-g_" + meth][0][0], 20000000, ms.get("g_" + meth), 10)
        cpus = nd["ma_" + meth][0][0]
        miss = missed_of(ls.get("ma_" + meth, []), "ma_" + meth)
        hdr = nd["ma_" + meth][0][1]
        if fprobe_has_pool(series) or expect == "kretprobe":
            r.check(miss is not None and miss > 0 and total(cpus) + miss == 12,
                    "%s maxactive 1, 4 sleepers: count %d + missed %s == 12 calls, missed > 0"
                    % (meth, total(cpus), miss))
        else:
            # fprobe on fgraph keeps calls on the tasks' shadow stacks: no
            # pool, so maxactive 1 loses nothing, and the listing says 0.
            r.check(miss == 0 and total(cpus) == 12,
                    "%s maxactive 1 (no pool on %s), 4 sleepers: count %d == 12 calls, missed %s == 0"
                    % (meth, series, total(cpus), miss))
            r.check(field_of(ls.get("ma_" + meth, []), "ma_" + meth, "maxactive") == "0",
                    "%s: the listing shows maxactive 0: there is no pool" % meth,
                    str(ls.get("ma_" + meth)))
        r.check(any(("missed %d " % (miss if miss is not None else -1)) in h for h in hdr),
                "%s: node's '#' line shows the missed count" % meth, str(hdr))
        r.check(total(nd["gp_" + meth][0][0]) == 1000,
                "%s: %s traced 1000 times for 1000 calls" % (meth, sys_entry(arch, "getppid")),
                str(nd["gp_" + meth][0][0]))

    check_shared(r, steps["shared"], series, arch)

    st = steps["notrace"]
    if arch == "x86_64":
        # kprobe_events' rule (see NO_SITE_REFUSALS); the kernel's own
        # list says the same: no site for it in available_filter_functions.
        r.check(dict((cmd, err) for cmd, rc, err in ctls(st)).get("trace nt start kst_target_notrace")
                == "Invalid argument" and "@@AFF-NOTRACE 0" in st,
                "function without ftrace site (none in available_filter_functions): refused, EINVAL")
        r.check(listings(st).get("nt") == [], "function without ftrace site: no trace left behind",
                str(listings(st).get("nt")))
    else:
        r.check(method_of(listings(st).get("nt", []), "nt") == "kretprobe",
                "function without ftrace site: default falls back to kretprobe")
        r.check(total(nodes(st)["nt"][0][0]) == 50, "function without ftrace site: 50 calls counted")

    st = steps["kprobe-pair"]
    nd, ls = nodes(st), listings(st)
    r.check(method_of(ls.get("sec", []), "sec") == "kprobe", "start/end functions use a kprobe pair")
    check_bound(r, "kprobe pair around a 20 ms spin", nd["sec"][0][0], 20000000,
                measured(st).get("sec"), 10)
    # An end without a start loses nothing (nothing was started): it is
    # shown as no_start, not counted as missed.
    r.check(missed_of(ls.get("sec-end-only", []), "sec") == 0,
            "kprobe pair: 5 ends without start are not misses")
    r.check(any(h.endswith(" no_start 5") for h in nd["sec"][1][1]),
            "kprobe pair: the '#' line shows the 5 ends without start", str(nd["sec"][1][1]))
    r.check(total(nd["sec"][1][0]) == 10, "kprobe pair: ends without start add no sample")
    cpus = nd["full"][0][0]
    miss = missed_of(ls.get("full", []), "full")
    # maxactive 1: a table of 2 slots, so 6 tasks at once overflow it.
    r.check(miss is not None and miss > 0 and total(cpus) + miss == 18,
            "kprobe pair, table of 2 slots, 6 tasks: count %d + missed %s == 18 sections"
            % (total(cpus), miss))
    r.check(any("table_full" in h and not "table_full 0" in h for h in nd["full"][0][1]),
            "kprobe pair: '#' line counts table_full", str(nd["full"][0][1]))

    check_nesting(r, st, arch)

    st = steps["tracepoint-pair"]
    nd, ls = nodes(st), listings(st)
    r.check(method_of(ls.get("sig", []), "sig") == "tracepoint", "__tracepoint_ names use tracepoints")
    check_bound(r, "signal_generate..signal_deliver around a 50 ms sleep", nd["sig"][0][0],
                50000000, measured(st).get("sig"), 10)
    r.check(total(nd["rq"][0][0]) >= 5, "sched_wakeup..sched_switch (run-queue latency) has samples",
            str(nd["rq"][0][0]))
    r.check(missed_of(ls.get("rq", []), "rq") == 0,
            "run-queue latency: switches to preempted tasks are not misses")

    st = steps["gap-off"]
    nd, ls = nodes(st), listings(st)
    r.check(all(rc == "0" for _, rc, _ in ctls(st)), "gap off/on: traces made and removed",
            str(ctls(st)))
    r.check([l for l in st if l.startswith("@@NODE ")] == ["@@NODE GAP-gn"],
            "gap off: no GAP-NAME for a function or a pair; gap on has one",
            str([l for l in st if l.startswith("@@NODE ")]))
    lg = ls.get("gap-off", [])
    r.check(any(l.split()[0] == "gf" and l.endswith(" gap off") for l in lg) and
            any(l.split()[0] == "gk" and l.endswith(" gap off") for l in lg) and
            any(l.split()[0] == "gn" and "gap" not in l.split() for l in lg),
            "the listing ends the line of a gap off trace with 'gap off', and only those", str(lg))
    r.check(total(nd.get("gf", [[[]]])[0][0]) == 11 and total(nd.get("gk", [[[]]])[0][0]) == 10,
            "gap off: 11 calls and 10 sections, every one a sample",
            str(nd.get("gf")) + str(nd.get("gk")))

    st = steps["hostile"]
    r.check(all(x[1] == "0" for x in ctls(st)), "spinlock and NMI pairs attach and remove",
            str(ctls(st)))
    r.check(total(nodes(st).get("h", [([], [])])[0][0]) > 0,
            "pair %s..%s records" % SPIN_PAIR[arch])
    if arch == "x86_64":
        r.check("@@HOSTILE-DONE" in st, "NMIs hitting a pair's start table do not deadlock")
    else:
        r.check("@@SKIP NMI pair: " + NMI_SKIP in st, "NMI pair skipped with its reason")
        print("skip: NMI pair on %s: %s" % (arch, NMI_SKIP))

    st = steps["refusals"]
    c = ctls(st)
    r.check(c and c[0][1] == "0", "refusals: first trace dup accepted")
    got = {cmd: err for cmd, rc, err in c[1:] if rc != "0"}
    for name, cmd, err in REFUSALS(arch):
        r.check(got.get(cmd) == err, "refusal: %s -> %s" % (name, err),
                "got %r" % got.get(cmd))
    data = "@@KALLSYMS_DATA yes" in st
    err, why = (("Invalid argument", "trace x: jiffies_64 is data, not a function") if data else
                ("No such file or directory", "trace x: no function or tracepoint jiffies_64"))
    r.check(got.get("trace x start jiffies_64") == err,
            "refusal: a data symbol -> %s (kallsyms %s data)" % (err, "has" if data else "lacks"),
            "got %r" % got.get("trace x start jiffies_64"))
    r.check(any(why in l for l in lines if "kstats:" in l), "dmesg reason: %s" % why)
    pc = [l.split()[1:] for l in st if l.startswith("@@PERCPU")]
    listed = bool(pc and pc[0])
    err, why = (("Invalid argument", "trace y: __per_cpu_start is data, not a function")
                if listed else
                ("No such file or directory", "trace y: no function or tracepoint __per_cpu_start"))
    r.check(got.get("trace y start __per_cpu_start") == err and
            any(why in l for l in lines if "kstats:" in l),
            "refusal: a per-CPU symbol (kallsyms %s) -> %s, dmesg '%s'"
            % ("at " + " ".join(pc[0]) if listed else "lacks it", err, why),
            "got %r" % got.get("trace y start __per_cpu_start"))
    ol = [x for x in c if x[0] == "over-long write"]
    r.check(ol and ol[0][2] == "Invalid argument", "refusal: over-long write -> Invalid argument", str(ol))
    r.check(any(x[0] == "trace %s start kst_target_delay" % ("n" * 59) and x[1] == "0" for x in c),
            "59-byte name accepted (63 with GAP-)")
    r.check(any(l == "@@NODE GAP-" + "n" * 59 for l in st), "GAP- node of a 59-byte name exists")
    left = [l for l in st if l.startswith("@@LEFT")]
    r.check(left == ["@@LEFT _control"], "refusals leave no node behind", str(left))
    r.check(listings(st).get("after-refusals") == [], "refusals leave no trace behind",
            str(listings(st).get("after-refusals")))
    for reason in ["trace x: no function or tracepoint kst_no_such_function in the kernel",
                   "trace x: kstats_record is part of kstats, which cannot trace itself",
                   "ks_trace_add is part of kstats", "see /sys/kernel/debug/kprobes/blacklist",
                   "trace dup: a trace of that name exists (remove dup first)",
                   "remove nosuch: no such trace",
                   "trace GAP-dup: names starting with GAP- are the gap nodes of traces",
                   "trace a/b: name has '/' or a byte other than printable ASCII",
                   "trace x: bits 6: must be 0..5",
                   "trace x: gap maybe: must be on or off",
                   "trace x: 'color' is not a keyword (bits, start, end, method, maxactive, "
                   "key, keys, slowest, pid, tgid, comm, cpu, cgroup, match, expire, repeat, if, gap; with offcpu: state, min, max, tasks)",
                   "trace x: too many words (at most 53): 'y' and after",
                   "trace x: 'extra' is not a keyword; start is given (start kst_target_delay) and takes one word",
                   "trace x: no tracepoint __tracepoint_kst_nosuch in the kernel",
                   ] + (NO_SITE_DMESG if arch == "x86_64" else []):
        r.check(any(reason in l for l in lines if "kstats:" in l), "dmesg reason: %s" % reason)

    st = steps["spellings"]
    c = {cmd: (rc, err) for cmd, rc, err in ctls(st)}
    ls = listings(st).get("spellings", [])
    for cmd, meth, start in SPELLINGS(series, arch):
        name = cmd.split()[1]
        r.check(c.get(cmd, ("?",))[0] == "0", "spelling accepted: %s" % cmd, str(c.get(cmd)))
        r.check(method_of(ls, name) == meth, "%s: method %s" % (cmd, meth), str(ls))
        r.check(any(l.split()[0] == name and ("start %s " % start) in l for l in ls),
                "%s: listing shows start %s" % (cmd, start), str(ls))
    nd = nodes(st)
    for n in ("sp3", "sp4"):
        r.check(total(nd.get(n, [([], [])])[0][0]) == 1000,
                "%s: 1000 getppid() calls counted through the syscall spelling" % n)
    for cmd, err, msg in SPELLING_REFUSALS(arch):
        r.check(c.get(cmd, ("?", ""))[1] == err, "refusal %s -> %s" % (cmd, err), str(c.get(cmd)))
        r.check(any(l.endswith("kstats: " + msg) for l in lines),
                "dmesg says exactly: %s" % msg)
    r.check([l for l in st if l.startswith("@@LIST-BEGIN")] and
            all(x[1] == "0" for x in ctls(st) if x[0].startswith("remove")),
            "every spelled trace removes")

    # 300 refusals in a loop: dmesg gets at most the burst of 100 per
    # 5 s window, however long a loaded host made the loop take. The
    # window the earlier refusals opened may end during the loop: one
    # more window than the loop's length holds.
    rl = [[int(x) for x in l.split()[1:3]] for l in steps["ratelimit"] if l.startswith("@@RL ")]
    n, secs = rl[0] if rl and len(rl[0]) == 2 else (0, 0)
    windows = (secs + 1) // 5 + 2
    r.check(1 <= n <= 100 * windows and (n < 300 or windows > 2),
            "refusals in a loop are rate-limited in dmesg: %d lines <= 100 x %d windows of 5 s"
            % (n, windows), str(rl))

    # Several functions into one histogram: a list or a pattern, on every
    # kernel and method (fprobe, or a kretprobe each). The calls: delay 3,
    # notrace 5 (no ftrace site), null 7, recurse 2 deep x 4 = 8.
    st = steps["wildcards"]
    c = {cmd: (rc, err) for cmd, rc, err in ctls(st)}
    ls = listings(st).get("wildcards", [])
    nd = nodes(st)
    fields = lambda n: dict(zip(*[iter(([l for l in ls if l.split()[0] == n] or [""])[0].split()[1:])] * 2))
    # The target module's kst_target_* functions with an ftrace site:
    # delay, recurse, sleep, migrate, null, twin (not notrace). Where
    # kprobes cannot tell a site (arm64: no KPROBES_ON_FTRACE), every
    # function kprobes accept: notrace too.
    sites = arch == "x86_64"
    want_n, want_calls = ("6", 18) if sites else ("7", 23)
    for n, meth in (("w1", default_method(series, arch)), ("w17", "kretprobe")):
        r.check(c.get("trace %s start kst_target_*%s" % (n, " method kretprobe" if n == "w17" else ""),
                      ("?",))[0] == "0",
                "pattern kst_target_* accepted (%s)" % meth)
        r.check(fields(n).get("functions") == want_n and fields(n).get("method") == meth,
                "pattern kst_target_* by %s: the listing counts its %s functions" % (meth, want_n),
                str(fields(n)))
        r.check(total(nd.get(n, [([], [])])[0][0]) == want_calls,
                "pattern by %s: every matched function's calls in one histogram (%s)"
                % (meth, "3 + 7 + 8" if sites else "3 + 5 + 7 + 8"), str(nd.get(n)))
    r.check(c.get("trace w1 start kst_*", ("?", ""))[1] == "File exists" and
            any(l.endswith("kstats: trace w1: a trace of that name exists (remove w1 first)")
                for l in lines),
            "a taken name with a pattern -> EEXIST, before the pattern is matched",
            str(c.get("trace w1 start kst_*")))
    r.check(c.get("trace w4 start kst_nomatch_*", ("?", ""))[1] == "No such file or directory",
            "a pattern matching nothing -> ENOENT")
    r.check(any(l.endswith("kstats: trace w4: kst_nomatch_* matches no function %s"
                           % ("with an ftrace site" if sites else "kprobes can probe"))
                for l in lines), "dmesg: the pattern matches nothing")
    if sites:
        # A function known by two names: ftrace lists its site under the
        # first (kst_impl_null), and the pattern matches the other.
        aff = re.search(r"@@AFF impl (\d+) alias (\d+)", "\n".join(st))
        r.check(aff is not None and aff.groups() == ("1", "0"),
                "available_filter_functions lists the aliased site once, as kst_impl_null",
                aff.group(0) if aff else "none")
    r.check(c.get("trace w14 start kst_alias_*", ("?",))[0] == "0" and
            fields("w14").get("functions") == "1",
            "pattern kst_alias_* finds the function by its alias: 1 function",
            "%s %s" % (c.get("trace w14 start kst_alias_*"), fields("w14")))
    r.check(total(nd.get("w14", [([], [])])[0][0]) == 4,
            "pattern kst_alias_*: its 4 calls, as the name times them",
            str(nd.get("w14")))
    for n, meth in (("w2", None), ("w3", "kretprobe")):
        f = fields(n)
        r.check(f.get("functions") == "2" and (meth is None or f.get("method") == meth),
                "list %s: 2 functions%s" % (n, " by kretprobes" if meth else ""), str(f))
        r.check(total(nd.get(n, [([], [])])[0][0]) == 10, "list %s: 3 + 7 calls" % n, str(nd.get(n)))
    f = fields("w5")
    r.check(f.get("functions") == "1" and f.get("skipped") == "1",
            "list with a function kprobes refuse: it is skipped and counted", str(f))
    r.check(total(nd.get("w5", [([], [])])[0][0]) == 3, "list w5: the remaining function's 3 calls")
    r.check(any(l.endswith("kstats: trace w5: skipped 1 function kstats may not probe: kstats_record")
                for l in lines), "dmesg names the skipped function")
    r.check(total(nd.get("w15", [([], [])])[0][0]) == 4,
            "the alias by name, kst_alias_null: its 4 calls", str(nd.get("w15")))
    f = fields("w13")
    r.check(f.get("functions") == "1" and total(nd.get("w13", [([], [])])[0][0]) == 3,
            "a list naming one function twice (f, mod:f) times it once: 1 function, 3 calls",
            "%s %s" % (f, nd.get("w13")))
    r.check(c.get("trace w6 start kst_target_delay,kst_nosuch", ("?", ""))[1] == "No such file or directory",
            "a list naming an unknown function -> ENOENT")
    r.check(c.get("trace w7 start kst_target_*,vfs_read", ("?", ""))[1] == "Invalid argument",
            "a pattern inside a list -> EINVAL")
    r.check(listings(st).get("wildcards-removed") == [], "removing list and pattern traces detaches all")
    # ftrace's own syntax is refused, and so is a pattern over the bound,
    # before anything is attached.
    for n, word, errno, text in (
            ("w8", "!kst_target_*", "Invalid argument", "'!' is not part of a pattern"),
            ("w10", "kst_target:kst_*", "Invalid argument", "':' is not part of a pattern"),
            ("w11", "1*", "Invalid argument", "'1' is not part of a pattern"),
            ("w12", "kst_[ab", "Invalid argument", "a [ without its ]"),
            ("w18", "kst_[!]*", "Invalid argument", "an empty [] matches nothing")):
        cmd = "trace %s start %s" % (n, word)
        r.check(c.get(cmd, ("?", ""))[1] == errno and
                any(("kstats: trace %s: %s: %s" % (n, word, text)) in l for l in lines),
                "%s -> %s, dmesg: %s" % (word, errno, text), str(c.get(cmd)))
    for n, word in (("w9", "*"), ("w16", "* method kretprobe")):
        big = [re.search(r"kstats: trace %s: \* matches (\d+) names, more than 4096 functions$" % n, l)
               for l in lines]
        big = [int(m.group(1)) for m in big if m]
        r.check(c.get("trace %s start %s" % (n, word), ("?", ""))[1] == "Argument list too long" and
                big and big[0] > 4096,
                "pattern %s -> E2BIG, dmesg says how many it matched (%s)" % (word, big),
                str(c.get("trace %s start %s" % (n, word))))
    en = dict(re.findall(r"@@ENABLED (\w+) (\d+)", "\n".join(st)))
    r.check(en.get("before") is not None and en.get("before") == en.get("after"),
            "enabled_functions is what it was before the refused patterns", str(en))

    check_matched(r, steps.get("matched", []), lines)

    st = steps["gone"]
    r.check("@@OK target unloaded" in st, "traced module unloads")
    lg = listings(st).get("gone", [])
    r.check(any(l.startswith("gn ") and l.endswith(" gone") for l in lg),
            "listing marks the trace of an unloaded module 'gone'", str(lg))
    r.check([x[1] for x in ctls(st)] == ["0", "0"], "a gone trace can still be removed")

    r.check(all(x[1] == "0" for x in ctls(steps["remove-pending"])),
            "remove with calls pending in sleep succeeds")
    r.check(all(x[1] == "0" for x in ctls(steps["read-while-removed"])),
            "remove while nodes are being read succeeds")
    st = steps["concurrent"]
    r.check(not [l for l in st if l.startswith("@@LEFT2") and l != "@@LEFT2 _control"],
            "concurrent trace/remove/reset/read leave nothing behind",
            str([l for l in st if l.startswith("@@LEFT2")]))
    check_busy_cpu(r, steps["busy-cpu"])

    st = steps["rmmod-with-traces"]
    r.check(all(x[1] == "0" for x in ctls(st)), "four traces of all kinds attached")
    r.check("@@RMMOD rc=0" in st, "rmmod kstats with traces attached and calls pending")
    r.check("@@STALE kstats dir" not in st, "rmmod kstats leaves no debugfs files")
    r.check("@@RMMOD target rc=0" in st, "target module unloads afterwards")
    return r


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "x86_64")
        return 0
    return report("trace", check(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
