// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_bench_floor: the floor of each hook kstats uses. Loaded with
 * method=kretprobe|fprobe|kprobe sym=SYMBOL [end=SYMBOL], it hooks SYMBOL
 * with empty handlers until rmmod: entry and return for kretprobe and
 * fprobe, an entry kprobe on SYMBOL (and on end, a kprobe pair, when
 * given). method=tracepoint hooks the raw sys_enter and sys_exit
 * tracepoints with empty probes of their own types. bench/floor.sh
 * compares a call's cost with this and with a kstats trace of the same
 * method: kstats' own share is the rest.
 */
#include <linux/fprobe.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static char *method = "kretprobe";
static char *sym = "__x64_sys_getpid";
static char *end = "";
module_param(method, charp, 0444);
module_param(sym, charp, 0444);
module_param(end, charp, 0444);

static int kbf_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static int kbf_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static int kbf_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static struct kretprobe kbf_krp = {
	.entry_handler = kbf_entry,
	.handler = kbf_ret,
};

static struct kprobe kbf_kp = { .pre_handler = kbf_pre };
static struct kprobe kbf_kp_end = { .pre_handler = kbf_pre };

/* The probe types of include/trace/events/syscalls.h. */
static void notrace kbf_sys_enter(void *data, struct pt_regs *regs, long id)
{
}

static void notrace kbf_sys_exit(void *data, struct pt_regs *regs, long ret)
{
}

static struct tracepoint *kbf_tp_enter, *kbf_tp_exit;

/* The tracepoints are not exported to modules: found as kstats finds them. */
static void kbf_tp_find(struct tracepoint *tp, void *unused)
{
	if (!strcmp(tp->name, "sys_enter"))
		kbf_tp_enter = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		kbf_tp_exit = tp;
}

static int kbf_tp_register(void)
{
	int err;

	for_each_kernel_tracepoint(kbf_tp_find, NULL);
	if (!kbf_tp_enter || !kbf_tp_exit)
		return -ENOENT;
	err = tracepoint_probe_register(kbf_tp_enter, kbf_sys_enter, NULL);
	if (err)
		return err;
	err = tracepoint_probe_register(kbf_tp_exit, kbf_sys_exit, NULL);
	if (err)
		tracepoint_probe_unregister(kbf_tp_enter, kbf_sys_enter, NULL);
	return err;
}

static void kbf_tp_unregister(void)
{
	tracepoint_probe_unregister(kbf_tp_exit, kbf_sys_exit, NULL);
	tracepoint_probe_unregister(kbf_tp_enter, kbf_sys_enter, NULL);
	tracepoint_synchronize_unregister();
}

/* The fprobe handler type kstats uses, from src/compat.h. */
#if KS_HAVE_FPROBE
static KS_FPROBE_ENTRY(kbf_fentry)
{
	return KS_FPROBE_ENTRY_OK;
}

static KS_FPROBE_EXIT(kbf_fexit)
{
}

static struct fprobe kbf_fp = {
	.entry_handler = kbf_fentry,
	.exit_handler = kbf_fexit,
};
#endif

static int __init kbf_init(void)
{
	if (!strcmp(method, "kretprobe")) {
		kbf_krp.kp.symbol_name = sym;
		return register_kretprobe(&kbf_krp);
	}
	if (!strcmp(method, "kprobe")) {
		int err;

		kbf_kp.symbol_name = sym;
		err = register_kprobe(&kbf_kp);
		if (err || !*end)
			return err;
		kbf_kp_end.symbol_name = end;
		err = register_kprobe(&kbf_kp_end);
		if (err)
			unregister_kprobe(&kbf_kp);
		return err;
	}
	if (!strcmp(method, "tracepoint"))
		return kbf_tp_register();
#if KS_HAVE_FPROBE
	if (!strcmp(method, "fprobe"))
		/* by address, as kstats does; the filter form gave -EINVAL on 6.12 */
		return register_fprobe_syms(&kbf_fp, (const char **)&sym, 1);
#endif
	pr_err("kstats_bench_floor: no method %s\n", method);
	return -EINVAL;
}

static void __exit kbf_exit(void)
{
	if (!strcmp(method, "kretprobe")) {
		unregister_kretprobe(&kbf_krp);
	} else if (!strcmp(method, "kprobe")) {
		if (*end)
			unregister_kprobe(&kbf_kp_end);
		unregister_kprobe(&kbf_kp);
	} else if (!strcmp(method, "tracepoint")) {
		kbf_tp_unregister();
	} else {
#if KS_HAVE_FPROBE
		unregister_fprobe(&kbf_fp);
#endif
	}
}

module_init(kbf_init);
module_exit(kbf_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstats benchmark: empty-handler hook floors");
