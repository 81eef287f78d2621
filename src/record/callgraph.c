/*
 * callgraph.c - call graph modes (see callgraph.h).
 */
#include "callgraph.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* branch_sample_type bits (uapi perf_event.h) for an LBR call stack. */
#define BRANCH_USER       (1ULL << 0)
#define BRANCH_CALL_STACK (1ULL << 11)
#define BRANCH_NO_FLAGS   (1ULL << 14)
#define BRANCH_NO_CYCLES  (1ULL << 15)

static const struct {
	const char *arch;
	uint64_t mask;
} regs_masks[] = {
	{ "x86_64", 0xff0fffULL },
	{ "aarch64", (1ULL << 33) - 1 },
	{ "arm64", (1ULL << 33) - 1 },
};

uint64_t callgraph_regs_mask(const char *arch)
{
	for (size_t i = 0; i < sizeof(regs_masks) / sizeof(regs_masks[0]); i++)
		if (strcmp(regs_masks[i].arch, arch) == 0)
			return regs_masks[i].mask;
	return 0;
}

const char *callgraph_build_arch(void)
{
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__aarch64__)
	return "aarch64";
#elif defined(__i386__)
	return "i386";
#elif defined(__riscv) && __riscv_xlen == 64
	return "riscv64";
#elif defined(__powerpc64__)
	return "ppc64le";
#elif defined(__s390x__)
	return "s390x";
#else
	return "unknown";
#endif
}

const char *callgraph_name(int mode)
{
	switch (mode) {
	case CALLGRAPH_FP: return "fp";
	case CALLGRAPH_DWARF: return "dwarf";
	case CALLGRAPH_LBR: return "lbr";
	default: return "none";
	}
}

static int parse_size(const char *s, uint32_t *out, struct err *e)
{
	if (!isdigit((unsigned char)s[0]))
		return err_set(e, -EINVAL, "--call-graph dwarf,'%s': expected a stack size in bytes (e.g. dwarf,16384)", s);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end != '\0')
		return err_set(e, -EINVAL, "--call-graph dwarf,'%s': expected a stack size in bytes (e.g. dwarf,16384)", s);
	if (v < CALLGRAPH_DWARF_MIN_SIZE)
		return err_set(e, -EINVAL, "--call-graph dwarf,%s: stack size too small to unwind anything (at least %d bytes; default %d)",
			       s, CALLGRAPH_DWARF_MIN_SIZE, CALLGRAPH_DWARF_DEFAULT_SIZE);
	v = (v + 7) & ~7ULL;
	if (v > CALLGRAPH_DWARF_MAX_SIZE)
		return err_set(e, -EINVAL, "--call-graph dwarf,%s: stack size too large (at most %d bytes: a sample must fit in 64 KiB)",
			       s, CALLGRAPH_DWARF_MAX_SIZE);
	*out = (uint32_t)v;
	return 0;
}

int callgraph_parse(struct callgraph *cg, const char *arg, const char *lbr_caps_path, struct err *e)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);

	if (n == 2 && strncmp(arg, "fp", 2) == 0 && !comma) {
		cg->mode = CALLGRAPH_FP;
		return 0;
	}
	if (n == 5 && strncmp(arg, "dwarf", 5) == 0) {
		const char *arch = callgraph_build_arch();
		if (callgraph_regs_mask(arch) == 0)
			return err_set(e, -EINVAL, "--call-graph dwarf is not supported on %s (psrec has no user register table for it); use --call-graph fp",
				       arch);
		cg->mode = CALLGRAPH_DWARF;
		cg->stack_size = CALLGRAPH_DWARF_DEFAULT_SIZE;
		return comma ? parse_size(comma + 1, &cg->stack_size, e) : 0;
	}
	if (n == 3 && strncmp(arg, "lbr", 3) == 0 && !comma) {
		if (access(lbr_caps_path, R_OK) != 0)
			return err_set(e, -EINVAL, "--call-graph lbr: this CPU has no last branch records (LBR); use --call-graph fp or dwarf");
		cg->mode = CALLGRAPH_LBR;
		return 0;
	}
	return err_set(e, -EINVAL, "--call-graph '%s': expected fp, dwarf[,SIZE] or lbr", arg);
}

void callgraph_apply(const struct callgraph *cg, struct pd_attr *a, bool kernel_excluded,
		     bool tracking)
{
	if (cg->mode == CALLGRAPH_NONE)
		return;
	a->sample_type |= PD_SAMPLE_CALLCHAIN;
	if (cg->max_stack)
		a->sample_max_stack = cg->max_stack;
	if (kernel_excluded)
		a->flags |= PD_ATTR_EXCLUDE_CALLCHAIN_KERNEL;
	switch (cg->mode) {
	case CALLGRAPH_DWARF:
		a->sample_type |= PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER;
		a->sample_regs_user = callgraph_regs_mask(callgraph_build_arch());
		a->sample_stack_user = cg->stack_size;
		/* The user part comes from unwinding the stack copy. */
		a->flags |= PD_ATTR_EXCLUDE_CALLCHAIN_USER;
		if (tracking)
			a->flags |= PD_ATTR_MMAP_DATA;
		break;
	case CALLGRAPH_LBR:
		a->sample_type |= PD_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = BRANCH_USER | BRANCH_CALL_STACK | BRANCH_NO_FLAGS | BRANCH_NO_CYCLES;
		break;
	default:
		break;
	}
}
