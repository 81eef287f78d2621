/*
 * debuglink.c - .gnu_debuglink names and their CRCs (see debuglink.h).
 */
#include "debuglink.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sysfile.h"

int debuglink_read(Elf *e, char *name, size_t len, uint32_t *crc)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx))
		return -ENOENT;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		const char *sn = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sn || strcmp(sn, ".gnu_debuglink") != 0)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return -ENOENT;
		const char *p = d->d_buf;
		size_t n = strnlen(p, d->d_size);
		/* the name, its NUL, padding to 4, the CRC in the file's byte order */
		size_t crc_off = (n + 4) & ~(size_t)3;
		if (n == 0 || n >= len || crc_off + 4 > d->d_size || memchr(p, '/', n))
			return -ENOENT;
		memcpy(name, p, n);
		name[n] = '\0';
		Elf_Data src = { .d_buf = (char *)p + crc_off, .d_type = ELF_T_WORD, .d_size = 4,
				 .d_version = EV_CURRENT };
		Elf_Data dst = { .d_buf = crc, .d_type = ELF_T_WORD, .d_size = 4, .d_version = EV_CURRENT };
		if (!gelf_xlatetom(e, &dst, &src, elf_getident(e, NULL)[EI_DATA]))
			return -ENOENT;
		return 0;
	}
	return -ENOENT;
}

int debuglink_path(const char *symfs, const char *path, const char *name, int i, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0;
	switch (i) {
	case 0:
		return sysfile_path(out, len, "%s%.*s/%s", symfs, dirlen, path, name);
	case 1:
		return sysfile_path(out, len, "%s%.*s/.debug/%s", symfs, dirlen, path, name);
	case 2:
		return sysfile_path(out, len, "%s/usr/lib/debug%.*s/%s", symfs, dirlen, path, name);
	default:
		return -ENOENT;
	}
}

/* Bit by bit, no table: it runs only for files that carry no build-id. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

int debuglink_crc_fd(int fd, uint32_t *crc)
{
	enum { CHUNK = 1 << 16 };
	unsigned char *buf = malloc(CHUNK);
	if (!buf)
		return -ENOMEM;
	uint32_t c = 0;
	uint64_t off = 0;
	int err = 0;
	for (;;) {
		ssize_t n = pread(fd, buf, CHUNK, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		c = crc32_update(c, buf, (size_t)n);
		off += (uint64_t)n;
	}
	free(buf);
	if (!err)
		*crc = c;
	return err;
}
