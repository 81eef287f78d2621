/*
 * cmd_markers.c - psrec markers: the markers of a recording, listed in
 * time order with their spans, as text or JSON (see command.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/command.h"
#include "cli/markers.h"
#include "cli/say.h"
#include "marker/list.h"
#include "util/err.h"

static int run(int argc, char **argv)
{
	struct markers_cli cli;
	struct err e = { "" };
	if (markers_cli_parse(argc, argv, &cli, &e)) {
		cli_say("%s", e.msg);
		return CLI_EXIT_USAGE;
	}
	if (cli.help)
		return cli_table_print(&markers_cli_table, stdout) ? CLI_EXIT_RUNTIME : 0;
	const char *name = strcmp(cli.input, "-") ? cli.input : "standard input";
	struct marker_list l;
	marker_list_init(&l);
	int err = marker_list_read(&l, cli.input, &cli.filter, &e);
	if (!err)
		err = marker_list_pair(&l);
	if (!err && l.warning[0])
		cli_say("%s: %s", name, l.warning);
	if (!err && l.n == 0 && l.filtered)
		cli_say("none of the %" PRIu64 " markers in %s passed --pid, --tid, --comm", l.filtered,
			name);
	else if (!err && l.n == 0)
		cli_say("no markers in %s (recorded without a program using psrec_mark?)", name);
	if (!err && cli.json)
		err = marker_list_write_json(stdout, &l, cli.input, &e);
	else if (!err && l.n)
		err = marker_list_write(stdout, &l, cli.input, &e);
	if (!err && l.bad)
		cli_say("%s: %" PRIu64 " psrec:marker samples did not decode and were skipped", name,
			l.bad);
	marker_list_free(&l);
	if (err) {
		cli_say("%s", err_is_set(&e) ? e.msg : strerror(-err));
		return CLI_EXIT_RUNTIME;
	}
	return 0;
}

const struct cli_command cli_cmd_markers = {
	"markers", "the markers a program sent with psrec_mark(), and their spans",
	&markers_cli_table, run,
};
