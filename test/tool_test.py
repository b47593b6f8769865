#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The kstats tool (built static) against live metrics and traces in a guest.

  tool_test.py gen SCRIPT        write the guest script
  tool_test.py check CONSOLE     check the guest's results; ends with
                                 "tool: N passed, M failed"

The guest runs each step with its stdout, stderr and exit status saved
under /tmp/out/STEP.{out,err,rc}, and at the end prints them as a base64
tarball between TOOL-BEGIN and TOOL-END (after dmesg -n 1, so no kernel
line can land inside it; any kernel report before that is on the console,
where run-guest.sh fails on it).
"""
import base64
import io
import json
import re
import sys
import tarfile

GUEST = r'''
K=/modules/kstats
D=/sys/kernel/debug/kstats
mkdir -p /tmp/out
# step NAME CMD...: run CMD, keep its output and exit status.
step() {
	n=$1; shift
	"$@" >/tmp/out/$n.out 2>/tmp/out/$n.err
	echo $? >/tmp/out/$n.rc
	echo "step $n rc $(cat /tmp/out/$n.rc)"
}
load() { for f in /bin/busybox /proc/cpuinfo /proc/meminfo /proc/stat; do dd if=$f of=/dev/null bs=4k 2>/dev/null; done; }
# Poll a condition (up to 120 s): a slow host must not decide what the
# steps below see, only how long they take.
until_true() { i=0; until "$@"; do i=$((i + 1)); [ $i -lt 600 ] || return 1; sleep 0.2; done; }

# Before kstats is loaded, and without debugfs.
step notloaded $K list
umount /sys/kernel/debug
step nodebugfs $K list
mount -t debugfs debugfs /sys/kernel/debug
step badroot $K --root /nonexistent list
step envroot env KSTATS_ROOT=/nonexistent $K list
step usage $K
step unknown $K frobnicate
for c in list show watch trace remove run reset stop start export plot rows; do
	step help_$c $K $c --help
done
step showusage $K show

insmod /modules/kstats.ko
step trace_read $K trace read start vfs_read
step trace_runq $K trace runq start sched:sched_wakeup end sched:sched_switch
load
step list $K list
step list_json $K --json list
# Stopped, so the node and the tool see the same figures.
step stop $K stop read
cat $D/read >/tmp/out/read.node
step show $K show read
step show_slots $K show read --slots --unit us
step show_json $K show read --json
step show_cpu1 $K show read --cpu 1 --json
step show_cpu64 $K show read --cpu 64
step watch_i0 $K watch read -i 0
step start $K start read
step reset $K reset runq
step show_runq $K show runq

# watch -n 3 while a workload runs; interval files are lossless, and
# the metric is stopped after the last interval so the node's total is
# the interval's counts plus what came before the first one.
step stop2 $K stop read
step reset2 $K reset read
step start2 $K start read
( for i in 1 2 3 4 5 6; do load; sleep 0.5; done ) &
wl=$!
step watch $K watch read -i 1 -n 3
wait $wl
step watch_json $K watch read -i 1 -n 1 --json

# trace and remove, and their refusals.
step trace_t1 $K trace t1 start vfs_read
grep '^t1 ' $D/_control >/tmp/out/control_t1
step remove_t1 $K remove t1
grep -c '^t1 ' $D/_control >/tmp/out/control_t1_after
# A glob on every kernel (issue 28): the module matches it from kallsyms,
# the functions with an ftrace site, as available_filter_functions names them.
step trace_glob $K trace vg start 'vfs_*'
grep '^vg ' $D/_control >/tmp/out/control_vg
grep -c '^vfs_' /sys/kernel/debug/tracing/available_filter_functions >/tmp/out/aff_vfs
load
step show_glob $K show vg
step remove_glob $K remove vg
step refuse_word $K trace rd vfs_read
step refuse_blank $K trace rb start 'vfs_read key comm'
step trace_comm_blank $K trace cb start vfs_read comm 'my prog'
grep '^cb ' $D/_control > /tmp/out/control_cb
step remove_cb $K remove cb
# A cgroup path with a blank, escaped as comm's.
mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup && mkdir '/sys/fs/cgroup/my svc'
step trace_cg_blank $K trace cgb start vfs_read cgroup '/my svc'
grep '^cgb ' $D/_control > /tmp/out/control_cgb
step remove_cgb $K remove cgb
rmdir '/sys/fs/cgroup/my svc'
step refuse_empty $K trace '' start vfs_read
step refuse_exists $K trace read start vfs_read
step refuse_nofunc $K trace x start no_such_function_kstats
step remove_unknown $K remove nope
step show_unknown $K show nope
step reset_unknown $K reset nope

# kstats rows: mutex_lock keyed by its lock (arg0). A kretprobe trace's
# arming takes kprobe_mutex (register_kretprobe), so that lock has a row,
# which rows names from /proc/kallsyms; --raw gives the kernel's number.
step trace_lk $K trace lk start mutex_lock key arg0
$K trace lk2 start vfs_write method kretprobe
$K remove lk2
$K stop lk
step rows_lk $K rows lk --top 0
step rows_lk_raw $K rows lk --top 0 --raw
grep ' kprobe_mutex$' /proc/kallsyms >/tmp/out/kallsyms_kprobe_mutex
step remove_lk $K remove lk

# A metric removed while being watched.
$K trace t2 start vfs_read
( until_true test -s /tmp/out/watch_removed.out; $K remove t2 ) &
rm_pid=$!
step watch_removed $K watch t2 -i 1 -n 60
wait $rm_pid

# run: lifecycle, ended by -d, by SIGINT, by SIGTERM.
( for i in 1 2 3 4 5 6 7 8; do load; sleep 0.5; done ) &
wl=$!
step run_d $K run -d 2 rr start vfs_read
grep -c '^rr ' $D/_control >/tmp/out/run_d_after
$K run rr2 start vfs_read >/tmp/out/run_int.out 2>/tmp/out/run_int.err &
p=$!
# Its trace listed: run has set its signal handlers (before the trace).
until_true grep -q '^rr2 ' $D/_control
kill -INT $p
wait $p; echo $? >/tmp/out/run_int.rc
grep -c '^rr2 ' $D/_control >/tmp/out/run_int_after
$K run -i 1 rr3 start vfs_read >/tmp/out/run_term.out 2>/tmp/out/run_term.err &
p=$!
until_true grep -q '^rr3: ' /tmp/out/run_term.out
kill -TERM $p
wait $p; echo $? >/tmp/out/run_term.rc
grep -c '^rr3 ' $D/_control >/tmp/out/run_term_after
wait $wl

# run of a keyed trace: its rows after the last figures, as rows prints
# them. Each kstask makes one vfs_write per word and one for its report
# line (to /dev/null): 4 and 7.
$K run --top 0 rk start vfs_write key comm >/tmp/out/run_key.out 2>/tmp/out/run_key.err &
p=$!
until_true grep -q '^rk ' $D/_control
/modules/kstask kstwA write /dev/null a b c >/dev/null
/modules/kstask kstwB write /dev/null a b c d e f >/dev/null
kill -INT $p
wait $p; echo $? >/tmp/out/run_key.rc

# run's last figures hold every loss (issue 37.9): with maxactive 1, cat
# blocked in a pipe's read holds the one instance while a shell's reads
# miss, every few milliseconds, up to the remove and while it detaches.
( while :; do echo x; sleep 0.01; done ) | cat >/dev/null &
wp=$!
( while :; do read -r x </proc/uptime; done ) &
wl=$!
step run_miss $K run -i 1 -d 3 rdm start vfs_read maxactive 1
kill $wl $wp
wait $wl $wp
dmesg | grep 'trace rdm: removed' >/tmp/out/run_miss.dmesg

# Not root: debugfs is 0700.
mkdir -p /etc
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
echo 'nogroup:x:65534:' >>/etc/group
step notroot su -s /bin/sh nobody -c "$K list"
# Lockdown, raised at run time: writes to debugfs are refused, commands
# go through /dev/kstats; KSTATS_DEV=/nonexistent plays an older module.
mkdir -p /sys/kernel/security
mount -t securityfs securityfs /sys/kernel/security
echo integrity >/sys/kernel/security/lockdown
cat /sys/kernel/security/lockdown >/tmp/out/lockdown
step lockdown_reset $K reset read
step lockdown_trace $K trace t3 start vfs_read
step lockdown_remove $K remove t3
step lockdown_show $K show read
step lockdown_old_reset env KSTATS_DEV=/nonexistent $K reset read
step lockdown_old_trace env KSTATS_DEV=/nonexistent $K trace t4 start vfs_read
# Confidentiality: kstats attaches no probes; metrics stay readable.
echo confidentiality >/sys/kernel/security/lockdown
cat /sys/kernel/security/lockdown >/tmp/out/lockdown_conf
step lockdown_conf_trace $K trace t5 start vfs_read
step lockdown_conf_show $K show read

dmesg -n 1
echo TOOL-BEGIN
tar c -C /tmp/out . | gzip | base64
echo TOOL-END
'''


def gen(path):
    with open(path, 'w') as f:
        f.write(GUEST)


PASSED = 0
FAILED = 0


def check(ok, what):
    global PASSED, FAILED
    if ok:
        PASSED += 1
    else:
        FAILED += 1
        print('FAIL', what)


def summary(text):
    """The node's '# KEY VALUE' lines and CPUS lines."""
    keys, slots = {}, []
    for line in text.splitlines():
        f = line.split()
        if line.startswith('# ') and len(f) == 3 and f[1] not in keys:
            keys[f[1]] = f[2]
        elif f and f[0] == 'slot' and f[2] == 'CPUS':
            slots.append((int(f[1]), int(f[5]), int(f[7]), f[9]))
    return keys, slots


def check_console(console):
    text = open(console, errors='replace').read()
    m = re.search(r'^TOOL-BEGIN\n(.*?)^TOOL-END', text, re.S | re.M)
    if not m:
        check(False, 'no TOOL-BEGIN/TOOL-END block on the console')
        return
    tar = tarfile.open(fileobj=io.BytesIO(base64.b64decode(m.group(1))))
    files = {}
    for mem in tar.getmembers():
        if mem.isfile():
            files[mem.name[2:]] = tar.extractfile(mem).read().decode()

    def out(n):
        return files.get(n + '.out', '')

    def err(n):
        return files.get(n + '.err', '')

    def rc(n):
        return int(files.get(n + '.rc', '-1').strip() or -1)

    def expect(n, code, pattern=None, stream='err'):
        check(rc(n) == code, f'{n}: exit {rc(n)}, want {code}; stderr: {err(n)!r}')
        if pattern:
            s = err(n) if stream == 'err' else out(n)
            check(re.search(pattern, s, re.M), f'{n}: {stream} {s!r} lacks /{pattern}/')

    # Errors, exit codes of kstats(8): 64 usage, 65 refused, 66 unknown
    # metric, 69 debugfs or kstats missing, 74 removed, 77 permission.
    expect('notloaded', 69, r'^kstats: kstats is not loaded: no /sys/kernel/debug/kstats')
    expect('nodebugfs', 69, r'^kstats: debugfs is not mounted on /sys/kernel/debug')
    expect('badroot', 69, r'^kstats: /nonexistent: No such file or directory')
    expect('envroot', 69, r'^kstats: /nonexistent: No such file or directory')
    expect('usage', 64, r'^usage: kstats')
    expect('unknown', 64, r"unknown command 'frobnicate'")
    for c in 'list show watch trace remove run reset stop start export plot rows'.split():
        expect('help_' + c, 0, r'^usage: kstats ' + c, stream='out')
    expect('showusage', 64, r'^usage: kstats show NAME')

    for n in ('trace_read', 'trace_runq', 'stop', 'start', 'reset'):
        expect(n, 0)

    # list: one line per metric, the figures of the node's lines.
    expect('list', 0)
    lines = out('list').splitlines()
    check(lines and lines[0].split()[:5] == ['NAME', 'SAMPLES', 'P50', 'P99', 'MAX'],
          f'list header: {lines[:1]}')
    table = lines[:lines.index('')] if '' in lines else lines
    names = [l.split()[0] for l in table[1:]]
    # Each trace's GAP- node right after it, saying whose it is; GAP explained once.
    check(names == ['read', 'GAP-read', 'runq', 'GAP-runq'], f'list names {names}')
    check([l.split()[-3:] for l in table if l.startswith('GAP-')] ==
          [['gap', 'of', 'read'], ['gap', 'of', 'runq']], f'list: GAP- lines {table}')
    check(table == lines, f'list: the table alone on stdout, for scripts: {lines[len(table):]}')
    check(err('list').splitlines()[:2] ==
          ['', 'GAP-NAME: the time from the end of one call of trace NAME to the start of'],
          f"list: the GAP footnote, once, on stderr: {err('list')!r}")
    rl = [l for l in lines if l.startswith('read ')]
    check(rl and re.search(r'\bfprobe missed 0$|\bkretprobe missed 0$', rl[0]),
          f'list shows the trace method and missed: {rl}')
    expect('list_json', 0)
    try:
        lj = json.loads(out('list_json'))
        check([o['name'] for o in lj] == names, 'list --json names')
    except ValueError as e:
        check(False, f'list --json is not JSON: {e}')

    # show of a stopped metric: the summary agrees with the node's lines.
    keys, slots = summary(files.get('read.node', ''))
    check(int(keys.get('samples', 0)) > 0, 'read has samples')
    expect('show', 0)
    s = out('show')
    check(s.startswith(f"read: {keys['samples']} samples, missed {keys['missed']}, stopped, trace by "),
          f'show first line: {s.splitlines()[:1]}')
    rows = [l for l in s.splitlines() if ' -> ' in l]
    check(sum(int(l.split(':')[1].split()[0]) for l in rows) == int(keys['samples']),
          'show: the rows add up to the samples')
    check(re.search(r'^ +(ns|us|ms|s) +: count +distribution$', s, re.M), 'show: header')
    expect('show_slots', 0)
    srows = [l for l in out('show_slots').splitlines() if ' -> ' in l]
    check(len(srows) == len(slots), f'--slots: {len(srows)} rows, {len(slots)} CPUS lines')

    # show --json, checked against the node's own lines.
    expect('show_json', 0)
    try:
        j = json.loads(out('show_json'))
        for k in ('samples', 'missed', 'nmi_dropped', 'min', 'max', 'mean', 'frac_bits'):
            check(str(j[k]) == keys[k], f'json {k} {j[k]} != node {keys[k]}')
        check(j['name'] == 'read' and j['state'] == 'stopped' and j['unit'] == keys['unit'],
              'json name/state/unit')
        for q in ('p50', 'p90', 'p99', 'p99.9', 'p99.99'):
            p = j['percentiles'][q]
            check(str(p['value']) == keys[q] and str(p['slot']) == keys[q + '_slot'] and
                  str(p['err']) == keys[q + '_err'] and
                  abs(p['relerr'] - float(keys[q + '_relerr'])) < 1e-9,
                  f'json {q} {p} != node')
        got = [(o['slot'], o['count'], o['avg'], o['p']) for o in j['slots']]
        want = [(a, b, c, float(d)) for a, b, c, d in slots]
        check(got == want, 'json slots == the node\'s CPUS lines')
        check(sum(r['count'] for r in j['rows']) == j['samples'], 'json rows add up')
        check(j['trace'] and j['trace']['missed'] == 0, 'json trace')
    except (ValueError, KeyError, TypeError) as e:
        check(False, f'show --json: {e}: {out("show_json")[:200]!r}')
    expect('show_cpu1', 0)

    expect('show_runq', 0)

    # watch -n 3: three timestamped lines.
    expect('watch', 0)
    wl = out('watch').splitlines()
    check(len(wl) == 3, f'watch -n 3 printed {len(wl)} lines')
    pat = r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ read samples \d+ p50 \S+ p99 \S+ max \S+ missed 0$'
    check(all(re.match(pat, l) for l in wl), f'watch lines {wl}')
    check(sum(int(l.split()[3]) for l in wl) > 0, 'watch saw the workload')
    expect('watch_json', 0)
    try:
        w = json.loads(out('watch_json'))
        check(w['name'] == 'read' and 'time' in w and w['interval'] == 1, 'watch --json')
    except ValueError as e:
        check(False, f'watch --json: {e}')

    expect('trace_t1', 0)
    check(files.get('control_t1', '').startswith('t1 method '), 'trace t1 in _control')
    expect('remove_t1', 0)
    check(files.get('control_t1_after', '').strip() == '0', 't1 gone after remove')
    expect('trace_glob', 0)
    vg = dict(zip(*[iter(files.get('control_vg', '').split()[1:])] * 2))
    aff = files.get('aff_vfs', '').strip()
    check(vg.get('functions') == aff and int(aff or 0) > 10 and vg.get('skipped') == '0',
          f"trace 'vfs_*': one function per vfs_ site of available_filter_functions ({aff}): {vg}")
    expect('show_glob', 0)
    check(re.match(r'vg: [1-9]\d* samples?, missed \d+', out('show_glob')),
          f"show of the 'vfs_*' trace after reads: {out('show_glob')[:80]!r}")
    expect('remove_glob', 0)
    expect('refuse_word', 65,
           r"refused: Invalid argument \(errno 22 EINVAL\)\nkstats: dmesg: kstats: trace rd: "
           r"'vfs_read' is not a keyword; did you mean 'start vfs_read'\?")
    expect('refuse_blank', 64, r"^kstats: 'vfs_read key comm': a word with a blank; only a comm or a cgroup path may have one")
    expect('trace_comm_blank', 0)
    check(files.get('control_cb', '').rstrip().endswith(' comm my\\040prog'),
          f"comm 'my prog' reaches _control as my\\040prog: {files.get('control_cb')!r}")
    expect('remove_cb', 0)
    expect('trace_cg_blank', 0)
    check(' cgroup /my\\040svc' in files.get('control_cgb', ''),
          f"cgroup '/my svc' reaches _control as /my\\040svc: {files.get('control_cgb')!r}")
    expect('remove_cgb', 0)
    expect('refuse_empty', 64, r"^kstats: trace: word 1 is empty: _control's words are separated by blanks")
    expect('refuse_exists', 65, r'errno 17 EEXIST\)\nkstats: dmesg: kstats: trace read: a trace of that '
           r'name exists \(remove read first\)')
    expect('show_cpu64', 64, r'^kstats: --cpu 64: read counts CPUs 0 to 1$')
    expect('watch_i0', 64, r'^kstats: -i 0: not a whole number from 1 to 86400$')
    expect('refuse_nofunc', 65, r'errno 2 ENOENT\)\nkstats: dmesg: kstats: trace x: .*no_such_function_kstats')
    expect('remove_unknown', 66, r'ENOENT\)\nkstats: dmesg: kstats: remove nope:')
    expect('show_unknown', 66, r'^kstats: nope: no metric nope')
    expect('reset_unknown', 66, r'^kstats: nope: no metric nope')
    # rows: the lock kallsyms knows prints as its name (issue 45).
    expect('trace_lk', 0)
    expect('rows_lk', 0)
    expect('rows_lk_raw', 0)
    expect('remove_lk', 0)
    ks = files.get('kallsyms_kprobe_mutex', '').split()
    check(len(ks) == 3, f"kprobe_mutex in /proc/kallsyms: {files.get('kallsyms_kprobe_mutex')!r}")
    if len(ks) == 3:
        addr = int(ks[0], 16)
        check(re.search(rf'  arg0 {addr}$', out('rows_lk_raw'), re.M),
              f'rows --raw: a row of kprobe_mutex ({addr}): {out("rows_lk_raw")[:600]!r}')
        check(re.search(r'  arg0 kprobe_mutex$', out('rows_lk'), re.M) and
              not re.search(rf'\b{addr}\b', out('rows_lk')),
              f'rows: kprobe_mutex by name: {out("rows_lk")[:600]!r}')
    check(re.match(r'lk: \d+ rows? of key arg0, by total, largest first\n *TOTAL +COUNT ', out('rows_lk')),
          f"rows header: {out('rows_lk')[:200]!r}")
    expect('watch_removed', 74, r'^kstats: t2: the metric was removed while being watched')

    # run
    expect('run_d', 0, r'^Tracing rr for 2 s\.\.\. Hit Ctrl-C to end sooner\.$')
    check(re.search(r'^rr: \d+ samples?,', out('run_d'), re.M) and ' -> ' in out('run_d'),
          'run -d 2 printed the histogram')
    check(files.get('run_d_after', '').strip() == '0', 'run -d removed its trace')
    check(files.get('run_int.rc', '').strip() == '0', f"run at SIGINT exits 0: {files.get('run_int.err')!r}")
    check(re.search(r'^rr2: \d+ samples?,', files.get('run_int.out', ''), re.M), 'run printed at SIGINT')
    check(files.get('run_int.err', '') == 'Tracing rr2... Hit Ctrl-C to end.\n',
          f"run without -d says on stderr when the trace is live, and nothing else: {files.get('run_int.err')!r}")
    check(files.get('run_int_after', '').strip() == '0', 'run removed its trace at SIGINT')
    rk = files.get('run_key.out', '')
    check(files.get('run_key.rc', '').strip() == '0', f"run of a keyed trace exits 0 at SIGINT: {files.get('run_key.err')!r}")
    check(re.search(r'^rk: \d+ samples?,', rk, re.M) and
          re.search(r'^\nrk: \d+ rows? of key comm, by total, largest first\n *TOTAL +COUNT ', rk, re.M),
          f'run of a keyed trace prints the histogram, then the rows table: {rk[-600:]!r}')
    for comm, n in (('kstwA', 4), ('kstwB', 7)):
        check(re.search(rf'^ *\S+ +{n} .*  comm {comm}$', rk, re.M),
              f'run key comm: {comm} has a row of exactly {n} writes: {rk[-600:]!r}')
    check(files.get('run_term.rc', '').strip() == '0', 'run at SIGTERM exits 0')
    check(len(re.findall(r'^rr3: ', files.get('run_term.out', ''), re.M)) >= 2,
          'run -i 1 printed every second and at the end')
    check(files.get('run_term_after', '').strip() == '0', 'run removed its trace at SIGTERM')
    expect('run_miss', 0)
    shown = re.findall(r'^rdm: \d+ samples?, missed (\d+),', out('run_miss'), re.M)
    removed = re.search(r'trace rdm: removed, (\d+) missed', files.get('run_miss.dmesg', ''))
    check(len(shown) >= 3 and removed and int(shown[-1]) > 0 and
          int(removed.group(1)) == int(shown[-1]),
          'run -i 1 -d 3 under misses: its last figures hold every miss, as many as dmesg '
          f"gives at the remove (printed {shown}, dmesg {removed.group(1) if removed else None})")

    expect('notroot', 77, r'permission denied \(debugfs is for root only; run as root\)')
    check('[integrity]' in files.get('lockdown', ''), 'lockdown raised')
    expect('lockdown_reset', 0)
    expect('lockdown_trace', 0)
    expect('lockdown_remove', 0)
    expect('lockdown_show', 0)
    old = (r'Operation not permitted: the kernel is locked down \(integrity\), which refuses '
           r'writable debugfs files; this kstats module has no /nonexistent \(upgrade kstats-dkms\)')
    expect('lockdown_old_reset', 77, r'^kstats: reset: /sys/kernel/debug/kstats/read: ' + old)
    expect('lockdown_old_trace', 77, r'^kstats: trace: /sys/kernel/debug/kstats/_control: ' + old)
    check('[confidentiality]' in files.get('lockdown_conf', ''), 'lockdown confidentiality raised')
    expect('lockdown_conf_trace', 77, r'^kstats: trace: /dev/kstats: Operation not permitted: '
           r'the kernel is locked down \(confidentiality\), where kstats attaches no probes')
    expect('lockdown_conf_show', 0)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'gen':
        gen(sys.argv[2])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == 'check':
        check_console(sys.argv[2])
        print(f'tool: {PASSED} passed, {FAILED} failed')
        return 1 if FAILED else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
