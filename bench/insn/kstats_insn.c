// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_insn: a QEMU TCG plugin that counts the guest instructions
 * executed between two marker instructions, for bench/insn.sh and the
 * test command's instruction guard. Built by bench/insn/build-plugin.sh
 * against the plugin API header of the installed QEMU (7.2 on Debian 12).
 *
 * The markers are 7-byte NOPs (0f 1f 80 disp32, "nopl disp32(%rax)"),
 * harmless on every x86-64 CPU, whose displacement spells "ksiB" (begin a
 * window) or "ksiE" (end it). They are recognized at translation time by
 * their bytes, so nothing else in the guest can look like one, and the
 * workload can run them from user space (test/progs/insn_getpid.c) or
 * anywhere else.
 *
 * Counting: every translated block adds its instruction count to one
 * counter when it starts (an inline op, cheap); a marker's callback reads
 * the counter less the instructions of its block that follow it. A
 * window is the instructions after its begin marker, to its end marker
 * excluded: interrupts, other tasks and the kernel's own work on that
 * vCPU included. A block left early by an exception (a page fault) counts
 * whole: a few instructions too many, rarely. The counter is not per vCPU,
 * so the plugin refuses guests with more than one.
 *
 * Output: one line per window, "kstats-insn window I insns C", to the file
 * given as out=FILE (else QEMU's log, stderr by default), then at exit
 * "kstats-insn windows N".
 * Usage: qemu-system-x86_64 -smp 1 -plugin PATH/kstats_insn.so,out=FILE ...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static const unsigned char ki_begin[7] = { 0x0f, 0x1f, 0x80, 'k', 's', 'i', 'B' };
static const unsigned char ki_end[7] = { 0x0f, 0x1f, 0x80, 'k', 's', 'i', 'E' };

/* Instructions executed so far, whole blocks at their start. */
static uint64_t ki_count;
static uint64_t ki_start;
static int ki_open;
static unsigned long ki_windows;
static FILE *ki_out;

static void ki_print(const char *line)
{
	if (ki_out) {
		fputs(line, ki_out);
		fflush(ki_out);
	} else {
		qemu_plugin_outs(line);
	}
}

/*
 * userdata: the instructions of the marker's block after it, times two,
 * plus one for an end marker.
 */
static void ki_marker(unsigned int vcpu, void *userdata)
{
	uintptr_t u = (uintptr_t)userdata;
	uint64_t now = ki_count - (u >> 1);
	char line[80];

	if (!(u & 1)) {
		/* the count after the begin marker */
		ki_start = now;
		ki_open = 1;
		return;
	}
	if (!ki_open)
		return;
	ki_open = 0;
	/* now includes the end marker itself */
	snprintf(line, sizeof(line), "kstats-insn window %lu insns %" PRIu64 "\n",
		 ++ki_windows, now - 1 - ki_start);
	ki_print(line);
}

static void ki_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &ki_count, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const void *data = qemu_plugin_insn_data(insn);
		uintptr_t after = n - 1 - i;

		if (qemu_plugin_insn_size(insn) != sizeof(ki_begin))
			continue;
		if (!memcmp(data, ki_begin, sizeof(ki_begin)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, ki_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(after << 1));
		else if (!memcmp(data, ki_end, sizeof(ki_end)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, ki_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(after << 1 | 1));
	}
}

static void ki_exit(qemu_plugin_id_t id, void *p)
{
	char line[64];

	snprintf(line, sizeof(line), "kstats-insn windows %lu\n", ki_windows);
	ki_print(line);
	if (ki_out)
		fclose(ki_out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	if (!info->system_emulation || strcmp(info->target_name, "x86_64") ||
	    info->system.max_vcpus != 1) {
		fprintf(stderr,
			"kstats_insn: needs qemu-system-x86_64 with -smp 1 (one counter)\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			ki_out = fopen(argv[i] + 4, "w");
			if (!ki_out) {
				perror(argv[i] + 4);
				return -1;
			}
		} else {
			fprintf(stderr, "kstats_insn: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, ki_tb_trans);
	qemu_plugin_register_atexit_cb(id, ki_exit, NULL);
	return 0;
}
