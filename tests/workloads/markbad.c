/*
 * markbad - markers with payloads that a reader must not trust (issue 16).
 *
 * usage: markbad
 *
 * Emits, in this order, each text starting with "bad:" and a name:
 *   bad:big   64 KiB of text (psrec_mark_str): cut at PSREC_MARK_MAX, flagged
 *   bad:nul   text with embedded NULs
 *   bad:utf8  invalid UTF-8 ("\xff\xfe abc \xc3", a sequence cut short)
 *   ""        an empty text
 *   bad:ctl   a newline and a tab
 *   bytes     a 4097-byte payload of type 9 (cut, flagged)
 *   bad:fmt   psrec_mark("bad:fmt %s", a 6000-character string)
 *   bad:last  a plain last marker
 * then exits 0.
 */
#include <stdio.h>
#include <string.h>

#include <psrec/marker.h>

static char big[64 * 1024];
static unsigned char bytes[4097];
static char longs[6001];

int main(void)
{
	memcpy(big, "bad:big ", 8);
	for (size_t i = 8; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	psrec_mark_str(big, sizeof(big));

	static const char nul[] = "bad:nul a\0b\0c";
	psrec_mark_str(nul, sizeof(nul) - 1);

	static const char utf8[] = "bad:utf8 \xff\xfe abc \xc3";
	psrec_mark_str(utf8, sizeof(utf8) - 1);

	psrec_mark_str("", 0);

	static const char ctl[] = "bad:ctl one\ntwo\tthree";
	psrec_mark_str(ctl, sizeof(ctl) - 1);

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)i;
	psrec_mark_bytes(9, bytes, sizeof(bytes));

	memset(longs, 'x', sizeof(longs) - 1);
	psrec_mark("bad:fmt %s", longs);

	psrec_mark("bad:last");
	return 0;
}
