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
 * A parameter's name, as C spells one: an argument whose position the
 * function's BTF gives once the start is resolved (ks_values_type()).
 */
static bool ks_parse_name(const char *word, struct ks_value *v)
{
	const char *c;

	u8 arg;

	/* arg5, arg00: an argN out of range, not a name. */
	if ((!isalpha(*word) && *word != '_') ||
	    (str_has_prefix(word, "arg") && !kstrtou8(word + 3, 10, &arg)))
		return false;
	for (c = word; *c; c++)
		if (!isalnum(*c) && *c != '_')
			return false;
	v->arg = KS_VALUE_NAMED;
	v->bits = 64;
	v->is_signed = false;
	v->source = KS_VSRC_REGISTER;
	return true;
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
	size_t len = strcspn(val, "=!<>&");
	char operand[KS_BTF_NAME_MAX], *type;

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
				    "if %s: '%s' is neither ret, arg0..arg%d nor a parameter's name",
				    val, operand, KS_ARGS - 1);
	if (type && !ks_parse_value_type(type, &vf->v))
		return ks_value_why(why, size,
				    "if %s: type '%s' is none of s8 s16 s32 s64 u8 u16 u32 u64",
				    val, type);
	if (type)
		vf->v.source = KS_VSRC_GIVEN;
	if (!ks_parse_comparison(val + len, vf))
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
 * Return: 0; -ENOENT if @part is neither ret nor argN; -EINVAL.
 */
int ks_value_parse_key(struct ks_key_spec *spec, const char *part,
		       const char *suffix, char *why, size_t size)
{
	char words[16], *rest = words, *word;
	bool typed = false, log2 = false;
	struct ks_value v;

	if (!ks_parse_operand(part, &v))
		return -ENOENT;
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
	spec->parts[spec->n_parts++] = KS_KEY_VALUE;
	return 0;
}

/* @v as BTF types it; false where BTF gives it no type kstats reads. */
static bool ks_value_from_btf(struct ks_value *v, const struct ks_btf_func *fn)
{
	const struct ks_btf_type *t;

	if (v->arg == KS_VALUE_RET)
		t = &fn->ret;
	else if (v->arg < fn->n_params)
		t = &fn->param[v->arg];
	else
		return false;
	if (!t->bits)
		return false;
	v->bits = t->bits;
	v->is_signed = t->is_signed;
	v->source = KS_VSRC_BTF;
	return true;
}

/* An if word's parameter name to its position, or -EINVAL naming them all. */
static int ks_value_name_arg(struct ks_value_filter *vf,
			     const struct ks_btf_func *fn, struct ks_trace_req *req)
{
	char name[KS_BTF_NAME_MAX];
	size_t len = strcspn(vf->word, ":=!<>&");
	unsigned int i;

	strscpy(name, vf->word, min(len + 1, sizeof(name)));
	for (i = 0; i < fn->n_params; i++) {
		if (!strcmp(fn->param_name[i], name)) {
			vf->v.arg = i;
			return 0;
		}
	}
	if (!fn->vlen)
		return ks_value_why(req->why, sizeof(req->why),
				    "if %s: %s takes no parameters", vf->word,
				    req->start);
	return ks_value_why(req->why, sizeof(req->why),
			    "if %s: '%s' is not a parameter of %s that kstats reads (its parameters: %s)",
			    vf->word, name, req->start, fn->names);
}

/**
 * ks_values_type() - ret and argN of the traced function, typed by BTF
 * @req: a request whose start is resolved and checked
 * @why: set to a one-line reason on failure
 *
 * An if word's parameter name becomes the argN BTF puts it at, or the
 * word is refused (-EINVAL, naming the parameters). Each value of an if
 * word or the key's value part that has no :TYPE
 * takes the type the start function's BTF gives it (an int is s32, a
 * pointer u64, a bool u8), and an if word's number is read again as a
 * value of that type. Where BTF has no entry (a module's function, a
 * list or pattern, a tracepoint, a clone such as f.isra.0) the values
 * keep the registers' defaults; the listing says which applied.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL, a name that is no parameter (or without BTF), or
 * an if word's number that does not fit its BTF type; -ENOMEM.
 */
int ks_values_type(struct ks_trace_req *req, const char **why)
{
	struct ks_key_spec *spec = &req->keys;
	struct ks_filter *f = &req->filter;
	struct ks_btf_func fn;
	unsigned int i;
	int err;

	if (!req->reads_args && !req->reads_ret)
		return 0;
	err = -ENOENT;
	if (req->start_kind == KS_POINT_FUNCTION &&
	    !strpbrk(req->start, ",*?[:"))
		err = ks_btf_func(req->name, req->start, &fn);
	if (err == -ENOMEM)
		return err;
	for (i = 0; i < f->n_values; i++) {
		struct ks_value_filter *vf = &f->value[i];

		if (vf->v.arg != KS_VALUE_NAMED)
			continue;
		*why = req->why;
		if (err)
			return ks_value_why(req->why, sizeof(req->why),
					    "if %s: a parameter by name needs the BTF of one function, and %s has none here (a module's function, a tracepoint, a list or pattern): give argN",
					    vf->word, req->start_word);
		err = ks_value_name_arg(vf, &fn, req);
		if (err)
			return err;
	}
	if (err)
		return 0;	/* the listing says "register" */
	for (i = 0; i < f->n_values; i++) {
		struct ks_value_filter *vf = &f->value[i];
		struct ks_value_filter typed = *vf;
		char name[8];

		if (vf->v.source == KS_VSRC_GIVEN ||
		    !ks_value_from_btf(&typed.v, &fn))
			continue;
		if (!ks_parse_comparison(vf->word + strcspn(vf->word, "=!<>&"),
					 &typed)) {
			*why = req->why;
			return ks_value_why(req->why, sizeof(req->why),
					    "if %s: %s of %s is %c%u by BTF, and the number does not fit it; give %s:TYPE to read the register otherwise",
					    vf->word, ks_key_value_name(name, &vf->v),
					    req->start, typed.v.is_signed ? 's' : 'u',
					    typed.v.bits, name);
		}
		*vf = typed;
	}
	if (ks_keys_spec_has(spec, KS_KEY_VALUE) &&
	    spec->value.source != KS_VSRC_GIVEN)
		ks_value_from_btf(&spec->value, &fn);
	return 0;
}

/* ret:s32(btf): a value's name, its type, and where the type came from. */
static int ks_value_print_type(char *buf, size_t size, const struct ks_value *v,
			       bool first)
{
	static const char * const sources[] = {
		[KS_VSRC_REGISTER] = "register",
		[KS_VSRC_GIVEN] = "given",
		[KS_VSRC_BTF] = "btf",
	};
	char name[8];

	return scnprintf(buf, size, "%s%s:%c%u(%s)", first ? "" : ",",
			 ks_key_value_name(name, v), v->is_signed ? 's' : 'u',
			 v->bits, sources[v->source]);
}

/**
 * ks_values_print_types() - the types a trace reads its values with
 * @buf: where to write, NUL-terminated
 * @size: its size
 * @req: the trace's request
 *
 * "ret:s32(btf),arg2:u64(given)": each value of its if words and its
 * key, once, with where its type came from: btf, given (:TYPE), or
 * register (no BTF entry: s64 for ret, u64 for argN). Empty when the
 * trace reads no value.
 *
 * Return: as scnprintf().
 */
int ks_values_print_types(char *buf, size_t size, const struct ks_trace_req *req)
{
	const struct ks_value *seen[KS_VALUE_FILTERS_MAX + 1];
	const struct ks_filter *f = &req->filter;
	unsigned int i, j, n = 0;
	int len = 0;

	for (i = 0; i < f->n_values; i++)
		seen[n++] = &f->value[i].v;
	if (ks_keys_spec_has(&req->keys, KS_KEY_VALUE))
		seen[n++] = &req->keys.value;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (!memcmp(seen[j], seen[i], sizeof(*seen[i])))
				break;
		if (j == i)
			len += ks_value_print_type(buf + len, size - len, seen[i],
						   !len);
	}
	return len;
}
