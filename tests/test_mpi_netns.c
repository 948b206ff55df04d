/* Check suite for distributed gmm-train and gmm-predict across hosts that share no memory,
 * made on this machine: every rank runs in a network namespace of its own (`ip netns`), joined
 * to the others only by a veth pair to a bridge in a private hub namespace (10.77.0.x/24; the
 * root namespace is not touched), and mpirun (in a namespace of its own too) starts one Open MPI
 * daemon per namespace through an rsh agent script that runs `ip netns exec NS ...` for the host
 * it is given (the hostfile names the namespaces' addresses, slots=1 each). The ranks share no
 * memory transport: Open MPI is told `--mca btl tcp,self` (the shared-memory btl, vader, is not
 * even loaded, which the test asserts from btl_base_verbose, with the tcp btl's connections
 * between 10.77.0.x addresses) and the oob over tcp; and each daemon also has a hostname (UTS
 * namespace) and a /dev/shm (a tmpfs in a mount namespace) of its own, so that Open MPI sees
 * separate nodes with separate session directories. Only the file system is shared, as a
 * cluster's network file system would be. 2 and 4 ranks give the one-process model to 1e-10
 * (lower bound, means, covariances) and the same predictions (and gmm-predict on 4 ranks the
 * one-process --proba CSV byte for byte); a rank killed mid-fit (SIGKILL) ends every rank
 * within 10 s with mpirun's message. Every command runs under `timeout`. The namespaces carry
 * this process's id in their names (gmmnet<pid>-...), are made once in the suite's parent
 * process and removed there after the tests, whatever their outcome (and on SIGINT/SIGTERM/
 * SIGHUP); ones left by a test process that no longer exists are removed first. Skips, saying
 * why, when namespaces cannot be made (not root, no `ip` or `unshare`, namespaces denied) or
 * when the programs have no MPI or there is no mpirun. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/io/model_io.h"
#include "tests/testutil.h"

enum { N_IMAGES = 1001, SIDE = 8, MAX_RANKS = 4 };

static char prefix[64];          /* gmmnet<pid>-: every namespace of this run */
static char skip_reason[600];    /* set when the cluster could not be made */
static int setup_broken;         /* namespaces could be made but a later step failed: an error */
static char mpirun_cmd[2400];    /* the mpirun line, up to -np */
static pid_t owner_pid;          /* the process that made the namespaces (Check's parent) */

static const char *const TRAIN_ARGS =
    "-k 3 --max-iter 40 --tol 1e-8 --seed 3 --device cpu --png '' -q";

static void cluster_down(void)
{
    if (!prefix[0] || getpid() != owner_pid) return;
    char cmd[600];
    snprintf(cmd, sizeof cmd,
             "for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^%s'); do "
             "ip netns pids $ns | xargs -r kill -9; ip netns del $ns; done", prefix);
    if (tu_run(cmd, NULL) != 0) fprintf(stderr, "test_mpi_netns: could not remove %s*\n", prefix);
}

static void on_signal(int sig)
{
    cluster_down();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Runs a set-up step; on failure keeps why (the step and its output) and returns 1. */
static int step(const char *what, const char *cmd)
{
    char *out = NULL;
    int rc = tu_run(cmd, &out);
    if (rc != 0)
        snprintf(skip_reason, sizeof skip_reason, "%s failed (exit %d): %.300s", what, rc,
                 out ? out : "");
    free(out);
    return rc != 0;
}

/* The hub (bridge), mpirun's namespace (10.77.0.100) and MAX_RANKS rank hosts 10.77.0.1..;
 * the hostfile and the rsh agent in the temporary directory. */
static void cluster_up(void)
{
    char cmd[4000], tmp[512];
    snprintf(tmp, sizeof tmp, "%s", tu_tmp_path(""));
    owner_pid = getpid();
    snprintf(cmd, sizeof cmd, "ldd '%s/gmm-train' | grep -q libmpi", tu_bin_dir());
    if (tu_run(cmd, NULL) != 0) {
        snprintf(skip_reason, sizeof skip_reason,
                 "the programs have no MPI (MPI=0 or SANITIZE=1 build)");
        return;
    }
    if (tu_run("command -v mpirun >/dev/null", NULL) != 0) {
        snprintf(skip_reason, sizeof skip_reason, "no mpirun on the PATH");
        return;
    }
    if (geteuid() != 0) {
        snprintf(skip_reason, sizeof skip_reason, "not root: network namespaces need root");
        return;
    }
    if (tu_run("command -v ip >/dev/null && command -v unshare >/dev/null && "
               "command -v timeout >/dev/null", NULL) != 0) {
        snprintf(skip_reason, sizeof skip_reason,
                 "no `ip` (iproute2), `unshare` or `timeout` on the PATH");
        return;
    }
    /* namespaces left by test processes that are gone */
    tu_run("for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^gmmnet[0-9]*-'); do "
           "p=${ns#gmmnet}; p=${p%%-*}; kill -0 $p 2>/dev/null && continue; "
           "ip netns pids $ns | xargs -r kill -9; ip netns del $ns; done", NULL);
    snprintf(prefix, sizeof prefix, "gmmnet%ld-", (long)owner_pid);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    atexit(cluster_down);
    const char *T = "timeout 20 ";
    snprintf(cmd, sizeof cmd, "%sip netns add %shub && %sip -n %shub link add br0 type bridge && "
             "%sip -n %shub link set br0 up", T, prefix, T, prefix, T, prefix);
    if (step("making a network namespace (ip netns add)", cmd)) return;
    setup_broken = 1; /* from here on a failed step is the test's failure, not a skip */
    FILE *hosts = fopen(tu_tmp_path("hosts"), "w"), *agent = fopen(tu_tmp_path("agent"), "w");
    ck_assert(hosts && agent);
    fprintf(agent, "#!/bin/sh\n# mpirun's rsh agent: runs the command in the namespace of "
            "host $1, with a hostname and a /dev/shm of its own\nhost=$1; shift\ncase $host in\n");
    for (int i = 0; i <= MAX_RANKS; i++) {
        /* i = 0: mpirun's namespace, not in the hostfile */
        char ns[96], addr[32];
        snprintf(ns, sizeof ns, "%s%s%d", prefix, i ? "r" : "head", i);
        snprintf(addr, sizeof addr, "10.77.0.%d", i ? i : 100);
        snprintf(cmd, sizeof cmd,
                 "%sip netns add %s && %sip -n %shub link add p%d type veth peer name eth0 "
                 "netns %s && %sip -n %shub link set p%d master br0 up && "
                 "%sip -n %s addr add %s/24 dev eth0 && %sip -n %s link set eth0 up && "
                 "%sip -n %s link set lo up", T, ns, T, prefix, i, ns, T, prefix, i, T, ns, addr,
                 T, ns, T, ns);
        if (step("making a namespace with a veth pair to the bridge", cmd)) {
            fclose(hosts);
            fclose(agent);
            return;
        }
        if (i) {
            fprintf(hosts, "%s slots=1\n", addr);
            fprintf(agent, "  %s) ns=%s ;;\n", addr, ns);
        }
    }
    fprintf(agent, "  *) echo \"agent: no namespace for host $host\" >&2; exit 1 ;;\nesac\n"
            "exec ip netns exec \"$ns\" unshare --uts --mount sh -c "
            "'hostname \"$0\" && mount -t tmpfs tmpfs /dev/shm && exec sh -c \"$*\"' "
            "\"$host\" \"$@\"\n");
    fclose(hosts);
    fclose(agent);
    snprintf(cmd, sizeof cmd, "chmod +x '%sagent'", tmp);
    if (step("chmod of the rsh agent", cmd)) return;
    /* the agent works: a command on a rank host sees its own address and hostname */
    snprintf(cmd, sizeof cmd, "timeout 20 '%sagent' 10.77.0.2 'hostname; ip -br -4 addr show "
             "eth0' | tr '\\n' ' ' | grep -q '^10.77.0.2 eth0.*10.77.0.2/24'", tmp);
    if (step("running a command in a rank's namespace (ip netns exec, unshare)", cmd)) return;
    snprintf(mpirun_cmd, sizeof mpirun_cmd,
             "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 "
             "timeout 120 ip netns exec %shead0 mpirun --hostfile '%shosts' "
             "--mca plm_rsh_agent '%sagent' --mca plm_rsh_no_tree_spawn 1 "
             "--mca btl tcp,self --mca oob tcp --mca btl_tcp_if_include 10.77.0.0/24 "
             "--mca oob_tcp_if_include 10.77.0.0/24 -np", prefix, tmp, tmp);
    setup_broken = 0;
}

static int skip(void)
{
    if (setup_broken) ck_abort_msg("setting up the namespaces: %s", skip_reason);
    if (!skip_reason[0]) return 0;
    printf("test_mpi_netns: skipped (%s)\n", skip_reason);
    return 1;
}

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *at = text; (at = strstr(at, needle)); at++) n++;
    return n;
}

START_TEST(test_ranks_across_namespaces)
{
    if (skip()) return;
    const char *dir = tu_fixture_dir("netns-data", N_IMAGES, SIDE, 11, 0);
    char *out = NULL;
    int rc = tu_sh(&out, "{ timeout 120 $B/gmm-train %s %s -o one.bin && timeout 60 "
                   "$B/gmm-predict one.bin --device cpu --out one.csv && timeout 60 "
                   "$B/gmm-predict one.bin --device cpu --proba --out one-proba.csv; }",
                   dir, TRAIN_ARGS);
    ck_assert_msg(rc == 0, "one process: %.3000s", out);
    free(out);
    gmm_model one = {0};
    ck_assert_int_eq(gmm_model_load(tu_tmp_path("one.bin"), &one), GMM_OK);
    ck_assert_int_gt(one.n_iter, 3); /* EM had work to do */
    for (int np = 2; np <= MAX_RANKS; np += 2) {
        /* in braces: tu_sh's 2>&1 then takes every command's stderr (the btl's lines) */
        rc = tu_sh(&out, "{ %s %d --mca btl_base_verbose 100 $B/gmm-train %s %s -o net%d.bin && "
                   "timeout 60 $B/gmm-predict net%d.bin --device cpu --out net%d.csv && "
                   "cmp one.csv net%d.csv; }", mpirun_cmd, np, dir, TRAIN_ARGS, np, np, np, np);
        ck_assert_msg(rc == 0, "%d ranks in namespaces: %.3000s", np, out);
        /* over TCP between the namespaces' addresses, no shared-memory transport loaded */
        int tcp_sends = count_of(out, "mca: bml: Using tcp btl for send to");
        ck_assert_msg(tcp_sends >= np - 1 && strstr(out, "path from 10.77.0.") &&
                      !strstr(out, "vader") && !strstr(out, "component sm"),
                      "%d ranks: not TCP only (%d tcp sends, path %d, vader %d, sm %d):\n"
                      "%.3000s", np,
                      tcp_sends, !!strstr(out, "path from 10.77.0."), !!strstr(out, "vader"),
                      !!strstr(out, "component sm"), out);
        for (int r = 1; r <= np; r++) { /* one rank on each host */
            char tag[64];
            snprintf(tag, sizeof tag, "[10.77.0.%d:", r);
            ck_assert_msg(strstr(out, tag), "no rank on host 10.77.0.%d", r);
        }
        gmm_model m = {0};
        char name[64];
        snprintf(name, sizeof name, "net%d.bin", np);
        ck_assert_int_eq(gmm_model_load(tu_tmp_path(name), &m), GMM_OK);
        size_t cov_n = gmm_cov_size(m.covariance_type, m.n_components, m.dim);
        double e_lb = tu_rel_error_1(m.lower_bound, one.lower_bound);
        double e_mu = tu_rel_error(m.means, one.means, (size_t)m.n_components * m.dim);
        double e_cov = tu_rel_error(m.covariances, one.covariances, cov_n);
        printf("%d ranks in %d network namespaces (TCP only, %d tcp btl connections) against "
               "one process: %d iterations (one process %d), lower bound %.3g, means %.3g, "
               "covariances %.3g; predictions identical\n", np, np, tcp_sends, m.n_iter,
               one.n_iter, e_lb, e_mu, e_cov);
        ck_assert_int_eq(m.n_iter, one.n_iter);
        ck_assert_int_eq(m.n_train_samples, N_IMAGES);
        ck_assert_msg(e_lb <= 1e-10 && e_mu <= 1e-10 && e_cov <= 1e-10, "%d ranks differ", np);
        gmm_model_free(&m);
        free(out);
    }
    /* gmm-predict on 4 hosts: rank 0 gathers the responsibilities over TCP */
    rc = tu_sh(&out, "{ %s %d $B/gmm-predict one.bin --device cpu --proba --out net-proba.csv "
               "&& cmp one-proba.csv net-proba.csv; }", mpirun_cmd, MAX_RANKS);
    ck_assert_msg(rc == 0, "gmm-predict --proba on %d ranks in namespaces: %.3000s", MAX_RANKS,
                  out);
    ck_assert_ptr_nonnull(strstr(out, "scored by 4 ranks"));
    printf("gmm-predict --proba on %d ranks in namespaces: the one-process CSV, byte for byte\n",
           MAX_RANKS);
    free(out);
    gmm_model_free(&one);
}
END_TEST

/* 4 ranks on 4 hosts fitting with --tol 0 (hours of work); rank 2's process gets SIGKILL once
 * rank 0 has printed 10 iterations: every rank ends within 10 s, with mpirun's message. */
START_TEST(test_killed_rank_across_namespaces)
{
    if (skip()) return;
    const char *dir = tu_fixture_dir("netns-data", N_IMAGES, SIDE, 11, 0);
    long rc;
    char *out = NULL;
    char args[600];
    snprintf(args, sizeof args, "%s -k 3 --max-iter 100000000 --tol 0 --seed 3 --device cpu "
             "--png ''", dir);
    double waited = tu_signal_rank_mid_fit(mpirun_cmd, MAX_RANKS, 2, SIGKILL, args, &rc, &out);
    printf("rank 2 of 4 (host 10.77.0.3) killed mid-fit: every rank ended %.2f s after the kill, "
           "exit %ld\n%s", waited, rc, out);
    ck_assert_msg(rc > 0 && rc != 124, "exit %ld", rc);
    ck_assert_msg(waited < 10, "the ranks ended %.1f s after the kill", waited);
    ck_assert_ptr_nonnull(strstr(out, "process rank 2 with PID"));
    ck_assert_ptr_nonnull(strstr(out, "on node 10.77.0.3 exited on signal 9 (Killed)"));
    ck_assert_int_ne(tu_sh(NULL, "test -e kill.bin"), 0); /* nothing written */
    /* and no process of the job is left in any namespace */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "sleep 1; for ns in $(ip netns list | awk '{print $1}' | "
             "grep '^%s'); do ip netns pids $ns; done | wc -l", prefix);
    free(out);
    tu_run(cmd, &out);
    ck_assert_msg(out && atoi(out) == 0, "processes left in the namespaces: %s", out);
    free(out);
}
END_TEST

static Suite *mpi_netns_suite(void)
{
    Suite *s = suite_create("mpi_netns");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    /* in Check's parent: made once, removed after the tests whatever their outcome */
    tcase_add_unchecked_fixture(tc, cluster_up, cluster_down);
    tcase_add_test(tc, test_ranks_across_namespaces);
    tcase_add_test(tc, test_killed_rank_across_namespaces);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(mpi_netns_suite()); }
