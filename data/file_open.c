/* Regular files only, opened without blocking, the memory budget (physical memory, rlimits,
 * cgroup limits), and whole and exact reads (see file_open.h). */
#include "data/file_open.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
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

/* The limit in a cgroup limit file ("max", or a number of bytes), or UINT64_MAX. */
static uint64_t read_limit_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return UINT64_MAX;
    char text[64];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return UINT64_MAX;
    text[n] = '\0';
    if (text[0] < '0' || text[0] > '9') return UINT64_MAX; /* "max" */
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || (*end && *end != '\n')) return UINT64_MAX;
    return (uint64_t)v;
}

/* The smallest of the files' limits in dir/path and every directory above it up to dir. */
static uint64_t walk_up_limits(const char *dir, const char *path, size_t path_len,
                               const char *const *files, int n_files)
{
    uint64_t lowest = UINT64_MAX;
    char full[PATH_MAX];
    for (;;) {
        while (path_len > 0 && path[path_len - 1] == '/') path_len--;
        for (int f = 0; f < n_files; f++) {
            int w = snprintf(full, sizeof full, "%s/%.*s%s%s", dir, (int)path_len, path,
                             path_len ? "/" : "", files[f]);
            if (w < 0 || (size_t)w >= sizeof full) continue;
            uint64_t v = read_limit_file(full);
            if (v < lowest) lowest = v;
        }
        if (path_len == 0) break;
        while (path_len > 0 && path[path_len - 1] != '/') path_len--; /* the parent */
    }
    return lowest;
}

uint64_t file_cgroup_memory_limit(const char *cgroup_root, const char *self_cgroup)
{
    static const char *const v2_files[] = {"memory.max", "memory.high"};
    static const char *const v1_files[] = {"memory.limit_in_bytes"};
    uint64_t lowest = UINT64_MAX;
    if (!cgroup_root || !self_cgroup) return lowest;
    char v1_dir[PATH_MAX];
    snprintf(v1_dir, sizeof v1_dir, "%s/memory", cgroup_root);
    /* each line: hierarchy-ID:controller-list:path */
    for (const char *line = self_cgroup; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *c1 = memchr(line, ':', len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        if (c2) {
            const char *path = c2 + 1;
            size_t path_len = len - (size_t)(path - line);
            const size_t id_len = (size_t)(c1 - line), list_len = (size_t)(c2 - c1 - 1);
            uint64_t v = UINT64_MAX;
            if (id_len == 1 && line[0] == '0' && list_len == 0) { /* cgroup v2 */
                v = walk_up_limits(cgroup_root, path, path_len, v2_files, 2);
            } else { /* v1: the line whose controller list names memory */
                for (const char *c = c1 + 1; c < c2;) {
                    const char *comma = memchr(c, ',', (size_t)(c2 - c));
                    const char *next = comma ? comma : c2;
                    if (next - c == 6 && memcmp(c, "memory", 6) == 0) {
                        v = walk_up_limits(v1_dir, path, path_len, v1_files, 1);
                        break;
                    }
                    c = next + 1;
                }
            }
            if (v < lowest) lowest = v;
        }
        line += len + (eol ? 1 : 0);
    }
    return lowest;
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
    /* the cgroup's limit (a container's, a systemd unit's MemoryMax): a few small files read,
     * microseconds, once per file opened */
    char self[8192];
    int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        size_t got = 0;
        for (ssize_t n; got < sizeof self - 1 &&
                        ((n = read(fd, self + got, sizeof self - 1 - got)) > 0 ||
                         (n < 0 && errno == EINTR));)
            if (n > 0) got += (size_t)n;
        close(fd);
        self[got] = '\0';
        uint64_t cgroup = file_cgroup_memory_limit("/sys/fs/cgroup", self);
        if (cgroup < budget) budget = cgroup;
    }
    return budget;
}

gmm_status file_read_exact(int fd, const char *path, void *buf, size_t n, uint64_t offset)
{
    for (size_t got = 0; got < n;) {
        size_t ask = n - got < ((size_t)1 << 30) ? n - got : ((size_t)1 << 30);
        ssize_t r = pread(fd, (unsigned char *)buf + got, ask, (off_t)(offset + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return gmm_error(GMM_ERR_IO, "%s: read failed: %s", path, strerror(errno));
        if (r == 0)
            return gmm_error(GMM_ERR_IO, "%s: the file shrank while being read (%llu of %zu "
                             "bytes read)", path, (unsigned long long)(offset + got), n);
        got += (size_t)r;
    }
    return GMM_OK;
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
    const uint64_t budget = file_memory_budget();
    if ((uint64_t)sb.st_size > SIZE_MAX - 1 || (uint64_t)sb.st_size > budget) {
        st = gmm_error(GMM_ERR_NOMEM, "%s: out of memory: the file's %jd bytes are more than the "
                       "%llu bytes of memory this process may have", path, (intmax_t)sb.st_size,
                       (unsigned long long)budget);
        goto fail;
    }
    size_t n = (size_t)sb.st_size;
    buf = malloc(n + 1); /* +1 so that an empty file still gets a real pointer */
    if (!buf) {
        st = gmm_error(GMM_ERR_NOMEM, "%s: cannot allocate %zu bytes to read it", path, n);
        goto fail;
    }
    if ((st = file_read_exact(fd, path, buf, n, 0)) != GMM_OK) goto fail;
    *data = buf;
    *size = n;
    buf = NULL;

fail:
    free(buf);
    close(fd);
    return st;
}
