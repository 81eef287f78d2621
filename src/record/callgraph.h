/*
 * callgraph.h - call graph modes (-g, --call-graph fp|dwarf[,SIZE]|lbr) and
 * what each adds to an event's attr.
 *
 * fp:    PERF_SAMPLE_CALLCHAIN; the kernel walks frame pointers (user part
 *        only when kernel samples are refused: exclude_callchain_kernel).
 * dwarf: CALLCHAIN for the kernel part (exclude_callchain_user) plus
 *        REGS_USER with the architecture's register mask and STACK_USER
 *        (a copy of SIZE bytes of the user stack), so perf report unwinds
 *        offline with .eh_frame; mmap_data so perf can find .eh_frame in
 *        read-only mappings (perf-data-format.md 9.2).
 * lbr:   CALLCHAIN plus the hardware's last-branch-record call stack
 *        (BRANCH_STACK with CALL_STACK), where the CPU has LBR.
 */
#ifndef PSREC_RECORD_CALLGRAPH_H
#define PSREC_RECORD_CALLGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "psrec/perf_data.h"
#include "util/err.h"

#define CALLGRAPH_NONE  0
#define CALLGRAPH_FP    1
#define CALLGRAPH_DWARF 2
#define CALLGRAPH_LBR   3

#define CALLGRAPH_DWARF_DEFAULT_SIZE 8192
#define CALLGRAPH_DWARF_MIN_SIZE     64
#define CALLGRAPH_DWARF_MAX_SIZE     65528 /* a sample must fit a u16 record size */

#define CALLGRAPH_MAX_STACK_PATH "/proc/sys/kernel/perf_event_max_stack"
#define CALLGRAPH_LBR_CAPS_PATH  "/sys/bus/event_source/devices/cpu/caps/branches"

struct callgraph {
	int mode;               /* CALLGRAPH_* */
	uint32_t stack_size;    /* dwarf: bytes of user stack per sample */
	uint16_t max_stack;     /* 0: the kernel's perf_event_max_stack */
};

/*
 * Parse a --call-graph argument: "fp", "dwarf", "dwarf,SIZE" (bytes,
 * rounded up to a multiple of 8, 64..65528), "lbr" (only where the CPU
 * reports LBR in lbr_caps_path). -EINVAL with a message otherwise.
 */
int callgraph_parse(struct callgraph *cg, const char *arg, const char *lbr_caps_path, struct err *e);

/* The name perf uses for the mode ("fp", "dwarf", "lbr"). */
const char *callgraph_name(int mode);

/*
 * The PERF_SAMPLE_REGS_USER mask for an architecture (uname -m), 0 when
 * psrec has no table for it. x86_64: AX..R15 without the segment registers
 * DS/ES/FS/GS (0xff0fff, what perf records); aarch64: x0-x30, sp, pc.
 */
uint64_t callgraph_regs_mask(const char *arch);

/* The architecture psrec was built for, as uname -m spells it. */
const char *callgraph_build_arch(void);

/*
 * Add the call graph to an attr. kernel_excluded: kernel samples are off,
 * so the kernel part of chains is excluded too. tracking: the attr that
 * carries mmap/comm side-band (gets mmap_data in dwarf mode).
 */
void callgraph_apply(const struct callgraph *cg, struct pd_attr *a, bool kernel_excluded,
		     bool tracking);

#endif
