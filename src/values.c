// SPDX-License-Identifier: GPL-2.0
/*
 * The words that name a value a probe reads: "if OPERAND[:TYPE]OP NUMBER"
 * and key parts "ret", "argN", "ret:TYPE", "argN:log2", "ret:s32:log2". OPERAND is argN
 * (N from 0, as bpftrace counts) or ret; TYPE s8..s64 or u8..u64, by
 * default u64 for an argument and s64 for ret, so "ret<0" and
 * "arg2>=65536" read as meant. Called by the _control parser (control.c),
 * which passes its request's reason buffer. Once the start is resolved,
 * a function's BTF (btf.c) types the values not given a :TYPE.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "btf.h"
#include "keys.h"
#include "request.h"
#include "values.h"

static __printf(3, 4) int ks_value_why(char *why, size_t size,
				       const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vscnprintf(why, size, fmt, args);
	va_end(args);
	return -EINVAL;
}

/**
 * ks_arg_index() - an argument's position
 * @word: "arg0".."arg4"
 * @arg: set to N
 *
 * Return: false for another word.
 */
bool ks_arg_index(const char *word, u8 *arg)
{
	return str_has_prefix(word, "arg") && isdigit(word[3]) && !word[4] &&
	       !kstrtou8(word + 3, 10, arg) && *arg < KS_ARGS;
}

/* "ret" or "argN", of its default type; false for another word. */
static bool ks_parse_operand(const char *word, struct ks_value *v)
{
	v->bits = 64;
	v->source = KS_VSRC_REGISTER;
	if (!strcmp(word, "ret")) {
		v->arg = KS_VALUE_RET;
		v->is_signed = true;
		return true;
	}
	v->is_signed = false;
	return ks_arg_index(word, &v->arg);
}

/*
 * A parameter's name, as C spells one, or a field through it
 * (file->f_flags, rq->q->id, file->f_path.dentry): BTF gives its
 * position, and a field's offsets, once the start is resolved
 * (ks_values_type()).
 */
static bool ks_parse_name(const char *word, struct ks_value *v)
{
	unsigned int derefs = 0, members = 0;
	const char *c = word;
	u8 arg;

	/* arg5, arg00: an argN out of range, not a name. */
	if (str_has_prefix(word, "arg") && !kstrtou8(word + 3, 10, &arg))
		return false;
	for (;;) {
		if (!isalpha(*c) && *c != '_')
			return false;
		while (isalnum(*c) || *c == '_')
			c++;
		if (!*c)
			break;
		if (str_has_prefix(c, "->"))
			derefs++;
		else if (*c != '.' || !derefs)
			return false;	/* a parameter's member is through "->" */
		c += *c == '.' ? 1 : 2;
		if (++members > KS_FIELD_MEMBERS_MAX || derefs > KS_FIELD_DEREFS)
			return false;
	}
	v->arg = KS_VALUE_NAMED;
	v->bits = 64;
	v->is_signed = false;
	v->source = KS_VSRC_REGISTER;
	return true;
}

/*
 * The operand's length at the start of @word: up to one of @stops, "->"
 * being part of a field path, not a comparison.
 */
static size_t ks_operand_len(const char *word, const char *stops)
{
	const char *c = word;

	while (*c && !strchr(stops, *c))
		c += str_has_prefix(c, "->") ? 2 : 1;
	return c - word;
}

/* ":s32", ":u8" ...: the width and signedness a value is read with. */
static bool ks_parse_value_type(const char *type, struct ks_value *v)
{
	if (*type != 's' && *type != 'u')
		return false;
	v->is_signed = *type == 's';
	if (type[1] == '0' || kstrtou8(type + 1, 10, &v->bits))
		return false;
	return v->bits == 8 || v->bits == 16 || v->bits == 32 || v->bits == 64;
}

/* The comparisons of "if", longest first where one begins another. */
static const struct {
	const char *text;
	enum ks_value_op op;
} ks_value_ops[] = {
	{ "==", KS_VOP_EQ }, { "!=", KS_VOP_NE }, { "<=", KS_VOP_LE },
	{ ">=", KS_VOP_GE }, { "<", KS_VOP_LT }, { ">", KS_VOP_GT },
	{ "&", KS_VOP_MASK },
};

/* The constant of @vf, read as a value of its type. */
static bool ks_parse_value_constant(const char *text, struct ks_value_filter *vf)
{
	u8 bits = vf->v.bits;
	u64 top = bits == 64 ? U64_MAX : BIT_ULL(bits) - 1;
	/* Decimal, or hex after 0x: a leading 0 is no octal here. */
	unsigned int base = strncasecmp(text + (*text == '-'), "0x", 2) ? 10 : 16;

	if (*text == '+')
		return false;
	if (vf->v.is_signed && vf->op != KS_VOP_MASK) {
		s64 c;

		if (kstrtos64(text, base, &c) ||
		    (bits < 64 && (c < -(s64)BIT_ULL(bits - 1) ||
				   c >= (s64)BIT_ULL(bits - 1))))
			return false;
		vf->constant = c;
		return true;
	}
	return !kstrtou64(text, base, &vf->constant) && vf->constant <= top;
}

/* "<0", ">=65536": OP and NUMBER, the number read as @vf's type. */
static bool ks_parse_comparison(const char *text, struct ks_value_filter *vf)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ks_value_ops); i++) {
		if (str_has_prefix(text, ks_value_ops[i].text)) {
			vf->op = ks_value_ops[i].op;
			return ks_parse_value_constant(text + strlen(ks_value_ops[i].text),
						       vf);
		}
	}
	return false;
}

/**
 * ks_value_parse_if() - one "if" word: OPERAND[:TYPE]OP NUMBER
 * @f: the trace's filters, to which it is added
 * @val: the word after "if"
 * @why: set to a one-line reason on failure
 * @size: its size
 *
 * OP is == != < <= > >= or & (a mask: any of its bits set).
 *
 * Return: 0, or -EINVAL.
 */
int ks_value_parse_if(struct ks_filter *f, const char *val, char *why,
		      size_t size)
{
	struct ks_value_filter *vf = &f->value[f->n_values];
	size_t len = ks_operand_len(val, "=!<>&");
	char operand[KS_VALUE_WORD_MAX], *type;
	bool ok;

	if (f->n_values == KS_VALUE_FILTERS_MAX)
		return ks_value_why(why, size, "if %s: at most %d if words", val,
				    KS_VALUE_FILTERS_MAX);
	if (!len || !val[len] || len >= sizeof(operand) ||
	    strlen(val) >= sizeof(vf->word))
		return ks_value_why(why, size,
				    "if %s: expected argN or ret, a comparison (== != < <= > >= &) and a number, as in ret<0",
				    val);
	memcpy(operand, val, len);
	operand[len] = '\0';
	type = strchr(operand, ':');
	if (type)
		*type++ = '\0';
	if (!ks_parse_operand(operand, &vf->v) && !ks_parse_name(operand, &vf->v))
		return ks_value_why(why, size,
				    "if %s: '%s' is neither ret, arg0..arg%d nor a parameter's name (or NAME->MEMBER, at most %d '->' and %d members)",
				    val, operand, KS_ARGS - 1, KS_FIELD_DEREFS,
				    KS_FIELD_MEMBERS_MAX);
	if (type && !ks_parse_value_type(type, &vf->v))
		return ks_value_why(why, size,
				    "if %s: type '%s' is none of s8 s16 s32 s64 u8 u16 u32 u64",
				    val, type);
	if (type)
		vf->v.source = KS_VSRC_GIVEN;
	ok = ks_parse_comparison(val + len, vf);
	if (!ok && vf->v.arg == KS_VALUE_NAMED && !type) {
		/* BTF types a name later (ks_values_type()): -1 may fit then. */
		vf->v.is_signed = true;
		ok = ks_parse_comparison(val + len, vf);
	}
	if (!ok)
		return ks_value_why(why, size,
				    "if %s: expected a comparison (== != < <= > >= &) and a number that fits %s%u",
				    val, vf->v.is_signed && vf->op != KS_VOP_MASK ? "s" : "u",
				    vf->v.bits);
	strscpy(vf->word, val, sizeof(vf->word));
	if (vf->v.arg == KS_VALUE_RET)
		f->on_ret = true;
	else
		f->on_args = true;
	f->n_values++;
	return 0;
}

/**
 * ks_value_parse_key() - key part ret or argN, with :TYPE, :log2 or both
 * @spec: the key, whose value part it becomes
 * @part: the part's name, before any colon
 * @suffix: what follows the first colon ("s32", "log2", "s32:log2"), or
 *          NULL
 * @why: set to a one-line reason on failure
 * @size: its size
 *
 * Rows are by the value as its type reads it, or with :log2 by its
 * power of two ([2^(b-1), 2^b), 0 alone, and for a signed type the
 * values below 0 in one row). A key has one value part.
 *
 * @part may be a parameter's name or a field through one (file->f_flags),
 * resolved by ks_values_type(); a key part's name (comm, pid ...) is
 * that part, not a parameter.
 *
 * Return: 0; -ENOENT if @part is neither ret, argN nor a name; -EINVAL.
 */
int ks_value_parse_key(struct ks_key_spec *spec, const char *part,
		       const char *suffix, char *why, size_t size)
{
	char words[16], *rest = words, *word;
	bool typed = false, log2 = false, named = false;
	struct ks_value v;

	/* comm, pid, cpu ... are key parts before they are names. */
	if (!ks_parse_operand(part, &v)) {
		if (match_string(ks_key_part_names, KS_KEY_VALUE, part) >= 0 ||
		    strlen(part) >= sizeof(spec->value_word) ||
		    !ks_parse_name(part, &v))
			return -ENOENT;
		named = true;
	}
	if (ks_keys_spec_has(spec, KS_KEY_VALUE))
		return ks_value_why(why, size,
				    "key %s: a key has one value part (ret or argN)",
				    part);
	if (suffix && strscpy(words, suffix, sizeof(words)) < 0)
		return ks_value_why(why, size, "key %s:%s: expected :TYPE, :log2 or both",
				    part, suffix);
	while (suffix && (word = strsep(&rest, ":"))) {
		if (!strcmp(word, "log2") && !log2)
			log2 = true;
		else if (!typed && ks_parse_value_type(word, &v))
			typed = true;
		else
			return ks_value_why(why, size,
					    "key %s:%s: expected log2 or a type (s8 s16 s32 s64 u8 u16 u32 u64), or both",
					    part, suffix);
	}
	if (typed)
		v.source = KS_VSRC_GIVEN;
	spec->value = v;
	spec->value_log2 = log2;
	if (named)
		strscpy(spec->value_word, part, sizeof(spec->value_word));
	spec->parts[spec->n_parts++] = KS_KEY_VALUE;
	return 0;
}

/* What one trace looks up in BTF: its fields, and the words they are in. */
struct ks_value_lookup {
	struct ks_btf_func fn;
	unsigned int n;
	char path[KS_FIELDS_MAX][KS_VALUE_WORD_MAX];
	const char *paths[KS_FIELDS_MAX];
	struct ks_value *v[KS_FIELDS_MAX];	/* whose field each is */
	const char *word[KS_FIELDS_MAX];	/* "if WORD" or "key WORD" */
	struct ks_btf_field field[KS_FIELDS_MAX];
	char why[sizeof(((struct ks_trace_req *)0)->why)];	/* a path's refusal */
};

/* @v as BTF types it; false where BTF gives it no type kstats reads. */
static bool ks_value_from_btf(struct ks_value *v, const struct ks_value_lookup *l)
{
	const struct ks_btf_func *fn = &l->fn;
	const struct ks_btf_type *t;

	if (v->arg == KS_VALUE_RET)
		t = &fn->ret;
	else if (v->arg < fn->n_params)
		t = &fn->param[v->arg];
	else if (v->arg >= KS_ARGS && v->arg < KS_ARGS + l->n)
		t = &l->field[v->arg - KS_ARGS].type;
	else
		return false;
	if (!t->bits)
		return false;
	v->bits = t->bits;
	v->is_signed = t->is_signed;
	v->source = KS_VSRC_BTF;
	return true;
}

/*
 * A parameter's name (@name, of "@kw @word") to its position, or
 * -EINVAL naming the parameters.
 */
static int ks_value_name_arg(struct ks_value *v, const char *name,
			     const char *kw, const char *word,
			     const struct ks_btf_func *fn, struct ks_trace_req *req)
{
	unsigned int i;

	for (i = 0; i < fn->n_params; i++) {
		if (!strcmp(fn->param_name[i], name)) {
			v->arg = i;
			return 0;
		}
	}
	/* Unnamed by BTF ("? ?"): a tracepoint whose class BTF cannot tell. */
	if (ks_btf_names_unsure(fn))
		return ks_value_why(req->why, sizeof(req->why),
				    "%s %s: BTF names no parameter of %s here (its class's names are not certain): give argN",
				    kw, word, req->start_word);
	/* Named, but not read: by value, after one, or past the fifth. */
	if (ks_btf_names_has(fn, name))
		return ks_value_why(req->why, sizeof(req->why),
				    "%s %s: '%s' is a parameter of %s that kstats does not read: only the first %d, none a struct passed by value or after one (its parameters: %s)",
				    kw, word, name, req->start_word, KS_ARGS, fn->names);
	/* A key word is a part's name first: say so. */
	if (!strcmp(kw, "key"))
		return ks_value_why(req->why, sizeof(req->why),
				    "key '%s': neither a key part (kstack, end-kstack, ustack, comm, pid, tgid, cpu, cgroup, ret, argN, waker-kstack, waker-ustack, waker-comm, waker-pid, waker-cgroup) nor a parameter of %s that kstats reads (its parameters: %s)",
				    word, req->start_word, fn->vlen ? fn->names : "none");
	if (!fn->vlen)
		return ks_value_why(req->why, sizeof(req->why),
				    "%s %s: %s takes no parameters", kw, word,
				    req->start_word);
	return ks_value_why(req->why, sizeof(req->why),
			    "%s %s: '%s' is not a parameter of %s that kstats reads (its parameters: %s)",
			    kw, word, name, req->start_word, fn->names);
}

/* Adds @v's field path @path (of "@kw @word") to what BTF resolves. */
static void ks_value_add_path(struct ks_value_lookup *l, struct ks_value *v,
			      const char *path, const char *word)
{
	strscpy(l->path[l->n], path, sizeof(l->path[l->n]));
	l->paths[l->n] = l->path[l->n];
	l->v[l->n] = v;
	l->word[l->n] = word;
	l->n++;
}

/* A named value: its parameter, or the field it reads, by BTF. */
static int ks_value_resolve(struct ks_value_lookup *l, struct ks_value *v,
			    const char *operand, const char *kw, const char *word,
			    struct ks_trace_req *req)
{
	unsigned int i;

	if (!strpbrk(operand, "-."))
		return ks_value_name_arg(v, operand, kw, word, &l->fn, req);
	for (i = 0; i < l->n; i++)
		if (l->v[i] == v)
			break;
	if (i == l->n)
		return 0;
	req->field[i].arg = l->field[i].arg;
	req->field[i].n_derefs = l->field[i].n_derefs;
	req->field[i].size = l->field[i].type.bits / 8;
	memcpy(req->field[i].off, l->field[i].off, sizeof(req->field[i].off));
	v->arg = KS_ARGS + i;
	/* A :TYPE reads the field's bytes as that type. */
	if (v->source == KS_VSRC_GIVEN && v->bits > l->field[i].type.bits)
		return ks_value_why(req->why, sizeof(req->why),
				    "%s %s: the field is %u bits, fewer than its :TYPE's",
				    kw, word, l->field[i].type.bits);
	return 0;
}

/* An if word's operand ("fwnode->flags" of "fwnode->flags:u8&4"). */
static void ks_if_operand(char *buf, size_t size, const char *word)
{
	strscpy(buf, word, min(ks_operand_len(word, ":=!<>&") + 1, size));
}

/**
 * ks_values_type() - ret, argN and fields of the traced function, typed by BTF
 * @req: a request whose start is resolved and checked
 * @why: set to a one-line reason on failure
 *
 * A parameter's name in an if word or the key becomes the argN BTF puts
 * it at, and a field through a pointer parameter (file->f_flags) the
 * offsets its reads add and the field's type, or the word is refused
 * (-EINVAL, naming the parameters, the member or the type). Each value
 * of an if word or the key's value part that has no :TYPE takes the
 * type BTF gives it (an int is s32, a pointer u64, a bool u8), and an
 * if word's number is read again as a value of that type. A
 * tracepoint's values are its TP_PROTO's (BTF's btf_trace_EVENT). Where
 * BTF has no entry (a module's function, a list or pattern, a clone
 * such as f.isra.0) the values keep the registers' defaults; the
 * listing says which applied.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL, a name that is no parameter (or without BTF), a
 * field BTF does not have, or an if word's number that does not fit
 * its BTF type; -ENOMEM.
 */
int ks_values_type(struct ks_trace_req *req, const char **why)
{
	struct ks_key_spec *spec = &req->keys;
	bool key_named = ks_keys_spec_has(spec, KS_KEY_VALUE) &&
			 spec->value.arg == KS_VALUE_NAMED;
	bool tp = str_has_prefix(req->start, KS_TP_PREFIX);
	struct ks_filter *f = &req->filter;
	char operand[KS_VALUE_WORD_MAX];
	struct ks_btf_query q = {};
	struct ks_value_lookup *l;
	unsigned int i, bad = 0;
	int err;

	if (!req->reads_args && !req->reads_ret)
		return 0;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	for (i = 0; i < f->n_values; i++) {
		ks_if_operand(operand, sizeof(operand), f->value[i].word);
		if (f->value[i].v.arg == KS_VALUE_NAMED && strpbrk(operand, "-."))
			ks_value_add_path(l, &f->value[i].v, operand, f->value[i].word);
	}
	if (key_named && strpbrk(spec->value_word, "-."))
		ks_value_add_path(l, &spec->value, spec->value_word, spec->value_word);
	err = -ENOENT;
	if ((req->start_kind == KS_POINT_FUNCTION || tp) &&
	    !strpbrk(req->start, ",*?[:")) {
		q.func = tp ? req->start + strlen(KS_TP_PREFIX) : req->start;
		q.sym = req->start;
		q.tracepoint = tp;
		q.n_fields = l->n;
		q.paths = l->paths;
		q.fields = l->field;
		q.bad = &bad;
		q.why = l->why;
		q.why_size = sizeof(l->why);
		err = ks_btf_func(req->name, &q, &l->fn);
	}
	if (err == -ENOMEM)
		goto out;
	if (err == -ESRCH) {
		*why = req->why;
		err = ks_value_why(req->why, sizeof(req->why), "%s %s: %s",
				   l->v[bad] == &spec->value ? "key" : "if",
				   l->word[bad], l->why);
		goto out;
	}
	for (i = 0; i < f->n_values; i++) {
		struct ks_value_filter *vf = &f->value[i];

		if (vf->v.arg != KS_VALUE_NAMED)
			continue;
		*why = req->why;
		if (err) {
			err = ks_value_why(req->why, sizeof(req->why),
					   "if %s: a parameter by name needs the BTF of one function, and %s has none here (a module's function, a list or pattern; a tracepoint has its own): give argN",
					   vf->word, req->start_word);
			goto out;
		}
		ks_if_operand(operand, sizeof(operand), vf->word);
		err = ks_value_resolve(l, &vf->v, operand, "if", vf->word, req);
		if (err)
			goto out;
	}
	if (key_named) {
		*why = req->why;
		if (err) {
			err = ks_value_why(req->why, sizeof(req->why),
					   "key '%s': not a key part (kstack, end-kstack, ustack, comm, pid, tgid, cpu, cgroup, ret, argN, waker-kstack, waker-ustack, waker-comm, waker-pid, waker-cgroup), and %s has no BTF here for a parameter's name",
					   spec->value_word, req->start_word);
			goto out;
		}
		err = ks_value_resolve(l, &spec->value, spec->value_word, "key",
				       spec->value_word, req);
		if (err)
			goto out;
	}
	if (err) {
		err = 0;	/* the listing says "register" */
		goto out;
	}
	req->n_fields = l->n;
	for (i = 0; i < f->n_values; i++) {
		struct ks_value_filter *vf = &f->value[i];
		struct ks_value_filter typed = *vf;

		if (vf->v.source == KS_VSRC_GIVEN ||
		    !ks_value_from_btf(&typed.v, l))
			continue;
		if (!ks_parse_comparison(vf->word + ks_operand_len(vf->word, "=!<>&"),
					 &typed)) {
			ks_if_operand(operand, sizeof(operand), vf->word);
			*why = req->why;
			err = ks_value_why(req->why, sizeof(req->why),
					   "if %s: %s of %s is %c%u by BTF, and the number does not fit it; give %s:TYPE to read it otherwise",
					   vf->word, operand, req->start_word,
					   typed.v.is_signed ? 's' : 'u', typed.v.bits,
					   operand);
			goto out;
		}
		*vf = typed;
	}
	if (ks_keys_spec_has(spec, KS_KEY_VALUE) &&
	    spec->value.source != KS_VSRC_GIVEN)
		ks_value_from_btf(&spec->value, l);
	err = 0;
out:
	kfree(l);
	return err;
}

/* ret:s32(btf): a value's name, its type, and where the type came from. */
static int ks_value_print_type(char *buf, size_t size, const char *name,
			       const struct ks_value *v)
{
	static const char * const sources[] = {
		[KS_VSRC_REGISTER] = "register",
		[KS_VSRC_GIVEN] = "given",
		[KS_VSRC_BTF] = "btf",
	};

	return scnprintf(buf, size, "%s:%c%u(%s)", name, v->is_signed ? 's' : 'u',
			 v->bits, sources[v->source]);
}

/* Whether @item is one of the comma-separated items of @list. */
static bool ks_listed(const char *list, const char *item)
{
	size_t n = strlen(item);

	while (*list) {
		size_t len = strcspn(list, ",");

		if (len == n && !strncmp(list, item, n))
			return true;
		list += len + !!list[len];
	}
	return false;
}

/**
 * ks_values_print_types() - the types a trace reads its values with
 * @buf: where to write, NUL-terminated
 * @size: its size
 * @req: the trace's request
 *
 * "ret:s32(btf),arg2:u64(given),file->f_flags:u32(btf)": each value of
 * its if words and its key, as written, once, with where its type came
 * from: btf, given (:TYPE), or register (no BTF entry: s64 for ret, u64
 * for argN). Empty when the trace reads no value.
 *
 * Return: as scnprintf().
 */
int ks_values_print_types(char *buf, size_t size, const struct ks_trace_req *req)
{
	char one[KS_VALUE_WORD_MAX + 24], operand[KS_VALUE_WORD_MAX], name[8];
	const struct ks_filter *f = &req->filter;
	unsigned int i;
	int len = 0;

	buf[0] = '\0';
	for (i = 0; i <= f->n_values; i++) {
		const struct ks_value *v;

		if (i < f->n_values) {
			v = &f->value[i].v;
			ks_if_operand(operand, sizeof(operand), f->value[i].word);
			/* "ret:s32<0": the operand without its :TYPE. */
			operand[strcspn(operand, ":")] = '\0';
		} else if (ks_keys_spec_has(&req->keys, KS_KEY_VALUE)) {
			v = &req->keys.value;
			strscpy(operand, ks_key_value_word(name, &req->keys),
				sizeof(operand));
		} else {
			break;
		}
		ks_value_print_type(one, sizeof(one), operand, v);
		/* Once each: "ret:s32(btf)" of if ret<0 and key ret. */
		if (!ks_listed(buf, one))
			len += scnprintf(buf + len, size - len, "%s%s", len ? "," : "", one);
	}
	return len;
}
