/* Check suite for the writing side of bad input, each finding as a test run through the real
 * programs: two runs writing one model file, a symbolic link planted at the old fixed temporary
 * name or standing at the target, a device node as the output, the mode of a replaced model,
 * an output naming an input or another output, a missing output directory (refused before the
 * data is read), and a full disk (RLIMIT_FSIZE, SIGXFSZ ignored) for -o, --png, --json,
 * --diagnostics and --out: the old file stays as it was and no temporary file is left. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "models/io/model_io.h"
#include "tests/testutil.h"

/* A small labelled set: each fit takes a few hundredths of a second. */
static const char *fixture(void) { return tu_fixture_dir("hw", 300, 8, 5, 0); }

#define FAST "-k 2 --covariance diag --device cpu --max-iter 3"

/* The whole content of a file of the temp directory (NUL-terminated; *len without it), or NULL. */
static char *slurp(const char *name, size_t *len)
{
    FILE *f = fopen(name[0] == '/' ? name : tu_tmp_path(name), "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0, r;
    char *b = malloc(cap + 1);
    while ((r = fread(b + n, 1, cap - n, f)) > 0)
        if ((n += r) == cap) b = realloc(b, (cap *= 2) + 1);
    fclose(f);
    b[n] = '\0';
    if (len) *len = n;
    return b;
}

static void put(const char *name, const char *text)
{
    FILE *f = fopen(tu_tmp_path(name), "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Temporary files (".NAME.XXXXXX", data/file_write.h) left in the temp directory or in dir. */
static int temps_left(const char *dir, const char *name)
{
    char *out = NULL;
    tu_sh(&out, "ls -a '%s' | grep -c '^\\.%s\\.' || true", dir, name);
    int n = atoi(out);
    free(out);
    return n;
}

static void assert_loads(const char *name)
{
    gmm_model m = {0};
    TU_CHECK_OK(gmm_model_load(tu_tmp_path(name), &m));
    ck_assert_int_eq(m.n_components >= 2, 1);
    gmm_model_free(&m);
}

static mode_t mode_of(const char *name)
{
    struct stat sb;
    ck_assert_int_eq(stat(tu_tmp_path(name), &sb), 0);
    return sb.st_mode & 07777;
}

/* Two runs writing one -o at once, a checkpoint every iteration each: both succeed, the file
 * left is a whole model, and no temporary file is left (the old fixed FILE.tmp was shared:
 * one run's file was cut by the other's). */
START_TEST(test_concurrent_writers)
{
    const char *d = fixture();
    char *out = NULL;
#define RUN_SAME "$B/gmm-train '%s' -k 3 --device cpu --tol 0 --max-iter 25 --checkpoint 1 " \
                 "--png '' -o same.bin"
    int rc = tu_sh(&out, "{ " RUN_SAME " --seed 1 > run1.out 2>&1 & p1=$!; " RUN_SAME " --seed 2 > "
                   "run2.out 2>&1 & p2=$!; wait $p1; a=$?; wait $p2; b=$?; echo $a $b; }", d, d);
    ck_assert_int_eq(rc, 0);
    if (strcmp(out, "0 0\n") != 0) { /* the end of each run's output */
        char *tail = NULL;
        tu_sh(&tail, "tail -n 3 run1.out run2.out");
        ck_abort_msg("exit codes %s; %.3000s", out, tail);
    }
    free(out);
    assert_loads("same.bin");
    ck_assert_int_eq(temps_left(".", "same.bin"), 0);
}
END_TEST

/* A symbolic link planted at the old fixed temporary name FILE.tmp: not followed (the file it
 * points to keeps its bytes), the model written, the link left alone. */
START_TEST(test_planted_symlink_at_old_temp_name)
{
    put("victim.txt", "precious\n");
    unlink(tu_tmp_path("planted.bin.tmp"));
    ck_assert_int_eq(symlink("victim.txt", tu_tmp_path("planted.bin.tmp")), 0);
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' " FAST " --png '' -o planted.bin", fixture());
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
    char *victim = slurp("victim.txt", NULL);
    ck_assert_str_eq(victim, "precious\n");
    free(victim);
    assert_loads("planted.bin");
    struct stat sb;
    ck_assert_int_eq(lstat(tu_tmp_path("planted.bin.tmp"), &sb), 0);
    ck_assert(S_ISLNK(sb.st_mode));
}
END_TEST

/* The target a symbolic link: the file it points to is replaced (with its mode), the link stays
 * a link (docs/usage.md); a link to nothing is refused and nothing is made. */
START_TEST(test_target_symlink)
{
    put("real.bin", "old\n");
    ck_assert_int_eq(chmod(tu_tmp_path("real.bin"), 0640), 0);
    unlink(tu_tmp_path("link.bin"));
    ck_assert_int_eq(symlink("real.bin", tu_tmp_path("link.bin")), 0);
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' " FAST " --png '' -o link.bin", fixture());
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
    struct stat sb;
    ck_assert_int_eq(lstat(tu_tmp_path("link.bin"), &sb), 0);
    ck_assert(S_ISLNK(sb.st_mode));
    assert_loads("real.bin");
    ck_assert_int_eq(mode_of("real.bin"), 0640);
    ck_assert_int_eq(temps_left(".", "real.bin"), 0);

    unlink(tu_tmp_path("dangling.bin"));
    ck_assert_int_eq(symlink("nowhere.bin", tu_tmp_path("dangling.bin")), 0);
    tu_expect_error("symbolic link", "$B/gmm-train '%s' " FAST " -o dangling.bin", fixture());
    ck_assert_int_ne(access(tu_tmp_path("nowhere.bin"), F_OK), 0);
}
END_TEST

/* A device to write to: as root a node of the test's own (c 1 minor, as /dev/NAME) in the temp
 * directory, so that a faulty program cannot replace the machine's /dev/null or /dev/full;
 * otherwise /dev/NAME, which the program could not replace anyway. */
static const char *own_device(const char *name, unsigned minor)
{
    static char path[2][600];
    char *p = path[minor == 3 ? 0 : 1];
    if (geteuid() != 0) {
        snprintf(p, 600, "/dev/%s", name);
        return p;
    }
    snprintf(p, 600, "%s", tu_tmp_path(name));
    struct stat sb;
    if (stat(p, &sb) != 0 || !S_ISCHR(sb.st_mode)) {
        unlink(p);
        ck_assert_int_eq(mknod(p, S_IFCHR | 0666, makedev(1, minor)), 0);
    }
    return p;
}

static const char *null_node(void) { return own_device("null", 3); }

/* Device nodes: a null device is written into, never replaced (as root the old code made it
 * a regular file). As root the test makes its own node (c 1 3, as /dev/null) in the temp
 * directory, so that a faulty program cannot replace the machine's /dev/null; otherwise it uses
 * /dev/null, which it could not replace anyway. /dev/full is an error that says the disk is
 * full. */
START_TEST(test_device_node)
{
    const char *null_dev = null_node();
    if (geteuid() != 0) printf("test_device_node: not root: /dev/null could not be replaced anyway\n");
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' " FAST " -o %s --png %s --json %s", fixture(), null_dev,
                   null_dev, null_dev);
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
    struct stat sb;
    ck_assert_int_eq(stat(null_dev, &sb), 0);
    ck_assert_msg(S_ISCHR(sb.st_mode), "%s is no longer a character device", null_dev);
    ck_assert_int_eq(tu_sh(&out, "$B/gmm-train '%s' " FAST " --png '' -o dev.bin", fixture()), 0);
    free(out);
    rc = tu_sh(&out, "$B/gmm-predict dev.bin '%s' --out %s", fixture(), null_dev);
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
    ck_assert_int_eq(stat(null_dev, &sb), 0);
    ck_assert(S_ISCHR(sb.st_mode));
    const char *full_dev = own_device("full", 7);
    tu_expect_error("No space left", "$B/gmm-train '%s' " FAST " --png '' -o %s", fixture(), full_dev);
    ck_assert_int_eq(stat(full_dev, &sb), 0);
    ck_assert(S_ISCHR(sb.st_mode));
}
END_TEST

/* A new model has 0666 less the umask; a replaced one keeps its mode (0600 stays 0600). */
START_TEST(test_mode_kept)
{
    unlink(tu_tmp_path("mode.bin"));
    char *out = NULL;
    int rc = tu_sh(&out, "umask 022; $B/gmm-train '%s' " FAST " --png mode.png -o mode.bin",
                   fixture());
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
    ck_assert_int_eq(mode_of("mode.bin"), 0644);
    ck_assert_int_eq(chmod(tu_tmp_path("mode.bin"), 0600), 0);
    ck_assert_int_eq(chmod(tu_tmp_path("mode.png"), 0640), 0);
    rc = tu_sh(&out, "umask 022; $B/gmm-train '%s' " FAST " --seed 3 --png mode.png -o mode.bin",
               fixture());
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
    ck_assert_int_eq(mode_of("mode.bin"), 0600);
    ck_assert_int_eq(mode_of("mode.png"), 0640);
    assert_loads("mode.bin");
}
END_TEST

/* Runs a command that must fail with exit code `code` and `needle` in its message (before_work:
 * before any fit), and checks that the file `kept` has the same bytes after it. */
static void expect_failure(int code, const char *needle, const char *kept, const char *cmd,
                           int before_work)
{
    size_t before_len = 0, after_len = 0;
    char *before = slurp(kept, &before_len);
    ck_assert_ptr_nonnull(before);
    char *out = NULL;
    int rc = tu_sh(&out, "%s", cmd);
    ck_assert_msg(rc == code, "exit %d (expected %d): %s\n%s", rc, code, cmd, out);
    ck_assert_msg(strstr(out, needle) != NULL, "'%s' not in: %s", needle, out);
    ck_assert_msg(!before_work || strstr(out, "fitting") == NULL, "refused only after the work: %s",
                  out);
    free(out);
    char *after = slurp(kept, &after_len);
    ck_assert_msg(after_len == before_len && !memcmp(before, after, before_len), "%s changed", kept);
    free(before);
    free(after);
}

static void expect_refusal(int code, const char *needle, const char *kept, const char *cmd)
{
    expect_failure(code, needle, kept, cmd, 1);
}

/* An output naming an input or another output: refused (exit 1) before anything is read, the
 * input unchanged. */
START_TEST(test_output_equal_to_input)
{
    const char *d = fixture();
    char images[600], labels[600], cmd[2048];
    snprintf(images, sizeof images, "%s/train-images-idx3-ubyte", d);
    snprintf(labels, sizeof labels, "%s/train-labels-idx1-ubyte", d);
    snprintf(cmd, sizeof cmd, "$B/gmm-train '%s' " FAST " -o '%s'", images, images);
    expect_refusal(1, "is the input", images, cmd);
    snprintf(cmd, sizeof cmd, "$B/gmm-train '%s' " FAST " -o '%s'", d, labels);
    expect_refusal(1, "is the input", labels, cmd);
    snprintf(cmd, sizeof cmd, "$B/gmm-train '%s' " FAST " --checkpoint 1 --png '%s'", d, images);
    expect_refusal(1, "is the input", images, cmd);
    snprintf(cmd, sizeof cmd, "$B/gmm-train '%s' " FAST " --json '%s'", d, labels);
    expect_refusal(1, "is the input", labels, cmd);

    char *out = NULL;
    ck_assert_int_eq(tu_sh(&out, "$B/gmm-train '%s' " FAST " --png '' -o io.bin", d), 0);
    free(out);
    snprintf(cmd, sizeof cmd, "$B/gmm-train '%s' " FAST " -o io.bin --json io.bin", d);
    expect_refusal(1, "the same file", "io.bin", cmd);
    snprintf(cmd, sizeof cmd, "$B/gmm-train '%s' " FAST " -o io.bin --png ./io.bin", d);
    expect_refusal(1, "the same file", "io.bin", cmd);
    snprintf(cmd, sizeof cmd, "$B/gmm-train '%s' " FAST " -o new.bin --json new.bin", d);
    expect_refusal(1, "the same file", "io.bin", cmd);
    ck_assert_int_ne(access(tu_tmp_path("new.bin"), F_OK), 0);
    snprintf(cmd, sizeof cmd, "$B/gmm-train '%s' " FAST " -o x.bin --images '%s'", d, images);
    expect_refusal(2, "not a directory", images, cmd);
    snprintf(cmd, sizeof cmd, "$B/gmm-train '%s' " FAST " -o x.bin --diagnostics io.bin", d);
    expect_refusal(2, "not a directory", "io.bin", cmd);

    snprintf(cmd, sizeof cmd, "$B/gmm-predict io.bin '%s' --out io.bin", d);
    expect_refusal(1, "is the input", "io.bin", cmd);
    snprintf(cmd, sizeof cmd, "$B/gmm-predict io.bin '%s' --json '%s/t10k-images-idx3-ubyte'", d, d);
    expect_refusal(1, "is the input", "io.bin", cmd);
    snprintf(cmd, sizeof cmd, "$B/gmm-predict io.bin '%s' --out p.csv --json p.csv", d);
    expect_refusal(1, "the same file", "io.bin", cmd);
    snprintf(cmd, sizeof cmd, "$B/gmm-augment '%s' aug -n 10 --png '%s'", d, images);
    expect_refusal(1, "is the input", images, cmd);

    /* continuing a model into its own file is allowed: it is read whole before the fit */
    int rc = tu_sh(&out, "$B/gmm-train '%s' --device cpu --max-iter 3 --init-from io.bin --png '' "
                   "-o io.bin", d);
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
    assert_loads("io.bin");
}
END_TEST

/* A missing or unwritable output directory fails at once (exit 2), before the data is read: no
 * fit is lost and no model written. */
START_TEST(test_missing_directory_before_fit)
{
    const char *d = tu_mnist_dir() ? tu_mnist_dir() : fixture(); /* all 19690 images: not read */
    static const char *const options[] = {"-o nodir/m.bin", "--png nodir/p.png",
                                          "--json nodir/s.json", "--images nodir/sub",
                                          "--diagnostics nodir/sub"};
    for (int i = 0; i < 5; i++) {
        char *out = NULL;
        int rc = tu_sh(&out, "$B/gmm-train '%s' --device cpu %s", d, options[i]);
        ck_assert_msg(rc == 2, "%s: exit %d: %s", options[i], rc, out);
        ck_assert_msg(strstr(out, "nodir does not exist") != NULL, "%s: %s", options[i], out);
        ck_assert_msg(strstr(out, "data:") == NULL && strstr(out, "fitting") == NULL,
                      "%s: read or fitted first: %s", options[i], out);
        free(out);
    }
    ck_assert_int_ne(access(tu_tmp_path("model.bin"), F_OK), 0);
    char *out = NULL;
    ck_assert_int_eq(tu_sh(&out, "$B/gmm-train '%s' " FAST " --png '' -o md.bin", fixture()), 0);
    free(out);
    tu_expect_error("nodir does not exist", "$B/gmm-predict md.bin '%s' --out nodir/p.csv",
                    fixture());
    tu_expect_error("nodir/sub", "$B/gmm-augment '%s' nodir/sub -n 10", fixture());
    if (geteuid() != 0) { /* root writes anywhere */
        ck_assert_int_eq(tu_sh(&out, "mkdir -p ro && chmod 555 ro"), 0);
        free(out);
        tu_expect_error("cannot write in the directory", "$B/gmm-train '%s' -o ro/m.bin", d);
    }
}
END_TEST

/* A full disk (a 512-byte file size limit with SIGXFSZ ignored, as a full disk fails a write):
 * the old -o, --png, --json, --diagnostics and --out files stay as they were, exit 2, no
 * temporary file left. */
START_TEST(test_full_disk)
{
    const char *d = fixture();
    char *out = NULL;
    ck_assert_int_eq(tu_sh(&out, "$B/gmm-train '%s' " FAST " --png '' -o full.bin", d), 0);
    free(out);
    put("full.png", "old picture\n");
    put("full.json", "{\"old\": true}\n");
    put("full.csv", "old,csv\n");
    ck_assert_int_eq(tu_sh(&out, "mkdir -p fulldiag"), 0);
    free(out);
    put("fulldiag/mahalanobis.txt", "old table\n");
    static const struct {
        const char *kept, *dir, *name, *args;
        int code;
        const char *needle;
    } cases[] = {
        {"full.bin", ".", "full.bin", "--png '' -o full.bin", 2, "File too large"},
        {"full.png", ".", "full.png", "-o %s --png full.png", 2, "File too large"},
        {"full.json", ".", "full.json", "-o %s --png '' --json full.json", 2, "File too large"},
        {"fulldiag/mahalanobis.txt", "fulldiag", "mahalanobis.txt",
         "-o %s --png '' --diagnostics fulldiag", 2, "File too large"},
    };
    char cmd[1024], args[700];
    for (int i = 0; i < 4; i++) { /* -o the null device: only the output under test fails */
        snprintf(args, sizeof args, cases[i].args, null_node());
        snprintf(cmd, sizeof cmd, "trap '' XFSZ; ulimit -f 1; exec $B/gmm-train '%s' " FAST " %s",
                 d, args);
        expect_failure(cases[i].code, cases[i].needle, cases[i].kept, cmd, 0);
        ck_assert_int_eq(temps_left(cases[i].dir, cases[i].name), 0);
    }
    ck_assert_int_eq(temps_left("fulldiag", "separation.txt"), 0);
    snprintf(cmd, sizeof cmd, "trap '' XFSZ; ulimit -f 1; exec $B/gmm-predict full.bin '%s' --out full.csv",
             d);
    expect_failure(2, "File too large", "full.csv", cmd, 0);
    ck_assert_int_eq(temps_left(".", "full.csv"), 0);
    assert_loads("full.bin");
}
END_TEST

static Suite *hostile_write_suite(void)
{
    Suite *s = suite_create("hostile_write");
    TCase *tc = tcase_create("outputs");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_concurrent_writers);
    tcase_add_test(tc, test_planted_symlink_at_old_temp_name);
    tcase_add_test(tc, test_target_symlink);
    tcase_add_test(tc, test_device_node);
    tcase_add_test(tc, test_mode_kept);
    tcase_add_test(tc, test_output_equal_to_input);
    tcase_add_test(tc, test_missing_directory_before_fit);
    tcase_add_test(tc, test_full_disk);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(hostile_write_suite()); }
