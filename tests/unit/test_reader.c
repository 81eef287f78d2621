/*
 * test_reader.c - the perf.data reader (src/format/reader.c) on valid,
 * malformed, truncated and fuzzed input. Images are built by hand here
 * (independently of the writer) so every offset is under the test's control.
 */
#include "test_helpers.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "format/reader.h"
#include "format/sample.h"

/*
 * In a forked child: put back the signal handlers that were installed
 * before cmocka's (ASan's, or the defaults), so a crash kills the child and
 * is seen by the parent, with a sanitizer report, instead of jumping back
 * into the cmocka runner inside the child.
 */
static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS };
static struct sigaction saved_sigs[sizeof(crash_sigs) / sizeof(crash_sigs[0])];

static void save_signals(void)
{
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		sigaction(crash_sigs[i], NULL, &saved_sigs[i]);
}

static void child_default_signals(void)
{
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		sigaction(crash_sigs[i], &saved_sigs[i], NULL);
}

/* ---- a valid image -------------------------------------------------- */

/*
 *   0   header (104)
 * 104   ids: attr0 {101, 102}, attr1 {201}
 * 128   attrs: 2 x 144
 * 416   data: SAMPLE(id 101) 56 | COMM(trailer id 201) 56 | ROUND 8 | SAMPLE(id 201) 56
 * 592   feature table: HOSTNAME, SAMPLE_TIME
 * 624   HOSTNAME payload (68)
 * 692   SAMPLE_TIME payload (16)
 * 708   end
 */
#define IDS_OFF     104
#define ATTRS_OFF   128
#define DATA_OFF    416
#define REC0_OFF    DATA_OFF
#define REC1_OFF    (DATA_OFF + 56)
#define REC2_OFF    (DATA_OFF + 112)
#define REC3_OFF    (DATA_OFF + 120)
#define DATA_SIZE   176
#define TABLE_OFF   (DATA_OFF + DATA_SIZE)
#define HOST_OFF    (TABLE_OFF + 32)
#define STIME_OFF   (HOST_OFF + 68)
#define IMG_LEN     (STIME_OFF + 16)
#define TRAILER     32 /* TID, TIME, CPU, IDENTIFIER */

static uint8_t *build_image(size_t *len)
{
	uint8_t *p = calloc(1, IMG_LEN);
	assert_non_null(p);
	struct pd_file_header h;
	memset(&h, 0, sizeof(h));
	h.magic = PD_MAGIC;
	h.size = PD_FILE_HEADER_SIZE;
	h.attr_size = PD_FILE_ATTR_SIZE;
	h.attrs.offset = ATTRS_OFF;
	h.attrs.size = 2 * PD_FILE_ATTR_SIZE;
	h.data.offset = DATA_OFF;
	h.data.size = DATA_SIZE;
	h.features[0] = (1ULL << PD_FEAT_HOSTNAME) | (1ULL << PD_FEAT_SAMPLE_TIME);
	memcpy(p, &h, sizeof(h));

	th_put_u64(p, IDS_OFF, 101);
	th_put_u64(p, IDS_OFF + 8, 102);
	th_put_u64(p, IDS_OFF + 16, 201);

	for (int i = 0; i < 2; i++) {
		struct pd_file_attr fa;
		memset(&fa, 0, sizeof(fa));
		fa.attr.type = PD_TYPE_SOFTWARE;
		fa.attr.size = PD_ATTR_SIZE;
		fa.attr.config = i == 0 ? PD_SW_CPU_CLOCK : PD_SW_TASK_CLOCK;
		fa.attr.sample_type = TH_SAMPLE_TYPE;
		fa.attr.flags = PD_ATTR_SAMPLE_ID_ALL | PD_ATTR_FREQ;
		fa.attr.sample_period = 4000;
		fa.ids.offset = i == 0 ? IDS_OFF : IDS_OFF + 16;
		fa.ids.size = i == 0 ? 16 : 8;
		memcpy(p + ATTRS_OFF + (size_t)i * PD_FILE_ATTR_SIZE, &fa, sizeof(fa));
	}

	th_make_sample(p + REC0_OFF, 101, 0x401000, 7, 8, 1000, 0, 1);
	struct pd_event_header ch = { PD_RECORD_COMM, 0, 8 + 16 + TRAILER };
	memcpy(p + REC1_OFF, &ch, 8);
	th_put_u32(p, REC1_OFF + 8, 7);
	th_put_u32(p, REC1_OFF + 12, 8);
	memcpy(p + REC1_OFF + 16, "spin", 5);
	th_put_u64(p, REC1_OFF + 56 - 8, 201); /* trailer IDENTIFIER: last u64 */
	struct pd_event_header rh = { PD_RECORD_FINISHED_ROUND, 0, 8 };
	memcpy(p + REC2_OFF, &rh, 8);
	th_make_sample(p + REC3_OFF, 201, 0x402000, 7, 9, 2000, 1, 2);

	th_put_u64(p, TABLE_OFF, HOST_OFF);
	th_put_u64(p, TABLE_OFF + 8, 68);
	th_put_u64(p, TABLE_OFF + 16, STIME_OFF);
	th_put_u64(p, TABLE_OFF + 24, 16);
	th_put_u32(p, HOST_OFF, 64);
	memcpy(p + HOST_OFF + 4, "fuzzhost", 9);
	th_put_u64(p, STIME_OFF, 1000);
	th_put_u64(p, STIME_OFF + 8, 2000);
	*len = IMG_LEN;
	return p;
}

/* An exactly-sized heap copy of the first len bytes, so ASan sees over-reads. */
static uint8_t *exact_copy(const uint8_t *p, size_t len)
{
	uint8_t *c = malloc(len ? len : 1);
	assert_non_null(c);
	memcpy(c, p, len);
	return c;
}

/* reader_open_mem must fail with code and a message (naming an offset if
 * need_offset). */
static void expect_open_error(const uint8_t *img, size_t len, int code, bool need_offset)
{
	uint8_t *c = exact_copy(img, len);
	struct reader r;
	struct err e = { "" };
	int rc = reader_open_mem(&r, c, len, &e);
	if (rc != code)
		fail_msg("reader_open_mem returned %d, expected %d (message: '%s')", rc, code, e.msg);
	assert_true(err_is_set(&e));
	if (need_offset && !strstr(e.msg, "offset"))
		fail_msg("message does not name the offset: '%s'", e.msg);
	free(c);
}

/* ---- sanity: the image is valid ------------------------------------ */

static void test_reader_opens_valid_image_and_iterates_records(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_mem(&r, img, len, &e), 0);
	assert_int_equal(r.nr_attrs, 2);
	assert_int_equal(r.attrs[0].nr_ids, 2);
	assert_int_equal(r.attrs[0].ids[1], 102);
	assert_int_equal(r.attrs[1].nr_ids, 1);
	assert_int_equal(r.attrs[1].ids[0], 201);
	static const struct { uint64_t off; uint32_t type; uint16_t size; } want[] = {
		{ REC0_OFF, PD_RECORD_SAMPLE, 56 }, { REC1_OFF, PD_RECORD_COMM, 56 },
		{ REC2_OFF, PD_RECORD_FINISHED_ROUND, 8 }, { REC3_OFF, PD_RECORD_SAMPLE, 56 },
	};
	struct reader_record rec;
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(reader_next(&r, &rec, &e), 1);
		assert_int_equal(rec.offset, want[i].off);
		assert_int_equal(rec.type, want[i].type);
		assert_int_equal(rec.size, want[i].size);
		assert_ptr_equal(rec.data, img + want[i].off);
	}
	assert_int_equal(reader_next(&r, &rec, &e), 0);
	reader_rewind(&r);
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(rec.offset, REC0_OFF);
	reader_close(&r);
	free(img);
}

static void test_reader_record_attr_maps_ids_to_attrs(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_mem(&r, img, len, &e), 0);
	struct reader_record rec;
	assert_int_equal(reader_next(&r, &rec, &e), 1);  /* SAMPLE id 101 */
	assert_ptr_equal(reader_record_attr(&r, &rec), &r.attrs[0]);
	assert_int_equal(reader_next(&r, &rec, &e), 1);  /* COMM, trailer id 201 */
	assert_ptr_equal(reader_record_attr(&r, &rec), &r.attrs[1]);
	assert_int_equal(reader_next(&r, &rec, &e), 1);  /* ROUND: user type */
	assert_ptr_equal(reader_record_attr(&r, &rec), &r.attrs[0]);
	assert_int_equal(reader_next(&r, &rec, &e), 1);  /* SAMPLE id 201 */
	assert_ptr_equal(reader_record_attr(&r, &rec), &r.attrs[1]);

	/* hand-made records against the same attrs */
	uint8_t s[TH_SAMPLE_SIZE];
	struct reader_record hr = { 0, PD_RECORD_SAMPLE, 0, TH_SAMPLE_SIZE, s };
	th_make_sample(s, 102, 0, 0, 0, 0, 0, 0);
	assert_ptr_equal(reader_record_attr(&r, &hr), &r.attrs[0]);
	th_make_sample(s, 0, 0, 0, 0, 0, 0, 0);
	assert_ptr_equal(reader_record_attr(&r, &hr), &r.attrs[0]);  /* id 0: first attr */
	th_make_sample(s, 5555, 0, 0, 0, 0, 0, 0);
	assert_null(reader_record_attr(&r, &hr));                      /* unknown id */
	hr.size = 8;                                                   /* too short to hold an id */
	assert_null(reader_record_attr(&r, &hr));
	reader_close(&r);
	free(img);
}

static void test_reader_record_attr_without_sample_id_all_maps_side_band_to_first_attr(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u64(img, ATTRS_OFF + 40, PD_ATTR_FREQ);               /* attr0 flags */
	th_put_u64(img, ATTRS_OFF + 144 + 40, PD_ATTR_FREQ);         /* attr1 flags */
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_mem(&r, img, len, &e), 0);
	struct reader_record rec;
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(reader_next(&r, &rec, &e), 1);  /* COMM */
	assert_ptr_equal(reader_record_attr(&r, &rec), &r.attrs[0]);
	reader_close(&r);
	free(img);
}

static void test_reader_reads_ver0_attr_with_size_0_as_64_bytes(void **state)
{
	(void)state;
	/* header | attr (64 bytes, size field 0) + ids section | 1 id | 1 record */
	uint8_t img[104 + 80 + 8 + 8];
	memset(img, 0, sizeof(img));
	struct pd_file_header h;
	memset(&h, 0, sizeof(h));
	h.magic = PD_MAGIC;
	h.size = 104;
	h.attr_size = 80;
	h.attrs.offset = 104;
	h.attrs.size = 80;
	h.data.offset = 192;
	h.data.size = 8;
	memcpy(img, &h, sizeof(h));
	th_put_u32(img, 104, PD_TYPE_SOFTWARE);
	th_put_u32(img, 108, 0);              /* size 0 = PERF_ATTR_SIZE_VER0 */
	th_put_u64(img, 112, PD_SW_TASK_CLOCK);
	th_put_u64(img, 104 + 64, 184);       /* ids right after 64 attr bytes */
	th_put_u64(img, 104 + 72, 8);
	th_put_u64(img, 184, 4242);
	struct pd_event_header rh = { PD_RECORD_FINISHED_ROUND, 0, 8 };
	memcpy(img + 192, &rh, 8);

	uint8_t *c = exact_copy(img, sizeof(img));
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_mem(&r, c, sizeof(img), &e), 0);
	assert_int_equal(r.nr_attrs, 1);
	assert_int_equal(r.attrs[0].attr.config, PD_SW_TASK_CLOCK);
	assert_int_equal(r.attrs[0].attr.sample_regs_user, 0); /* zero-extended */
	assert_int_equal(r.attrs[0].attr.sig_data, 0);
	assert_int_equal(r.attrs[0].nr_ids, 1);
	assert_int_equal(r.attrs[0].ids[0], 4242);
	struct reader_record rec;
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(reader_next(&r, &rec, &e), 0);
	reader_close(&r);
	free(c);
}

/* ---- header errors --------------------------------------------------- */

static void test_reader_rejects_empty_file(void **state)
{
	(void)state;
	char path[64];
	th_write_file(path, "", 0);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, path, &e), -EINVAL);
	assert_true(err_is_set(&e));
	unlink(path);

	expect_open_error((const uint8_t *)"", 0, -EINVAL, false);
}

static void test_reader_rejects_missing_file_with_message(void **state)
{
	(void)state;
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, "/tmp/psrec-unit-no-such-dir/x.data", &e), -ENOENT);
	assert_true(err_is_set(&e));
}

static void test_reader_rejects_directory_with_message(void **state)
{
	(void)state;
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, "/tmp", &e), -EINVAL);
	assert_true(err_is_set(&e));
}

static void test_reader_rejects_too_short_input(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	expect_open_error(img, 10, -EINVAL, false);
	expect_open_error(img, 15, -EINVAL, false);
	/* magic and size 104 but fewer than 104 bytes */
	expect_open_error(img, 16, -EINVAL, false);
	expect_open_error(img, 103, -EINVAL, false);
	free(img);
}

static void test_reader_rejects_bad_magic_naming_offset_0(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	memcpy(img, "PERFFILE", 8); /* legacy v1 */
	expect_open_error(img, len, -EINVAL, true);
	memset(img, 0, 8);
	expect_open_error(img, len, -EINVAL, true);
	free(img);
}

static void test_reader_rejects_other_endian_magic_as_unsupported(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u64(img, 0, PD_MAGIC_SWAPPED);
	expect_open_error(img, len, -ENOTSUP, true);
	free(img);
}

/* A pipe stream: 16-byte header, HEADER_ATTR, HEADER_FEATURE, records. */
static void test_reader_reads_a_pipe_stream(void **state)
{
	(void)state;
	uint8_t buf[512];
	size_t n = 0;
	th_put_u64(buf, 0, PD_MAGIC);
	th_put_u64(buf, 8, 16);
	n = 16;
	/* HEADER_ATTR: attr (128) + 2 ids */
	struct pd_event_header h = { PD_RECORD_HEADER_ATTR, 0, 8 + 128 + 16 };
	memcpy(buf + n, &h, 8);
	memset(buf + n + 8, 0, 128);
	th_put_u32(buf, n + 8 + 4, 128);                 /* attr.size */
	th_put_u64(buf, n + 8 + 24, TH_SAMPLE_TYPE);     /* attr.sample_type */
	th_put_u64(buf, n + 136, 11);
	th_put_u64(buf, n + 144, 12);
	n += h.size;
	/* HEADER_FEATURE HOSTNAME: u64 id, then the string */
	struct pd_event_header f = { PD_RECORD_HEADER_FEATURE, 0, 8 + 8 + 4 + 4 };
	memcpy(buf + n, &f, 8);
	th_put_u64(buf, n + 8, PD_FEAT_HOSTNAME);
	th_put_u32(buf, n + 16, 4);
	memcpy(buf + n + 20, "box", 4);
	n += f.size;
	th_make_sample(buf + n, 12, 0x1000, 1, 1, 5, 0, 1);
	n += TH_SAMPLE_SIZE;

	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_mem(&r, buf, n, &e), 0);
	assert_true(r.pipe);
	assert_int_equal(r.nr_attrs, 1);
	assert_int_equal(r.attrs[0].nr_ids, 2);
	assert_int_equal(r.attrs[0].ids[1], 12);
	assert_int_equal(r.attrs[0].attr.sample_type, TH_SAMPLE_TYPE);
	assert_true(reader_has_feature(&r, PD_FEAT_HOSTNAME));
	assert_false(reader_has_feature(&r, PD_FEAT_OSRELEASE));
	const uint8_t *p;
	size_t len;
	assert_int_equal(reader_feature(&r, PD_FEAT_HOSTNAME, &p, &len, &e), 0);
	assert_int_equal(len, 8);
	assert_string_equal((const char *)p + 4, "box");
	/* The stream yields every record, attrs and features included. */
	struct reader_record rec;
	uint32_t types[4];
	int k = 0;
	while (reader_next(&r, &rec, &e) == 1 && k < 4)
		types[k++] = rec.type;
	assert_int_equal(k, 3);
	assert_int_equal(types[0], PD_RECORD_HEADER_ATTR);
	assert_int_equal(types[2], PD_RECORD_SAMPLE);
	reader_close(&r);

	/* A pipe header alone is the empty stream a writer killed at once
	 * leaves (perf: "no samples"); records but no HEADER_ATTR are not. */
	{
		struct reader empty;
		struct err e2 = { "" };
		assert_int_equal(reader_open_mem(&empty, buf, 16, &e2), 0);
		assert_int_equal(empty.nr_attrs, 0);
		struct reader_record none;
		assert_int_equal(reader_next(&empty, &none, &e2), 0);
		reader_close(&empty);
	}
	{
		uint8_t odd[16 + 8];
		memcpy(odd, buf, 16);
		struct pd_event_header fr = { PD_RECORD_FINISHED_ROUND, 0, 8 };
		memcpy(odd + 16, &fr, 8);
		expect_open_error(odd, sizeof(odd), -EINVAL, true);
	}
}

static void test_reader_rejects_header_size_other_than_104(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	static const uint64_t bad[] = { 0, 8, 72, 103, 105, 4096, UINT64_MAX };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		th_put_u64(img, 8, bad[i]);
		expect_open_error(img, len, -EINVAL, true);
	}
	free(img);
}

/* ---- section errors -------------------------------------------------- */

static void test_reader_rejects_truncated_file_data_past_eof(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	memset(img + 72, 0, 32); /* no features: the data section ends the file */
	char path[64];
	th_write_file(path, img, TABLE_OFF);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, path, &e), 0);
	reader_close(&r);

	/* cut the last 8 bytes, as a killed recorder or a full disk would */
	assert_int_equal(truncate(path, TABLE_OFF - 8), 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(reader_open_file(&r, path, &e), -EINVAL);
	assert_true(err_is_set(&e));
	assert_non_null(strstr(e.msg, "offset"));
	unlink(path);
	free(img);
}

static void test_reader_rejects_oversized_data_section_without_overflow(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u64(img, 48, UINT64_MAX);               /* data.size */
	expect_open_error(img, len, -EINVAL, true);
	th_put_u64(img, 48, DATA_SIZE);
	th_put_u64(img, 40, UINT64_MAX);               /* data.offset */
	expect_open_error(img, len, -EINVAL, true);
	th_put_u64(img, 40, UINT64_MAX - 7);           /* offset + size wraps to 168 */
	th_put_u64(img, 48, 176);
	expect_open_error(img, len, -EINVAL, true);
	th_put_u64(img, 40, DATA_OFF);
	th_put_u64(img, 48, UINT64_MAX - DATA_OFF + 1); /* offset + size wraps to 0 */
	expect_open_error(img, len, -EINVAL, true);
	free(img);
}

static void test_reader_rejects_data_section_overlapping_header_or_attrs(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u64(img, 40, 0);
	expect_open_error(img, len, -EINVAL, false);
	th_put_u64(img, 40, ATTRS_OFF + 8);
	expect_open_error(img, len, -EINVAL, false);
	free(img);
}

static void test_reader_rejects_attr_size_too_small_or_absurd(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	static const uint64_t bad[] = { 0, 8, 16, 79, 5000, UINT64_MAX };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		th_put_u64(img, 16, bad[i]);
		expect_open_error(img, len, -EINVAL, true);
	}
	free(img);
}

static void test_reader_rejects_attrs_size_not_a_multiple_of_attr_size(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u64(img, 32, 2 * 144 - 8);
	expect_open_error(img, len, -EINVAL, true);
	th_put_u64(img, 32, 0);
	expect_open_error(img, len, -EINVAL, true);
	free(img);
}

static void test_reader_rejects_attrs_section_past_eof_without_overflow(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u64(img, 24, len - 100);                 /* starts inside, ends past EOF */
	expect_open_error(img, len, -EINVAL, true);
	th_put_u64(img, 24, UINT64_MAX - 100);          /* offset near UINT64_MAX */
	expect_open_error(img, len, -EINVAL, true);
	th_put_u64(img, 24, UINT64_MAX - 143);          /* offset + size wraps */
	expect_open_error(img, len, -EINVAL, true);
	th_put_u64(img, 24, ATTRS_OFF);
	th_put_u64(img, 32, UINT64_MAX / 144 * 144);    /* huge multiple of attr_size */
	expect_open_error(img, len, -EINVAL, true);
	free(img);
}

static void test_reader_rejects_attrs_overlapping_header(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u64(img, 24, 0);
	expect_open_error(img, len, -EINVAL, false);
	th_put_u64(img, 24, 8);
	expect_open_error(img, len, -EINVAL, false);
	free(img);
}

static void test_reader_rejects_attr_whose_size_does_not_fit_attr_size(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u32(img, ATTRS_OFF + 4, 136);            /* 136 + 16 > 144 */
	expect_open_error(img, len, -EINVAL, true);
	th_put_u32(img, ATTRS_OFF + 4, 32);             /* below VER0 */
	expect_open_error(img, len, -EINVAL, true);
	th_put_u32(img, ATTRS_OFF + 4, 128);
	th_put_u32(img, ATTRS_OFF + 144 + 4, 4096);     /* second attr */
	expect_open_error(img, len, -EINVAL, true);
	free(img);
}

/*
 * Regression: an attr.size of 0xfffffff0..0xffffffff once wrapped the 32-bit
 * check `asz + 16 > stride` and made the reader read the ids section 4 GiB
 * past the mapping. It must be rejected with -EINVAL. Runs in a child
 * process so a crash fails only this test.
 */
static void test_reader_rejects_attr_size_near_u32_max_without_wrapping(void **state)
{
	(void)state;
	static const uint32_t sizes[] = { 0xfffffff0u, 0xfffffff8u, 0xffffffffu };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t len;
		uint8_t *img = build_image(&len);
		th_put_u32(img, ATTRS_OFF + 4, sizes[i]);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			child_default_signals();
			struct reader r;
			struct err e = { "" };
			int rc = reader_open_mem(&r, img, len, &e);
			_exit(rc == -EINVAL && e.msg[0] ? 0 : 1);
		}
		int status = 0;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		free(img);
		if (WIFSIGNALED(status))
			fail_msg("attr.size 0x%x: reader_open_mem crashed with signal %d (expected -EINVAL)",
				 sizes[i], WTERMSIG(status));
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail_msg("attr.size 0x%x: reader_open_mem did not fail cleanly with -EINVAL and a message (exit status %d)",
				 sizes[i], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
}

static void test_reader_rejects_ids_section_past_eof_without_overflow(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	size_t ids0 = ATTRS_OFF + 128;
	th_put_u64(img, ids0, len);                     /* starts at EOF, 16 bytes */
	expect_open_error(img, len, -EINVAL, true);
	th_put_u64(img, ids0, len - 8);                 /* half inside */
	expect_open_error(img, len, -EINVAL, true);
	th_put_u64(img, ids0, UINT64_MAX - 7);          /* offset near UINT64_MAX */
	expect_open_error(img, len, -EINVAL, true);
	th_put_u64(img, ids0, IDS_OFF);
	th_put_u64(img, ids0 + 8, UINT64_MAX - 7);      /* size huge, multiple of 8 */
	expect_open_error(img, len, -EINVAL, true);
	th_put_u64(img, ids0 + 8, 12);                  /* not a multiple of 8 */
	expect_open_error(img, len, -EINVAL, true);
	free(img);
}

/* ---- record framing errors ----------------------------------------- */

/* Open img, read n good records, then expect -EINVAL naming offset bad_off. */
static void expect_record_error_after(uint8_t *img, size_t len, int n, uint64_t bad_off)
{
	uint8_t *c = exact_copy(img, len);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_mem(&r, c, len, &e), 0);
	struct reader_record rec;
	for (int i = 0; i < n; i++)
		assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(reader_next(&r, &rec, &e), -EINVAL);
	assert_true(err_is_set(&e));
	char want[64];
	snprintf(want, sizeof(want), "offset %llu", (unsigned long long)bad_off);
	if (!strstr(e.msg, want))
		fail_msg("message does not name '%s': '%s'", want, e.msg);
	reader_close(&r);
	free(c);
}

static void test_reader_rejects_record_with_size_below_8_naming_its_offset(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u16(img, REC0_OFF + 6, 0);   /* would loop forever if accepted */
	expect_record_error_after(img, len, 0, REC0_OFF);
	th_put_u16(img, REC0_OFF + 6, 56);
	th_put_u16(img, REC2_OFF + 6, 4);
	expect_record_error_after(img, len, 2, REC2_OFF);
	free(img);
}

static void test_reader_rejects_record_running_past_data_end(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u16(img, REC3_OFF + 6, 64); /* 8 bytes more than the data section has */
	expect_record_error_after(img, len, 3, REC3_OFF);
	th_put_u16(img, REC3_OFF + 6, 56);
	th_put_u16(img, REC0_OFF + 6, 0xffff);
	expect_record_error_after(img, len, 0, REC0_OFF);
	free(img);
}

static void test_reader_rejects_truncated_record_header_at_data_end(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u64(img, 48, DATA_SIZE + 4); /* 4 stray bytes after the last record */
	expect_record_error_after(img, len, 4, TABLE_OFF);
	free(img);
}

static void test_reader_accepts_records_of_unknown_type_and_odd_size(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	/* turn ROUND (8) + SAMPLE (56) into one record of unknown type 200
	 * and size 13, followed by one of type 0xffffffff and size 51 */
	struct pd_event_header a = { 200, 0, 13 }, b = { 0xffffffffu, 0, 51 };
	memcpy(img + REC2_OFF, &a, 8);
	memcpy(img + REC2_OFF + 13, &b, 8);
	uint8_t *c = exact_copy(img, len);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_mem(&r, c, len, &e), 0);
	struct reader_record rec;
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(rec.type, 200);
	assert_int_equal(rec.size, 13);
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(rec.type, 0xffffffffu);
	assert_int_equal(rec.offset, REC2_OFF + 13);
	assert_int_equal(reader_next(&r, &rec, &e), 0);
	reader_close(&r);
	free(c);
	free(img);
}

/* ---- features --------------------------------------------------------- */

static void test_reader_feature_returns_payloads_and_enoent_when_absent(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_mem(&r, img, len, &e), 0);
	assert_true(reader_has_feature(&r, PD_FEAT_HOSTNAME));
	assert_true(reader_has_feature(&r, PD_FEAT_SAMPLE_TIME));
	assert_false(reader_has_feature(&r, PD_FEAT_BUILD_ID));
	assert_false(reader_has_feature(&r, 256));
	assert_false(reader_has_feature(&r, UINT32_MAX));
	const uint8_t *p;
	size_t l;
	assert_int_equal(reader_feature(&r, PD_FEAT_HOSTNAME, &p, &l, &e), 0);
	assert_ptr_equal(p, img + HOST_OFF);
	assert_int_equal(l, 68);
	assert_int_equal(reader_feature(&r, PD_FEAT_SAMPLE_TIME, &p, &l, &e), 0);
	assert_ptr_equal(p, img + STIME_OFF);
	assert_int_equal(l, 16);
	assert_int_equal(th_u64(p, 8), 2000);
	assert_int_equal(reader_feature(&r, PD_FEAT_NRCPUS, &p, &l, &e), -ENOENT);
	assert_int_equal(reader_feature(&r, 300, &p, &l, &e), -ENOENT);
	reader_close(&r);
	free(img);
}

static void expect_feature_einval(const uint8_t *img, size_t len, unsigned feat)
{
	uint8_t *c = exact_copy(img, len);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_mem(&r, c, len, &e), 0);
	const uint8_t *p = NULL;
	size_t l = 0;
	int rc = reader_feature(&r, feat, &p, &l, &e);
	if (rc != -EINVAL)
		fail_msg("reader_feature(%u) returned %d, expected -EINVAL", feat, rc);
	assert_true(err_is_set(&e));
	if (!strstr(e.msg, "offset"))
		fail_msg("message does not name the offset: '%s'", e.msg);
	reader_close(&r);
	free(c);
}

static void test_reader_feature_table_entry_out_of_bounds_is_einval(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	/* file cut inside the table: entry 1 (SAMPLE_TIME) is past EOF */
	expect_feature_einval(img, TABLE_OFF + 20, PD_FEAT_SAMPLE_TIME);
	/* file ends right at the data: no table at all */
	expect_feature_einval(img, TABLE_OFF, PD_FEAT_HOSTNAME);
	/* every bit set: the entry of bit 255 lies far past EOF */
	memset(img + 72, 0xff, 32);
	expect_feature_einval(img, len, 255);
	free(img);
}

static void test_reader_feature_payload_out_of_bounds_is_einval_without_overflow(void **state)
{
	(void)state;
	size_t len;
	uint8_t *img = build_image(&len);
	th_put_u64(img, TABLE_OFF, len - 10);           /* 68 bytes from 10 before EOF */
	expect_feature_einval(img, len, PD_FEAT_HOSTNAME);
	th_put_u64(img, TABLE_OFF, UINT64_MAX - 4);     /* offset + size wraps */
	expect_feature_einval(img, len, PD_FEAT_HOSTNAME);
	th_put_u64(img, TABLE_OFF, HOST_OFF);
	th_put_u64(img, TABLE_OFF + 8, UINT64_MAX);     /* size huge */
	expect_feature_einval(img, len, PD_FEAT_HOSTNAME);
	/* the other feature is still readable */
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_mem(&r, img, len, &e), 0);
	const uint8_t *p;
	size_t l;
	assert_int_equal(reader_feature(&r, PD_FEAT_SAMPLE_TIME, &p, &l, &e), 0);
	reader_close(&r);
	free(img);
}

static void test_reader_string_decodes_padded_and_unpadded_strings(void **state)
{
	(void)state;
	uint8_t b[4 + 64];
	memset(b, 0, sizeof(b));
	th_put_u32(b, 0, 64);
	memcpy(b + 4, "abc", 3);
	const char *s;
	size_t slen, used;
	assert_int_equal(reader_string(b, sizeof(b), &s, &slen, &used), 0);
	assert_ptr_equal(s, (const char *)b + 4);
	assert_int_equal(slen, 3);
	assert_int_equal(used, 68);
	/* perf's reader accepts len = strlen + 1 as well */
	th_put_u32(b, 0, 4);
	assert_int_equal(reader_string(b, 8, &s, &slen, &used), 0);
	assert_int_equal(slen, 3);
	assert_int_equal(used, 8);
	/* no NUL inside len: the whole len is the string */
	th_put_u32(b, 0, 2);
	assert_int_equal(reader_string(b, 6, &s, &slen, &used), 0);
	assert_int_equal(slen, 2);
	assert_int_equal(used, 6);
}

static void test_reader_string_rejects_length_past_the_buffer(void **state)
{
	(void)state;
	uint8_t b[8] = { 0 };
	const char *s;
	size_t slen, used;
	assert_int_equal(reader_string(b, 3, &s, &slen, &used), -EINVAL);
	th_put_u32(b, 0, 5);
	assert_int_equal(reader_string(b, 8, &s, &slen, &used), -EINVAL);
	th_put_u32(b, 0, UINT32_MAX);
	assert_int_equal(reader_string(b, 8, &s, &slen, &used), -EINVAL);
}

/* ---- fuzz ------------------------------------------------------------ */

static const uint64_t interesting[] = {
	0, 1, 7, 8, 15, 16, 63, 64, 72, 80, 103, 104, 127, 128, 143, 144, 4096,
	0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff,
	0x100000000ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
	UINT64_MAX - 7, UINT64_MAX,
	DATA_OFF, TABLE_OFF, IMG_LEN, IMG_LEN - 8,
};

static void mutate(uint8_t *p, size_t *len, uint64_t *rs)
{
	int n = 1 + (int)(th_rand(rs) % 8);
	for (int i = 0; i < n; i++) {
		size_t pos;
		/* half the mutations hit the header, ids, attrs or first record */
		if (th_rand(rs) & 1)
			pos = (size_t)(th_rand(rs) % (DATA_OFF + 64));
		else
			pos = (size_t)(th_rand(rs) % *len);
		switch (th_rand(rs) % 5) {
		case 0:
			p[pos] = (uint8_t)th_rand(rs);
			break;
		case 1:
			p[pos] ^= (uint8_t)(1u << (th_rand(rs) % 8));
			break;
		case 2: {
			pos &= ~(size_t)3;
			uint64_t v = interesting[th_rand(rs) % (sizeof(interesting) / sizeof(interesting[0]))];
			if (pos + 4 <= *len)
				th_put_u32(p, pos, (uint32_t)v);
			break;
		}
		case 3: {
			pos &= ~(size_t)7;
			uint64_t v = interesting[th_rand(rs) % (sizeof(interesting) / sizeof(interesting[0]))];
			if (pos + 8 <= *len)
				th_put_u64(p, pos, v);
			break;
		}
		case 4:
			if (th_rand(rs) % 4 == 0)
				*len = (size_t)(th_rand(rs) % (*len + 1));
			break;
		}
		if (*len == 0)
			break;
	}
}

/* Where exercise() is, for the crash report (shared with the parent). */
enum { PH_NONE, PH_OPEN, PH_NEXT, PH_RECORD, PH_FEATURE, PH_IDS };
static const char *const phase_name[] = {
	"-", "reader_open_mem", "reader_next", "reader_record_attr/sample_parse",
	"reader_feature/reader_string", "ids",
};
struct fuzz_shared {
	int iteration;
	int phase;
	int why;
};

/* Exercise everything the reader offers on one image. Returns 0, or a
 * non-zero code when an error came without a message. */
static int exercise(const uint8_t *p, size_t len, volatile struct fuzz_shared *sh)
{
	struct reader r;
	struct err e = { "" };
	sh->phase = PH_OPEN;
	int rc = reader_open_mem(&r, p, len, &e);
	if (rc < 0)
		return e.msg[0] ? 0 : 2;
	volatile uint64_t sink = 0;
	struct reader_record rec;
	for (int n = 0; n < 100000; n++) {
		e.msg[0] = '\0';
		sh->phase = PH_NEXT;
		rc = reader_next(&r, &rec, &e);
		if (rc < 0 && !e.msg[0]) {
			reader_close(&r);
			return 3;
		}
		if (rc <= 0)
			break;
		for (size_t i = 0; i < rec.size; i++)
			sink += rec.data[i];
		sh->phase = PH_RECORD;
		const struct reader_attr *ra = reader_record_attr(&r, &rec);
		uint64_t st = ra ? ra->attr.sample_type : TH_SAMPLE_TYPE;
		struct sample s;
		if (rec.type == PD_RECORD_SAMPLE) {
			if (sample_parse(st, rec.data, rec.size, &s) == 0) {
				for (uint64_t i = 0; i < s.nr_callchain; i++)
					sink += s.callchain[i * 8];
			}
		} else if (sample_parse_id_trailer(st, rec.data, rec.size, &s) == 0) {
			sink += s.id;
		}
	}
	sh->phase = PH_FEATURE;
	for (unsigned b = 0; b < PD_FEAT_BITS; b++) {
		const uint8_t *fp;
		size_t fl;
		e.msg[0] = '\0';
		rc = reader_feature(&r, b, &fp, &fl, &e);
		if (rc == -EINVAL && !e.msg[0]) {
			reader_close(&r);
			return 4;
		}
		if (rc == 0) {
			for (size_t i = 0; i < fl; i++)
				sink += fp[i];
			const char *s;
			size_t slen, used;
			if (reader_string(fp, fl, &s, &slen, &used) == 0)
				for (size_t i = 0; i < slen; i++)
					sink += (uint8_t)s[i];
		}
	}
	sh->phase = PH_IDS;
	for (size_t i = 0; i < r.nr_attrs; i++)
		for (size_t j = 0; j < r.attrs[i].nr_ids; j++)
			sink += r.attrs[i].ids[j];
	(void)sink;
	reader_close(&r);
	sh->phase = PH_NONE;
	return 0;
}

/* Iterations from..to-1 in a child; each iteration has its own RNG stream,
 * so a crash at iteration k lets the parent carry on from k + 1. */
static void fuzz_child(int from, int to, uint64_t seed, volatile struct fuzz_shared *sh, bool quiet)
{
	child_default_signals();
	if (quiet) {
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, STDERR_FILENO);
	}
	size_t base_len;
	uint8_t *base = build_image(&base_len);
	for (int it = from; it < to; it++) {
		sh->iteration = it;
		uint64_t rs = seed ^ ((uint64_t)(it + 1) * 0x9e3779b97f4a7c15ULL);
		size_t len = base_len;
		uint8_t *tmp = exact_copy(base, base_len);
		mutate(tmp, &len, &rs);
		uint8_t *c = exact_copy(tmp, len); /* exactly len bytes */
		free(tmp);
		int rc = exercise(c, len, sh);
		free(c);
		if (rc) {
			sh->why = rc;
			_exit(3);
		}
	}
	free(base);
	_exit(0);
}

/*
 * A few thousand deterministic mutations of a valid image: the reader must
 * never crash (run under ASan too) and every error must carry a message.
 * Iterations run in child processes; after a crash the parent goes on from
 * the next iteration, and reports every crashing iteration and where it
 * crashed (the sanitizer report of the first few crashes is shown).
 * (It found the attr.size wrap-around above.)
 */
static void test_reader_fuzz_mutated_images_never_crash(void **state)
{
	(void)state;
	enum { ITERATIONS = 5000, MAX_REPORTED = 16 };
	const uint64_t seed = 0x5eed5eedcafef00dULL;
	volatile struct fuzz_shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
					       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(sh != MAP_FAILED);

	char report[1024] = "";
	size_t rlen = 0;
	int crashes = 0, silent_errors = 0;
	int from = 0;
	while (from < ITERATIONS) {
		sh->iteration = from;
		sh->phase = PH_NONE;
		sh->why = 0;
		fflush(NULL);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			fuzz_child(from, ITERATIONS, seed, sh, crashes >= 3);
		int status = 0;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			break;
		int it = sh->iteration;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
			silent_errors++;
		else
			crashes++;
		if (crashes + silent_errors <= MAX_REPORTED && rlen < sizeof(report) - 100) {
			int n = snprintf(report + rlen, sizeof(report) - rlen, "\n  iteration %d: %s in %s",
					 it,
					 WIFEXITED(status) && WEXITSTATUS(status) == 3 ?
						 (sh->why == 2 ? "open error without a message" :
						  sh->why == 3 ? "record error without a message" :
								 "feature error without a message") :
						 "crash",
					 phase_name[sh->phase]);
			if (n > 0)
				rlen += (size_t)n;
		}
		from = it + 1;
	}
	munmap((void *)sh, sizeof(*sh));
	if (crashes || silent_errors)
		fail_msg("fuzz (seed 0x%llx, %d iterations): %d crashes, %d errors without a message:%s",
			 (unsigned long long)seed, ITERATIONS, crashes, silent_errors, report);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_opens_valid_image_and_iterates_records),
		cmocka_unit_test(test_reader_record_attr_maps_ids_to_attrs),
		cmocka_unit_test(test_reader_record_attr_without_sample_id_all_maps_side_band_to_first_attr),
		cmocka_unit_test(test_reader_reads_ver0_attr_with_size_0_as_64_bytes),
		cmocka_unit_test(test_reader_rejects_empty_file),
		cmocka_unit_test(test_reader_rejects_missing_file_with_message),
		cmocka_unit_test(test_reader_rejects_directory_with_message),
		cmocka_unit_test(test_reader_rejects_too_short_input),
		cmocka_unit_test(test_reader_rejects_bad_magic_naming_offset_0),
		cmocka_unit_test(test_reader_rejects_other_endian_magic_as_unsupported),
		cmocka_unit_test(test_reader_reads_a_pipe_stream),
		cmocka_unit_test(test_reader_rejects_header_size_other_than_104),
		cmocka_unit_test(test_reader_rejects_truncated_file_data_past_eof),
		cmocka_unit_test(test_reader_rejects_oversized_data_section_without_overflow),
		cmocka_unit_test(test_reader_rejects_data_section_overlapping_header_or_attrs),
		cmocka_unit_test(test_reader_rejects_attr_size_too_small_or_absurd),
		cmocka_unit_test(test_reader_rejects_attrs_size_not_a_multiple_of_attr_size),
		cmocka_unit_test(test_reader_rejects_attrs_section_past_eof_without_overflow),
		cmocka_unit_test(test_reader_rejects_attrs_overlapping_header),
		cmocka_unit_test(test_reader_rejects_attr_whose_size_does_not_fit_attr_size),
		cmocka_unit_test(test_reader_rejects_attr_size_near_u32_max_without_wrapping),
		cmocka_unit_test(test_reader_rejects_ids_section_past_eof_without_overflow),
		cmocka_unit_test(test_reader_rejects_record_with_size_below_8_naming_its_offset),
		cmocka_unit_test(test_reader_rejects_record_running_past_data_end),
		cmocka_unit_test(test_reader_rejects_truncated_record_header_at_data_end),
		cmocka_unit_test(test_reader_accepts_records_of_unknown_type_and_odd_size),
		cmocka_unit_test(test_reader_feature_returns_payloads_and_enoent_when_absent),
		cmocka_unit_test(test_reader_feature_table_entry_out_of_bounds_is_einval),
		cmocka_unit_test(test_reader_feature_payload_out_of_bounds_is_einval_without_overflow),
		cmocka_unit_test(test_reader_string_decodes_padded_and_unpadded_strings),
		cmocka_unit_test(test_reader_string_rejects_length_past_the_buffer),
		cmocka_unit_test(test_reader_fuzz_mutated_images_never_crash),
	};
	save_signals();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
