/*
 * feature.c - feature section payload builders (see feature.h).
 *
 * Every integer is appended in native byte order, like the rest of the file.
 */
#include "feature.h"

#include <errno.h>
#include <string.h>

int feature_put_string(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + PD_NAME_ALIGN - 1) & ~(size_t)(PD_NAME_ALIGN - 1);
	int err = buf_append_u32(b, (uint32_t)padded);
	if (!err)
		err = buf_append(b, s, n);
	if (!err)
		err = buf_append_zeros(b, padded - n);
	return err;
}

int feature_put_string_list(struct buf *b, const char *const *s, uint32_t nr)
{
	int err = buf_append_u32(b, nr);
	for (uint32_t i = 0; i < nr && !err; i++)
		err = feature_put_string(b, s[i]);
	return err;
}

int feature_string(struct buf *b, const char *s)
{
	return feature_put_string(b, s);
}

int feature_nrcpus(struct buf *b, uint32_t avail, uint32_t online)
{
	int err = buf_append_u32(b, avail);
	return err ? err : buf_append_u32(b, online);
}

int feature_total_mem(struct buf *b, uint64_t kb)
{
	return buf_append_u64(b, kb);
}

int feature_cmdline(struct buf *b, const char *exe, int argc, char *const argv[])
{
	uint32_t nr = argc > 0 ? (uint32_t)argc : 1;
	int err = buf_append_u32(b, nr);
	if (!err)
		err = feature_put_string(b, exe);
	for (int i = 1; i < argc && !err; i++)
		err = feature_put_string(b, argv[i]);
	return err;
}

int feature_event_desc(struct buf *b, const struct feature_event *ev, uint32_t nr)
{
	int err = buf_append_u32(b, nr);
	if (!err)
		err = buf_append_u32(b, PD_ATTR_SIZE);
	for (uint32_t i = 0; i < nr && !err; i++) {
		err = buf_append(b, ev[i].attr, PD_ATTR_SIZE);
		if (!err)
			err = buf_append_u32(b, ev[i].nr_ids);
		if (!err)
			err = feature_put_string(b, ev[i].name);
		if (!err)
			err = buf_append(b, ev[i].ids, ev[i].nr_ids * sizeof(uint64_t));
	}
	return err;
}

int feature_cpu_topology(struct buf *b, const struct feature_topology *t)
{
	int err = feature_put_string_list(b, t->core_sibs, t->nr_core_sibs);
	if (!err)
		err = feature_put_string_list(b, t->thread_sibs, t->nr_thread_sibs);
	for (uint32_t i = 0; i < t->nr_cpus_avail && !err; i++) {
		err = buf_append_u32(b, t->core_id[i]);
		if (!err)
			err = buf_append_u32(b, t->socket_id[i]);
	}
	if (err || t->nr_die_sibs == 0)
		return err;
	err = feature_put_string_list(b, t->die_sibs, t->nr_die_sibs);
	for (uint32_t i = 0; i < t->nr_cpus_avail && !err; i++)
		err = buf_append_u32(b, t->die_id[i]);
	return err;
}

int feature_sample_time(struct buf *b, uint64_t first, uint64_t last)
{
	int err = buf_append_u64(b, first);
	return err ? err : buf_append_u64(b, last);
}

int feature_clockid(struct buf *b, uint64_t res_ns)
{
	return buf_append_u64(b, res_ns);
}

int feature_compressed(struct buf *b, uint32_t level, uint32_t ratio, uint32_t mmap_len)
{
	int err = buf_append_u32(b, 0);
	if (!err)
		err = buf_append_u32(b, 1);
	if (!err)
		err = buf_append_u32(b, level);
	if (!err)
		err = buf_append_u32(b, ratio);
	if (!err)
		err = buf_append_u32(b, mmap_len);
	return err;
}

bool feature_compressed_mmap_len(const uint8_t *p, size_t len, uint32_t *mmap_len)
{
	uint32_t type;
	if (len < 20)
		return false;
	memcpy(&type, p + 4, sizeof(type));
	memcpy(mmap_len, p + 16, sizeof(*mmap_len));
	return type == 1;
}

int feature_clock_data(struct buf *b, uint32_t clockid, uint64_t tod_ns, uint64_t clk_ns)
{
	int err = buf_append_u32(b, 1);
	if (!err)
		err = buf_append_u32(b, clockid);
	if (!err)
		err = buf_append_u64(b, tod_ns);
	if (!err)
		err = buf_append_u64(b, clk_ns);
	return err;
}

int feature_numa_topology(struct buf *b, const struct feature_numa_node *n, uint32_t nr)
{
	int err = buf_append_u32(b, nr);
	for (uint32_t i = 0; i < nr && !err; i++) {
		err = buf_append_u32(b, n[i].node);
		if (!err)
			err = buf_append_u64(b, n[i].mem_total_kb);
		if (!err)
			err = buf_append_u64(b, n[i].mem_free_kb);
		if (!err)
			err = feature_put_string(b, n[i].cpus);
	}
	return err;
}

int feature_mem_topology(struct buf *b, uint64_t block_size, const struct feature_mem_node *n,
			 uint64_t nr)
{
	int err = buf_append_u64(b, 1);
	if (!err)
		err = buf_append_u64(b, block_size);
	if (!err)
		err = buf_append_u64(b, nr);
	for (uint64_t i = 0; i < nr && !err; i++) {
		err = buf_append_u64(b, n[i].node);
		if (!err)
			err = buf_append_u64(b, n[i].nr_bits);
		if (!err)
			err = buf_append_u64(b, n[i].nr_bits);
		if (!err)
			err = buf_append(b, n[i].bits, (n[i].nr_bits + 63) / 64 * sizeof(uint64_t));
	}
	return err;
}

int feature_cache(struct buf *b, const struct feature_cache *c, uint32_t nr)
{
	int err = buf_append_u32(b, 1);
	if (!err)
		err = buf_append_u32(b, nr);
	for (uint32_t i = 0; i < nr && !err; i++) {
		err = buf_append_u32(b, c[i].level);
		if (!err)
			err = buf_append_u32(b, c[i].line_size);
		if (!err)
			err = buf_append_u32(b, c[i].sets);
		if (!err)
			err = buf_append_u32(b, c[i].ways);
		if (!err)
			err = feature_put_string(b, c[i].type);
		if (!err)
			err = feature_put_string(b, c[i].size);
		if (!err)
			err = feature_put_string(b, c[i].map);
	}
	return err;
}

int feature_pmu_mappings(struct buf *b, const struct feature_pmu *p, uint32_t nr)
{
	int err = buf_append_u32(b, nr);
	for (uint32_t i = 0; i < nr && !err; i++) {
		err = buf_append_u32(b, p[i].type);
		if (!err)
			err = feature_put_string(b, p[i].name);
	}
	return err;
}

static int put_caps(struct buf *b, const struct feature_pmu *p)
{
	int err = buf_append_u32(b, p->nr_caps);
	for (uint32_t i = 0; i < p->nr_caps && !err; i++) {
		err = feature_put_string(b, p->cap_names[i]);
		if (!err)
			err = feature_put_string(b, p->cap_values[i]);
	}
	return err;
}

int feature_cpu_pmu_caps(struct buf *b, const struct feature_pmu *cpu)
{
	return put_caps(b, cpu);
}

int feature_pmu_caps(struct buf *b, const struct feature_pmu *p, uint32_t nr)
{
	uint32_t with_caps = 0;
	for (uint32_t i = 0; i < nr; i++)
		with_caps += p[i].nr_caps > 0;
	int err = buf_append_u32(b, with_caps);
	for (uint32_t i = 0; i < nr && !err; i++) {
		if (p[i].nr_caps == 0)
			continue;
		err = put_caps(b, &p[i]);
		if (!err)
			err = feature_put_string(b, p[i].name);
	}
	return err;
}

int feature_bpf_none(struct buf *b)
{
	return buf_append_u32(b, 0);
}

int feature_build_id(struct buf *b, int32_t pid, uint16_t misc, const uint8_t *id, uint8_t id_size,
		     const char *name)
{
	size_t n = strlen(name) + 1;
	size_t padded = (n + PD_NAME_ALIGN - 1) & ~(size_t)(PD_NAME_ALIGN - 1);
	if (id_size > 20 || FEATURE_BUILD_ID_HEADER + padded > UINT16_MAX)
		return -E2BIG;
	struct pd_event_header h = { 0, misc, (uint16_t)(FEATURE_BUILD_ID_HEADER + padded) };
	uint8_t rest[28] = { 0 };   /* pid, id[20], id_size, pad[3] */
	memcpy(rest, &pid, 4);
	memcpy(rest + 4, id, id_size);
	rest[24] = id_size;
	int err = buf_append(b, &h, sizeof(h));
	if (!err)
		err = buf_append(b, rest, sizeof(rest));
	if (!err)
		err = buf_append(b, name, n);
	if (!err)
		err = buf_append_zeros(b, padded - n);
	return err;
}

int feature_build_id_next(const uint8_t *p, size_t len, size_t *off, struct feature_build_id_entry *ent)
{
	if (*off >= len)
		return 0;
	struct pd_event_header h;
	if (len - *off < FEATURE_BUILD_ID_HEADER)
		return -EINVAL;
	memcpy(&h, p + *off, sizeof(h));
	if (h.size < FEATURE_BUILD_ID_HEADER + 1 || h.size > len - *off)
		return -EINVAL;
	const uint8_t *r = p + *off;
	const char *name = (const char *)r + FEATURE_BUILD_ID_HEADER;
	if (!memchr(name, '\0', h.size - FEATURE_BUILD_ID_HEADER))
		return -EINVAL;
	memcpy(&ent->pid, r + 8, 4);
	memcpy(ent->id, r + 12, 20);
	ent->id_size = (h.misc & PD_MISC_BUILD_ID_SIZE) && r[32] <= 20 ? r[32] : 20;
	ent->misc = h.misc;
	ent->name = name;
	*off += h.size;
	return 1;
}
