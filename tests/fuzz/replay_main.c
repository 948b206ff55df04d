/* Replays files (or every file in directories) through a harness's LLVMFuzzerTestOneInput
 * without libFuzzer, so that `make test` re-runs the crash regressions and the seed corpus with
 * gcc (and under the sanitizers with SANITIZE=1). A crash or an abort fails the run. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_util.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) return 1;
    /* an exact-size copy, so that AddressSanitizer sees a read past the end */
    uint8_t *exact = malloc(n ? n : 1);
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, bad = 0;
    /* the harnesses call the programs' option parsers, which print: keep the log readable */
    if (!getenv("GMM_FUZZ_REPLAY_VERBOSE")) {
        if (!freopen("/dev/null", "w", stdout)) return 1;
    }
    for (int a = 1; a < argc; a++) {
        struct stat sb;
        if (stat(argv[a], &sb) != 0) continue; /* an empty regressions folder may be absent */
        if (!S_ISDIR(sb.st_mode)) {
            bad |= replay_file(argv[a]);
            files++;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[a], &names, NULL, alphasort);
        for (int i = 0; i < n; i++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[a], names[i]->d_name);
            if (names[i]->d_name[0] != '.' && stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
                bad |= replay_file(p);
                files++;
            }
            free(names[i]);
        }
        if (n >= 0) free(names);
    }
    fprintf(stderr, "%s: %d inputs replayed\n", argv[0], files);
    return bad;
}
