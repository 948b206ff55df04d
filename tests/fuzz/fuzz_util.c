/* The fuzz harnesses' temporary files (see fuzz_util.h). */
#include "tests/fuzz/fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void remove_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

const char *fuzz_dir(void)
{
    if (dir[0]) return dir;
    struct stat sb;
    const char *base = stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/gmm-fuzz-XXXXXX", base);
    if (!mkdtemp(dir)) abort();
    atexit(remove_dir);
    return dir;
}

const char *fuzz_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", fuzz_dir(), name);
    return buf;
}

void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
}
