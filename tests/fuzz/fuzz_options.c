/*
 * fuzz_options.c - the record command line parser on arbitrary arguments
 * (see fuzz.h).
 *
 * The bytes are split at NUL bytes into arguments after "psrec". Each
 * argument is a separate allocation of exactly its length plus the NUL, so
 * ASan catches a parser reading past the end of one. Everything the parser
 * allocates must be released by options_free(), on success and on error
 * alike (libFuzzer's leak check runs on every input).
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "cli/options.h"

int fuzz_options_one(const uint8_t *data, size_t size)
{
	size_t nr = 2; /* "psrec" and the last piece */
	for (size_t i = 0; i < size; i++)
		nr += data[i] == '\0';
	char **argv = calloc(nr + 1, sizeof(*argv));
	if (!argv)
		abort();
	int argc = 0;
	argv[argc++] = strdup("psrec");
	size_t start = 0;
	for (size_t i = 0; i <= size; i++) {
		if (i < size && data[i] != '\0')
			continue;
		/* A trailing NUL ends the last argument; it does not start an
		 * empty one (and no bytes are no arguments). */
		if (i == size && start == size)
			break;
		char *a = malloc(i - start + 1);
		if (!a)
			abort();
		memcpy(a, data + start, i - start);
		a[i - start] = '\0';
		argv[argc++] = a;
		start = i + 1;
	}
	for (int i = 0; i < argc; i++)
		if (!argv[i])
			abort();

	struct options o;
	struct err e = { "" };
	options_init(&o);
	(void)options_parse(&o, argc, argv, &e);
	options_free(&o);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return 0;
}

#ifdef PSREC_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_options_one(data, size);
}
#endif
