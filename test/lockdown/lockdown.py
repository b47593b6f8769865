# SPDX-License-Identifier: GPL-2.0
"""Guest scripts run as on a Secure Boot machine (issue 39).

Kernel lockdown "integrity", which Secure Boot raises, refuses every
debugfs file opened for writing or with a write bit: _control, and
writes of start, stop and reset to nodes. locked_down() rewrites a guest
script of the suite (keys, offcpu, counts) to raise it right after the
test modules load (they are unsigned: lockdown would refuse them), and
to send every command through /dev/kstats instead; the target module is
driven through /dev/kstats_test_target. check() proves the lockdown was
on and that _control stayed refused, so the script's own checks, exact
counts included, hold for the path lockdown allows.
"""
import re

RAISE = """# Secure Boot's lockdown, raised once the unsigned test modules are in.
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
echo integrity > /sys/kernel/security/lockdown
echo "@@LOCKDOWN $(cat /sys/kernel/security/lockdown)"
ld_proof() {
	(echo "remove ld-none" > /sys/kernel/debug/kstats/_control) 2>/dev/null
	w=$?
	(cat /sys/kernel/debug/kstats/_control > /dev/null) 2>/dev/null
	echo "@@LD-CONTROL $1 write=$w read=$? device=$([ -c /dev/kstats ] && echo yes)"
}
ld_proof begin
"""


def locked_down(script):
    """@script with lockdown raised after its top insmod lines and its
    commands sent through /dev/kstats."""
    for old, new in (("C=$D/_control", "C=/dev/kstats"),
                     ("T=/sys/kernel/debug/kstats_test_target", "T=/dev/kstats_test_target")):
        if old not in script:
            raise ValueError("the script has no line %s" % old)
        script = script.replace(old, new)
    script = re.sub(r'echo (start|stop|reset) > \$D/(\S+)', r'echo "\1 \2" > $C', script)
    lines = script.split("\n")
    last = max(i for i, l in enumerate(lines) if l.startswith("insmod "))
    lines[last + 1:last + 1] = RAISE.rstrip("\n").split("\n")
    return "\n".join(lines).rstrip("\n") + "\nld_proof end\n"


def check(r, log):
    """The lockdown lines of a locked_down() script's console. The
    kernel's "Lockdown: cat: debugfs access is restricted" can cut the
    ld_proof line it follows (printed late, as PREEMPT_RT's printk
    thread does), so the lines are made whole first."""
    from basic_test import deinterleave
    log = "\n".join(deinterleave([l.rstrip("\r") for l in log.split("\n")]))
    mode = re.findall(r"^@@LOCKDOWN (.*?)\r?$", log, re.M)
    r.check(mode == ["none [integrity] confidentiality"],
            "lockdown: integrity raised after the modules loaded", str(mode))
    for when in ("begin", "end"):
        got = re.findall(r"^@@LD-CONTROL %s (.*?)\r?$" % when, log, re.M)
        r.check(got == ["write=1 read=1 device=yes"],
                "lockdown: at the %s the kernel refuses _control (write and read), "
                "and the script uses /dev/kstats" % when, str(got))
