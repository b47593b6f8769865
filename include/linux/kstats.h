/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats: per-CPU log-linear histograms of u64 samples, shown in debugfs.
 *
 *	struct kstats *key = kstats_new("foo", 3);
 *
 *	u64 t0 = ktime_get_ns();
 *	<code to measure>
 *	kstats_record(key, ktime_get_ns() - t0);
 *
 *	cat /sys/kernel/debug/kstats/foo
 *	kstats_delete(key);
 *
 * Samples are nanoseconds by convention: nodes say "# unit ns", as the
 * traces of _control record ns. A metric of other units should say so in
 * its name (e.g. "foo_bytes").
 *
 * Client modules built out of tree define KSTATS_ENABLED (for example
 * "ccflags-y += -DKSTATS_ENABLED") and link against kstats.ko's
 * Module.symvers. Without it, or CONFIG_KSTATS in tree, the calls below
 * compile to no-ops so client code builds either way.
 */
#ifndef _LINUX_KSTATS_H
#define _LINUX_KSTATS_H

#include <linux/types.h>

/* Longest metric name, in bytes, without the terminating NUL. */
#define KSTATS_NAME_MAX		63
/* Slots per power of two are 2^frac_bits; frac_bits runs 0..KSTATS_FRAC_BITS_MAX. */
#define KSTATS_FRAC_BITS_MAX	5

struct kstats;

#if IS_ENABLED(CONFIG_KSTATS) || defined(KSTATS_ENABLED)
struct kstats *kstats_new(const char *name, u8 frac_bits);
void kstats_record(struct kstats *key, u64 value);
void kstats_delete(struct kstats *key);
#else
static inline struct kstats *kstats_new(const char *name, u8 frac_bits)
{
	return NULL;
}

static inline void kstats_record(struct kstats *key, u64 value)
{
}

static inline void kstats_delete(struct kstats *key)
{
}
#endif

#endif /* _LINUX_KSTATS_H */
