// SPDX-License-Identifier: GPL-2.0
/*
 * Methods kretprobe and fprobe: each call of a function, or of every
 * function of a list or pattern, from its entry to its return. One
 * fprobe covers them all; a kretprobe each. A line that names no method
 * gets fprobe where it attaches, else a kretprobe.
 */
#include <linux/fprobe.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#if KS_RETHOOK_PERCPU_RING
#include <linux/objpool.h>
#endif
#include <linux/overflow.h>
#include <linux/rethook.h>
#include <linux/slab.h>

#include "hotpath.h"
#include "method.h"
#include "names.h"
#include "patterns.h"
#include "starts.h"

/*
 * What a timed call keeps from its entry to its return: so sleeping,
 * recursing and migrating calls are timed right.
 */
struct ks_call {
	u64 ts;		/* entry, ns */
	u64 gap_from;	/* with if ret: the last end on the entry's CPU */
	unsigned int gap_cpu;	/* with if ret: the entry's CPU */
	struct ks_tag tag;	/* its kstack; the value key argN/ret reads */
};

/* A kretprobe of a trace that may cover several functions. */
struct ks_krp {
	struct kretprobe rp;
	struct ks_trace *t;
};

/* A function trace's own state: its fprobe, or its kretprobes. */
struct ks_function {
#if KS_HAVE_FPROBE
	struct fprobe fp;
#endif
	struct ks_krp *krps;	/* kretprobe: one per function */
	struct kretprobe **rps;	/* the same, as register_kretprobes() takes them */
	bool booked;		/* its fprobe's words are in ks_fp_words */
};

static struct ks_function *ks_function(const struct ks_trace *t)
{
	return ks_trace_priv(t);
}

/*
 * Key kstack's stack at a call's entry. Apart, so that a call without it
 * keeps no anchor on its stack (nor a stack protector to check).
 */
static noinline u32 notrace ks_call_stack(struct ks_trace *t,
					  unsigned long func, unsigned long ret,
					  struct kprobe *kp)
{
	struct ks_anchor anchor;

	ks_anchor_function(&anchor, func);
	return __ks_stack(t, KS_KEY_KSTACK, &anchor, ret,
			  kp ? ks_kprobe_level(kp) : interrupt_context_level());
}

/**
 * ks_call_begin() - a call of the function at @func begins
 * @t: the trace
 * @call: what its return needs: kretprobe instance data, fprobe entry data
 * @func: the function's entry
 * @ret: its return address
 * @arg: its arguments, if t->req.reads_args
 * @kp: the kprobe whose handler this is, or NULL (fprobe): for the level
 *      of the sampled code, which key ustack needs
 *
 * Context: a function's entry probe, preemption off.
 * Return: false if it is not timed (filtered out, or a miss already
 * counted): then there is no ks_call_end() for it.
 */
static bool notrace ks_call_begin(struct ks_trace *t, struct ks_call *call,
				  unsigned long func, unsigned long ret,
				  unsigned long *arg,
				  struct kprobe *kp)
{
	u8 *busy;

	if ((unlikely(t->req.reads_args) && !ks_args_admit(t, arg)) ||
	    !ks_filter_task(&t->req.filter, current) ||
	    !ks_filter_cpu(&t->req.filter))
		return false;
	busy = ks_enter();
	if (!busy) {
		ks_lost(t, &t->nested_start);
		return false;
	}
	call->tag.raw = unlikely(t->req.reads_args) ? ks_key_arg(t, arg) : 0;
	call->tag.stack = ks_keys_has_stack(t->keys, KS_KEY_KSTACK) ?
			  ks_call_stack(t, func, ret, kp) : 0;
	/* After the unwind: see hotpath.c. */
	call->ts = ks_now();
	if (unlikely(t->req.filter.on_ret)) {
		call->gap_from = this_cpu_read(*t->last_end);
		call->gap_cpu = smp_processor_id();
	} else {
		ks_gap_begin(t, call->ts);
	}
	ks_leave(busy);
	return true;
}

/**
 * ks_call_end() - a call timed by ks_call_begin() returns
 * @t: the trace
 * @call: what ks_call_begin() kept
 * @retval: its return value, if t->req.reads_ret
 *
 * Context: a function's return probe, preemption off.
 */
static void notrace ks_call_end(struct ks_trace *t, struct ks_call *call,
				unsigned long retval)
{
	u8 *busy;
	u64 now;

	if (unlikely(t->req.reads_ret)) {
		/* Filtered out by its return value: neither a sample nor a miss. */
		if (t->req.filter.on_ret && !ks_filter_ret(&t->req.filter, retval))
			return;
		if (ks_keys_spec_on_ret(&t->req.keys))
			call->tag.raw = retval;
	}
	busy = ks_enter();
	if (!busy) {
		ks_lost(t, &t->nested_end);
		return;
	}
	now = ks_now();
	ks_record_span(t, current, call->ts, now, &call->tag, 0);
	if (unlikely(t->req.filter.on_ret))
		ks_gap_admitted(t, call->gap_from, call->ts, call->gap_cpu);
	ks_gap_end(t, now);
	ks_leave(busy);
}

/*
 * ks_call_begin() with the call's arguments, for if and key argN. Apart,
 * so that the handlers of other traces keep no array on their stack.
 */
static noinline bool notrace ks_call_begin_regs(struct ks_trace *t,
						struct ks_call *call,
						struct kprobe *kp,
						struct pt_regs *regs)
{
	unsigned long arg[KS_ARG_SLOTS];

	ks_regs_args(regs, arg);
	return ks_call_begin(t, call, (unsigned long)kp->addr,
			     ks_entry_return_address(regs), arg, kp);
}

static int notrace ks_krp_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct ks_trace *t = container_of(rp, struct ks_krp, rp)->t;
	struct ks_call *call = (struct ks_call *)ri->data;

	/* Non-zero: no return probe for this call. */
	if (unlikely(t->req.reads_args))
		return !ks_call_begin_regs(t, call, &rp->kp, regs);
	return !ks_call_begin(t, call, (unsigned long)rp->kp.addr,
			      ks_entry_return_address(regs), NULL, &rp->kp);
}

static int notrace ks_krp_return(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct ks_trace *t = container_of(get_kretprobe(ri), struct ks_krp, rp)->t;

	ks_call_end(t, (struct ks_call *)ri->data,
		    unlikely(t->req.reads_ret) ? regs_return_value(regs) : 0);
	return 0;
}

/* Probing kstats' own handlers would recurse. */
NOKPROBE_SYMBOL(ks_call_stack);
NOKPROBE_SYMBOL(ks_call_begin_regs);
NOKPROBE_SYMBOL(ks_krp_entry);
NOKPROBE_SYMBOL(ks_krp_return);

#if KS_HAVE_FPROBE
/* As ks_call_begin_regs(), with fprobe's view of the registers. */
static noinline bool notrace ks_fp_begin_args(struct ks_trace *t,
					      struct ks_call *call,
					      unsigned long entry_ip,
					      unsigned long ret_ip,
					      KS_FPROBE_REGS_ARG)
{
	unsigned long arg[KS_ARG_SLOTS];
	unsigned int i;

	for (i = 0; i < KS_ARGS; i++)
		arg[i] = ks_fprobe_arg(regs, i);
	return ks_call_begin(t, call, entry_ip, ret_ip, arg, NULL);
}

static KS_FPROBE_ENTRY(ks_fp_entry)
{
	struct ks_trace *t = ks_trace_of(container_of(fp, struct ks_function, fp));
	bool timed;

	if (unlikely(t->req.reads_args))
		timed = ks_fp_begin_args(t, entry_data, entry_ip, ret_ip, regs);
	else
		timed = ks_call_begin(t, entry_data, entry_ip, ret_ip, NULL, NULL);
	return timed ? KS_FPROBE_ENTRY_OK : KS_FPROBE_ENTRY_SKIP;
}

static KS_FPROBE_EXIT(ks_fp_exit)
{
	struct ks_trace *t = ks_trace_of(container_of(fp, struct ks_function, fp));

	ks_call_end(t, entry_data,
		    unlikely(t->req.reads_ret) ? ks_fprobe_ret(regs) : 0);
}

NOKPROBE_SYMBOL(ks_fp_begin_args);
NOKPROBE_SYMBOL(ks_fp_entry);
NOKPROBE_SYMBOL(ks_fp_exit);
#endif

static int ks_function_resolve(struct ks_trace *t)
{
	int err;

	/* Before a pattern is matched, which takes a while. */
	if (!KS_HAVE_FPROBE && t->req.method == KS_METHOD_FPROBE) {
		ks_err_ratelimited("trace %s: fprobe unavailable for %s: %s\n",
				   t->req.name, t->req.start, KS_FPROBE_MISSING);
		return -EOPNOTSUPP;
	}
	err = ks_funcs_resolve(t->req.name, t->req.start, &t->funcs);

	t->addr = t->funcs.addrs ? t->funcs.addrs[0] : 0;
	return err;
}

static int ks_kretprobe_attach(struct ks_trace *t)
{
	struct ks_function *f = ks_function(t);
	unsigned int i, n = t->funcs.n;
	struct ks_krp *krps;
	int err;

	/* Up to KS_FUNCS_MAX of them: a few hundred KiB. */
	krps = kvcalloc(n, sizeof(*krps), GFP_KERNEL);
	f->rps = kvcalloc(n, sizeof(*f->rps), GFP_KERNEL);
	if (!krps || !f->rps) {
		kvfree(krps);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct kretprobe *rp = &krps[i].rp;

		krps[i].t = t;
		/*
		 * Where resolve found it: a name may be two static functions,
		 * or a freed __init one, which kprobes would find by name.
		 */
		rp->kp.addr = (kprobe_opcode_t *)t->funcs.addrs[i];
		rp->entry_handler = ks_krp_entry;
		rp->handler = ks_krp_return;
		rp->data_size = sizeof(struct ks_call);
		rp->maxactive = t->req.maxactive;
		f->rps[i] = rp;
	}
	/* The nodes are already readable: see ks_function_missed(). */
	smp_store_release(&f->krps, krps);
	err = register_kretprobes(f->rps, n);
	if (err) {
		pr_err("trace %s: register_kretprobes(%s) failed: %d\n",
		       t->req.name, t->req.start, err);
		return err;
	}
	/* Where the probes went, even if two functions share a name. */
	for (i = 0; i < n; i++)
		t->funcs.addrs[i] = (unsigned long)f->krps[i].rp.kp.addr;
	t->addr = t->funcs.addrs[0];
	return 0;
}

static int ks_kretprobe_detach(struct ks_trace *t)
{
	/* Returns still pending no longer reach our handler. */
	unregister_kretprobes(ks_function(t)->rps, t->funcs.n);
	return 0;
}

#if KS_FPROBE_SHADOW_STACK
/*
 * The words of per-call data kstats' fprobes keep on each function's
 * block on the shadow stack (see compat.h): a header and a struct ks_call
 * each. Booked from before an fprobe is registered until after it is
 * unregistered, so the kernel never sees more of kstats' fprobes on a
 * function than its block holds. Other fprobe users (BPF kprobe_multi,
 * tracefs fprobe events) take words from the same block unseen.
 */
#define KS_FP_CALL_WORDS						\
	(KS_FPROBE_HEADER_WORDS + DIV_ROUND_UP(sizeof(struct ks_call), sizeof(long)))
#define KS_FP_PER_FUNCTION	(KS_FGRAPH_DATA_WORDS / KS_FP_CALL_WORDS)

struct ks_fp_words {
	struct hlist_node node;
	unsigned long addr;	/* the ftrace site, as fprobe keys it */
	unsigned int n;		/* kstats' fprobes on it */
};

static DEFINE_HASHTABLE(ks_fp_words, 10);
static DEFINE_MUTEX(ks_fp_words_lock);

static struct ks_fp_words *ks_fp_words_find(unsigned long addr)
{
	struct ks_fp_words *w;

	hash_for_each_possible(ks_fp_words, w, node, addr)
		if (w->addr == addr)
			return w;
	return NULL;
}

/* Takes one fprobe off each function of @t, the first @n of them. */
static void ks_fp_unbook_n(struct ks_trace *t, unsigned int n)
{
	struct ks_fp_words *w;
	unsigned int i;

	for (i = 0; i < n; i++) {
		w = ks_fp_words_find(t->funcs.addrs[i]);
		if (WARN_ON_ONCE(!w))
			continue;
		if (!--w->n) {
			hash_del(&w->node);
			kfree(w);
		}
	}
}

/**
 * ks_fp_book() - book room for @t's fprobe on each of its functions
 * @t: the trace
 * @full: set to a function whose block is full, on -ENOSPC
 * @n: set to how many of kstats' fprobes are on it
 *
 * Return: 0; -ENOSPC if a function already has KS_FP_PER_FUNCTION of
 * kstats' fprobes; -ENOMEM. Nothing is booked unless 0.
 */
static int ks_fp_book(struct ks_trace *t, unsigned long *full, unsigned int *n)
{
	struct ks_function *f = ks_function(t);
	struct ks_fp_words *w;
	unsigned int i;
	int err = 0;

	BUILD_BUG_ON(sizeof(struct ks_call) > MAX_FPROBE_DATA_SIZE);
	BUILD_BUG_ON(KS_FP_PER_FUNCTION < 1);
	mutex_lock(&ks_fp_words_lock);
	for (i = 0; i < t->funcs.n; i++) {
		w = ks_fp_words_find(t->funcs.addrs[i]);
		if (w && w->n >= KS_FP_PER_FUNCTION) {
			*full = w->addr;
			*n = w->n;
			err = -ENOSPC;
			goto out;
		}
	}
	for (i = 0; i < t->funcs.n; i++) {
		w = ks_fp_words_find(t->funcs.addrs[i]);
		if (!w) {
			w = kzalloc(sizeof(*w), GFP_KERNEL);
			if (!w) {
				ks_fp_unbook_n(t, i);
				err = -ENOMEM;
				goto out;
			}
			w->addr = t->funcs.addrs[i];
			hash_add(ks_fp_words, &w->node, w->addr);
		}
		w->n++;
	}
	f->booked = true;
out:
	mutex_unlock(&ks_fp_words_lock);
	return err;
}

/* Once @t's fprobe is unregistered, or was never registered. */
static void ks_fp_unbook(struct ks_trace *t)
{
	struct ks_function *f = ks_function(t);

	if (!f->booked)
		return;
	mutex_lock(&ks_fp_words_lock);
	ks_fp_unbook_n(t, t->funcs.n);
	mutex_unlock(&ks_fp_words_lock);
	f->booked = false;
}
#else
static int ks_fp_book(struct ks_trace *t, unsigned long *full, unsigned int *n)
{
	return 0;
}

static void ks_fp_unbook(struct ks_trace *t)
{
}
#endif

#if KS_HAVE_FPROBE
/*
 * At the address kprobes resolved (past an ENDBR, on the ftrace call
 * site), so "gone" watches the very function the fprobe is on, even
 * where two functions share the name.
 */
static int ks_fprobe_register(struct ks_trace *t)
{
	struct fprobe *fp = &ks_function(t)->fp;

	fp->entry_handler = ks_fp_entry;
	fp->exit_handler = ks_fp_exit;
	fp->entry_data_size = sizeof(struct ks_call);
	ks_fprobe_set_maxactive(fp, t->req.maxactive);
	return register_fprobe_ips(fp, t->funcs.addrs, t->funcs.n);
}

static int ks_fprobe_detach(struct ks_trace *t)
{
	int err = unregister_fprobe(&ks_function(t)->fp);

	/* An fprobe that stays keeps its words. */
	if (!err)
		ks_fp_unbook(t);
	return err;
}

/*
 * kprobes disarms its own probes of a module going away. An fprobe's
 * address stays in its ftrace filter and would fire again for whatever
 * code a later module puts there.
 */
static void ks_fprobe_module_going(struct ks_trace *t)
{
	disable_fprobe(&ks_function(t)->fp);
}
#else
static int ks_fprobe_register(struct ks_trace *t)
{
	return -EOPNOTSUPP;
}

static int ks_fprobe_detach(struct ks_trace *t)
{
	return 0;
}

#define ks_fprobe_module_going	NULL
#endif

/*
 * A function whose block on the shadow stack holds no more of kstats'
 * fprobes: "method fprobe" is refused, a default trace takes kretprobes.
 */
static int ks_fprobe_full(struct ks_trace *t, unsigned long full, unsigned int n)
{
	if (t->req.method == KS_METHOD_FPROBE) {
		ks_err_ratelimited("trace %s: fprobe: %ps already has %u of kstats' fprobes, as many as its per-call data on the shadow stack holds; remove one, or use method kretprobe\n",
				   t->req.name, (void *)full, n);
		return -ENOSPC;
	}
	pr_info("trace %s: %ps already has %u of kstats' fprobes, as many as its per-call data on the shadow stack holds: using kretprobes\n",
		t->req.name, (void *)full, n);
	WRITE_ONCE(t->ops, &ks_kretprobe_ops);
	return ks_kretprobe_attach(t);
}

/* fprobe if asked or possible; a line that names no method falls back. */
static int ks_fprobe_attach(struct ks_trace *t)
{
	unsigned long full = 0;
	unsigned int n = 0;
	int err;

	err = ks_fp_book(t, &full, &n);
	if (err == -ENOSPC)
		return ks_fprobe_full(t, full, n);
	if (err)
		return err;
	err = ks_fprobe_register(t);
	if (!err)
		return 0;
	ks_fp_unbook(t);
	if (t->funcs.pattern) {
		ks_err_ratelimited("trace %s: fprobe on the %u function%s %s matches failed (%d)%s\n",
				   t->req.name, t->funcs.n, t->funcs.n == 1 ? "" : "s",
				   t->funcs.pattern, err,
				   err == -EINVAL || err == -ENOENT ?
				   ": has a module of theirs gone away?" : "");
		return err;
	}
	if (t->req.method == KS_METHOD_FPROBE) {
		ks_err_ratelimited("trace %s: fprobe unavailable for %s (%d)%s\n",
				   t->req.name, t->req.start, err,
				   KS_HAVE_FPROBE ? ": no ftrace site?" :
				   ": " KS_FPROBE_MISSING);
		return err == -ENOMEM ? err : -EOPNOTSUPP;
	}
	/* No memory is not "no fprobe": a kretprobe would change the method. */
	if (err == -ENOMEM) {
		ks_err_ratelimited("trace %s: fprobe for %s: out of memory\n",
				   t->req.name, t->req.start);
		return err;
	}
	pr_info("trace %s: no fprobe for %s (%d), using a kretprobe\n",
		t->req.name, t->req.start, err);
	WRITE_ONCE(t->ops, &ks_kretprobe_ops);
	return ks_kretprobe_attach(t);
}

/*
 * What the kernel's probes lost: not fired, or no instance free. Either
 * method's, as a trace may fall back from one to the other while its
 * nodes are read; the other's counts are zero.
 */
static unsigned long ks_function_missed(struct ks_trace *t)
{
	const struct ks_function *f = ks_function(t);
	const struct ks_krp *krps;
	unsigned long missed = 0;
	unsigned int i;

	/* NULL until ks_kretprobe_attach(). */
	krps = smp_load_acquire(&f->krps);
	for (i = 0; krps && i < t->funcs.n; i++)
		missed += krps[i].rp.nmissed + krps[i].rp.kp.nmissed;
#if KS_HAVE_FPROBE
	/* fprobe counts without atomics: approximate under contention. */
	missed += f->fp.nmissed;
#endif
	return missed;
}

#if KS_RETHOOK_PERCPU_RING
/*
 * A return-probe pool of @nr instances of @size bytes on objpool (6.7+):
 * each possible CPU has one vmalloc area, whole pages, holding a ring of
 * roundup_pow_of_two(@nr) pointers and its share of the instances
 * (lib/objpool.c); then the array of those areas and the rethook.
 */
static size_t ks_pool_bytes(unsigned int nr, size_t size)
{
	size_t cpus = num_possible_cpus(), ring = roundup_pow_of_two(nr);
	size_t bytes = 0, i;

	size = ALIGN(size, sizeof(long));
	for (i = 0; i < cpus; i++) {
		size_t nodes = nr / cpus + (i < nr % cpus);

		bytes += PAGE_ALIGN(sizeof(struct objpool_slot) +
				    ring * sizeof(void *) + size * nodes);
	}
	return bytes + kmalloc_size_roundup(nr_cpu_ids * sizeof(void *)) +
	       kmalloc_size_roundup(sizeof(struct rethook));
}
#else
/* Before 6.7: @nr instances, each its own kmalloc, on a free list. */
static size_t ks_pool_bytes(unsigned int nr, size_t size)
{
	return nr * kmalloc_size_roundup(size) +
	       kmalloc_size_roundup(sizeof(struct rethook));
}
#endif

/* One pool per function, and its kretprobe (computed from the kernel's layout). */
static size_t ks_kretprobe_bytes(const struct ks_trace *t)
{
	size_t pool = ks_pool_bytes(t->req.maxactive,
				    sizeof(struct kretprobe_instance) +
				    sizeof(struct ks_call));

	return t->funcs.n * (pool + sizeof(struct ks_krp) + sizeof(void *));
}

#if KS_HAVE_FPROBE && KS_FPROBE_POOL
/* One pool for all functions: a rethook_node, two ips, our data. */
static size_t ks_fprobe_bytes(const struct ks_trace *t)
{
	return ks_pool_bytes(t->req.maxactive,
			     sizeof(struct rethook_node) + 2 * sizeof(long) +
			     sizeof(struct ks_call));
}
#elif KS_HAVE_FPROBE
/*
 * An fprobe on the function-graph tracer (6.14+) keeps each call's data on
 * the task's shadow stack, which fgraph gives every task once any fgraph
 * user is active, and shares: not this trace's. What is its own is one
 * hash node per address.
 */
static size_t ks_fprobe_bytes(const struct ks_trace *t)
{
	const struct fprobe_hlist *h = ks_function(t)->fp.hlist_array;

	return h ? struct_size(h, array, h->size) : 0;
}
#else
static size_t ks_fprobe_bytes(const struct ks_trace *t)
{
	return 0;
}
#endif

static void ks_function_free(struct ks_trace *t)
{
	struct ks_function *f = ks_function(t);

	kvfree(f->rps);
	kvfree(f->krps);
}

static bool ks_kretprobe_claims(const struct ks_trace_req *req)
{
	/* Without CONFIG_FPROBE the default is simply a kretprobe. */
	return req->method == KS_METHOD_KRETPROBE ||
	       (!KS_HAVE_FPROBE && req->method == KS_METHOD_DEFAULT);
}

static bool ks_fprobe_claims(const struct ks_trace_req *req)
{
	return req->method == KS_METHOD_FPROBE ||
	       (KS_HAVE_FPROBE && req->method == KS_METHOD_DEFAULT);
}

const struct ks_method_ops ks_kretprobe_ops = {
	.method = KS_METHOD_KRETPROBE,
	.priv_size = sizeof(struct ks_function),
	.claims = ks_kretprobe_claims,
	.resolve = ks_function_resolve,
	.attach = ks_kretprobe_attach,
	.detach = ks_kretprobe_detach,
	.missed = ks_function_missed,
	.bytes = ks_kretprobe_bytes,
	.free = ks_function_free,
};

const struct ks_method_ops ks_fprobe_ops = {
	.method = KS_METHOD_FPROBE,
	.priv_size = sizeof(struct ks_function),
	.claims = ks_fprobe_claims,
	.resolve = ks_function_resolve,
	.attach = ks_fprobe_attach,
	.detach = ks_fprobe_detach,
	.missed = ks_function_missed,
	.bytes = ks_fprobe_bytes,
	.module_going = ks_fprobe_module_going,
	/* On 6.14+ calls wait on the task's shadow stack: no pool to size. */
	.maxactive_unused = !KS_FPROBE_POOL,
	.free = ks_function_free,
};
