// SPDX-License-Identifier: GPL-2.0
/*
 * Method kprobe: a section from the entry of one function to the entry of
 * another, per task and context level, nested as calls nest.
 */
#include <linux/kprobes.h>

#include "hotpath.h"
#include "method.h"
#include "names.h"

/* A kprobe pair's own state. */
struct ks_kprobe_pair {
	struct kprobe start;
	struct kprobe end;
};

static struct ks_kprobe_pair *ks_kprobe_pair(const struct ks_trace *t)
{
	return ks_trace_priv(t);
}

/*
 * ks_kp_start() of a trace that reads the arguments. Apart, so that the
 * start of other traces keeps no array on its stack.
 */
static noinline void notrace ks_kp_start_args(struct ks_trace *t,
					      struct kprobe *p,
					      struct pt_regs *regs)
{
	unsigned long arg[KS_ARG_SLOTS];

	ks_regs_args(regs, arg);
	if (ks_args_admit(t, arg))
		ks_section_start(t, current, ks_kprobe_level(p),
				 ks_entry_return_address(regs), arg);
	else
		ks_section_left_out(t, current, ks_kprobe_level(p));
}

static int notrace ks_kp_start(struct kprobe *p, struct pt_regs *regs)
{
	struct ks_kprobe_pair *pair = container_of(p, struct ks_kprobe_pair, start);
	struct ks_trace *t = ks_trace_of(pair);

	if (unlikely(t->req.reads_args))
		ks_kp_start_args(t, p, regs);
	else
		ks_section_start(t, current, ks_kprobe_level(p),
				 ks_entry_return_address(regs), NULL);
	return 0;
}

static int notrace ks_kp_end(struct kprobe *p, struct pt_regs *regs)
{
	struct ks_kprobe_pair *pair = container_of(p, struct ks_kprobe_pair, end);

	ks_section_end(ks_trace_of(pair), current, ks_kprobe_level(p),
		       ks_entry_return_address(regs));
	return 0;
}

/* Probing kstats' own handlers would recurse. */
NOKPROBE_SYMBOL(ks_kp_start_args);
NOKPROBE_SYMBOL(ks_kp_start);
NOKPROBE_SYMBOL(ks_kp_end);

static int ks_kprobe_pair_resolve(struct ks_trace *t)
{
	int err;

	ks_section_expire(t);
	err = ks_resolve(t->req.name, t->req.start, &t->addr);
	if (!err)
		err = ks_resolve(t->req.name, t->req.end, &t->end_addr);
	if (!err && t->addr == t->end_addr) {
		/* Two names of one function: the pair would time kstats' handlers. */
		ks_err_ratelimited("trace %s: end %s is the same function as start %s\n",
				   t->req.name, t->req.end, t->req.start);
		err = -EINVAL;
	}
	return err;
}

static int ks_kprobe_pair_attach(struct ks_trace *t)
{
	struct ks_kprobe_pair *pair = ks_kprobe_pair(t);
	/*
	 * The end first (register_kprobes() arms them in this order, each
	 * live on every CPU when it returns): a start made before its end's
	 * probe was live would be closed by some later end, a section that
	 * never was. An end before the start is live finds no start.
	 */
	struct kprobe *kps[] = { &pair->end, &pair->start };
	int err;

	/* Before the probes can fire; kprobes may move them past an ENDBR. */
	ks_anchor_function(&t->anchor[0], t->addr);
	ks_anchor_function(&t->anchor[1], t->end_addr);
	/* Where resolve found them, as for a kretprobe (function.c). */
	pair->start.addr = (kprobe_opcode_t *)t->addr;
	pair->start.pre_handler = ks_kp_start;
	pair->end.addr = (kprobe_opcode_t *)t->end_addr;
	pair->end.pre_handler = ks_kp_end;
	err = register_kprobes(kps, ARRAY_SIZE(kps));
	if (err) {
		pr_err("trace %s: register_kprobes failed: %d\n",
		       t->req.name, err);
		return err;
	}
	t->addr = (unsigned long)pair->start.addr;
	t->end_addr = (unsigned long)pair->end.addr;
	return 0;
}

static int ks_kprobe_pair_detach(struct ks_trace *t)
{
	struct ks_kprobe_pair *pair = ks_kprobe_pair(t);
	struct kprobe *kps[] = { &pair->start, &pair->end };

	unregister_kprobes(kps, ARRAY_SIZE(kps));
	return 0;
}

static unsigned long ks_kprobe_pair_missed(struct ks_trace *t)
{
	const struct ks_kprobe_pair *pair = ks_kprobe_pair(t);

	return pair->start.nmissed + pair->end.nmissed;
}

static bool ks_kprobe_pair_claims(const struct ks_trace_req *req)
{
	return req->method == KS_METHOD_KPROBE;
}

const struct ks_method_ops ks_kprobe_pair_ops = {
	.method = KS_METHOD_KPROBE,
	.priv_size = sizeof(struct ks_kprobe_pair),
	.starts = true,
	.claims = ks_kprobe_pair_claims,
	.resolve = ks_kprobe_pair_resolve,
	.attach = ks_kprobe_pair_attach,
	.detach = ks_kprobe_pair_detach,
	.missed = ks_kprobe_pair_missed,
	.list = ks_section_list,
};
