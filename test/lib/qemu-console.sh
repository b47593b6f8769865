# shellcheck shell=bash
# The guest's console, for run-guest.sh and rootfs.sh: into LOGFILE, or
# (KS_CONSOLE=stdio, the playground's shell) on this terminal with a copy
# in LOGFILE, QEMU's monitor behind Ctrl-A C, Ctrl-C for the guest.
# timeout --foreground lets QEMU read the terminal.

# QEMU's -cpu for the x86 guests (KS_CPU overrides it): "max" less ERMS
# and LA57. With ERMS the guest kernel clears pages and copies to and
# from user space with "rep stosb" and "rep movsb", which QEMU 7.2's TCG
# runs one byte per pass through a translated block; without it, the
# kernel's 8-byte loops. Measured on 6.12, in guest time: 300 fork+exec
# of /bin/true 1.77 s with ERMS, 1.05 s without; a 50 MiB tmpfs write
# and read 0.39 s and 0.22 s. With LA57 the kernels map memory with five
# levels, which few machines do; and the KASAN debug kernel, interrupted
# while identify_cpu() had cleared the CPU's capabilities at boot, took
# a five-level address for a wild one (console-check.sh).
# shellcheck disable=SC2034 # for the script that sources this
KS_X86_CPU=max,-erms,-la57

# ks_console_setup LOGFILE: sets SERIAL (QEMU's console options) and
# TIMEOUT (the timeout command before QEMU's limit).
# shellcheck disable=SC2034 # SERIAL, TIMEOUT: for the script that sources this
ks_console_setup() {
	SERIAL=(-monitor none -serial "file:$1")
	TIMEOUT=(timeout --kill-after=10)
	if [[ ${KS_CONSOLE:-} == stdio ]]; then
		# shellcheck disable=SC2054 # commas inside one QEMU option
		SERIAL=(-chardev "stdio,id=ks0,mux=on,signal=off,logfile=$1"
			-serial chardev:ks0 -mon chardev=ks0,mode=readline)
		TIMEOUT=(timeout --foreground)
	fi
}

# qemu ARGS...: QEMU with stdin and stdout on /dev/null, or on the
# terminal; its stderr in QEMU_ERR.
qemu() {
	if [[ ${KS_CONSOLE:-} == stdio ]]; then
		"$@" 2>"$QEMU_ERR"
	else
		"$@" </dev/null >"$QEMU_ERR" 2>&1
	fi
}
