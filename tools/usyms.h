/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usyms: the user frames of KEY-NAME's ustack and waker-ustack parts
 * named in their processes, with elfutils' libdwfl (/proc/PID/maps,
 * symbol tables, separate debug files under /usr/lib/debug/.build-id)
 * and the perf map files that JITs write (/tmp/perf-PID.map).
 */
#ifndef USYMS_H
#define USYMS_H

#include "ksnode.h"

/*
 * Name the user frames of @k's rows and slowest samples, in place:
 * "f_wait+0x1c/0x40" (as %pS writes kernel frames; C++ names demangled)
 * where a symbol holds the address, "libc.so.6+0x1234"
 * (the module and the offset from its start) where none does, the
 * address as it was where no module holds it. A process that has exited
 * keeps its addresses, and its stacks' note says "exited". Frames after
 * the first are return addresses: they are looked up one byte before,
 * in the call. Returns 0, or -1 when out of memory.
 */
int ks_name_user_frames(struct ks_keynode *k);

#endif
