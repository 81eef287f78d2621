/*
 * cmd_recover.c - psrec recover FILE: a killed recorder's file repaired
 * in place, and what was kept said in one line (see command.h).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/archive.h"
#include "cli/command.h"
#include "cli/say.h"
#include "format/recover.h"
#include "util/err.h"

static int run(int argc, char **argv)
{
	const char *file;
	bool help;
	struct err e = { "" };
	if (recover_cli_parse(argc, argv, &file, &help, &e)) {
		cli_say("%s", e.msg);
		return CLI_EXIT_USAGE;
	}
	if (help)
		return cli_table_print(&recover_cli_table, stdout) ? CLI_EXIT_RUNTIME : 0;
	struct recover_result r;
	int err = recover_file(file, &r, &e);
	if (err) {
		cli_say("%s", err_is_set(&e) ? e.msg : strerror(-err));
		return CLI_EXIT_RUNTIME;
	}
	if (!r.changed) {
		cli_say("%s needs no repair: its header already covers its %" PRIu64 " records",
			file, r.records);
		return 0;
	}
	char comp[64] = "", drop[sizeof(r.dropped_why) + 64] = "";
	if (r.mmap_len)
		snprintf(comp, sizeof(comp), ", a COMPRESSED feature added (mmap_len %u)", r.mmap_len);
	if (r.dropped_at)
		snprintf(drop, sizeof(drop), "; dropped the data from offset %" PRIu64 " on: %s", r.dropped_at,
			 r.dropped_why);
	cli_say("recovered %s: kept %" PRIu64 " records (%" PRIu64 " samples), data size %" PRIu64
		" -> %" PRIu64 " bytes, %zu feature%s kept%s%s", file, r.records, r.samples,
		r.old_data_size, r.data_size, r.features, r.features == 1 ? "" : "s", comp, drop);
	return 0;
}

const struct cli_command cli_cmd_recover = {
	"recover", "repair a perf.data whose recorder was killed",
	&recover_cli_table, run,
};
