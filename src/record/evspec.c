/*
 * evspec.c - "-e" event names (see evspec.h).
 */
#include "evspec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psrec/perf_data.h"

struct named_event {
	const char *name;   /* canonical first, aliases after it point to it */
	const char *canon;
	uint32_t type;
	uint64_t config;
};

static const struct named_event known[] = {
	{ "cpu-clock", "cpu-clock", PD_TYPE_SOFTWARE, PD_SW_CPU_CLOCK },
	{ "task-clock", "task-clock", PD_TYPE_SOFTWARE, PD_SW_TASK_CLOCK },
	{ "page-faults", "page-faults", PD_TYPE_SOFTWARE, PD_SW_PAGE_FAULTS },
	{ "faults", "page-faults", PD_TYPE_SOFTWARE, PD_SW_PAGE_FAULTS },
	{ "minor-faults", "minor-faults", PD_TYPE_SOFTWARE, PD_SW_PAGE_FAULTS_MIN },
	{ "major-faults", "major-faults", PD_TYPE_SOFTWARE, PD_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", "context-switches", PD_TYPE_SOFTWARE, PD_SW_CONTEXT_SWITCHES },
	{ "cs", "context-switches", PD_TYPE_SOFTWARE, PD_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "cpu-migrations", PD_TYPE_SOFTWARE, PD_SW_CPU_MIGRATIONS },
	{ "migrations", "cpu-migrations", PD_TYPE_SOFTWARE, PD_SW_CPU_MIGRATIONS },
	{ "cycles", "cycles", PD_TYPE_HARDWARE, PD_HW_CPU_CYCLES },
	{ "cpu-cycles", "cycles", PD_TYPE_HARDWARE, PD_HW_CPU_CYCLES },
	{ "instructions", "instructions", PD_TYPE_HARDWARE, PD_HW_INSTRUCTIONS },
	{ "cache-references", "cache-references", PD_TYPE_HARDWARE, PD_HW_CACHE_REFERENCES },
	{ "cache-misses", "cache-misses", PD_TYPE_HARDWARE, PD_HW_CACHE_MISSES },
	{ "branches", "branches", PD_TYPE_HARDWARE, PD_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", "branches", PD_TYPE_HARDWARE, PD_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", "branch-misses", PD_TYPE_HARDWARE, PD_HW_BRANCH_MISSES },
	{ "bus-cycles", "bus-cycles", PD_TYPE_HARDWARE, PD_HW_BUS_CYCLES },
	{ "ref-cycles", "ref-cycles", PD_TYPE_HARDWARE, PD_HW_REF_CPU_CYCLES },
};

const char *evspec_known_names(void)
{
	return "cpu-clock, task-clock, page-faults (faults), minor-faults, major-faults, "
	       "context-switches (cs), cpu-migrations (migrations), cycles, instructions, "
	       "cache-references, cache-misses, branches, branch-misses, bus-cycles, ref-cycles";
}

static int list_push(struct evspec_list *l, const struct evspec *ev)
{
	struct evspec *n = realloc(l->ev, (l->nr + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->ev = n;
	l->ev[l->nr++] = *ev;
	return 0;
}

static void set_name(struct evspec *ev, const char *canon, const char *mods)
{
	if (mods && *mods)
		snprintf(ev->name, sizeof(ev->name), "%s:%s", canon, mods);
	else
		snprintf(ev->name, sizeof(ev->name), "%s", canon);
}

static int parse_one(struct evspec *ev, const char *tok, struct err *e)
{
	char name[EVSPEC_NAME_MAX];
	const char *colon = strchr(tok, ':');
	size_t nlen = colon ? (size_t)(colon - tok) : strlen(tok);

	memset(ev, 0, sizeof(*ev));
	if (nlen == 0)
		return err_set(e, -EINVAL, "empty event name in -e; known events: %s", evspec_known_names());
	if (nlen >= sizeof(name))
		return err_set(e, -EINVAL, "unknown event '%.*s...'; known events: %s", 32, tok, evspec_known_names());
	memcpy(name, tok, nlen);
	name[nlen] = '\0';

	const struct named_event *ne = NULL;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(known[i].name, name) == 0)
			ne = &known[i];
	if (!ne)
		return err_set(e, -EINVAL, "unknown event '%s'; known events: %s", name, evspec_known_names());
	ev->type = ne->type;
	ev->config = ne->config;

	const char *mods = colon ? colon + 1 : NULL;
	if (mods) {
		bool u = false, k = false, h = false;
		if (*mods == '\0')
			return err_set(e, -EINVAL, "event '%s': empty modifier after ':' (use u, k or h)", tok);
		for (const char *m = mods; *m; m++) {
			switch (*m) {
			case 'u': u = true; break;
			case 'k': k = true; break;
			case 'h': h = true; break;
			default:
				return err_set(e, -EINVAL, "event '%s': unknown modifier '%c' (use u, k or h)", tok, *m);
			}
		}
		/* Like perf: the listed levels are counted, the rest excluded. */
		ev->exclude_user = !u;
		ev->exclude_kernel = !k;
		ev->exclude_hv = !h;
		ev->has_modifier = true;
	}
	set_name(ev, ne->canon, mods);
	return 0;
}

int evspec_parse(struct evspec_list *l, const char *arg, struct err *e)
{
	char *copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	int err = 0;
	char *save = NULL;
	char *tok = strtok_r(copy, ",", &save);
	if (!tok)
		err = err_set(e, -EINVAL, "empty event list in -e; known events: %s", evspec_known_names());
	for (; tok && !err; tok = strtok_r(NULL, ",", &save)) {
		struct evspec ev;
		err = parse_one(&ev, tok, e);
		if (!err)
			err = list_push(l, &ev);
	}
	/* strtok_r swallows empty fields: "a,,b" and a trailing comma are errors. */
	if (!err && (strstr(arg, ",,") || arg[0] == ',' || arg[strlen(arg) - 1] == ','))
		err = err_set(e, -EINVAL, "empty event name in -e '%s'", arg);
	free(copy);
	return err;
}

int evspec_add_default(struct evspec_list *l)
{
	struct evspec ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = PD_TYPE_HARDWARE;
	ev.config = PD_HW_CPU_CYCLES;
	ev.is_default = true;
	set_name(&ev, "cycles", NULL);
	return list_push(l, &ev);
}

void evspec_use_cpu_clock(struct evspec *ev)
{
	const char *colon = strchr(ev->name, ':');
	char mods[EVSPEC_NAME_MAX] = "";
	if (colon)
		snprintf(mods, sizeof(mods), "%s", colon + 1);
	ev->type = PD_TYPE_SOFTWARE;
	ev->config = PD_SW_CPU_CLOCK;
	set_name(ev, "cpu-clock", mods);
}

void evspec_list_free(struct evspec_list *l)
{
	free(l->ev);
	l->ev = NULL;
	l->nr = 0;
}
