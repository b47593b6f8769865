/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The words that name a value a probe reads, an argument (argN) or the
 * return value (ret): "if" filters, and key parts ret and argN. Parsing
 * only; keys.h says how handlers read them.
 */
#ifndef _KSTATS_VALUES_H
#define _KSTATS_VALUES_H

#include <linux/types.h>

struct ks_filter;
struct ks_key_spec;
struct ks_trace_req;

bool ks_arg_index(const char *word, u8 *arg);
int ks_value_parse_if(struct ks_filter *f, const char *val, char *why,
		      size_t size);
int ks_value_parse_key(struct ks_key_spec *spec, const char *part,
		       const char *suffix, char *why, size_t size);
int ks_values_type(struct ks_trace_req *req, const char **why);
int ks_values_print_types(char *buf, size_t size,
			  const struct ks_trace_req *req);

#endif /* _KSTATS_VALUES_H */
