// SPDX-License-Identifier: GPL-2.0
/*
 * A function's parameter and return types, from the kernel's BTF: the
 * width and sign with which "if" and key ret/argN read each register, so
 * that ret<0 is right for an int function.
 *
 * The kernel exports no way to its parsed BTF (btf_vmlinux), so kstats
 * reads vmlinux's raw BTF where the kernel keeps it, between __start_BTF
 * and __stop_BTF (found in /proc/kallsyms, as symbols.c finds functions;
 * the section is read-only data that lives as long as the kernel), and
 * parses it itself, in process context, when a trace is made: nothing
 * here is on a probe's path. vmlinux's is checked and indexed once (an
 * offset per type, kept until kstats is unloaded); a lookup then reads
 * its functions' names. The parser trusts nothing in the
 * data: every offset and length is checked against the section, every
 * loop is bounded by the data's size or a constant, and type chains
 * (typedef, const ...) are followed to a bounded depth, without
 * recursion (but for a member looked for in anonymous structs, to
 * KS_BTF_ANON_DEPTH). A module's function is looked up in the module's
 * BTF (/sys/kernel/btf/MODULE, split BTF whose ids and strings follow
 * vmlinux's), read when the trace is made and freed once parsed.
 *
 * A field through a pointer (file->f_flags) is resolved here too, once:
 * the offsets each read adds and the field's type. The probe reads it
 * with copy_from_kernel_nofault() (hotpath.c).
 */
#include <linux/align.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <uapi/linux/btf.h>

#include "btf.h"
#include "request.h"
#include "symbols.h"

/* typedef, const, volatile, restrict and type tags followed, at most. */
#define KS_BTF_DEPTH_MAX	32

/* A checked BTF section: its types, its strings and where each type is. */
struct ks_btf {
	/* A module's split BTF: its ids and strings follow vmlinux's. */
	const struct ks_btf *base;
	const u8 *types;
	u32 types_len;
	const char *strs;
	u32 strs_len;
	u32 n;			/* types, ids 1..n */
	u32 *off;		/* off[id - 1]: type id's record in types */
};

/* The bytes after a type's struct btf_type; -EINVAL for an unknown kind. */
static int ks_btf_extra(const struct btf_type *t, u32 *extra)
{
	u32 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		*extra = sizeof(u32);
		return 0;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		*extra = 0;
		return 0;
	case BTF_KIND_ARRAY:
		*extra = sizeof(struct btf_array);
		return 0;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		*extra = vlen * sizeof(struct btf_member);
		return 0;
	case BTF_KIND_ENUM:
		*extra = vlen * sizeof(struct btf_enum);
		return 0;
	case BTF_KIND_FUNC_PROTO:
		*extra = vlen * sizeof(struct btf_param);
		return 0;
	case BTF_KIND_VAR:
		*extra = sizeof(struct btf_var);
		return 0;
	case BTF_KIND_DATASEC:
		*extra = vlen * sizeof(struct btf_var_secinfo);
		return 0;
	case BTF_KIND_DECL_TAG:
		*extra = sizeof(struct btf_decl_tag);
		return 0;
	case BTF_KIND_ENUM64:
		*extra = vlen * sizeof(struct btf_enum64);
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * The header kstats reads: up to str_len. Newer kernels' headers go on
 * (7.x: a layout section, hdr_len 32), and their own BTF may still have
 * the 24-byte header: struct btf_header's size is not the data's.
 */
#define KS_BTF_HDR_LEN		offsetofend(struct btf_header, str_len)

/* The header's sections, checked against @size. */
static int ks_btf_sections(const void *data, size_t size, struct ks_btf *b)
{
	const struct btf_header *h = data;
	u64 types, strs;

	if (!IS_ALIGNED((unsigned long)data, 4) || size < KS_BTF_HDR_LEN ||
	    h->magic != BTF_MAGIC || h->version != BTF_VERSION ||
	    h->hdr_len < KS_BTF_HDR_LEN || h->hdr_len > size)
		return -EINVAL;
	types = (u64)h->hdr_len + h->type_off;
	strs = (u64)h->hdr_len + h->str_off;
	if (types + h->type_len > size || strs + h->str_len > size ||
	    !IS_ALIGNED(types, 4) || !h->str_len)
		return -EINVAL;
	b->types = (const u8 *)data + types;
	b->types_len = h->type_len;
	b->strs = (const char *)data + strs;
	b->strs_len = h->str_len;
	/* Every string ends inside the section: the last byte is a NUL. */
	return b->strs[b->strs_len - 1] ? -EINVAL : 0;
}

/* The name at @off, or NULL where @off is past the strings. */
static const char *ks_btf_str(const struct ks_btf *b, u32 off)
{
	if (b->base) {
		if (off < b->base->strs_len)
			return b->base->strs + off;
		off -= b->base->strs_len;
	}
	return off < b->strs_len ? b->strs + off : NULL;
}

/*
 * Walks the type records: counts them (b->off NULL), or fills b->off.
 * Each record is checked to lie inside the section; the walk ends with
 * the section, each step at least a struct btf_type long.
 */
static int ks_btf_walk(struct ks_btf *b)
{
	u32 pos = 0, n = 0, extra;

	while (pos < b->types_len) {
		const struct btf_type *t;

		if (b->types_len - pos < sizeof(*t) || n == BTF_MAX_TYPE ||
		    (b->off && n == b->n))
			return -EINVAL;
		t = (const struct btf_type *)(b->types + pos);
		if (ks_btf_extra(t, &extra) ||
		    b->types_len - pos - sizeof(*t) < extra)
			return -EINVAL;
		if (b->off)
			b->off[n] = pos;
		n++;
		pos += sizeof(*t) + extra;
	}
	b->n = n;
	return 0;
}

/*
 * The type of kind @kind (FUNC or TYPEDEF) named @name among @b's own
 * types (not its base's): the type it refers to in *@proto. -ENOENT if
 * there is none; -ENOTUNIQ if a second one of that name refers to
 * another type; -EINVAL for a name past the strings.
 */
static int ks_btf_find(const struct ks_btf *b, u32 kind, const char *name,
		       u32 *proto)
{
	u32 i;

	*proto = 0;
	for (i = 0; i < b->n; i++) {
		const struct btf_type *t = (const struct btf_type *)(b->types + b->off[i]);
		const char *s;

		if (BTF_INFO_KIND(t->info) != kind)
			continue;
		s = ks_btf_str(b, t->name_off);
		if (!s)
			return -EINVAL;
		if (strcmp(s, name))
			continue;
		if (*proto && *proto != t->type)
			return -ENOTUNIQ;
		*proto = t->type;
	}
	return *proto ? 0 : -ENOENT;
}

/* Type @id, or NULL where there is no such id (0 is void). */
static const struct btf_type *ks_btf_type(const struct ks_btf *b, u32 id)
{
	if (b->base) {
		if (id <= b->base->n)
			return id ? (const struct btf_type *)(b->base->types +
							      b->base->off[id - 1]) : NULL;
		id -= b->base->n;
	}
	if (!id || id > b->n)
		return NULL;
	return (const struct btf_type *)(b->types + b->off[id - 1]);
}

/* 1, 2, 4 or 8 bytes as bits; 0 for another size. */
static u8 ks_btf_bits(u32 size)
{
	return size == 1 || size == 2 || size == 4 || size == 8 ? size * 8 : 0;
}

/*
 * Type @id through typedefs and qualifiers: the id of what it names, 0
 * for void; -EINVAL past KS_BTF_DEPTH_MAX or for an unknown id.
 */
static int ks_btf_strip(const struct ks_btf *b, u32 id, u32 *out)
{
	unsigned int depth;

	for (depth = 0; depth < KS_BTF_DEPTH_MAX; depth++) {
		const struct btf_type *t = ks_btf_type(b, id);

		if (!id) {
			*out = 0;
			return 0;
		}
		if (!t)
			return -EINVAL;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		default:
			*out = id;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * How a register holding a value of type @id is read: through typedefs
 * and qualifiers to an int, bool, enum or pointer. Anything else (void,
 * a struct, a float, an int of 128 bits) is bits 0.
 */
static int ks_btf_resolve(const struct ks_btf *b, u32 id, struct ks_btf_type *out)
{
	const struct btf_type *t;
	u32 enc;

	out->bits = 0;
	out->is_signed = false;
	/* A chain too long, or a loop. */
	if (ks_btf_strip(b, id, &id))
		return -EINVAL;
	if (!id)
		return 0;	/* void */
	t = ks_btf_type(b, id);
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		/* ks_btf_walk() checked that the u32 is there. */
		enc = *(const u32 *)(t + 1);
		if (BTF_INT_OFFSET(enc))
			return 0;
		out->bits = ks_btf_bits(t->size);
		out->is_signed = (BTF_INT_ENCODING(enc) & BTF_INT_SIGNED) &&
				 !(BTF_INT_ENCODING(enc) & BTF_INT_BOOL);
		return 0;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		out->bits = ks_btf_bits(t->size);
		out->is_signed = BTF_INFO_KFLAG(t->info);
		return 0;
	case BTF_KIND_PTR:
		out->bits = BITS_PER_LONG;
		return 0;
	default:
		return 0;
	}
}

/* Adds parameter @name to @out's list of names, "..." once it is full. */
static void ks_btf_add_name(struct ks_btf_func *out, const char *name)
{
	size_t len = strlen(out->names);

	if (len && out->names[len - 1] == '.')
		return;		/* already cut */
	if (len + 1 + strlen(name) + 4 >= sizeof(out->names)) {
		strscpy(out->names + len, len ? " ..." : "...", sizeof(out->names) - len);
		return;
	}
	scnprintf(out->names + len, sizeof(out->names) - len, "%s%s",
		  len ? " " : "", *name ? name : "?");
}

/*
 * The return and parameters of FUNC_PROTO @proto, its first @skip
 * parameters left out (a tracepoint's void *ctx).
 */
static int ks_btf_proto(const struct ks_btf *b, u32 proto, unsigned int skip,
			struct ks_btf_func *out)
{
	const struct btf_type *t = ks_btf_type(b, proto);
	const struct btf_param *p;
	bool typing = true;
	unsigned int i, n;
	int err;

	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_FUNC_PROTO)
		return -EINVAL;
	err = ks_btf_resolve(b, t->type, &out->ret);
	if (err)
		return err;
	if (BTF_INFO_VLEN(t->info) < skip)
		return -EINVAL;
	out->vlen = BTF_INFO_VLEN(t->info) - skip;
	p = (const struct btf_param *)(t + 1) + skip;
	/* vlen is at most 0xffff, each of its params inside the section. */
	for (i = 0; i < out->vlen; i++) {
		const char *name = ks_btf_str(b, p[i].name_off);

		if (!name)
			return -EINVAL;
		/* The last parameter's type 0 is "...". */
		if (!p[i].type) {
			ks_btf_add_name(out, "...");
			break;
		}
		ks_btf_add_name(out, name);
		if (!typing || i >= KS_ARGS)
			continue;
		err = ks_btf_resolve(b, p[i].type, &out->param[i]);
		if (err)
			return err;
		/*
		 * A parameter kstats cannot read (a struct by value) may take
		 * more than one register: the next ones are not argN.
		 */
		if (!out->param[i].bits) {
			typing = false;
			continue;
		}
		strscpy(out->param_name[i], name, sizeof(out->param_name[i]));
		out->param_type[i] = p[i].type;
		n = i + 1;
		out->n_params = n;
	}
	return 0;
}

/* A path's refusal: the reason in @why, -ESRCH (not malformed BTF). */
static __printf(3, 4) int ks_btf_why(char *why, size_t size, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vscnprintf(why, size, fmt, args);
	va_end(args);
	return -ESRCH;
}

/* Anonymous structs and unions inside one another that a member is looked for in. */
#define KS_BTF_ANON_DEPTH	4

/*
 * Member @name of struct or union @sid, looked for in its anonymous
 * members too (bounded recursion, KS_BTF_ANON_DEPTH): its type in
 * *@type and its byte offset added to *@off. -ENOENT if there is none,
 * -EDOM if it is a bitfield (no whole bytes to read), -EINVAL for
 * malformed BTF.
 */
static int ks_btf_member(const struct ks_btf *b, u32 sid, const char *name,
			 unsigned int depth, u32 *type, u32 *off)
{
	const struct btf_type *t = ks_btf_type(b, sid);
	const struct btf_member *m;
	unsigned int i;

	if (!t)
		return -EINVAL;
	m = (const struct btf_member *)(t + 1);
	for (i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		const char *mname = ks_btf_str(b, m[i].name_off);
		u32 bits = m[i].offset, sub = 0, mid;
		int err;

		if (!mname)
			return -EINVAL;
		if (BTF_INFO_KFLAG(t->info)) {
			bits = BTF_MEMBER_BIT_OFFSET(m[i].offset);
			if (BTF_MEMBER_BITFIELD_SIZE(m[i].offset) && !strcmp(mname, name))
				return -EDOM;
		}
		if (*mname && strcmp(mname, name))
			continue;
		if (!*mname) {
			/* An anonymous struct or union: its members are ours. */
			const struct btf_type *mt;

			if (depth >= KS_BTF_ANON_DEPTH || ks_btf_strip(b, m[i].type, &mid))
				continue;
			mt = ks_btf_type(b, mid);
			if (!mt || (BTF_INFO_KIND(mt->info) != BTF_KIND_STRUCT &&
				    BTF_INFO_KIND(mt->info) != BTF_KIND_UNION))
				continue;
			err = ks_btf_member(b, mid, name, depth + 1, type, &sub);
			if (err == -ENOENT)
				continue;
			if (err)
				return err;
		} else {
			*type = m[i].type;
		}
		if (bits % 8)
			return -EDOM;
		*off += bits / 8 + sub;
		return 0;
	}
	return -ENOENT;
}

/* The kind of type @id as a word, for messages. */
static const char *ks_btf_kind_name(const struct ks_btf *b, u32 id)
{
	static const char * const names[] = {
		[BTF_KIND_INT] = "an integer", [BTF_KIND_PTR] = "a pointer",
		[BTF_KIND_ARRAY] = "an array", [BTF_KIND_STRUCT] = "a struct",
		[BTF_KIND_UNION] = "a union", [BTF_KIND_ENUM] = "an enum",
		[BTF_KIND_FWD] = "a declared struct", [BTF_KIND_FLOAT] = "a float",
		[BTF_KIND_FUNC_PROTO] = "a function", [BTF_KIND_ENUM64] = "an enum",
	};
	const struct btf_type *t = ks_btf_type(b, id);
	u32 kind;

	if (!id)
		return "void";
	kind = t ? BTF_INFO_KIND(t->info) : 0;
	return kind < ARRAY_SIZE(names) && names[kind] ? names[kind] : "a type";
}

/**
 * ks_btf_names_unsure() - whether BTF named none of @fn's parameters
 * @fn: as ks_btf_func() gave it
 *
 * A tracepoint whose class kstats cannot tell (ks_btf_tp_named()) has
 * parameters without names ("? ?").
 */
bool ks_btf_names_unsure(const struct ks_btf_func *fn)
{
	return fn->vlen && !fn->names[strspn(fn->names, "? .")];
}

/**
 * ks_btf_names_has() - whether @name is one of @fn's parameters' names
 * @fn: as ks_btf_func() gave it
 * @name: a parameter's name
 *
 * Those kstats does not read included (past the fifth, a struct passed
 * by value or after one).
 */
bool ks_btf_names_has(const struct ks_btf_func *fn, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = fn->names; len && (p = strstr(p, name)); p += len)
		if ((p == fn->names || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return true;
	return false;
}

/*
 * Field path @path ("file->f_flags", "rq->q->id", "a->b.c") of the
 * function @fn: its parameter, the offsets read through each pointer
 * and the field's type, into @field. A path kstats cannot read is
 * -ESRCH with the reason in @why.
 */
static int ks_btf_path(const struct ks_btf *b, const struct ks_btf_func *fn,
		       const char *path, struct ks_btf_field *field,
		       char *why, size_t size)
{
	char name[KS_BTF_NAME_MAX], prev[KS_BTF_NAME_MAX];
	const char *c = path, *sname;
	unsigned int i, members = 0;
	u32 id = 0, sid, off = 0;
	int err;

	memset(field, 0, sizeof(*field));
	i = strcspn(c, "-.");
	if (i >= sizeof(name))
		return ks_btf_why(why, size, "'%.*s' is not a parameter's name", i, c);
	strscpy(name, c, i + 1);
	for (field->arg = 0; field->arg < fn->n_params; field->arg++)
		if (!strcmp(fn->param_name[field->arg], name))
			break;
	if (field->arg == fn->n_params && ks_btf_names_unsure(fn))
		return ks_btf_why(why, size,
				  "BTF names no parameter here (its class's names are not certain): give argN");
	if (field->arg == fn->n_params && ks_btf_names_has(fn, name))
		return ks_btf_why(why, size,
				  "'%s' is a parameter that kstats does not read: only the first %d, none a struct passed by value or after one (its parameters: %s)",
				  name, KS_ARGS, fn->names);
	if (field->arg == fn->n_params)
		return ks_btf_why(why, size,
				  "'%s' is not a parameter that kstats reads (its parameters: %s)",
				  name, fn->names);
	id = fn->param_type[field->arg];
	strscpy(prev, name, sizeof(prev));
	c += i;
	/* The parser allowed 1..KS_FIELD_DEREFS "->" and a few members. */
	while (*c) {
		bool deref = str_has_prefix(c, "->");
		const struct btf_type *t;

		c += deref ? 2 : 1;
		i = strcspn(c, "-.");
		if (!i || i >= sizeof(name) || ++members > KS_FIELD_MEMBERS_MAX ||
		    (deref && field->n_derefs == KS_FIELD_DEREFS))
			return ks_btf_why(why, size,
					  "expected NAME->MEMBER, at most %d '->' and %d members",
					  KS_FIELD_DEREFS, KS_FIELD_MEMBERS_MAX);
		err = ks_btf_strip(b, id, &sid);
		if (err)
			return err;
		if (deref) {
			t = ks_btf_type(b, sid);
			if (t && (BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT ||
				  BTF_INFO_KIND(t->info) == BTF_KIND_UNION))
				return ks_btf_why(why, size,
						  "'%s' is %s, not a pointer: give '.' for its member",
						  prev, ks_btf_kind_name(b, sid));
			if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_PTR)
				return ks_btf_why(why, size, "'%s' is %s, not a pointer",
						  prev, ks_btf_kind_name(b, sid));
			if (field->n_derefs)
				field->off[field->n_derefs - 1] = off;
			field->n_derefs++;
			off = 0;
			err = ks_btf_strip(b, t->type, &sid);
			if (err)
				return err;
		} else if (!field->n_derefs) {
			return ks_btf_why(why, size,
					  "'%s' is a parameter: give '->' for what it points to",
					  prev);
		}
		t = ks_btf_type(b, sid);
		if (!t || (BTF_INFO_KIND(t->info) != BTF_KIND_STRUCT &&
			   BTF_INFO_KIND(t->info) != BTF_KIND_UNION))
			return ks_btf_why(why, size,
					  "'%s' %s %s, not a struct or union",
					  prev, deref ? "points to" : "is",
					  ks_btf_kind_name(b, sid));
		strscpy(name, c, i + 1);
		err = ks_btf_member(b, sid, name, 0, &id, &off);
		/* Malformed BTF may name the struct past its strings. */
		sname = ks_btf_str(b, t->name_off);
		if (err == -ENOENT && !sname)
			return -EINVAL;
		if (err == -ENOENT)
			return ks_btf_why(why, size, "%s %s has no member '%s'",
					  BTF_INFO_KIND(t->info) == BTF_KIND_UNION ?
					  "union" : "struct",
					  *sname ? sname : "(anonymous)", name);
		if (err == -EDOM)
			return ks_btf_why(why, size,
					  "'%s' is a bitfield, which kstats does not read",
					  name);
		if (err)
			return err;
		strscpy(prev, name, sizeof(prev));
		c += i;
	}
	if (!field->n_derefs)
		return ks_btf_why(why, size, "expected NAME->MEMBER");
	field->off[field->n_derefs - 1] = off;
	err = ks_btf_resolve(b, id, &field->type);
	if (err)
		return err;
	if (!field->type.bits) {
		err = ks_btf_strip(b, id, &sid);
		if (err)
			return err;
		return ks_btf_why(why, size,
				  "'%s' is %s: kstats reads integers, enums, bools and pointers (arrays and strings are not read)",
				  prev, ks_btf_kind_name(b, sid));
	}
	return 0;
}

/* Whether FUNC_PROTOs @a and @b take the same types, in order. */
static bool ks_btf_same_params(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_param *pa = (const struct btf_param *)(a + 1);
	const struct btf_param *pb = (const struct btf_param *)(b + 1);
	unsigned int i;

	if (BTF_INFO_VLEN(a->info) != BTF_INFO_VLEN(b->info))
		return false;
	for (i = 0; i < BTF_INFO_VLEN(a->info); i++)
		if (pa[i].type != pb[i].type)
			return false;
	return true;
}

#define KS_BTF_TP_FUNC		"__bpf_trace_"

/* Whether FUNC_PROTOs @x and @y (same parameter types) name them alike. */
static bool ks_btf_same_names(const struct ks_btf *b, const struct btf_type *x,
			      const struct btf_type *y)
{
	const struct btf_param *px = (const struct btf_param *)(x + 1);
	const struct btf_param *py = (const struct btf_param *)(y + 1);
	unsigned int i;

	for (i = 0; i < BTF_INFO_VLEN(x->info); i++) {
		const char *nx = ks_btf_str(b, px[i].name_off);
		const char *ny = ks_btf_str(b, py[i].name_off);

		if (!nx || !ny || strcmp(nx, ny))
			return false;
	}
	return true;
}

/*
 * A tracepoint's prototype @proto, with names: the typedef
 * btf_trace_EVENT names none of its parameters; the BPF glue of its
 * class, FUNC __bpf_trace_CLASS(void *__data, TP_PROTO), does. CLASS is
 * EVENT for a TRACE_EVENT, the template's name for a DEFINE_EVENT
 * (block_rq for block_rq_issue), which BTF does not tie to EVENT:
 * __bpf_trace_@event if it is there; else the __bpf_trace_ FUNCs of the
 * same parameter types, if they all name them alike. Where they do not
 * (sched_wakeup's p is sched_kthread_stop's t and sched_process_hang's
 * tsk), a name from another class could be a parameter's of another
 * position: the typedef's own prototype, no names (argN only).
 */
static u32 ks_btf_tp_named(const struct ks_btf *b, const char *event, u32 proto)
{
	const struct btf_type *want = ks_btf_type(b, proto), *t, *fp, *first_fp = NULL;
	u32 first = b->base ? b->base->n + 1 : 1, id, found = 0;
	bool alike = true;
	const char *name;

	if (!want || BTF_INFO_KIND(want->info) != BTF_KIND_FUNC_PROTO)
		return proto;
	for (id = first; id < first + b->n; id++) {
		t = ks_btf_type(b, id);
		if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_FUNC)
			continue;
		name = ks_btf_str(b, t->name_off);
		if (!name || !str_has_prefix(name, KS_BTF_TP_FUNC))
			continue;
		fp = ks_btf_type(b, t->type);
		if (!fp || BTF_INFO_KIND(fp->info) != BTF_KIND_FUNC_PROTO ||
		    !ks_btf_same_params(want, fp))
			continue;
		if (!strcmp(name + strlen(KS_BTF_TP_FUNC), event))
			return t->type;
		if (!found) {
			found = t->type;
			first_fp = fp;
		} else if (alike && !ks_btf_same_names(b, first_fp, fp)) {
			alike = false;
		}
	}
	return found && alike ? found : proto;
}

/*
 * Checks @data and finds its types (those of @base first, for a
 * module's split BTF): b->off to kvfree().
 */
static int ks_btf_open(const void *data, size_t size, const struct ks_btf *base,
		       struct ks_btf *b)
{
	int err;

	memset(b, 0, sizeof(*b));
	b->base = base;
	err = ks_btf_sections(data, size, b);
	if (!err)
		err = ks_btf_walk(b);	/* count */
	if (err)
		return err;
	b->off = kvmalloc_array(b->n ? b->n : 1, sizeof(*b->off), GFP_KERNEL);
	if (!b->off)
		return -ENOMEM;
	err = ks_btf_walk(b);
	if (err) {
		kvfree(b->off);
		b->off = NULL;
	}
	return err;
}

/* @q looked up in @b, opened: as ks_btf_parse_query() returns. */
static int ks_btf_query(const struct ks_btf *b, const struct ks_btf_query *q,
			struct ks_btf_func *out)
{
	char name[KS_BTF_TP_MAX];
	unsigned int i;
	u32 proto;
	int err;

	memset(out, 0, sizeof(*out));
	if (q->tracepoint &&
	    snprintf(name, sizeof(name), "btf_trace_%s", q->func) >= sizeof(name))
		return -ENOENT;
	err = ks_btf_find(b, q->tracepoint ? BTF_KIND_TYPEDEF : BTF_KIND_FUNC,
			  q->tracepoint ? name : q->func, &proto);
	if (!err && q->tracepoint) {
		const struct btf_type *t;

		/* typedef -> pointer -> prototype (void *ctx, TP_PROTO...). */
		err = ks_btf_strip(b, proto, &proto);
		t = ks_btf_type(b, proto);
		if (!err && (!t || BTF_INFO_KIND(t->info) != BTF_KIND_PTR))
			err = -EINVAL;
		if (!err)
			proto = ks_btf_tp_named(b, q->func, t->type);
	}
	if (!err)
		err = ks_btf_proto(b, proto, q->tracepoint, out);
	for (i = 0; !err && i < q->n_fields; i++) {
		err = ks_btf_path(b, out, q->paths[i], &q->fields[i], q->why,
				  q->why_size);
		if (err == -ESRCH && q->bad)
			*q->bad = i;
	}
	return err;
}

/**
 * ks_btf_parse_query() - a function's or tracepoint's types, from a BTF section
 * @data: the section (struct btf_header first), 4-byte aligned
 * @size: its bytes
 * @q: what to look up: the function (or the tracepoint, by its
 *     btf_trace_NAME typedef, whose first parameter, void *ctx, is not
 *     the tracepoint's), and field paths of its parameters
 * @out: its return type and first parameters' types
 *
 * Checks the whole section as it reads it: malformed data is -EINVAL,
 * never a read outside [@data, @data + @size).
 *
 * Context: process context; may sleep (allocates one u32 per type).
 * Return: 0; -ENOENT if BTF has no function @q->func; -ENOTUNIQ if it
 * has two of that name with other prototypes; -ESRCH, a path refused
 * (the reason in @q->why, the path in *@q->bad); -EINVAL; -ENOMEM.
 */
int ks_btf_parse_query(const void *data, size_t size,
		       const struct ks_btf_query *q, struct ks_btf_func *out)
{
	return ks_btf_parse_split(NULL, 0, data, size, q, out);
}

/**
 * ks_btf_parse_split() - ks_btf_parse_query() of a module's split BTF
 * @base: vmlinux's BTF, whose ids and strings the module's follow; NULL
 *        for BTF of its own (vmlinux's)
 * @base_size: its bytes
 * @data: the module's BTF (/sys/kernel/btf/MODULE), 4-byte aligned
 * @size: its bytes
 * @q: as for ks_btf_parse_query(), looked up in the module's types
 * @out: as for ks_btf_parse_query()
 *
 * Context: process context; may sleep.
 * Return: as ks_btf_parse_query().
 */
int ks_btf_parse_split(const void *base, size_t base_size, const void *data,
		       size_t size, const struct ks_btf_query *q,
		       struct ks_btf_func *out)
{
	struct ks_btf b, vmlinux = {};
	int err;

	memset(out, 0, sizeof(*out));
	if (base) {
		err = ks_btf_open(base, base_size, NULL, &vmlinux);
		if (err)
			return err;
	}
	err = ks_btf_open(data, size, base ? &vmlinux : NULL, &b);
	if (!err) {
		err = ks_btf_query(&b, q, out);
		kvfree(b.off);
	}
	kvfree(vmlinux.off);
	return err;
}

/**
 * ks_btf_parse() - a function's types, from a BTF section
 * @data: the section (struct btf_header first), 4-byte aligned
 * @size: its bytes
 * @func: the function's name, as BTF spells it
 * @out: its return type and first parameters' types
 *
 * ks_btf_parse_query() for a function, without fields.
 *
 * Context: process context; may sleep.
 * Return: as ks_btf_parse_query().
 */
int ks_btf_parse(const void *data, size_t size, const char *func,
		 struct ks_btf_func *out)
{
	const struct ks_btf_query q = { .func = func };

	return ks_btf_parse_query(data, size, &q, out);
}

/*
 * vmlinux's BTF, found and opened once: its types' offsets (ks_btf_vm.off,
 * 4 bytes a type) are kept until kstats is unloaded, so that a lookup
 * does not walk and check the whole section again (a fuzzed or scripted
 * control line a lookup each).
 */
static DEFINE_MUTEX(ks_btf_lock);
static const void *ks_btf_vmlinux;
static size_t ks_btf_vmlinux_size;
static struct ks_btf ks_btf_vm;
static bool ks_btf_looked;

struct ks_btf_syms {
	unsigned long start, stop;
};

static bool ks_btf_sym(void *priv, unsigned long addr, char type,
		       const char *name, const char *mod)
{
	struct ks_btf_syms *s = priv;

	if (mod)
		return true;		/* vmlinux's symbols come first */
	if (!strcmp(name, "__start_BTF"))
		s->start = addr;
	else if (!strcmp(name, "__stop_BTF"))
		s->stop = addr;
	return s->start && s->stop;
}

#define KS_BTF_SYSFS	"/sys/kernel/btf/vmlinux"
/* A BTF larger than this is not read from sysfs (vmlinux's is ~6 MiB). */
#define KS_BTF_SYSFS_MAX	(64 << 20)

/* vmlinux's BTF, copied from sysfs, when kallsyms does not name it. */
static void *ks_btf_copy;

/*
 * Without CONFIG_KALLSYMS_ALL (Debian's 6.1 arm64), /proc/kallsyms has no
 * __start_BTF; the kernel still shows its BTF in sysfs, which serves it
 * from that memory. One copy, kept until kstats is unloaded. A module's
 * BTF is read the same way, each time, and freed once parsed.
 */
static int ks_btf_read_file(const char *path, void **data, size_t *bytes)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t pos = 0, size;
	ssize_t n;
	void *buf;

	if (IS_ERR(f))
		return PTR_ERR(f);
	size = i_size_read(file_inode(f));
	if (size <= 0 || size > KS_BTF_SYSFS_MAX) {
		filp_close(f, NULL);
		return -EFBIG;
	}
	buf = kvmalloc(size, GFP_KERNEL);
	if (!buf) {
		filp_close(f, NULL);
		return -ENOMEM;
	}
	while (pos < size) {
		n = kernel_read(f, buf + pos, size - pos, &pos);
		if (n <= 0)
			break;
	}
	filp_close(f, NULL);
	if (pos != size) {
		kvfree(buf);
		return -EIO;
	}
	*data = buf;
	*bytes = size;
	return 0;
}

static int ks_btf_read_sysfs(void)
{
	int err = ks_btf_read_file(KS_BTF_SYSFS, &ks_btf_copy, &ks_btf_vmlinux_size);

	if (!err)
		ks_btf_vmlinux = ks_btf_copy;
	return err;
}

/**
 * ks_btf_exit() - free the copy of vmlinux's BTF, if one was made
 *
 * Context: module exit, no trace left.
 */
void ks_btf_exit(void)
{
	kvfree(ks_btf_vm.off);
	kvfree(ks_btf_copy);
}

/* vmlinux's BTF is not BTF as kstats reads it: said once, in dmesg. */
static void ks_btf_malformed(void)
{
	const struct btf_header *h = ks_btf_vmlinux;

	if (ks_btf_vmlinux_size < KS_BTF_HDR_LEN)
		h = NULL;
	pr_info("the kernel's BTF (%zu bytes, magic %#x version %u hdr_len %u type_off %u type_len %u str_off %u str_len %u) is not BTF as kstats reads it; ret and argN are read as registers (ret s64, argN u64) unless given :TYPE\n",
		ks_btf_vmlinux_size, h ? h->magic : 0, h ? h->version : 0,
		h ? h->hdr_len : 0, h ? h->type_off : 0, h ? h->type_len : 0,
		h ? h->str_off : 0, h ? h->str_len : 0);
}

/*
 * Finds and opens vmlinux's BTF once; says in dmesg, once, why there is
 * none. ks_btf_vm.off is set once it is open.
 */
static int ks_btf_find_vmlinux(const char *trace)
{
	struct ks_btf_syms s = {};
	int err = 0, e;

	mutex_lock(&ks_btf_lock);
	if (ks_btf_looked)
		goto out;
	err = ks_kallsyms_read(trace, ks_btf_sym, &s);
	if (err)
		goto out;	/* kept unlooked: -ENOMEM may pass */
	if (s.start && s.stop > s.start) {
		ks_btf_vmlinux = (const void *)s.start;
		ks_btf_vmlinux_size = s.stop - s.start;
	} else {
		e = ks_btf_read_sysfs();
		if (e == -ENOMEM) {
			err = e;
			goto out;
		}
		if (e)
			pr_info("no BTF: __start_BTF and __stop_BTF are not in /proc/kallsyms, or their addresses are hidden, and %s cannot be read (%d); ret and argN are read as registers (ret s64, argN u64) unless given :TYPE\n",
				KS_BTF_SYSFS, e);
	}
	if (ks_btf_vmlinux) {
		e = ks_btf_open(ks_btf_vmlinux, ks_btf_vmlinux_size, NULL, &ks_btf_vm);
		if (e == -ENOMEM) {
			err = e;
			goto out;
		}
		if (e)
			ks_btf_malformed();
	}
	ks_btf_looked = true;
out:
	mutex_unlock(&ks_btf_lock);
	return err;
}

/*
 * The module of function @sym, as %pS names it at its address ("f+0x0/0x40
 * [mod]"): the address from symbols.c's cache, which the trace's own
 * lookup filled, so /proc/kallsyms is not read again. -ENOENT for
 * vmlinux's, or no such symbol.
 */
static int ks_btf_owner(const char *sym, char *mod, size_t size)
{
	struct ks_sym s = { .name = sym };
	char buf[KSYM_SYMBOL_LEN];
	const char *open;
	size_t len;
	int err;

	err = ks_symbols_find(&s, 1);
	if (err)
		return err;
	if (!s.addr)
		return -ENOENT;
	snprintf(buf, sizeof(buf), "%pS", (void *)s.addr);
	open = strrchr(buf, '[');
	if (!open)
		return -ENOENT;
	/* "[mod]", or "[mod BUILD-ID]" with CONFIG_STACKTRACE_BUILD_ID. */
	len = strcspn(open + 1, " ]");
	if (!len || len >= size)
		return -ENOENT;
	memcpy(mod, open + 1, len);
	mod[len] = '\0';
	return 0;
}

/*
 * @q in the BTF of the module whose symbol q->sym is, split on
 * vmlinux's: read from /sys/kernel/btf/MODULE, parsed, freed. Nothing
 * of it is kept: an unloaded module's BTF is gone with it, as its
 * traces are ("gone").
 */
static int ks_btf_module(const char *trace, const struct ks_btf_query *q,
			 struct ks_btf_func *out)
{
	char path[sizeof("/sys/kernel/btf/") + MODULE_NAME_LEN];
	char mod[MODULE_NAME_LEN];
	struct ks_btf b;
	size_t size;
	void *data;
	int err;

	err = ks_btf_owner(q->sym, mod, sizeof(mod));
	if (err)
		return err == -EPERM ? -ENOENT : err;
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", mod);
	err = ks_btf_read_file(path, &data, &size);
	if (err)
		return err == -ENOMEM ? err : -ENOENT;	/* a module built without BTF */
	err = ks_btf_open(data, size, &ks_btf_vm, &b);
	if (!err) {
		err = ks_btf_query(&b, q, out);
		kvfree(b.off);
	}
	kvfree(data);
	return err;
}

/**
 * ks_btf_func() - a vmlinux function's or tracepoint's types, from the kernel's BTF
 * @trace: the trace's NAME, for messages
 * @q: the function (a symbol of vmlinux) or tracepoint, and the field
 *     paths to resolve
 * @out: its return type and first parameters' types
 *
 * Context: process context; may sleep.
 * Where vmlinux has no entry, and @q->sym is a module's symbol, the
 * module's BTF is looked in (ks_btf_module()).
 *
 * Return: 0; -ENOENT if BTF has no entry for @q->func; -EOPNOTSUPP if
 * the kernel's BTF cannot be found or read (said once in dmesg); -EINVAL
 * for a malformed entry; -ESRCH, a field path refused (the reason in
 * @q->why); -ENOTUNIQ; -ENOMEM.
 */
int ks_btf_func(const char *trace, const struct ks_btf_query *q,
		struct ks_btf_func *out)
{
	int err = ks_btf_find_vmlinux(trace);

	if (err)
		return err;
	/* Opened once, read-only since: no lock. */
	if (!ks_btf_vm.off)
		return -EOPNOTSUPP;
	err = ks_btf_query(&ks_btf_vm, q, out);
	if (err == -ENOENT && q->sym)
		return ks_btf_module(trace, q, out);
	return err;
}
