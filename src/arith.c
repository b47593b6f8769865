// SPDX-License-Identifier: GPL-2.0
/*
 * The arithmetic of reading a histogram: a slot's average, exact 128-bit
 * products and quotients, nearest-rank percentiles with their error
 * bounds. Pure functions of their arguments.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "hist.h"

/**
 * ks_slot_avg() - average of a slot's samples
 * @slot: the slot
 * @frac_bits: 0..5
 * @count: samples in the slot, not 0
 * @sum: their summed scaled offsets (see struct ks_slot)
 *
 * Return: a value inside the slot's range, even when @count and @sum
 * come from a racing copy that disagree.
 */
u64 ks_slot_avg(u32 slot, u8 frac_bits, u64 count, u64 sum)
{
	u32 width_shift, sum_shift;
	u64 max_scaled, scaled;

	/* The last slot lies past U64_MAX: no value reaches it. */
	if (slot >= ks_n_slots(frac_bits) - 1)
		return U64_MAX;
	width_shift = ks_width_shift(slot >> frac_bits);
	sum_shift = ks_sum_shift(width_shift);
	max_scaled = ((1ULL << width_shift) - 1) >> sum_shift;
	scaled = div64_u64(sum, count);

	return ks_slot_base(slot, frac_bits) +
	       (min(scaled, max_scaled) << sum_shift);
}

/* ------------------------------------------------- 128-bit arithmetic */

void ks_add128(struct ks_u128 *a, struct ks_u128 b)
{
	u64 lo = a->lo + b.lo;

	a->hi += b.hi + (lo < b.lo);
	a->lo = lo;
}

struct ks_u128 ks_mul64(u64 a, u64 b)
{
	u64 a0 = (u32)a, a1 = a >> 32, b0 = (u32)b, b1 = b >> 32;
	u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	u64 mid = (p00 >> 32) + (u32)p01 + (u32)p10;
	struct ks_u128 r;

	r.lo = (mid << 32) | (u32)p00;
	r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return r;
}

struct ks_u128 ks_shl128(u64 v, u32 shift)
{
	struct ks_u128 r = { .hi = 0, .lo = v };

	if (shift) {
		r.hi = v >> (64 - shift);
		r.lo = v << shift;
	}
	return r;
}

/* Long division of @n by @d; the caller ensures n.hi < d. */
u64 ks_div128(struct ks_u128 n, u64 d, u64 *rem)
{
	u64 r = n.hi, q = 0;
	int i;

	for (i = 63; i >= 0; i--) {
		bool top = r >> 63;

		r = (r << 1) | ((n.lo >> i) & 1);
		if (top || r >= d) {
			r -= d;
			q |= 1ULL << i;
		}
	}
	if (rem)
		*rem = r;
	return q;
}

/**
 * ks_mul_div() - floor(a * b / c), exactly
 * @a: a factor
 * @b: a factor, with b < c unless the result is known to fit in 64 bits
 * @c: the divisor, not 0
 * @rem: the remainder, or NULL
 *
 * Return: the quotient; U64_MAX if it would not fit in 64 bits.
 */
u64 ks_mul_div(u64 a, u64 b, u64 c, u64 *rem)
{
	struct ks_u128 n = ks_mul64(a, b);

	if (n.hi >= c) {
		if (rem)
			*rem = 0;
		return U64_MAX;
	}
	return ks_div128(n, c, rem);
}

/* ---------------------------------------------------------- percentiles */

/**
 * ks_rank() - nearest rank of a fraction of the samples
 * @samples: number of samples, not 0
 * @num: numerator of the fraction, at most @den
 * @den: denominator, 1..10000
 *
 * Return: ceil(@samples * @num / @den), at least 1.
 */
u64 ks_rank(u64 samples, u32 num, u32 den)
{
	u32 rest;
	u64 whole = div_u64_rem(samples, den, &rest);
	u64 rank = whole * num + DIV_ROUND_UP(rest * num, den);

	return rank ? rank : 1;
}

/**
 * ks_percentile() - the nearest-rank percentile @num/@den of a snapshot
 * @snap: the snapshot
 * @num: numerator of the fraction, at most @den
 * @den: denominator, 1..10000
 * @p: the result
 *
 * The rank r is the smallest with r >= samples * num / den; the true
 * value is the r-th smallest sample, and lies in the slot where the
 * cumulative count first reaches r, and in [min, max]: so in [L, H],
 * L = max(slot base, min), H = min(slot top, max). The slot's c samples
 * are taken as spread evenly from L to H, and the r-th, the k-th of
 * them, is estimated at L + floor((H - L) * (k - 1) / (c - 1)); a lone
 * sample (c = 1) at H if H is the max, else at L. The estimate is thus
 * always in [L, H], inside the slot, and |estimate - true| <= H - L.
 *
 * Return: 0, or -ENODATA when the snapshot has no samples.
 */
int ks_percentile(const struct ks_snapshot *snap, u32 num, u32 den,
		  struct ks_pct *p)
{
	u8 fb = snap->frac_bits;
	u32 lo_slot = 0, hi_slot = snap->n_slots - 1, slot;
	u64 rank, below, count, base, top, lo, hi, rem;

	if (!snap->samples)
		return -ENODATA;
	rank = ks_rank(snap->samples, num, den);
	/* The first slot whose cumulative count reaches the rank. */
	while (lo_slot < hi_slot) {
		u32 mid = lo_slot + (hi_slot - lo_slot) / 2;

		if (snap->total[mid].cum >= rank)
			hi_slot = mid;
		else
			lo_slot = mid + 1;
	}
	slot = lo_slot;
	below = slot ? snap->total[slot - 1].cum : 0;
	count = snap->total[slot].cum - below;
	base = ks_slot_base(slot, fb);
	top = ks_slot_top(slot, fb);
	/* Both the estimate and the true value lie in [lo, hi]. */
	lo = max(base, snap->min);
	hi = max(min(top, snap->max), lo);
	p->slot = slot;
	if (count > 1)
		p->value = lo + ks_mul_div(hi - lo, rank - below - 1, count - 1,
					   NULL);
	else
		p->value = hi == snap->max ? hi : lo;
	p->err = hi - lo;
	p->relerr_micro = 0;
	if (p->err) {
		p->relerr_micro = ks_mul_div(p->err, 1000000, lo, &rem);
		p->relerr_micro += !!rem;
	}
	return 0;
}
