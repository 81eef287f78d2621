/*
 * test_textesc.c - text from a recording made safe to print
 * (src/util/textesc.c) and the UTF-8 decoder under it (src/util/utf8.c):
 * control characters and broken UTF-8 become \xNN, text stays.
 */
#include "test_helpers.h"

#include "util/textesc.h"
#include "util/utf8.h"

/* The escaped form of n bytes of s, through both the buffer and the
 * stream, which must agree; valid until the next call. */
static const char *esc(const char *s, size_t n, unsigned flags, bool *changed)
{
	static char out[512];
	struct buf b = BUF_INIT;
	assert_int_equal(textesc_buf(&b, s, n, flags, changed), 0);
	char *m = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&m, &len);
	assert_non_null(f);
	assert_int_equal(textesc_put(f, s, n, flags), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(len, b.len);
	assert_memory_equal(m, b.data, len);
	assert_true(len < sizeof(out));
	memcpy(out, m, len);
	out[len] = '\0';
	assert_int_equal(textesc_clean(s, n, flags), !*changed);
	free(m);
	buf_free(&b);
	return out;
}

#define ESC(lit, flags, want, want_changed) do {                        \
	bool ch;                                                        \
	assert_string_equal(esc(lit, sizeof(lit) - 1, flags, &ch), want); \
	assert_int_equal(ch, want_changed);                             \
} while (0)

static void test_text_is_kept(void **state)
{
	(void)state;
	ESC("spin", 0, "spin", false);
	ESC("", 0, "", false);
	ESC("operator new(unsigned long) [clone .cold]", 0, "operator new(unsigned long) [clone .cold]", false);
	/* UTF-8 text: 2, 3 and 4 bytes, and U+00A0, the first after C1 */
	ESC("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5 \xc2\xa0", 0,
	    "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5 \xc2\xa0", false);
	/* a backslash is kept unless asked for */
	ESC("a\\b", 0, "a\\b", false);
	ESC("a\\b", TEXTESC_BACKSLASH, "a\\\\b", true);
}

static void test_controls_are_escaped(void **state)
{
	(void)state;
	/* ESC [ 2 J clears a terminal; BEL, tab, newline, CR, NUL, DEL */
	ESC("\x1b[2Jx\a\ty\n\r\0z\x7f", 0, "\\x1b[2Jx\\x07\\x09y\\x0a\\x0d\\x00z\\x7f", true);
	/* C1: U+009B is CSI to a terminal that takes 8-bit controls */
	ESC("a\xc2\x9b" "2J\xc2\x80", 0, "a\\xc2\\x9b2J\\xc2\\x80", true);
}

static void test_broken_utf8_is_escaped_byte_by_byte(void **state)
{
	(void)state;
	ESC("\xff", 0, "\\xff", true);
	/* a comm cut inside a character by the kernel's 15 bytes */
	ESC("ab\xe6\x97", 0, "ab\\xe6\\x97", true);
	/* the cut sequence does not swallow the byte after it */
	ESC("\xe6\x97z", 0, "\\xe6\\x97z", true);
	/* overlong, surrogate, past U+10FFFF, a lone continuation byte */
	ESC("\xc0\x80", 0, "\\xc0\\x80", true);
	ESC("\xed\xa0\x80", 0, "\\xed\\xa0\\x80", true);
	ESC("\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80", true);
	ESC("\x80x", 0, "\\x80x", true);
}

static void test_utf8_next_maximal_subparts(void **state)
{
	(void)state;
	uint32_t cp;
	assert_int_equal(utf8_next((const unsigned char *)"\xe6\x97\xa5", 3, &cp), 3);
	assert_int_equal(cp, 0x65e5);
	/* E6 97 then the end of the bytes: one invalid subpart of 2 */
	assert_int_equal(utf8_next((const unsigned char *)"\xe6\x97\xa5", 2, &cp), 2);
	assert_int_equal(cp, UTF8_INVALID);
	/* NUL-terminated: stops at the NUL */
	assert_int_equal(utf8_next((const unsigned char *)"\xf0\x9f", SIZE_MAX, &cp), 2);
	assert_int_equal(cp, UTF8_INVALID);
	assert_int_equal(utf8_next((const unsigned char *)"\xed\xa0\x80", 3, &cp), 1);
	assert_int_equal(cp, UTF8_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_is_kept),
		cmocka_unit_test(test_controls_are_escaped),
		cmocka_unit_test(test_broken_utf8_is_escaped_byte_by_byte),
		cmocka_unit_test(test_utf8_next_maximal_subparts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
