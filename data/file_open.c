/* Regular files only, opened without blocking, the memory budget, and whole reads
 * (see file_open.h). */
#include "data/file_open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

int file_open_regular(const char *path, const char *expected, struct stat *sb, gmm_status *st)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *st = gmm_error(GMM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, sb) != 0) {
        *st = gmm_error(GMM_ERR_IO, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(sb->st_mode)) {
        const char *what = S_ISDIR(sb->st_mode)    ? "a directory"
                           : S_ISFIFO(sb->st_mode) ? "a FIFO (named pipe)"
                           : S_ISCHR(sb->st_mode)  ? "a character device"
                           : S_ISBLK(sb->st_mode)  ? "a block device"
                           : S_ISSOCK(sb->st_mode) ? "a socket"
                                                   : "something else";
        *st = gmm_error(GMM_ERR_IO, "%s: is %s, not a regular file; expected %s", path, what,
                        expected);
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        *st = gmm_error(GMM_ERR_IO, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

void file_advise_huge(void *buffer, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (!buffer || bytes < 2 * huge) return;
    uintptr_t start = ((uintptr_t)buffer + huge - 1) & ~(huge - 1);
    uintptr_t end = ((uintptr_t)buffer + bytes) & ~(huge - 1);
    if (end > start) (void)madvise((void *)start, (size_t)(end - start), MADV_HUGEPAGE);
#else
    (void)buffer;
    (void)bytes;
#endif
}

uint64_t file_memory_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t budget = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
    const int limits[] = {RLIMIT_AS, RLIMIT_DATA};
    for (int i = 0; i < 2; i++) {
        struct rlimit rl;
        if (getrlimit(limits[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
            (uint64_t)rl.rlim_cur < budget)
            budget = (uint64_t)rl.rlim_cur;
    }
    return budget;
}

gmm_status file_read_whole(const char *path, const char *expected, unsigned char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    gmm_status st = GMM_OK;
    unsigned char *buf = NULL;
    struct stat sb;
    int fd = file_open_regular(path, expected, &sb, &st);
    if (fd < 0) return st;
    if ((uint64_t)sb.st_size > SIZE_MAX - 1) {
        st = gmm_error(GMM_ERR_NOMEM, "%s: too large to read", path);
        goto fail;
    }
    size_t n = (size_t)sb.st_size;
    buf = malloc(n + 1); /* +1 so that an empty file still gets a real pointer */
    if (!buf) {
        st = gmm_error(GMM_ERR_NOMEM, "%s: cannot allocate %zu bytes to read it", path, n);
        goto fail;
    }
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            st = gmm_error(GMM_ERR_IO, "%s: read failed%s%s", path, r < 0 ? ": " : " (file shrank)",
                           r < 0 ? strerror(errno) : "");
            goto fail;
        }
        got += (size_t)r;
    }
    *data = buf;
    *size = n;
    buf = NULL;

fail:
    free(buf);
    close(fd);
    return st;
}
