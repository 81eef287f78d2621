/*
 * buildid.c - build-id values (see buildid.h).
 */
#include "buildid.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void build_id_hex(const struct build_id *id, char out[BUILD_ID_HEX_MAX])
{
	static const char digits[] = "0123456789abcdef";
	size_t n = id->size <= BUILD_ID_MAX ? id->size : 0;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[id->data[i] >> 4];
		out[2 * i + 1] = digits[id->data[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int build_id_from_hex(const char *s, struct build_id *id)
{
	size_t n = strlen(s);
	if (n == 0 || n % 2 || n > 2 * BUILD_ID_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex_val(s[2 * i]), lo = hex_val(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		id->data[i] = (uint8_t)(hi << 4 | lo);
	}
	id->size = (uint8_t)(n / 2);
	memset(id->data + id->size, 0, BUILD_ID_MAX - id->size);
	return 0;
}

bool build_id_equal(const struct build_id *a, const struct build_id *b)
{
	return a->size == b->size && a->size <= BUILD_ID_MAX && memcmp(a->data, b->data, a->size) == 0;
}

int build_id_set(struct build_id *id, const void *p, size_t len)
{
	if (len == 0 || len > BUILD_ID_MAX)
		return -E2BIG;
	memset(id, 0, sizeof(*id));
	memcpy(id->data, p, len);
	id->size = (uint8_t)len;
	return 0;
}

int build_id_debuginfo_path(const struct build_id *id, char *out, size_t size)
{
	char hex[BUILD_ID_HEX_MAX];
	if (id->size < 2 || id->size > BUILD_ID_MAX)
		return -EINVAL;
	build_id_hex(id, hex);
	int n = snprintf(out, size, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
