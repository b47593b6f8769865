// SPDX-License-Identifier: GPL-2.0
/* kstats trace and kstats remove. */
#define _GNU_SOURCE
#include <string.h>

#include "kstats.h"

int cmd_trace(int argc, char **argv)
{
	if (argc < 2)
		err_exit(EX_USAGE, "trace: give NAME and its words");
	if (argc < 2 || wants_help(argc, argv)) {
		fputs("usage: kstats trace NAME [bits B] [start X] [end Y] [method M] [maxactive N]\n"
		      "                   [key K[,K]] [keys N] [slowest N]\n"
		      "                   [pid P] [tgid P] [comm C] [cpu N] [cgroup PATH] [if V ...]\n"
		      "                   [match argI[,argJ]] [expire NS] [repeat replace|keep]\n"
		      "                   [gap on|off]\n"
		      "       kstats trace NAME offcpu [state any|all|S|D] [min NS] [max NS]\n"
		      "                   [tasks all|user|kernel] [key K[,K]] ... (no start, end, method)\n"
		      "Writes \"trace NAME WORDS\" to /dev/kstats (or _control): _control's words\n"
		      "(README, kstats(8)).\n"
		      "K: kstack[:D], end-kstack[:D], ustack[:D], comm, pid, tgid, cpu, cgroup,\n"
		      "ret[:T], argN[:T] or argN:log2 (T: s8..s64, u8..u64), or by BTF a parameter's\n"
		      "NAME or NAME->MEMBER[->MEMBER] (file->f_flags) as argN; rows in KEY-NAME;\n"
		      "off-CPU traces also waker-kstack[:D], waker-ustack[:D], waker-comm, waker-pid,\n"
		      "waker-cgroup, waker-chain[:N] (N levels of wakers, 1..4: a chain graph).\n"
		      "ustack: the user stack, named by kstats rows and flame.\n"
		      "PATH: a cgroup v2 directory, from the cgroup2 root (/system.slice) or in full\n"
		      "(/sys/fs/cgroup/system.slice); its descendants too.\n"
		      "V: argN, ret, NAME or NAME->MEMBER, [:s8..s64|:u8..u64], == != < <= > >= &,\n"
		      "a number ('ret<0', 'file->f_flags&0x800': quote it from the shell).\n",
		      argc < 2 ? stderr : stdout);
		return argc < 2 ? EX_USAGE : 0;
	}
	return control("trace", argc - 1, argv + 1);
}

int cmd_remove(int argc, char **argv)
{
	if (argc != 2 && !wants_help(argc, argv))
		err_exit(EX_USAGE, argc < 2 ? "remove: give NAME" : "remove takes one NAME: '%s' too",
			 argv[argc < 2 ? 0 : 2]);
	if (argc != 2 || wants_help(argc, argv)) {
		fputs("usage: kstats remove NAME\nRemoves the trace NAME (its data goes with it).\n",
		      argc != 2 ? stderr : stdout);
		return argc != 2 ? EX_USAGE : 0;
	}
	return control("remove", 1, argv + 1);
}
