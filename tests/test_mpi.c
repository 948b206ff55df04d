/* Check suite for distributed gmm-train under mpirun (Open MPI, the CPU backend): 2 and 3 ranks
 * (1001 images: neither divides) give the lower bound, means and covariances of one process to
 * 1e-10, the same training summary and the same predictions, and gmm-predict on 3 ranks writes
 * the one-process CSV, with --proba too (the same bytes); a rank whose share of a gzip file
 * is cut ends every rank with its message, a truncated raw file is refused by every rank, a
 * rank killed (SIGKILL) mid-fit ends every rank with mpirun's message, and a rank stopped
 * (SIGSTOP) mid-fit ends every rank once the others have waited GMM_MPI_WAIT_S in a sum; never a
 * hang (each run under `timeout`). Skips, saying so, in a build without MPI (MPI=0, SANITIZE=1) or without
 * mpirun. The same over TCP between network namespaces: test_mpi_netns.c. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/idx.h"
#include "models/io/model_io.h"
#include "tests/testutil.h"

#ifndef GMM_BUILT_WITH_MPI
#define GMM_BUILT_WITH_MPI 0
#endif

/* mpirun as root (CI) and one thread per rank on the 2-core machines */
#define MPIRUN                                                                                  \
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 timeout 300 "  \
    "mpirun --oversubscribe -np"

enum { N_IMAGES = 1001, SIDE = 8, CLASSES = 4 };

static int skip(void)
{
    if (!GMM_BUILT_WITH_MPI) {
        printf("test_mpi: skipped (this build has no MPI: MPI=0 or SANITIZE=1)\n");
        return 1;
    }
    if (tu_sh(NULL, "command -v mpirun >/dev/null") != 0) {
        printf("test_mpi: skipped (no mpirun on the PATH)\n");
        return 1;
    }
    return 0;
}

/* Four overlapping classes of 8 x 8 images, raw and gzip, with labels and a test split. */
static const char *data_dir(void)
{
    static char dir[512];
    if (dir[0]) return dir;
    snprintf(dir, sizeof dir, "%s", tu_tmp_path("mpi-data"));
    char cmd[1100], p[1000];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    uint8_t *px = malloc((size_t)N_IMAGES * SIDE * SIDE), *lab = malloc(N_IMAGES);
    uint64_t s = 42;
    for (int split = 0; split < 2; split++) {
        for (int i = 0; i < N_IMAGES; i++) {
            int c = (int)(tu_rand_u64(&s) % CLASSES);
            lab[i] = (uint8_t)c;
            for (int j = 0; j < SIDE * SIDE; j++) {
                double v = 100 + 8 * c + ((j * (c + 1)) % 5) * 4 + 40 * tu_rand_normal(&s);
                px[(size_t)i * SIDE * SIDE + j] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
        const char *pre = split ? "t10k" : "train";
        snprintf(p, sizeof p, "%s/%s-images-idx3-ubyte", dir, pre);
        ck_assert_int_eq(idx_write_images(p, px, N_IMAGES, SIDE, SIDE, 0), GMM_OK);
        snprintf(p, sizeof p, "%s/%s-labels-idx1-ubyte", dir, pre);
        ck_assert_int_eq(idx_write_labels(p, lab, N_IMAGES, 0), GMM_OK);
        if (!split) {
            snprintf(p, sizeof p, "%s/gz", dir);
            snprintf(cmd, sizeof cmd, "mkdir -p %s", p);
            ck_assert_int_eq(system(cmd), 0);
            snprintf(p, sizeof p, "%s/gz/train-images-idx3-ubyte.gz", dir);
            ck_assert_int_eq(idx_write_images(p, px, N_IMAGES, SIDE, SIDE, 1), GMM_OK);
        }
    }
    free(px);
    free(lab);
    return dir;
}

#define TRAIN_ARGS "-k 4 --max-iter 40 --tol 1e-8 --seed 3 --device cpu --png '' -q"

/* The lines of the training summary (accuracy, confusion matrix) of a run's output. */
static char *summary_of(const char *out)
{
    const char *at = strstr(out, "training data:");
    ck_assert_ptr_nonnull(at);
    const char *end = strstr(at, "model written");
    ck_assert_ptr_nonnull(end);
    return strndup(at, (size_t)(end - at));
}

START_TEST(test_ranks_give_one_process_fit)
{
    if (skip()) return;
    const char *dir = data_dir();
    char *out1 = NULL, *out = NULL;
    int rc = tu_sh(&out1, "$B/gmm-train %s " TRAIN_ARGS " -o one.bin && "
                   "$B/gmm-predict one.bin --device cpu --out one.csv", dir);
    ck_assert_msg(rc == 0, "one process: %s", out1);
    gmm_model one = {0};
    ck_assert_int_eq(gmm_model_load(tu_tmp_path("one.bin"), &one), GMM_OK);
    char *sum1 = summary_of(out1);
    for (int np = 2; np <= 3; np++) {
        rc = tu_sh(&out, MPIRUN " %d $B/gmm-train %s " TRAIN_ARGS " --timings -o ranks%d.bin && "
                   "$B/gmm-predict ranks%d.bin --device cpu --out ranks%d.csv && "
                   "cmp one.csv ranks%d.csv", np, dir, np, np, np, np);
        ck_assert_msg(rc == 0, "%d ranks: %s", np, out);
        gmm_model m = {0};
        char name[64];
        snprintf(name, sizeof name, "ranks%d.bin", np);
        ck_assert_int_eq(gmm_model_load(tu_tmp_path(name), &m), GMM_OK);
        size_t cov_n = gmm_cov_size(m.covariance_type, m.n_components, m.dim);
        double e_lb = tu_rel_error_1(m.lower_bound, one.lower_bound);
        double e_mu = tu_rel_error(m.means, one.means, (size_t)m.n_components * m.dim);
        double e_cov = tu_rel_error(m.covariances, one.covariances, cov_n);
        printf("mpirun -np %d against one process: %d iterations (one process %d), lower bound "
               "%.3g, means %.3g, covariances %.3g; predictions identical\n", np, m.n_iter,
               one.n_iter, e_lb, e_mu, e_cov);
        ck_assert_int_eq(m.n_iter, one.n_iter);
        ck_assert_int_eq(m.n_train_samples, N_IMAGES);
        ck_assert_msg(e_lb <= 1e-10 && e_mu <= 1e-10 && e_cov <= 1e-10, "%d ranks differ", np);
        char *sum = summary_of(out);
        ck_assert_msg(strcmp(sum, sum1) == 0, "the summaries differ:\n%s\n---\n%s", sum, sum1);
        /* --timings: rank 0's line, once, with the fit's iterations */
        char want[64];
        const char *t = strstr(out, "timings: data ready");
        ck_assert_msg(t && !strstr(t + 1, "timings:"), "%d ranks: no single timings line: %s", np,
                      out);
        snprintf(want, sizeof want, "(%d iterations,", m.n_iter);
        ck_assert_msg(strstr(t, want), "%d ranks: the timings line lacks %s: %s", np, want, t);
        free(sum);
        gmm_model_free(&m);
        free(out);
        out = NULL;
    }
    ck_assert_int_gt(one.n_iter, 3); /* EM had work to do */
    /* gmm-predict under mpirun: each rank scores its rows, rank 0 writes the same CSV */
    rc = tu_sh(&out, MPIRUN " 3 $B/gmm-predict one.bin --device cpu --out predict3.csv && "
               "cmp one.csv predict3.csv");
    ck_assert_msg(rc == 0, "gmm-predict on 3 ranks: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "scored by 3 ranks"));
    free(out);
    /* and --proba: the responsibilities gathered in row order, the one-process CSV's bytes */
    rc = tu_sh(&out, "{ $B/gmm-predict one.bin --device cpu --proba --out proba1.csv && "
               MPIRUN " 3 $B/gmm-predict one.bin --device cpu --proba --out proba3.csv && "
               "head -1 proba3.csv && wc -l < proba3.csv && cmp proba1.csv proba3.csv; }");
    ck_assert_msg(rc == 0, "gmm-predict --proba on 3 ranks: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "index,component,label,p_0,p_1,p_2,p_3\n1002\n"));
    printf("gmm-predict --proba on 3 ranks: the one-process CSV, byte for byte\n");
    free(out);
    free(sum1);
    free(out1);
    gmm_model_free(&one);
}
END_TEST

/* A gzip file cut in its second half: rank 0 reads its rows and waits in the fit, rank 1 finds
 * the cut and ends both; a raw file one byte short is refused by every rank. */
START_TEST(test_failed_rank_ends_every_rank)
{
    if (skip()) return;
    const char *dir = data_dir();
    char *out = NULL;
    ck_assert_int_eq(tu_sh(NULL, "mkdir -p cut raw && "
                           "head -c $(( $(stat -c %%s %s/gz/train-images-idx3-ubyte.gz) * 3 / 4 )) "
                           "%s/gz/train-images-idx3-ubyte.gz > cut/train-images-idx3-ubyte.gz && "
                           "head -c $(( $(stat -c %%s %s/train-images-idx3-ubyte) - 1 )) "
                           "%s/train-images-idx3-ubyte > raw/train-images-idx3-ubyte",
                           dir, dir, dir, dir), 0);
    int rc = tu_sh(&out, MPIRUN " 2 $B/gmm-train cut " TRAIN_ARGS " -o cut.bin");
    printf("cut gzip file, 2 ranks: exit %d\n%s", rc, out);
    ck_assert_int_ne(rc, 0);
    ck_assert_int_ne(rc, 124); /* not the timeout */
    ck_assert_ptr_nonnull(strstr(out, "rank 1 of 2"));
    ck_assert_ptr_nonnull(strstr(out, "truncated"));
    ck_assert_int_ne(tu_sh(NULL, "test -e cut.bin"), 0); /* nothing written */
    free(out);
    rc = tu_sh(&out, MPIRUN " 2 $B/gmm-train raw " TRAIN_ARGS " -o raw.bin");
    printf("raw file one byte short, 2 ranks: exit %d\n", rc);
    ck_assert_int_ne(rc, 0);
    ck_assert_int_ne(rc, 124);
    ck_assert_ptr_nonnull(strstr(out, "truncated"));
    free(out);
    /* and options that need all the data in one process are refused on every rank */
    rc = tu_sh(&out, MPIRUN " 2 $B/gmm-train %s " TRAIN_ARGS " --pca 5", dir);
    ck_assert_int_ne(rc, 0);
    ck_assert_ptr_nonnull(strstr(out, "--pca needs all the data in one process"));
    free(out);
}
END_TEST

/* Signal `sig` to gmm-train rank 1 of 2 once rank 0 has printed EM iterations, in a fit that
 * would run for hours (--tol 0), under mpirun with the environment `env` (tu_signal_rank_mid_fit):
 * the seconds until every rank had ended, the exit code and the output; no model file. */
static double signal_rank_mid_fit(const char *env, int sig, long *rc, char **out)
{
    char args[600], mpirun[300];
    snprintf(args, sizeof args, "%s -k 4 --max-iter 100000000 --tol 0 --seed 3 --device cpu "
             "--png ''", data_dir());
    snprintf(mpirun, sizeof mpirun, "%s " MPIRUN, env);
    double waited = tu_signal_rank_mid_fit(mpirun, 2, 1, sig, args, rc, out);
    printf("rank 1 sent %s mid-fit (2 ranks%s%s): every rank ended %.2f s later, exit %ld\n%s",
           sig == SIGKILL ? "SIGKILL" : "SIGSTOP", *env ? ", " : "", env, waited, *rc, *out);
    ck_assert_msg(*rc > 0 && *rc != 124, "exit %ld", *rc);
    ck_assert_int_ne(tu_sh(NULL, "test -e kill.bin"), 0); /* nothing written */
    return waited;
}

/* A rank killed mid-fit (SIGKILL) ends every rank within 10 s, with mpirun's message naming the
 * killed rank, and a non-zero exit. */
START_TEST(test_killed_rank_ends_every_rank)
{
    if (skip()) return;
    long rc;
    char *out = NULL;
    double waited = signal_rank_mid_fit("", SIGKILL, &rc, &out);
    ck_assert_msg(waited < 10, "the ranks ended %.1f s after the kill", waited);
    ck_assert_ptr_nonnull(strstr(out, "process rank 1 with PID"));
    ck_assert_ptr_nonnull(strstr(out, "exited on signal 9 (Killed)"));
    free(out);
}
END_TEST

/* A rank stopped mid-fit (SIGSTOP: alive, so mpirun notices nothing) is waited for at most
 * GMM_MPI_WAIT_S seconds (3 here) in a sum; then the waiting rank says so and ends every rank:
 * within 3 + 10 s, a non-zero exit, the message. */
START_TEST(test_stopped_rank_ends_every_rank)
{
    if (skip()) return;
    long rc;
    char *out = NULL;
    double waited = signal_rank_mid_fit("GMM_MPI_WAIT_S=3", SIGSTOP, &rc, &out);
    ck_assert_msg(waited < 13, "the ranks ended %.1f s after the stop", waited);
    ck_assert_ptr_nonnull(strstr(out, "rank 0 of 2: waited 3 s in MPI_"));
    ck_assert_ptr_nonnull(strstr(out, "for the other ranks: one of them has stopped or hangs"));
    free(out);
}
END_TEST

/* With two GPUs or more: mpirun -np 2 with one GPU per rank (NCCL bootstrapped over MPI) gives
 * one process's GPU fit. Skipped, saying so, with fewer. */
START_TEST(test_ranks_on_gpus)
{
    if (skip()) return;
    char *out = NULL;
    int n_gpus = 0;
    if (tu_gpu_available() && tu_sh(&out, "nvidia-smi -L | grep -c '^GPU'") == 0)
        n_gpus = atoi(out);
    free(out);
    out = NULL;
    if (n_gpus < 2) {
        printf("mpirun on GPUs: skipped (%d GPU%s, 2 needed: NCCL takes one GPU per rank)\n",
               n_gpus, n_gpus == 1 ? "" : "s");
        return;
    }
    const char *dir = data_dir();
    int rc = tu_sh(&out, "$B/gmm-train %s -k 4 --max-iter 40 --tol 1e-8 --seed 3 --device gpu "
                   "--png '' -q -o gpu1.bin && " MPIRUN " 2 $B/gmm-train %s -k 4 --max-iter 40 "
                   "--tol 1e-8 --seed 3 --device gpu --png '' -q -o gpu2.bin", dir, dir);
    ck_assert_msg(rc == 0, "%s", out);
    gmm_model a = {0}, b = {0};
    ck_assert_int_eq(gmm_model_load(tu_tmp_path("gpu1.bin"), &a), GMM_OK);
    ck_assert_int_eq(gmm_model_load(tu_tmp_path("gpu2.bin"), &b), GMM_OK);
    double e_lb = tu_rel_error_1(b.lower_bound, a.lower_bound);
    double e_mu = tu_rel_error(b.means, a.means, (size_t)a.n_components * a.dim);
    printf("mpirun -np 2 on 2 GPUs against one GPU: %d iterations (%d), lower bound %.3g, means "
           "%.3g\n", b.n_iter, a.n_iter, e_lb, e_mu);
    ck_assert_int_eq(a.n_iter, b.n_iter);
    ck_assert(e_lb <= 1e-10 && e_mu <= 1e-10);
    gmm_model_free(&a);
    gmm_model_free(&b);
    free(out);
}
END_TEST

static Suite *mpi_suite(void)
{
    Suite *s = suite_create("mpi");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_ranks_give_one_process_fit);
    tcase_add_test(tc, test_failed_rank_ends_every_rank);
    tcase_add_test(tc, test_killed_rank_ends_every_rank);
    tcase_add_test(tc, test_stopped_rank_ends_every_rank);
    tcase_add_test(tc, test_ranks_on_gpus);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(mpi_suite()); }
