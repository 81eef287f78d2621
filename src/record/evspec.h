/*
 * evspec.h - turning "-e" strings into event descriptions.
 *
 * "-e cpu-clock,task-clock:u" names one or more events separated by commas,
 * each optionally followed by ":MODS" where MODS is any of u (user only),
 * k (kernel only), h (hypervisor only). Names are perf's: cpu-clock,
 * task-clock, page-faults (faults), minor-faults, major-faults,
 * context-switches (cs), cpu-migrations (migrations), and the hardware
 * events cycles (cpu-cycles), instructions, cache-references, cache-misses,
 * branches (branch-instructions), branch-misses, bus-cycles, ref-cycles.
 */
#ifndef PSREC_RECORD_EVSPEC_H
#define PSREC_RECORD_EVSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define EVSPEC_NAME_MAX 64

struct evspec {
	uint32_t type;              /* PD_TYPE_* */
	uint64_t config;
	bool exclude_user, exclude_kernel, exclude_hv;
	bool has_modifier;          /* the user chose the privilege levels */
	bool is_default;            /* chosen by psrec, not the user */
	char name[EVSPEC_NAME_MAX]; /* canonical name plus ":mods" */
};

struct evspec_list {
	struct evspec *ev;
	size_t nr;
};

/*
 * Parse one -e argument (comma-separated events) and append to *l.
 * -EINVAL with a message naming the bad event and listing valid names.
 */
int evspec_parse(struct evspec_list *l, const char *arg, struct err *e);

/* Append the default event: cycles (the sampler falls back to cpu-clock
 * where the machine has no hardware PMU). */
int evspec_add_default(struct evspec_list *l);

/* Turn a default hardware event into cpu-clock (same modifiers). */
void evspec_use_cpu_clock(struct evspec *ev);

/* The names psrec knows, comma-separated, for help and error messages. */
const char *evspec_known_names(void);

void evspec_list_free(struct evspec_list *l);

#endif
