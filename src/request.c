// SPDX-License-Identifier: GPL-2.0
/* What the vocabulary of traces (request.h) needs defined once. */
#include <linux/ratelimit.h>
#include <linux/string.h>

#include "request.h"

const char *const ks_method_names[KS_METHOD_NR] = {
	[KS_METHOD_DEFAULT] = "default",
	[KS_METHOD_KRETPROBE] = "kretprobe",
	[KS_METHOD_FPROBE] = "fprobe",
	[KS_METHOD_KPROBE] = "kprobe",
	[KS_METHOD_TRACEPOINT] = "tracepoint",
};

const char *const ks_offcpu_state_names[KS_STATE_NR] = {
	[KS_STATE_ANY] = "any", [KS_STATE_ALL] = "all", [KS_STATE_S] = "S",
	[KS_STATE_D] = "D",
};

const char *const ks_offcpu_tasks_names[KS_TASKS_NR] = {
	[KS_TASKS_ALL] = "all", [KS_TASKS_USER] = "user",
	[KS_TASKS_KERNEL] = "kernel",
};

/* Refusals: room for a script's burst, not for a loop. */
DEFINE_RATELIMIT_STATE(ks_refusal_rs, 5 * HZ, 100);

bool ks_tp_symbol(char *dst, const char *event)
{
	size_t prefix = strlen(KS_TP_PREFIX), len = strlen(event);

	if (prefix + len >= KSYM_NAME_LEN)
		return false;
	memcpy(dst, KS_TP_PREFIX, prefix);
	memcpy(dst + prefix, event, len + 1);
	return true;
}
