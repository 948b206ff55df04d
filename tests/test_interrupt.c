/* Check suite for interrupting gmm-train as a user does: a real gmm-train started as a child
 * process and sent SIGINT or SIGTERM while it fits writes the model so far (not converged, its
 * iterations recorded) and exits with 130; --init-from continues from that file; a second
 * SIGINT exits at once leaving neither a model nor a temporary file (and an older model as it
 * was); --checkpoint N leaves a loadable model every N iterations even when the program is
 * killed; SIGHUP is taken as SIGTERM; an interrupt during the final write ends with 130; SIGPIPE
 * never kills it (a closed pipe is a write error). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernels/clock.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "models/io/model_io.h"
#include "tests/testutil.h"

/* 4000 noisy 20 x 20 images: a full-covariance iteration takes a sizeable fraction of a second,
 * long enough to land a signal inside one. */
#define SLOW_N 4000
#define SLOW_SIDE 20
#define SLOW_K 4
/* every wait is bounded: a hang fails the test instead of stalling the suite */
#define WAIT_SECONDS 120.0

static const char *slow_fixture(void)
{
    return tu_fixture_dir("slow", SLOW_N, SLOW_SIDE, 21, 0);
}

/* A gmm-train child whose stdout and stderr arrive, together, on one pipe. */
typedef struct {
    pid_t pid;
    int fd;
    char out[1 << 16];
    size_t len;
} child;

/* Starts "$B/gmm-train DIR args" in the test's temporary directory (exec'd by the shell, so the
 * pid is gmm-train's own). */
static void child_start(child *c, const char *dir, const char *args)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s/gmm-train' '%s' %s", tu_tmp_path(""),
             tu_bin_dir(), dir, args);
    memset(c, 0, sizeof *c);
    c->pid = fork();
    ck_assert_int_ge(c->pid, 0);
    if (c->pid == 0) {
        dup2(p[1], STDOUT_FILENO);
        dup2(p[1], STDERR_FILENO);
        close(p[0]);
        close(p[1]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    c->fd = p[0];
    fcntl(c->fd, F_SETFL, O_NONBLOCK);
}

/* Reads what has arrived, waiting up to timeout_ms: 1 when something was read, -1 when nothing
 * came, 0 at the end of the output. */
static int child_read(child *c, int timeout_ms)
{
    struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
    if (poll(&pfd, 1, timeout_ms) <= 0) return -1;
    ck_assert_msg(c->len + 1 < sizeof c->out, "more output than expected:\n%s", c->out);
    ssize_t n = read(c->fd, c->out + c->len, sizeof c->out - 1 - c->len);
    if (n > 0) {
        c->len += (size_t)n;
        c->out[c->len] = '\0';
        return 1;
    }
    return n == 0 ? 0 : -1;
}

/* Waits until the output holds text; fails the test (killing the child) after WAIT_SECONDS or
 * when the output ends without it. */
static void child_wait_for(child *c, const char *text)
{
    double deadline = gmm_clock_seconds() + WAIT_SECONDS;
    while (!strstr(c->out, text)) {
        if (child_read(c, 100) == 0 || gmm_clock_seconds() > deadline) {
            kill(c->pid, SIGKILL);
            waitpid(c->pid, NULL, 0);
            ck_abort_msg("'%s' never came; output:\n%s", text, c->out);
        }
    }
}

/* Waits for the child to end (draining its output), at most WAIT_SECONDS; returns the wait
 * status. */
static int child_wait_exit(child *c)
{
    double deadline = gmm_clock_seconds() + WAIT_SECONDS;
    int status = 0;
    for (;;) {
        pid_t r = waitpid(c->pid, &status, WNOHANG);
        if (r == c->pid) break;
        if (gmm_clock_seconds() > deadline) {
            kill(c->pid, SIGKILL);
            waitpid(c->pid, NULL, 0);
            ck_abort_msg("gmm-train did not exit in %.0f s; output:\n%s", WAIT_SECONDS, c->out);
        }
        child_read(c, 20);
    }
    while (child_read(c, 0) == 1) continue;
    close(c->fd);
    return status;
}

/* The last "iter N" progress line's N (0 if none). */
static int last_iteration(const char *out)
{
    int last = 0;
    for (const char *p = out; (p = strstr(p, "iter ")) != NULL; p += 5) {
        if (p != out && p[-1] != '\n') continue;
        last = atoi(p + 5);
    }
    return last;
}

/* The seconds column of progress line "iter N" (-1 if not there). */
static double iteration_seconds(const char *out, int iteration)
{
    char head[32];
    snprintf(head, sizeof head, "iter %4d ", iteration);
    const char *p = strstr(out, head);
    if (!p) return -1;
    const char *end = strstr(p, " s\n");
    if (!end) return -1;
    const char *q = end;
    while (q > p && q[-1] != ' ') q--;
    return atof(q);
}

static int file_exists(const char *name)
{
    struct stat sb;
    return stat(tu_tmp_path(name), &sb) == 0;
}

/* The temporary files left for name (".NAME.XXXXXX", data/file_write.h) in the temp directory. */
static int temp_files_left(const char *name)
{
    char *out = NULL;
    tu_sh(&out, "ls -a | grep -c '^\\.%s\\.' || true", name);
    int n = atoi(out);
    free(out);
    return n;
}

/* A model gmm-train wrote: loads, has the fixture's shape, finite parameters. */
static void load_written_model(const char *name, gmm_model *m)
{
    TU_CHECK_OK(gmm_model_load(tu_tmp_path(name), m));
    ck_assert_int_eq(m->n_components, SLOW_K);
    ck_assert_int_eq(m->dim, SLOW_SIDE * SLOW_SIDE);
    ck_assert_int_eq(m->image_rows, SLOW_SIDE);
    ck_assert_int_eq(m->image_cols, SLOW_SIDE);
    ck_assert_int_eq(m->n_train_samples, SLOW_N);
    ck_assert(isfinite(m->lower_bound));
    size_t K = (size_t)m->n_components, d = (size_t)m->dim;
    size_t n_cov = gmm_cov_size(m->covariance_type, m->n_components, m->dim);
    double wsum = 0;
    for (size_t k = 0; k < K; k++) {
        ck_assert(isfinite(m->weights[k]) && m->weights[k] > 0);
        wsum += m->weights[k];
    }
    ck_assert_double_le(fabs(wsum - 1), 1e-9);
    for (size_t i = 0; i < K * d; i++) ck_assert(isfinite(m->means[i]));
    for (size_t i = 0; i < n_cov; i++)
        ck_assert(isfinite(m->covariances[i]) && isfinite(m->precisions_cholesky[i]));
}

/* The fit that never converges by itself (tol 0): only a signal ends it. */
#define ENDLESS "-k 4 --device cpu --tol 0 --max-iter 1000000 --seed 1 --png ''"

/* SIGINT (or SIGTERM, or SIGHUP) after the first progress line: exit 130, the model of the iterations
 * printed written, and (SIGINT) --init-from continues it to convergence with a lower bound no
 * lower than the interrupted one. */
START_TEST(test_interrupt_writes_model_and_resumes)
{
    const int sig = _i == 0 ? SIGINT : _i == 1 ? SIGTERM : SIGHUP; /* a closed terminal */
    const char *dir = slow_fixture();
    const char *name = sig == SIGINT ? "int.bin" : sig == SIGTERM ? "term.bin" : "hup.bin";
    char args[256];
    snprintf(args, sizeof args, ENDLESS " -o %s", name);
    child c;
    child_start(&c, dir, args);
    child_wait_for(&c, "iter    1 ");
    kill(c.pid, sig);
    int status = child_wait_exit(&c);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130,
                  "expected exit 130, got status %d; output:\n%s", status, c.out);
    ck_assert_msg(strstr(c.out, "interrupted after EM iteration") != NULL, "%s", c.out);
    ck_assert_msg(strstr(c.out, "not converged") != NULL, "%s", c.out);
    ck_assert_int_eq(temp_files_left(name), 0);

    gmm_model m = {0};
    load_written_model(name, &m);
    ck_assert_int_eq(m.converged, 0);
    ck_assert_int_ge(m.n_iter, 1);
    /* the iterations the program printed are the ones the file records */
    ck_assert_int_eq(m.n_iter, last_iteration(c.out));
    ck_assert_str_eq(m.data_path, dir);
    if (sig != SIGINT) {
        gmm_model_free(&m);
        return;
    }

    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' --device cpu --init-from int.bin -o resumed.bin "
                   "--png '' --max-iter 300", dir);
    ck_assert_msg(rc == 0, "gmm-train --init-from: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "continuing from int.bin"));
    ck_assert_msg(strstr(out, "converged in") != NULL, "%s", out);
    free(out);
    gmm_model r = {0};
    load_written_model("resumed.bin", &r); /* K = 4 and full taken from int.bin */
    ck_assert_int_eq(r.converged, 1);
    ck_assert_double_ge(r.lower_bound, m.lower_bound - 1e-9 * fabs(m.lower_bound));

    /* a starting model that contradicts the options or the data: a clear error */
    tu_expect_error("the model has 4 components, -k 3 was given",
                    "$B/gmm-train '%s' --device cpu --init-from int.bin -k 3 -o x.bin", dir);
    tu_expect_error("the model has full covariance, --covariance diag was given",
                    "$B/gmm-train '%s' --device cpu --init-from int.bin --covariance diag -o x.bin",
                    dir);
    const char *small = tu_fixture_dir("small", 100, 6, 3, 0);
    tu_expect_error("the model is for 400 features (20 x 20 images), the data has 6 x 6",
                    "$B/gmm-train '%s' --device cpu --init-from int.bin -o x.bin", small);
    tu_expect_error("no-such.bin", "$B/gmm-train '%s' --init-from no-such.bin", dir);
    gmm_model_free(&m);
    gmm_model_free(&r);
}
END_TEST

/* A second SIGINT while the first is being honoured exits at once with 130: no model file and
 * no temporary file. The first lands a third of the way into an iteration, so the program is
 * still computing when the second follows its acknowledgement. */
START_TEST(test_second_interrupt_exits_at_once)
{
    child c;
    child_start(&c, slow_fixture(), ENDLESS " -o twice.bin");
    child_wait_for(&c, "iter    2 ");
    double t_iter = iteration_seconds(c.out, 2);
    ck_assert_double_gt(t_iter, 0);
    usleep((useconds_t)(t_iter / 3 * 1e6));
    kill(c.pid, SIGINT);
    child_wait_for(&c, "interrupt again to quit at once");
    double t_second = gmm_clock_seconds();
    kill(c.pid, SIGINT);
    int status = child_wait_exit(&c);
    double exit_delay = gmm_clock_seconds() - t_second;
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130,
                  "expected exit 130, got status %d; output:\n%s", status, c.out);
    ck_assert_msg(strstr(c.out, "written to") == NULL, "a model was written:\n%s", c.out);
    ck_assert(!file_exists("twice.bin"));
    ck_assert_int_eq(temp_files_left("twice.bin"), 0);
    printf("second SIGINT: exit %.3f s after it (an iteration takes %.3f s)\n", exit_delay, t_iter);
    /* at once: well within the iteration it would otherwise have finished */
    ck_assert_msg(exit_delay < 1.0 + t_iter, "exit took %.3f s (an iteration takes %.3f s)",
                  exit_delay, t_iter);
}
END_TEST

/* --checkpoint 2: after iteration 2 the model file is there even if the program is then killed
 * outright: not converged, an even iteration count, loadable, no temporary file. */
START_TEST(test_checkpoint_survives_kill)
{
    child c;
    child_start(&c, slow_fixture(), ENDLESS " --checkpoint 2 -o ck.bin");
    child_wait_for(&c, "checkpoint: the model after iteration 2 written to ck.bin");
    child_wait_for(&c, "iter    3 ");
    kill(c.pid, SIGKILL);
    int status = child_wait_exit(&c);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    gmm_model m = {0};
    load_written_model("ck.bin", &m);
    ck_assert_int_eq(m.converged, 0);
    ck_assert_int_ge(m.n_iter, 2);
    ck_assert_int_eq(m.n_iter % 2, 0);
    ck_assert_int_eq(m.max_iter, 1000000);
    ck_assert_int_eq(temp_files_left("ck.bin"), 0);
    gmm_model_free(&m);

    /* the option's range */
    tu_expect_error("--checkpoint must be >= 1", "$B/gmm-train '%s' --checkpoint 0", slow_fixture());
}
END_TEST

/* ---- the stop request inside the initialisations and before the fit ------------------ */

/* An older "model" under name, to be left as it is by a run that writes no model. */
static const char older_model_text[] = "older model bytes: not to be replaced\n";

static void put_older_model(const char *name)
{
    FILE *f = fopen(tu_tmp_path(name), "wb");
    ck_assert_ptr_nonnull(f);
    fputs(older_model_text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* name still holds the older model's bytes, and no temporary file of it is left. */
static void assert_older_model_kept(const char *name)
{
    char back[256] = "";
    FILE *f = fopen(tu_tmp_path(name), "rb");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(back, 1, sizeof back - 1, f);
    fclose(f);
    back[n] = '\0';
    ck_assert_str_eq(back, older_model_text);
    ck_assert_int_eq(temp_files_left(name), 0);
}

/* SIGINT shortly after the fit starts, while the initialisation runs (the kNN search of --init
 * knn, or k-means++ and Lloyd's iterations of k-means with K = 40, on the digits: seconds on
 * any machine): exit 130 without a single EM iteration, "no model written", and the model file
 * that was there before left byte for byte. Before, the program waited for the initialisation
 * and one EM iteration (27 s on the digits) and replaced the file with a 1-iteration model. */
START_TEST(test_interrupt_during_initialisation)
{
    const char *dir = tu_mnist_dir();
    if (!dir) {
        fprintf(stderr, "test_interrupt_during_initialisation: skipped (no MNIST: set "
                        "GMM_TEST_MNIST_DIR)\n");
        return;
    }
    put_older_model("older.bin");
    child c;
    child_start(&c, dir, _i == 0 ? "--init knn --device cpu --seed 1 --png '' -o older.bin"
                                 : "-k 40 --device cpu --seed 1 --png '' -o older.bin");
    child_wait_for(&c, _i == 0 ? "knn init: density peaks" : "fitting K=40 ");
    usleep(300 * 1000);
    kill(c.pid, SIGINT);
    int status = child_wait_exit(&c);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d; output:\n%s",
                  status, c.out);
    ck_assert_msg(strstr(c.out, "interrupted during initialisation; no model written"), "%s",
                  c.out);
    ck_assert_msg(!strstr(c.out, "iter    1 "), "an EM iteration ran:\n%s", c.out);
    assert_older_model_kept("older.bin");
}
END_TEST

/* SIGINT, SIGTERM or SIGHUP before the fit began (here in the UMAP space's kNN search, seconds
 * of the digits on the CPU): nothing to save, so the program ends at once with 130 and says so;
 * the older file stays byte for byte (before, SIGHUP and SIGTERM killed it with 129 and 143). */
START_TEST(test_interrupt_before_fit)
{
    const char *dir = tu_mnist_dir();
    if (!dir) {
        fprintf(stderr, "test_interrupt_before_fit: skipped (no MNIST: set GMM_TEST_MNIST_DIR)\n");
        return;
    }
    static const int signals[3] = {SIGINT, SIGTERM, SIGHUP};
    put_older_model("before.bin");
    child c;
    child_start(&c, dir, "--space umap --device cpu --map '' --png '' -o before.bin");
    child_wait_for(&c, "umap space: neighbours");
    kill(c.pid, signals[_i]);
    int status = child_wait_exit(&c);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130, "signal %d: status %d:\n%s",
                  signals[_i], status, c.out);
    ck_assert_msg(strstr(c.out, "interrupted before the fit began; no model written"), "%s", c.out);
    assert_older_model_kept("before.bin");
}
END_TEST

/* Bytes of a file in the temp directory (*len), or NULL when it cannot be read. */
static unsigned char *slurp(const char *name, size_t *len)
{
    FILE *f = fopen(tu_tmp_path(name), "rb");
    if (!f) return NULL;
    unsigned char *b = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) b = realloc(b, cap = cap ? 2 * cap : 1 << 16);
        size_t r = fread(b + n, 1, cap - n, f);
        if (r == 0) break;
        n += r;
    }
    fclose(f);
    *len = n;
    return b;
}

/* A second SIGINT while the first is honoured, with an older model under the name: exit 130 and
 * either the old file as it was or a complete new model, never a partial one; no temporary
 * file. */
START_TEST(test_second_interrupt_keeps_old_model)
{
    const char *dir = slow_fixture();
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 4 --device cpu --max-iter 1 --png '' -o old.bin", dir);
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
    size_t old_len = 0;
    unsigned char *old = slurp("old.bin", &old_len);
    ck_assert_ptr_nonnull(old);
    child c;
    child_start(&c, dir, ENDLESS " -o old.bin");
    child_wait_for(&c, "iter    2 ");
    double t_iter = iteration_seconds(c.out, 2);
    usleep((useconds_t)(t_iter / 3 * 1e6));
    kill(c.pid, SIGINT);
    child_wait_for(&c, "interrupt again to quit at once");
    kill(c.pid, SIGINT);
    int status = child_wait_exit(&c);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d:\n%s", status, c.out);
    ck_assert_int_eq(temp_files_left("old.bin"), 0);
    gmm_model m = {0};
    load_written_model("old.bin", &m); /* old or new, complete */
    size_t now_len = 0;
    unsigned char *now = slurp("old.bin", &now_len);
    if (!strstr(c.out, "written to old.bin"))
        ck_assert_msg(now_len == old_len && !memcmp(now, old, old_len), "the old model changed");
    gmm_model_free(&m);
    free(old);
    free(now);
}
END_TEST

/* SIGINT while the final model is being written (to a FIFO whose reader holds the write until
 * the signal has come): the model is written whole and the program exits with 130, as the
 * README says, not 0. */
START_TEST(test_interrupt_during_final_write_exits_130)
{
    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s", tu_tmp_path("fifo.bin"));
    unlink(fifo);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    int reader = open(fifo, O_RDONLY | O_NONBLOCK);
    ck_assert_int_ge(reader, 0);
    child c;
    child_start(&c, slow_fixture(), "-k 4 --device cpu --max-iter 3 --seed 1 --png '' -o fifo.bin");
    struct pollfd pfd = {.fd = reader, .events = POLLIN};
    double deadline = gmm_clock_seconds() + WAIT_SECONDS;
    while (poll(&pfd, 1, 100) <= 0) { /* the write has begun when bytes arrive */
        child_read(&c, 0);
        ck_assert_msg(gmm_clock_seconds() < deadline, "no model bytes came:\n%s", c.out);
    }
    kill(c.pid, SIGINT);
    usleep(300000); /* the handler has run; the writer is still held by the full pipe */
    fcntl(reader, F_SETFL, 0);
    FILE *copy = fopen(tu_tmp_path("from-fifo.bin"), "wb");
    ck_assert_ptr_nonnull(copy);
    char buf[1 << 16];
    ssize_t r;
    size_t total = 0;
    while ((r = read(reader, buf, sizeof buf)) > 0) {
        ck_assert_uint_eq(fwrite(buf, 1, (size_t)r, copy), (size_t)r);
        total += (size_t)r;
        child_read(&c, 0);
    }
    fclose(copy);
    close(reader);
    int status = child_wait_exit(&c);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d:\n%s", status, c.out);
    ck_assert_msg(strstr(c.out, "interrupted after the fit") != NULL, "%s", c.out);
    struct stat sb;
    ck_assert_int_eq(stat(fifo, &sb), 0);
    ck_assert(S_ISFIFO(sb.st_mode)); /* written into, never replaced by a regular file */
    gmm_model m = {0};
    load_written_model("from-fifo.bin", &m); /* every byte of it */
    printf("interrupt during the final write: %zu bytes, exit 130\n", total);
    gmm_model_free(&m);
}
END_TEST

/* SIGPIPE: stdout a pipe whose reader has gone is no death (the model is written; exit 1 says
 * the output was lost); a
 * model written to such a pipe (-o /dev/stdout) is an error (exit 2) naming the broken pipe;
 * SIGPIPE sent during the fit is ignored (SIGINT then ends it as usual). */
START_TEST(test_sigpipe)
{
    const char *dir = slow_fixture();
    char *out = NULL;
    tu_sh(&out, "( $B/gmm-train '%s' -k 4 --device cpu --max-iter 2 --png '' -o pipe.bin; "
          "echo $? > pipe.rc ) | head -c 1 > /dev/null; cat pipe.rc", dir);
    /* not killed (141): the run ends and the model is written; the lost output is said with
     * exit 1 (cli_quick_exit; a sanitizer build leaves it to exit(), which exits 0) */
    ck_assert_msg(atoi(out) == 1 || atoi(out) == 0, "exit %s", out);
    free(out);
    gmm_model m = {0};
    load_written_model("pipe.bin", &m);
    gmm_model_free(&m);
    ck_assert_int_eq(temp_files_left("pipe.bin"), 0);

    /* a link of the test's own to the process's stdout, as /dev/stdout is (a faulty program
     * replaces the link, never the machine's /dev/stdout) */
    tu_sh(&out, "ln -sf /proc/self/fd/1 stdout-link; ( $B/gmm-train '%s' -k 4 --device cpu "
          "--max-iter 2 --png '' -q -o stdout-link 2> stdout.err; echo $? > stdout.rc ) | "
          "head -c 10 > /dev/null; cat stdout.rc stdout.err", dir);
    ck_assert_msg(atoi(out) == 2 && strstr(out, "Broken pipe"), "%s", out);
    free(out);

    child c;
    child_start(&c, dir, ENDLESS " -o sigpipe.bin");
    child_wait_for(&c, "iter    1 ");
    kill(c.pid, SIGPIPE);
    child_wait_for(&c, "iter    2 "); /* still fitting */
    kill(c.pid, SIGINT);
    int status = child_wait_exit(&c);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d:\n%s", status, c.out);
    load_written_model("sigpipe.bin", &m);
    gmm_model_free(&m);
}
END_TEST

/* gmm-augment takes SIGHUP as SIGINT and SIGTERM: exit 130, no output file and no temporary
 * file left (the default action killed it with its NAME.partial files behind). */
START_TEST(test_augment_sighup)
{
    const char *in = tu_fixture_dir("augsig", 50, 28, 4, 0);
    char *out = NULL;
    int rc = tu_sh(&out, "rm -rf augsig-out; $B/gmm-augment '%s' augsig-out -n 4000000 --batch 2000 "
                   "> augsig.log 2>&1 & p=$!; i=0; while [ $i -lt 400 ] && ! grep -qs 'images/s' "
                   "augsig.log; do sleep 0.05; i=$((i+1)); done; kill -HUP $p; wait $p; echo $?; "
                   "ls -a augsig-out | grep -v '^\\.\\.\\?$' || true", in);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(!strcmp(out, "130\n"), "exit and files left: %s", out);
    free(out);
}
END_TEST

static Suite *interrupt_suite(void)
{
    Suite *s = suite_create("interrupt");
    TCase *tc = tcase_create("signals");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_interrupt_writes_model_and_resumes, 0, 3);
    tcase_add_test(tc, test_second_interrupt_exits_at_once);
    tcase_add_test(tc, test_checkpoint_survives_kill);
    tcase_add_loop_test(tc, test_interrupt_during_initialisation, 0, 2);
    tcase_add_loop_test(tc, test_interrupt_before_fit, 0, 3);
    tcase_add_test(tc, test_second_interrupt_keeps_old_model);
    tcase_add_test(tc, test_interrupt_during_final_write_exits_130);
    tcase_add_test(tc, test_sigpipe);
    tcase_add_test(tc, test_augment_sighup);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(interrupt_suite()); }
