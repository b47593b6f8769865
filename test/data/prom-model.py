#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An independent model of `kstats export --prometheus` (pow2 buckets),
written from the README's exposition rules, not from the C code. It made
test/data/expected/*.prom, which tools/unit_test.c compares byte for byte
with ks_prom_write():

  prom-model.py NODE [--per-cpu] > EXPECTED
"""
import re
import sys


def secs(ns):
    whole, frac = divmod(ns, 10**9)
    return f'{whole}.{frac:09d}'.rstrip('0') if frac else str(whole)


def main():
    path, per_cpu = sys.argv[1], '--per-cpu' in sys.argv
    keys, lines = {}, []
    for line in open(path):
        f = line.split()
        if line.startswith('# ') and len(f) == 3 and f[1] not in keys:
            keys[f[1]] = f[2]
        elif f and f[0] == 'slot':
            # slot S CPU[S] C count N avg A p P
            lines.append((int(f[1]), f[2] == 'CPUS', int(f[3]), int(f[5]), int(f[7])))
    fb, name = int(keys['frac_bits']), keys['name']
    pn = 'kstats_' + re.sub('[^a-zA-Z0-9_]', '_', name)
    out = [f'# HELP {pn}_seconds kstats metric {name}: distribution of its samples (ns in the kernel)',
           f'# TYPE {pn}_seconds histogram']
    if per_cpu:
        cpus = sorted({c for _, tot, c, _, _ in lines if not tot})
        groups = [(f'cpu="{c}",', [l for l in lines if not l[1] and l[2] == c]) for c in cpus]
    else:
        groups = [('', [l for l in lines if l[1]])]
    for lab, ls in groups:
        # Bucket k of a power of two ends at 2^(k + fb) - 1; the one that
        # ends at 2^64 - 1 is +Inf.
        for k in range(64 - fb):
            le = 2 ** (k + fb) - 1
            cum = sum(n for s, _, _, n, _ in ls if (s >> fb) <= k)
            out.append(f'{pn}_seconds_bucket{{{lab}le="{secs(le)}"}} {cum}')
        total = sum(n for _, _, _, n, _ in ls)
        out.append(f'{pn}_seconds_bucket{{{lab}le="+Inf"}} {total}')
        s = secs(sum(n * a for _, _, _, n, a in ls))
        if lab:
            out.append(f'{pn}_seconds_sum{{{lab[:-1]}}} {s}')
            out.append(f'{pn}_seconds_count{{{lab[:-1]}}} {total}')
        else:
            out.append(f'{pn}_seconds_sum {s}')
            out.append(f'{pn}_seconds_count {total}')
    out += [f'# HELP {pn}_missed_total samples of kstats metric {name} that were lost (not in the histogram)',
            f'# TYPE {pn}_missed_total counter',
            f'{pn}_missed_total {keys["missed"]}']
    print('\n'.join(out))


main()
