/*
 * test_buildid.c - build-id values (src/buildid/buildid.c) and the BUILD_ID
 * feature records (src/format/feature.c, perf-data-format.md 2.3).
 */
#include "test_helpers.h"

#include "buildid/buildid.h"
#include "format/feature.h"

static void test_hex_round_trip(void **state)
{
	(void)state;
	struct build_id id, back;
	assert_int_equal(build_id_from_hex("f22d3b11f2a58375d0dce4b3746810356cae98f7", &id), 0);
	assert_int_equal(id.size, 20);
	assert_int_equal(id.data[0], 0xf2);
	char hex[BUILD_ID_HEX_MAX];
	build_id_hex(&id, hex);
	assert_string_equal(hex, "f22d3b11f2a58375d0dce4b3746810356cae98f7");
	assert_int_equal(build_id_from_hex("F22D", &back), 0);
	assert_int_equal(back.size, 2);
	assert_false(build_id_equal(&id, &back));
	assert_int_equal(build_id_from_hex(hex, &back), 0);
	assert_true(build_id_equal(&id, &back));
}

static void test_hex_rejects(void **state)
{
	(void)state;
	struct build_id id;
	assert_int_equal(build_id_from_hex("", &id), -EINVAL);
	assert_int_equal(build_id_from_hex("abc", &id), -EINVAL);
	assert_int_equal(build_id_from_hex("zz", &id), -EINVAL);
	assert_int_equal(build_id_from_hex("00112233445566778899aabbccddeeff0011223344", &id), -EINVAL);
	uint8_t raw[21] = { 0 };
	assert_int_equal(build_id_set(&id, raw, 21), -E2BIG);
	assert_int_equal(build_id_set(&id, raw, 0), -E2BIG);
	assert_int_equal(build_id_set(&id, raw, 8), 0);
	assert_int_equal(id.size, 8);
}

/* The record perf 6.1 writes for /tmp/h1/spin: size 36 + 64, misc 0x8002,
 * pid -1, id at 12, id size at 32, name at 36. */
static void test_feature_layout(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	uint8_t id[20];
	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(i + 1);
	assert_int_equal(feature_build_id(&b, -1, PD_MISC_USER | PD_MISC_BUILD_ID_SIZE, id, 20, "/tmp/h1/spin"), 0);
	assert_int_equal(feature_build_id(&b, -1, PD_MISC_KERNEL | PD_MISC_BUILD_ID_SIZE, id, 8, "[kernel.kallsyms]"), 0);
	assert_int_equal(b.len, 200);
	assert_int_equal(th_u32(b.data, 0), 0);
	assert_int_equal(b.data[4] | b.data[5] << 8, 0x8002);
	assert_int_equal(b.data[6] | b.data[7] << 8, 100);
	assert_int_equal(th_u32(b.data, 8), 0xffffffffu);
	assert_memory_equal(b.data + 12, id, 20);
	assert_int_equal(b.data[32], 20);
	assert_string_equal((const char *)b.data + 36, "/tmp/h1/spin");
	assert_true(th_all_zero(b.data + 36 + 13, 64 - 13));

	size_t off = 0;
	struct feature_build_id_entry e;
	assert_int_equal(feature_build_id_next(b.data, b.len, &off, &e), 1);
	assert_int_equal(e.pid, -1);
	assert_int_equal(e.id_size, 20);
	assert_string_equal(e.name, "/tmp/h1/spin");
	assert_int_equal(feature_build_id_next(b.data, b.len, &off, &e), 1);
	assert_int_equal(e.misc & 7, PD_MISC_KERNEL);
	assert_int_equal(e.id_size, 8);
	assert_string_equal(e.name, "[kernel.kallsyms]");
	assert_int_equal(feature_build_id_next(b.data, b.len, &off, &e), 0);
	buf_free(&b);
}

/* Old perf wrote no BUILD_ID_SIZE: the id is then 20 bytes. Truncated or
 * unterminated records are errors, never reads past the payload. */
static void test_feature_parse_edge(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	uint8_t id[20] = { 9 };
	assert_int_equal(feature_build_id(&b, 7, PD_MISC_USER, id, 20, "/bin/x"), 0);
	b.data[32] = 3; /* ignored without the misc bit */
	size_t off = 0;
	struct feature_build_id_entry e;
	assert_int_equal(feature_build_id_next(b.data, b.len, &off, &e), 1);
	assert_int_equal(e.id_size, 20);
	assert_int_equal(e.pid, 7);
	for (size_t cut = 1; cut < b.len; cut++) {
		off = 0;
		assert_int_equal(feature_build_id_next(b.data, cut, &off, &e), -EINVAL);
	}
	memset(b.data + 36, 'a', b.len - 36); /* no NUL in the name */
	off = 0;
	assert_int_equal(feature_build_id_next(b.data, b.len, &off, &e), -EINVAL);
	char big[70000];
	memset(big, 'n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(feature_build_id(&b, -1, PD_MISC_USER, id, 20, big), -E2BIG);
	buf_free(&b);
}

static void test_debuginfo_path(void **state)
{
	(void)state;
	struct build_id id;
	char p[128];
	assert_int_equal(build_id_from_hex("93ac61ec5a8eb1396f9fbd350e3169a558528a40", &id), 0);
	assert_int_equal(build_id_debuginfo_path(&id, p, sizeof(p)), 0);
	assert_string_equal(p, "/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug");
	assert_int_equal(build_id_debuginfo_path(&id, p, 20), -ENAMETOOLONG);
	assert_int_equal(build_id_from_hex("93", &id), 0);
	assert_int_equal(build_id_debuginfo_path(&id, p, sizeof(p)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex_round_trip),
		cmocka_unit_test(test_hex_rejects),
		cmocka_unit_test(test_feature_layout),
		cmocka_unit_test(test_feature_parse_edge),
		cmocka_unit_test(test_debuginfo_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
