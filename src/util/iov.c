/*
 * iov.c - byte ranges of an iovec list (see iov.h).
 */
#include "iov.h"

#include <stdint.h>
#include <string.h>

void iov_copy(const struct iovec *iov, int n, size_t pos, void *dst, size_t len)
{
	uint8_t *d = dst;
	for (int i = 0; i < n && len > 0; i++) {
		if (pos >= iov[i].iov_len) {
			pos -= iov[i].iov_len;
			continue;
		}
		size_t k = iov[i].iov_len - pos;
		if (k > len)
			k = len;
		memcpy(d, (const uint8_t *)iov[i].iov_base + pos, k);
		d += k;
		len -= k;
		pos = 0;
	}
}

int iov_slice(const struct iovec *iov, int n, size_t pos, size_t len, struct iovec *out, int max)
{
	int k = 0;
	for (int i = 0; i < n && len > 0; i++) {
		if (pos >= iov[i].iov_len) {
			pos -= iov[i].iov_len;
			continue;
		}
		if (k == max)
			return -1;
		size_t take = iov[i].iov_len - pos;
		if (take > len)
			take = len;
		out[k].iov_base = (uint8_t *)iov[i].iov_base + pos;
		out[k].iov_len = take;
		k++;
		len -= take;
		pos = 0;
	}
	return k;
}
