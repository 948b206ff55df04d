/* The one writer of every output file: a unique temporary file beside the target, renamed over
 * it when complete, or a direct write to a device or FIFO (see file_write.h). */
#include "data/file_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>

/* One file being written. state: SLOT_FREE, SLOT_TAKEN (being set up, or a direct write) or
 * SLOT_TEMP (temp names a file of ours that a signal handler may remove); read and written
 * atomically, since a handler reads it at any moment. */
enum { SLOT_FREE = 0, SLOT_TAKEN, SLOT_TEMP };
typedef struct {
    int state;
    int fd;
    int direct;
    FILE *stream;
    char temp[PATH_MAX];   /* the temporary file, beside target */
    char target[PATH_MAX]; /* the file renamed over (the link's file for a symbolic link) */
    char shown[PATH_MAX];  /* the path as the caller gave it, for messages */
} write_slot;

static write_slot slots[FILE_WRITE_MAX_OPEN];

void file_write_remove_temporaries(void)
{
    for (int i = 0; i < FILE_WRITE_MAX_OPEN; i++)
        if (__atomic_load_n(&slots[i].state, __ATOMIC_ACQUIRE) == SLOT_TEMP)
            (void)unlink(slots[i].temp); /* async-signal-safe */
}

static int slot_take(void)
{
    for (int i = 0; i < FILE_WRITE_MAX_OPEN; i++) {
        int expected = SLOT_FREE;
        if (__atomic_compare_exchange_n(&slots[i].state, &expected, SLOT_TAKEN, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return i;
    }
    return -1;
}

static void slot_release(write_slot *s)
{
    s->stream = NULL;
    s->fd = -1;
    __atomic_store_n(&s->state, SLOT_FREE, __ATOMIC_RELEASE);
}

/* Signals held off while a temporary file comes into being or goes, so that a handler sees it
 * recorded exactly when it exists under its name. */
static void signals_hold(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

static void signals_restore(const sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, NULL); }

/* Six letters and digits for a temporary name: not a secret (O_EXCL makes the name safe), only
 * unlikely to meet another writer's. */
static void random_letters(char *out, int n)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static uint64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 20) ^
                 __atomic_add_fetch(&counter, 0x9E3779B97F4A7C15ull, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++) {
        x += 0x9E3779B97F4A7C15ull; /* splitmix64 */
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        out[i] = chars[z % (sizeof chars - 1)];
    }
    out[n] = '\0';
}

/* The directory part of path ("." when none) into dir, the name after the last '/' in *base. */
static int split_path(const char *path, char *dir, size_t dir_len, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (!slash) return snprintf(dir, dir_len, ".") >= (int)dir_len ? -1 : 0;
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= dir_len) return -1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    return 0;
}

static const char *node_kind(mode_t mode)
{
    return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device"
           : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/* A direct write to an existing node that is not a regular file. */
static gmm_status open_direct(write_slot *s, const char *path, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ENXIO && (S_ISFIFO(mode) || S_ISSOCK(mode)))
            return gmm_error(GMM_ERR_IO, "%s: cannot write: %s with no reader", path, node_kind(mode));
        return gmm_error(GMM_ERR_IO, "%s: cannot write: %s", path, strerror(e));
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    s->fd = fd;
    s->direct = 1;
    return GMM_OK;
}

/* Sets up slot s for path: a direct write, or a new temporary file beside the target. */
static gmm_status begin(write_slot *s, const char *path)
{
    s->fd = -1;
    s->direct = 0;
    s->stream = NULL;
    s->temp[0] = '\0';
    if (!path || !*path) return gmm_error(GMM_ERR_ARG, "no output file name");
    if (strlen(path) >= sizeof s->shown)
        return gmm_error(GMM_ERR_IO, "%.200s...: file name too long", path);
    strcpy(s->shown, path);
    struct stat lsb, sb;
    int exists = lstat(path, &lsb) == 0;
    if (!exists && errno != ENOENT)
        return gmm_error(GMM_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    if (exists && S_ISLNK(lsb.st_mode)) {
        if (stat(path, &sb) != 0)
            return gmm_error(GMM_ERR_IO, "%s: cannot write: a symbolic link to %s", path,
                             errno == ENOENT ? "nothing" : strerror(errno));
    } else {
        sb = lsb;
    }
    if (exists && S_ISDIR(sb.st_mode))
        return gmm_error(GMM_ERR_IO, "%s: cannot write: is a directory", path);
    if (exists && !S_ISREG(sb.st_mode)) return open_direct(s, path, sb.st_mode);
    if (exists && S_ISLNK(lsb.st_mode)) {
        /* the kernel's and the file's own say on writing through this link, then its file */
        int probe = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (probe < 0) return gmm_error(GMM_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        close(probe);
        if (!realpath(path, s->target))
            return gmm_error(GMM_ERR_IO, "%s: cannot follow the link: %s", path, strerror(errno));
    } else {
        strcpy(s->target, path);
    }
    char dir[PATH_MAX];
    const char *base;
    if (split_path(s->target, dir, sizeof dir, &base) != 0 || !*base)
        return gmm_error(GMM_ERR_IO, "%s: not a file name", path);
    for (int attempt = 0; attempt < 100; attempt++) {
        char letters[8];
        random_letters(letters, 6);
        if (snprintf(s->temp, sizeof s->temp, "%s/.%.200s.%s", dir, base, letters) >= (int)sizeof s->temp)
            return gmm_error(GMM_ERR_IO, "%s: file name too long", path);
        sigset_t old;
        signals_hold(&old);
        int fd = open(s->temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      exists ? 0600 : 0666);
        int e = errno;
        if (fd >= 0) {
            s->fd = fd;
            __atomic_store_n(&s->state, SLOT_TEMP, __ATOMIC_RELEASE);
        }
        signals_restore(&old);
        if (fd < 0 && e == EEXIST) continue;
        if (fd < 0) {
            s->temp[0] = '\0';
            return gmm_error(GMM_ERR_IO, "%s: cannot create a file in %s: %s", path, dir,
                             strerror(e));
        }
        if (exists) { /* the replaced file's mode (a model may hold training images) and owner */
            (void)fchmod(fd, sb.st_mode & 07777);
            if (sb.st_uid != geteuid() || sb.st_gid != getegid())
                (void)(fchown(fd, sb.st_uid, sb.st_gid) == 0 || fchown(fd, (uid_t)-1, sb.st_gid));
        }
        return GMM_OK;
    }
    s->temp[0] = '\0';
    return gmm_error(GMM_ERR_IO, "%s: no free temporary name in %s", path, dir);
}

/* Ends slot s's write: on success (err 0) fsync, close, rename over the target and fsync the
 * directory; on failure (err an errno value) close and remove the temporary file. The slot is
 * free afterwards. Returns 0 or the errno value of the failure (no message recorded, so that an
 * abort keeps the caller's). */
static int finish(write_slot *s, int err)
{
    if (!err && !s->direct && fsync(s->fd) != 0) err = errno;
    int closed = s->stream ? fclose(s->stream) : close(s->fd);
    if (closed != 0 && !err && !(s->direct && errno == EINVAL)) err = errno;
    if (s->direct) {
        slot_release(s);
        return err;
    }
    sigset_t old;
    signals_hold(&old);
    if (!err && rename(s->temp, s->target) != 0) err = errno;
    if (err) (void)unlink(s->temp);
    __atomic_store_n(&s->state, SLOT_TAKEN, __ATOMIC_RELEASE);
    signals_restore(&old);
    if (!err) {
        char dir[PATH_MAX];
        const char *base;
        if (split_path(s->target, dir, sizeof dir, &base) == 0) { /* the new name, on the disk */
            int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dfd >= 0) {
                (void)fsync(dfd);
                close(dfd);
            }
        }
    }
    slot_release(s);
    return err;
}

static gmm_status write_failed(const char *path, int err)
{
    gmm_status st = gmm_error(GMM_ERR_IO, "%s: cannot write: %s", path, strerror(err));
    errno = err;
    return st;
}

/* At most this many pieces a pwritev (IOV_MAX is 1024 on Linux, and at least 16 by POSIX). */
#define WRITE_BATCH 1024
/* Linux: the written pages' writeback is started every this many bytes, so that the disk works
 * while the rest is copied and the final fsync waits for less (49 MB on the H100 machine's ext4:
 * write + fsync 0.044-0.059 s -> 0.038-0.044 s with a start every 4 MiB; scratch test, 4 rounds) */
#define WRITEBACK_STEP ((off_t)4 << 20)

/* The segments into fd (at its start with pwritev, or in order with writev for a direct write
 * to a pipe or device): 0 or an errno value. */
static int write_segments_fd(int fd, int seekable, const file_segment *seg, size_t n_seg)
{
    long iov_max = sysconf(_SC_IOV_MAX);
    const int batch = iov_max > 0 && iov_max < WRITE_BATCH ? (int)iov_max : WRITE_BATCH;
    struct iovec iov[WRITE_BATCH];
    off_t offset = 0, writeback_from = 0;
    size_t s = 0;
    size_t done_in_first = 0; /* bytes of seg[s] already written */
    while (s < n_seg) {
        int n = 0;
        for (size_t t = s; t < n_seg && n < batch; t++) {
            const size_t skip = t == s ? done_in_first : 0;
            if (seg[t].bytes == skip) continue;
            iov[n].iov_base = (void *)((const unsigned char *)seg[t].data + skip);
            iov[n].iov_len = seg[t].bytes - skip;
            n++;
        }
        if (n == 0) break;
        ssize_t r = seekable ? pwritev(fd, iov, n, offset) : writev(fd, iov, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return r < 0 ? errno : EIO;
        offset += (off_t)r;
#ifdef SYNC_FILE_RANGE_WRITE
        if (seekable && offset - writeback_from >= WRITEBACK_STEP) { /* advice: fsync reports */
            (void)sync_file_range(fd, writeback_from, offset - writeback_from,
                                  SYNC_FILE_RANGE_WRITE);
            writeback_from = offset;
        }
#endif
        /* step over what was written: whole segments, then part of one (a short write) */
        size_t left = (size_t)r;
        while (s < n_seg && left >= seg[s].bytes - done_in_first) {
            left -= seg[s].bytes - done_in_first;
            done_in_first = 0;
            s++;
        }
        done_in_first += left;
    }
    (void)writeback_from;
    return 0;
}

gmm_status file_write_all(const char *path, const file_segment *seg, size_t n_seg)
{
    int i = slot_take();
    if (i < 0) {
        errno = EMFILE;
        return gmm_error(GMM_ERR_IO, "%s: too many files written at once", path);
    }
    write_slot *s = &slots[i];
    gmm_status st = begin(s, path);
    if (st != GMM_OK) {
        int e = errno ? errno : EIO;
        if (s->fd >= 0) close(s->fd);
        slot_release(s);
        errno = e;
        return st;
    }
    int err = finish(s, write_segments_fd(s->fd, !s->direct, seg, n_seg));
    return err ? write_failed(path, err) : GMM_OK;
}

int file_write_segments(const char *path, const file_segment *seg, size_t n_seg)
{
    return file_write_all(path, seg, n_seg) == GMM_OK ? 0 : -1;
}

static write_slot *slot_of(FILE *f)
{
    for (int i = 0; f && i < FILE_WRITE_MAX_OPEN; i++)
        if (__atomic_load_n(&slots[i].state, __ATOMIC_ACQUIRE) != SLOT_FREE && slots[i].stream == f)
            return &slots[i];
    return NULL;
}

FILE *file_write_open(const char *path, gmm_status *st)
{
    int i = slot_take();
    if (i < 0) {
        *st = gmm_error(GMM_ERR_IO, "%s: too many files written at once", path);
        return NULL;
    }
    write_slot *s = &slots[i];
    *st = begin(s, path);
    if (*st == GMM_OK && !(s->stream = fdopen(s->fd, "wb")))
        *st = gmm_error(GMM_ERR_NOMEM, "%s: cannot start a stream: %s", path, strerror(errno));
    if (*st != GMM_OK) {
        if (s->fd >= 0) close(s->fd);
        if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SLOT_TEMP) (void)unlink(s->temp);
        slot_release(s);
        return NULL;
    }
    return s->stream;
}

gmm_status file_write_close(FILE *f)
{
    write_slot *s = slot_of(f);
    if (!s) return gmm_error(GMM_ERR_ARG, "file_write_close: not a stream of file_write_open");
    errno = 0;
    int err = fflush(f) != 0 ? (errno ? errno : EIO) : 0;
    if (!err && ferror(f)) err = errno ? errno : EIO;
    char shown[PATH_MAX];
    strcpy(shown, s->shown);
    err = finish(s, err);
    return err ? write_failed(shown, err) : GMM_OK;
}

void file_write_abort(FILE *f)
{
    write_slot *s = slot_of(f);
    if (s) (void)finish(s, ECANCELED);
}

const char *file_write_temp_name(FILE *f)
{
    write_slot *s = slot_of(f);
    return s && !s->direct ? s->temp : "";
}
