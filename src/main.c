// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: per-CPU log-linear histograms of kernel metrics in debugfs.
 *
 * Based on the LKML patch "kstats: kernel metric collector" (v3, 2020),
 * by Luigi Rizzo; this module keeps its histogram layout and output format.
 *
 * Module init and exit only: they wire the rooms together, the debugfs
 * output first, the control path (_control, /dev/kstats) that drives the
 * traces last.
 */
#include <linux/module.h>

#include "btf.h"
#include "control.h"
#include "metrics.h"
#include "output.h"
#include "symbols.h"
#include "traces.h"

static int __init kstats_init(void)
{
	int err;

	err = ks_output_init();
	if (err)
		return err;
	err = ks_symbols_init();
	if (err)
		goto err_output;
	err = ks_traces_init();
	if (err)
		goto err_symbols;
	err = ks_control_init();
	if (err)
		goto err_traces;
#ifdef KS_FPROBE_UNKNOWN_API
	pr_warn("this kernel has CONFIG_FPROBE, but an fprobe API this kstats does not know: built without method fprobe\n");
#endif
	pr_info("%s loaded, methods: %s\n", KSTATS_VERSION, KS_METHODS);
	return 0;

err_traces:
	ks_traces_exit();
err_symbols:
	ks_symbols_exit();
err_output:
	ks_output_exit();
	return err;
}

static void __exit kstats_exit(void)
{
	/* Traces go first: their handlers record into histograms. */
	ks_control_exit();
	ks_traces_exit();
	ks_btf_exit();
	ks_symbols_exit();
	ks_metrics_exit();
	ks_output_exit();
}

module_init(kstats_init);
module_exit(kstats_exit);

MODULE_DESCRIPTION("Per-CPU log-linear histograms of kernel metrics in debugfs");
MODULE_AUTHOR("kstats developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(KSTATS_VERSION);
/* The methods this build attaches with (src/compat.mk): modinfo -F methods */
MODULE_INFO(methods, KS_METHODS);
