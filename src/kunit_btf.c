// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the BTF reader (btf.c): the types it gives a small
 * section built here, its refusals of known faults, and a fuzzer that
 * feeds it that section mutated at random (bytes changed, cut short) in
 * a buffer of the exact size, where KASAN (the debug kernel) catches any
 * read past the end. Built with KSTATS_KUNIT=y, like kunit.c.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/linux/btf.h>

#include "btf.h"
#include "hist.h"
#include "hotpath.h"
#include "trace.h"

#define KS_T_WORDS	512
#define KS_T_STRS	256

/* A BTF section being built: types as u32 words, then strings. */
struct ks_t_btf {
	u32 types[KS_T_WORDS];
	unsigned int n_words;
	char strs[KS_T_STRS];
	unsigned int strs_len;
};

static u32 ks_t_str(struct ks_t_btf *b, const char *s)
{
	u32 off = b->strs_len;

	if (!*s)
		return 0;
	strscpy(b->strs + off, s, KS_T_STRS - off);
	b->strs_len += strlen(s) + 1;
	return off;
}

static void ks_t_word(struct ks_t_btf *b, u32 w)
{
	if (b->n_words < KS_T_WORDS)
		b->types[b->n_words++] = w;
}

/* A struct btf_type: name, kind, vlen, kind_flag, size or type. */
static void ks_t_type(struct ks_t_btf *b, const char *name, u32 kind, u32 vlen,
		      bool kflag, u32 size_type)
{
	ks_t_word(b, ks_t_str(b, name));
	ks_t_word(b, (kflag ? BIT(31) : 0) | kind << 24 | vlen);
	ks_t_word(b, size_type);
}

static void ks_t_int(struct ks_t_btf *b, const char *name, u32 size, u32 enc)
{
	ks_t_type(b, name, BTF_KIND_INT, 0, false, size);
	ks_t_word(b, enc << 24 | size * 8);
}

/* A member of a struct or union: its name, type and (bit) offset. */
static void ks_t_member(struct ks_t_btf *b, const char *name, u32 type, u32 offset)
{
	ks_t_word(b, ks_t_str(b, name));
	ks_t_word(b, type);
	ks_t_word(b, offset);
}

/* A prototype and its FUNC: @n parameters of types @params. */
static void ks_t_func(struct ks_t_btf *b, const char *name, u32 ret,
		      const u32 *params, unsigned int n, u32 proto_id)
{
	unsigned int i;

	ks_t_type(b, "", BTF_KIND_FUNC_PROTO, n, false, ret);
	for (i = 0; i < n; i++) {
		ks_t_word(b, params[i] ? ks_t_str(b, "p") : 0);
		ks_t_word(b, params[i]);
	}
	ks_t_type(b, name, BTF_KIND_FUNC, 0, false, proto_id);
}

/*
 * Ids: 1 int, 2 unsigned int, 3 _Bool, 4 void *, 5 size_t (typedef of
 * 7), 6 const int, 7 unsigned long, 8 enum (signed), 9 struct of 16
 * bytes; 10/11 f(const int, size_t, bool, void *, enum e) returning int;
 * 12/13 g(struct s, int) returning void; 14/15 h(int, ...) returning
 * unsigned int; 16/17 typedefs of each other, 18/19 l() returning 16;
 * 20 struct node { struct node *next; unsigned long flags; union {
 * int inner; }; unsigned int bits:3; } (kind_flag: bit offsets), 21
 * struct node *, 22 the anonymous union, 23/24 m(struct node *p)
 * returning int; 25 typedef btf_trace_ev, 26 a pointer to 27, the
 * prototype of tracepoint ev (void *ctx, struct node *p).
 */
static void *ks_t_build(size_t *size)
{
	static const u32 f_params[] = { 6, 5, 3, 4, 8 };
	static const u32 g_params[] = { 9, 1 };
	static const u32 h_params[] = { 1, 0 };
	static const u32 m_params[] = { 21 };
	struct ks_t_btf *b = kzalloc(sizeof(*b), GFP_KERNEL);
	/* The 24-byte header every reference kernel's BTF has. */
	const size_t hdr_len = offsetofend(struct btf_header, str_len);
	struct btf_header h = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = hdr_len,
	};
	void *data;

	if (!b)
		return NULL;
	b->strs_len = 1;	/* offset 0 is "" */
	ks_t_int(b, "int", 4, BTF_INT_SIGNED);
	ks_t_int(b, "unsigned int", 4, 0);
	ks_t_int(b, "_Bool", 1, BTF_INT_BOOL);
	ks_t_type(b, "", BTF_KIND_PTR, 0, false, 0);
	ks_t_type(b, "size_t", BTF_KIND_TYPEDEF, 0, false, 7);
	ks_t_type(b, "", BTF_KIND_CONST, 0, false, 1);
	ks_t_int(b, "long unsigned int", 8, 0);
	ks_t_type(b, "e", BTF_KIND_ENUM, 1, true, 4);
	ks_t_word(b, ks_t_str(b, "E"));
	ks_t_word(b, (u32)-1);
	ks_t_type(b, "s", BTF_KIND_STRUCT, 0, false, 16);
	ks_t_func(b, "f", 1, f_params, ARRAY_SIZE(f_params), 10);
	ks_t_func(b, "g", 0, g_params, ARRAY_SIZE(g_params), 12);
	ks_t_func(b, "h", 2, h_params, ARRAY_SIZE(h_params), 14);
	ks_t_type(b, "t16", BTF_KIND_TYPEDEF, 0, false, 17);
	ks_t_type(b, "t17", BTF_KIND_TYPEDEF, 0, false, 16);
	ks_t_func(b, "l", 16, NULL, 0, 18);
	ks_t_type(b, "node", BTF_KIND_STRUCT, 4, true, 24);
	ks_t_member(b, "next", 21, 0);
	ks_t_member(b, "flags", 7, 64);
	ks_t_member(b, "", 22, 128);
	ks_t_member(b, "bits", 2, 3 << 24 | 160);
	ks_t_type(b, "", BTF_KIND_PTR, 0, false, 20);
	ks_t_type(b, "", BTF_KIND_UNION, 1, false, 4);
	ks_t_member(b, "inner", 1, 0);
	ks_t_func(b, "m", 1, m_params, ARRAY_SIZE(m_params), 23);
	ks_t_type(b, "btf_trace_ev", BTF_KIND_TYPEDEF, 0, false, 26);
	ks_t_type(b, "", BTF_KIND_PTR, 0, false, 27);
	ks_t_type(b, "", BTF_KIND_FUNC_PROTO, 2, false, 0);
	ks_t_word(b, ks_t_str(b, "ctx"));
	ks_t_word(b, 4);
	ks_t_word(b, ks_t_str(b, "p"));
	ks_t_word(b, 21);
	h.type_len = b->n_words * sizeof(u32);
	h.str_off = h.type_len;
	h.str_len = b->strs_len;
	*size = hdr_len + h.type_len + h.str_len;
	data = kmalloc(*size, GFP_KERNEL);
	if (data) {
		memcpy(data, &h, hdr_len);
		memcpy(data + hdr_len, b->types, h.type_len);
		memcpy(data + hdr_len + h.type_len, b->strs, h.str_len);
	}
	kfree(b);
	return data;
}

static void ks_t_expect_type(struct kunit *test, const struct ks_btf_type *t,
			     u8 bits, bool is_signed)
{
	KUNIT_EXPECT_EQ(test, t->bits, bits);
	KUNIT_EXPECT_EQ(test, t->is_signed, is_signed);
}

static void ks_test_btf_types(struct kunit *test)
{
	struct ks_btf_func fn;
	size_t size;
	void *data = ks_t_build(&size);

	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_ASSERT_EQ(test, ks_btf_parse(data, size, "f", &fn), 0);
	ks_t_expect_type(test, &fn.ret, 32, true);
	KUNIT_EXPECT_EQ(test, fn.n_params, 5);
	ks_t_expect_type(test, &fn.param[0], 32, true);	/* const int */
	ks_t_expect_type(test, &fn.param[1], 64, false);	/* size_t */
	ks_t_expect_type(test, &fn.param[2], 8, false);	/* bool */
	ks_t_expect_type(test, &fn.param[3], 64, false);	/* a pointer */
	ks_t_expect_type(test, &fn.param[4], 32, true);	/* a signed enum */

	/* void; a struct by value hides the registers after it. */
	KUNIT_ASSERT_EQ(test, ks_btf_parse(data, size, "g", &fn), 0);
	KUNIT_EXPECT_EQ(test, fn.ret.bits, 0);
	KUNIT_EXPECT_EQ(test, fn.n_params, 0);
	KUNIT_EXPECT_EQ(test, fn.vlen, 2);

	/* "..." ends the parameters. */
	KUNIT_ASSERT_EQ(test, ks_btf_parse(data, size, "h", &fn), 0);
	ks_t_expect_type(test, &fn.ret, 32, false);
	KUNIT_EXPECT_EQ(test, fn.n_params, 1);

	KUNIT_EXPECT_EQ(test, ks_btf_parse(data, size, "l", &fn), -EINVAL);
	KUNIT_EXPECT_EQ(test, ks_btf_parse(data, size, "nope", &fn), -ENOENT);
	KUNIT_EXPECT_EQ(test, ks_btf_parse(data, size, "", &fn), -ENOENT);
	kfree(data);
}

/* @path of m()'s parameter p, or of tracepoint ev's: 0 or an errno. */
static int ks_t_path(const void *data, size_t size, bool tp, const char *path,
		     struct ks_btf_field *field, char *why, size_t why_size)
{
	const char * const paths[] = { path };
	unsigned int bad = UINT_MAX;
	const struct ks_btf_query q = {
		.func = tp ? "ev" : "m", .tracepoint = tp, .n_fields = 1,
		.paths = paths, .fields = field, .bad = &bad, .why = why,
		.why_size = why_size,
	};
	struct ks_btf_func fn;
	int err = ks_btf_parse_query(data, size, &q, &fn);

	return err == -ESRCH && bad != 0 ? -EFAULT : err;
}

/* Fields through pointers: offsets and types, and each refusal's reason. */
static void ks_test_btf_fields(struct kunit *test)
{
	static const struct {
		const char *path;
		u8 n_derefs;
		u32 off0, off1;
		u8 bits;
		bool is_signed;
	} good[] = {
		{ "p->flags", 1, 8, 0, 64, false },
		{ "p->next", 1, 0, 0, 64, false },
		{ "p->inner", 1, 16, 0, 32, true },	/* in the anonymous union */
		{ "p->next->flags", 2, 0, 8, 64, false },
		{ "p->next->inner", 2, 0, 16, 32, true },
	};
	static const struct {
		const char *path, *why;
	} bad[] = {
		{ "p->nope", "struct node has no member 'nope'" },
		{ "q->flags", "'q' is not a parameter that kstats reads (its parameters: p)" },
		{ "p->flags->x", "'flags' is an integer, not a pointer" },
		{ "p->bits", "'bits' is a bitfield" },
		{ "p->next->next->flags", "at most 2 '->'" },
		{ "p.flags", "'p' is a parameter: give '->'" },
	};
	struct ks_btf_func fn;
	struct ks_btf_field field;
	char why[160];
	unsigned int i;
	size_t size;
	void *data = ks_t_build(&size);

	KUNIT_ASSERT_NOT_NULL(test, data);
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		KUNIT_ASSERT_EQ_MSG(test, ks_t_path(data, size, false, good[i].path, &field,
						    why, sizeof(why)), 0, "%s", good[i].path);
		KUNIT_EXPECT_EQ(test, field.arg, 0);
		KUNIT_EXPECT_EQ(test, field.n_derefs, good[i].n_derefs);
		KUNIT_EXPECT_EQ(test, field.off[0], good[i].off0);
		if (good[i].n_derefs > 1)
			KUNIT_EXPECT_EQ(test, field.off[1], good[i].off1);
		ks_t_expect_type(test, &field.type, good[i].bits, good[i].is_signed);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		KUNIT_EXPECT_EQ_MSG(test, ks_t_path(data, size, false, bad[i].path, &field,
						    why, sizeof(why)), -ESRCH, "%s", bad[i].path);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(why, bad[i].why), "%s: %s", bad[i].path,
					  why);
	}
	/* A tracepoint: its prototype without void *ctx. */
	KUNIT_ASSERT_EQ(test, ks_t_path(data, size, true, "p->next->flags", &field, why,
					sizeof(why)), 0);
	KUNIT_EXPECT_EQ(test, field.n_derefs, 2);
	{
		const struct ks_btf_query q = { .func = "ev", .tracepoint = true };

		KUNIT_ASSERT_EQ(test, ks_btf_parse_query(data, size, &q, &fn), 0);
		KUNIT_EXPECT_EQ(test, fn.n_params, 1);
		KUNIT_EXPECT_STREQ(test, fn.param_name[0], "p");
		KUNIT_EXPECT_STREQ(test, fn.names, "p");
	}
	kfree(data);
}

/* Each fault in a copy of the section, of its exact size. */
static int ks_t_parse_with(struct kunit *test, const void *data, size_t size,
			   size_t at, u32 word)
{
	struct ks_btf_func fn;
	void *copy = kmemdup(data, size, GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, copy);
	if (size >= sizeof(u32) && at <= size - sizeof(u32))
		memcpy(copy + at, &word, sizeof(word));
	err = ks_btf_parse(copy, size, "f", &fn);
	kfree(copy);
	return err;
}

static void ks_test_btf_faults(struct kunit *test)
{
	const size_t hdr = offsetofend(struct btf_header, str_len);
	const struct btf_header *h;
	size_t size, none = SIZE_MAX;
	void *data = ks_t_build(&size);

	KUNIT_ASSERT_NOT_NULL(test, data);
	h = data;
	/* magic and version, hdr_len, type_len, str_len */
	KUNIT_EXPECT_EQ(test, ks_t_parse_with(test, data, size, 0, 0x9feb0001), -EINVAL);
	KUNIT_EXPECT_EQ(test, ks_t_parse_with(test, data, size, 4, size + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ks_t_parse_with(test, data, size, 12, U32_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, ks_t_parse_with(test, data, size, 20, U32_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, ks_t_parse_with(test, data, size, 20, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ks_t_parse_with(test, data, size, 16, U32_MAX - 8), -EINVAL);
	/* strings not ending in a NUL */
	KUNIT_EXPECT_EQ(test, ks_t_parse_with(test, data, size, size - 4, 0x41414141),
			-EINVAL);
	/* int's name past the strings; an unknown kind; a vlen past the end */
	KUNIT_EXPECT_EQ(test, ks_t_parse_with(test, data, size, hdr, U32_MAX),
			0);	/* a name kstats does not read (not a FUNC's) */
	KUNIT_EXPECT_EQ(test, ks_t_parse_with(test, data, size, hdr + 4, 31 << 24),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ks_t_parse_with(test, data, size, hdr + 4,
					      BTF_KIND_ENUM << 24 | 0xffff), -EINVAL);
	/* cut short: every length up to the whole */
	for (size_t cut = 0; cut < size; cut++) {
		struct ks_btf_func fn;
		void *copy = kmemdup(data, cut ? cut : 1, GFP_KERNEL);
		int err;

		KUNIT_ASSERT_NOT_NULL(test, copy);
		err = ks_btf_parse(copy, cut, "f", &fn);
		kfree(copy);
		KUNIT_EXPECT_EQ_MSG(test, err, -EINVAL, "cut at %zu of %zu", cut, size);
	}
	KUNIT_EXPECT_EQ(test, ks_t_parse_with(test, data, size, none, 0), 0);
	KUNIT_EXPECT_EQ(test, h->hdr_len, hdr);
	kfree(data);
}

#define KS_T_FUZZ_ROUNDS	20000

/* Random bytes changed, or the end cut: an errno or types, never a fault. */
static void ks_test_btf_fuzz(struct kunit *test)
{
	static const char * const funcs[] = { "f", "g", "h", "l", "x" };
	unsigned int round, ok = 0, refused = 0;
	struct rnd_state rnd;
	size_t size;
	void *data = ks_t_build(&size);

	KUNIT_ASSERT_NOT_NULL(test, data);
	prandom_seed_state(&rnd, 43);
	for (round = 0; round < KS_T_FUZZ_ROUNDS; round++) {
		unsigned int i, n = 1 + prandom_u32_state(&rnd) % 4;
		size_t len = size;
		struct ks_btf_func fn;
		void *copy;
		int err;

		if (!(prandom_u32_state(&rnd) % 8))
			len = prandom_u32_state(&rnd) % size + 1;
		copy = kmemdup(data, len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, copy);
		for (i = 0; i < n; i++) {
			u32 r = prandom_u32_state(&rnd);
			u8 *byte = (u8 *)copy + r % len;

			*byte = r >> 24 & 1 ? r >> 16 : *byte ^ BIT(r >> 8 & 7);
		}
		if (round % 3) {
			err = ks_btf_parse(copy, len, funcs[round % ARRAY_SIZE(funcs)], &fn);
		} else {
			/* Fields through pointers, of the function or the tracepoint. */
			static const char * const paths[] = { "p->next->inner", "p->flags" };
			struct ks_btf_field fields[ARRAY_SIZE(paths)];
			char why[64];
			const struct ks_btf_query q = {
				.func = round % 2 ? "m" : "ev", .tracepoint = !(round % 2),
				.n_fields = ARRAY_SIZE(paths), .paths = paths,
				.fields = fields, .why = why, .why_size = sizeof(why),
			};

			err = ks_btf_parse_query(copy, len, &q, &fn);
			if (err == -ESRCH)
				err = -ENOENT;	/* a path refused: counted so */
			for (i = 0; !err && i < ARRAY_SIZE(fields); i++)
				KUNIT_EXPECT_TRUE(test, fields[i].n_derefs >= 1 &&
						  fields[i].n_derefs <= KS_FIELD_DEREFS);
		}
		kfree(copy);
		if (!err) {
			ok++;
			KUNIT_EXPECT_LE(test, fn.n_params, KS_ARGS);
			KUNIT_EXPECT_TRUE(test, !fn.ret.bits || fn.ret.bits == 8 ||
					  fn.ret.bits == 16 || fn.ret.bits == 32 ||
					  fn.ret.bits == 64);
			continue;
		}
		refused++;
		KUNIT_EXPECT_TRUE_MSG(test, err == -EINVAL || err == -ENOENT ||
				      err == -ENOTUNIQ,
				      "round %u: %d", round, err);
	}
	kunit_info(test, "btf fuzz: %u rounds, %u typed, %u refused\n",
		   KS_T_FUZZ_ROUNDS, ok, refused);
	KUNIT_EXPECT_GT(test, ok, 0);
	KUNIT_EXPECT_GT(test, refused, 0);
	kfree(data);
}

/* A node as btffield's (test target): a pointer, then flags. */
struct ks_t_node {
	struct ks_t_node *next;
	unsigned long flags;
};

/*
 * ks_fields_read(), the probe's reads, through NULL, an ERR_PTR and the
 * unmapped top page: each a fault counted once (fault), never an oops
 * (KASAN on the debug kernel), and the mapped nodes' fields read.
 */
static void ks_test_fields_read(struct kunit *test)
{
	static struct ks_t_node second = { .flags = 7 };
	struct ks_t_node nodes[] = {
		{ .next = &second, .flags = 3 },
		{ .next = NULL, .flags = 5 },
		{ .next = (void *)-PAGE_SIZE, .flags = 9 },
	};
	struct ks_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct kstats *dur = kunit_kzalloc(test, sizeof(*dur), GFP_KERNEL);
	unsigned long arg[KS_ARG_SLOTS];
	unsigned int i, faults = 0;
	const struct {
		void *p;
		bool ok;
		unsigned long flags, next_flags;
	} calls[] = {
		{ &nodes[0], true, 3, 7 }, { &nodes[1], false }, { &nodes[2], false },
		{ NULL, false }, { ERR_PTR(-EINVAL), false }, { (void *)-PAGE_SIZE, false },
	};

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, dur);
	dur->active = true;
	t->dur = dur;
	/* arg1->flags (u64), arg1->next->flags; arg0 is not read. */
	t->req.n_fields = 2;
	t->req.field[0] = (struct ks_field){ .arg = 1, .n_derefs = 1, .size = 8,
					     .off = { offsetof(struct ks_t_node, flags) } };
	t->req.field[1] = (struct ks_field){
		.arg = 1, .n_derefs = 2, .size = 8,
		.off = { offsetof(struct ks_t_node, next), offsetof(struct ks_t_node, flags) },
	};
	for (i = 0; i < ARRAY_SIZE(calls); i++) {
		memset(arg, 0, sizeof(arg));
		arg[1] = (unsigned long)calls[i].p;
		KUNIT_EXPECT_EQ_MSG(test, ks_fields_read(t, arg), calls[i].ok, "call %u", i);
		if (calls[i].ok) {
			KUNIT_EXPECT_EQ(test, arg[KS_ARGS], calls[i].flags);
			KUNIT_EXPECT_EQ(test, arg[KS_ARGS + 1], calls[i].next_flags);
		} else {
			faults++;
		}
		KUNIT_EXPECT_EQ(test, atomic_long_read(&t->fault), (long)faults);
	}
	/* A stopped trace counts nothing, as its other losses. */
	dur->active = false;
	arg[1] = 0;
	KUNIT_EXPECT_FALSE(test, ks_fields_read(t, arg));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->fault), (long)faults);
}

static struct kunit_case ks_btf_cases[] = {
	KUNIT_CASE(ks_test_btf_types),
	KUNIT_CASE(ks_test_btf_fields),
	KUNIT_CASE(ks_test_fields_read),
	KUNIT_CASE(ks_test_btf_faults),
	KUNIT_CASE_SLOW(ks_test_btf_fuzz),
	{}
};

static struct kunit_suite ks_btf_suite = {
	.name = "kstats_btf",
	.test_cases = ks_btf_cases,
};

kunit_test_suites(&ks_btf_suite);
