/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A function's parameter and return types, as the kernel's BTF gives
 * them: the width and sign a register holding each is read with.
 */
#ifndef _KSTATS_BTF_H
#define _KSTATS_BTF_H

#include <linux/types.h>

#include "keys.h"

/* How a value of one BTF type is read from its register. */
struct ks_btf_type {
	u8 bits;		/* 8, 16, 32 or 64; 0: no type kstats reads */
	bool is_signed;
};

/* A parameter's name kstats matches; longer ones are never matched. */
#define KS_BTF_NAME_MAX		32
/* The parameters' names, blank-separated, for messages. */
#define KS_BTF_NAMES_LEN	128

/* What BTF says of a function: its return and first KS_ARGS parameters. */
struct ks_btf_func {
	u8 n_params;		/* parameters typed in param[], 0..KS_ARGS */
	u32 vlen;		/* parameters BTF gives, all of them */
	struct ks_btf_type ret;	/* bits 0: void, or no type kstats reads */
	struct ks_btf_type param[KS_ARGS];
	u32 param_type[KS_ARGS];	/* BTF ids, valid during one parse */
	char param_name[KS_ARGS][KS_BTF_NAME_MAX];
	char names[KS_BTF_NAMES_LEN];	/* all of them, "..." if cut */
};

/* A tracepoint's name, in btf_trace_NAME, at most. */
#define KS_BTF_TP_MAX		64

/* A field through a pointer parameter (keys.h): what BTF resolves. */
struct ks_btf_field {
	u8 arg;			/* the parameter it starts from */
	u8 n_derefs;		/* "->" of the path, 1..KS_FIELD_DEREFS */
	u32 off[KS_FIELD_DEREFS];	/* added to each pointer read */
	struct ks_btf_type type;	/* the field's */
};

/* What to look up in BTF. */
struct ks_btf_query {
	const char *func;	/* a FUNC, or a tracepoint's event */
	const char *sym;	/* its symbol, whose module has its BTF, or NULL */
	bool tracepoint;	/* btf_trace_@func: void *ctx, then TP_PROTO */
	unsigned int n_fields;
	const char * const *paths;	/* "file->f_flags", n_fields of them */
	struct ks_btf_field *fields;	/* their resolution */
	unsigned int *bad;	/* set to the path refused, -ESRCH */
	char *why;		/* set to why, -ESRCH */
	size_t why_size;
};

int ks_btf_parse(const void *data, size_t size, const char *func,
		 struct ks_btf_func *out);
int ks_btf_parse_query(const void *data, size_t size,
		       const struct ks_btf_query *q, struct ks_btf_func *out);
int ks_btf_parse_split(const void *base, size_t base_size, const void *data,
		       size_t size, const struct ks_btf_query *q,
		       struct ks_btf_func *out);
bool ks_btf_names_unsure(const struct ks_btf_func *fn);
bool ks_btf_names_has(const struct ks_btf_func *fn, const char *name);
int ks_btf_func(const char *trace, const struct ks_btf_query *q,
		struct ks_btf_func *out);
void ks_btf_exit(void);

#endif /* _KSTATS_BTF_H */
