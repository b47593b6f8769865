# shellcheck shell=bash
# The guest's console, for run-guest.sh and rootfs.sh: into LOGFILE, or
# (KS_CONSOLE=stdio, the playground's shell) on this terminal with a copy
# in LOGFILE, QEMU's monitor behind Ctrl-A C, Ctrl-C for the guest.
# timeout --foreground lets QEMU read the terminal.

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
