// SPDX-License-Identifier: GPL-2.0
/*
 * The words that name a value a probe reads: "if OPERAND[:TYPE]OP NUMBER"
 * and key parts "ret", "argN", "ret:TYPE", "argN:log2", "ret:s32:log2". OPERAND is argN
 * (N from 0, as bpftrace counts) or ret; TYPE s8..s64 or u8..u64, by
 * default u64 for an argument and s64 for ret, so "ret<0" and
 * "arg2>=65536" read as meant. Called by the _control parser (control.c),
 * which passes its request's reason buffer.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "keys.h"
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
	if (!strcmp(word, "ret")) {
		v->arg = KS_VALUE_RET;
		v->is_signed = true;
		return true;
	}
	v->is_signed = false;
	return ks_arg_index(word, &v->arg);
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
	char operand[16], *type;
	const char *rest = NULL;
	unsigned int i;

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
	if (!ks_parse_operand(operand, &vf->v))
		return ks_value_why(why, size, "if %s: '%s' is neither ret nor arg0..arg%d",
				    val, operand, KS_ARGS - 1);
	if (type && !ks_parse_value_type(type, &vf->v))
		return ks_value_why(why, size,
				    "if %s: type '%s' is none of s8 s16 s32 s64 u8 u16 u32 u64",
				    val, type);
	for (i = 0; i < ARRAY_SIZE(ks_value_ops); i++) {
		if (str_has_prefix(val + len, ks_value_ops[i].text)) {
			vf->op = ks_value_ops[i].op;
			rest = val + len + strlen(ks_value_ops[i].text);
			break;
		}
	}
	if (!rest || !ks_parse_value_constant(rest, vf))
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
	spec->value = v;
	spec->value_log2 = log2;
	spec->parts[spec->n_parts++] = KS_KEY_VALUE;
	return 0;
}
