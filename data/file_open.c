/* Regular files only, opened without blocking, and the memory budget (see file_open.h). */
#include "data/file_open.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
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
