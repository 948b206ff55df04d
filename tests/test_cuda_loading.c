/* Check suite for the CUDA backend loaded at run time (kernels/cuda_loader.h): a GPU asked for
 * where none can be used is an error naming what is missing (the backend library, a library it
 * needs, the driver, or CUDA in the build), --device auto then takes the CPU, the CPU core starts
 * and fits in a small address space, and the backend library's error details reach the core's
 * buffer. The programs are copied out of the source tree where the point is that they cannot find
 * the backend library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gmm_status.h"
#include "tests/testutil.h"

/* 500 images of 28 x 28, as MNIST's */
static const char *fixture_dir(void) { return tu_fixture_dir("fixture", 500, 28, 5, 0); }

/* One of the ways a --device gpu run may name what is missing on a machine without a GPU. */
static int names_what_is_missing(const char *out)
{
    static const char *const phrases[] = {
        "libgmm-cuda.so.1",                 /* the backend library, not found */
        "libcudart.so",                     /* the CUDA runtime it needs */
        "libcuda.so.1",                     /* the driver's library */
        "the NVIDIA driver finds no GPU",   /* a driver without a device */
        "this build has no CUDA support",   /* CUDA=0 */
    };
    for (size_t i = 0; i < sizeof phrases / sizeof *phrases; i++)
        if (strstr(out, phrases[i])) return 1;
    return 0;
}

START_TEST(test_gpu_asked_names_what_is_missing)
{
    if (tu_gpu_available()) {
        printf("no-GPU error path skipped: a GPU is present\n");
        return;
    }
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 3 --device gpu -o g.bin --png ''", fixture_dir());
    ck_assert_msg(rc > 0 && rc < 128, "expected a clean failure, got %d: %s", rc, out);
    ck_assert_msg(strstr(out, "error: --device gpu: ") != NULL, "no error line: %s", out);
    ck_assert_msg(names_what_is_missing(out), "the error does not say what is missing: %s", out);
    free(out);
    rc = tu_sh(&out, "$B/gmm-train '%s' -k 3 --device auto -o a.bin --png '' -q", fixture_dir());
    ck_assert_msg(rc == 0, "--device auto did not take the CPU: %s", out);
    ck_assert_msg(strstr(out, "using the CPU backend") != NULL, "%s", out);
    free(out);
}
END_TEST

/* A program whose folder, build tree and install hold no backend library: --device gpu names
 * libgmm-cuda.so.1, --device auto fits on the CPU. */
START_TEST(test_program_without_the_backend_library)
{
    char *out = NULL;
    ck_assert_int_eq(tu_sh(&out, "mkdir -p lonely && cp $B/gmm-train lonely/"), 0);
    free(out);
    int rc = tu_sh(&out, "lonely/gmm-train '%s' -k 3 --device gpu -o g.bin --png ''",
                   fixture_dir());
    if (rc == 0) {
        printf("skipped: a libgmm-cuda.so.1 on the library search path or in LIBDIR was found\n");
        free(out);
        return;
    }
    ck_assert_msg(rc > 0 && rc < 128, "expected a clean failure, got %d: %s", rc, out);
    /* "libgmm-cuda.so.1: cannot open shared object file", or a copy in LIBDIR from another build
     * passed over, or CUDA=0 */
    ck_assert_msg(strstr(out, "libgmm-cuda.so.1") || strstr(out, "this build has no CUDA support"),
                  "the missing backend library is not named: %s", out);
    free(out);
    rc = tu_sh(&out, "lonely/gmm-train '%s' -k 3 -o a.bin --png '' -q", fixture_dir());
    ck_assert_msg(rc == 0 && strstr(out, "using the CPU backend"), "%s", out);
    free(out);
}
END_TEST

/* A backend library beside the program that needs a library which is not there (as a machine
 * without the CUDA runtime lacks libcudart.so.13): the error names that library. */
START_TEST(test_backend_missing_a_dependency)
{
    char *out = NULL;
    if (tu_sh(&out, "command -v cc") != 0) {
        printf("skipped: no C compiler to build the stand-in backend\n");
        free(out);
        return;
    }
    free(out);
    int rc = tu_sh(&out,
                   "mkdir -p dep/gone && cp $B/gmm-train dep/ && "
                   "cc -shared -fPIC -Wl,-soname,libgmm-test-gone.so.1 -o dep/gone/libgmm-test-gone.so.1 "
                   "-x c /dev/null && "
                   "cc -shared -fPIC -o dep/libgmm-cuda.so.1 -x c /dev/null -x none -Wl,--no-as-needed "
                   "dep/gone/libgmm-test-gone.so.1 && rm -r dep/gone");
    ck_assert_msg(rc == 0, "could not build the stand-in backend: %s", out);
    free(out);
    rc = tu_sh(&out, "dep/gmm-train '%s' -k 3 --device gpu -o g.bin --png ''", fixture_dir());
    if (rc == 0) {
        printf("skipped: a libgmm-cuda.so.1 on the library search path or in LIBDIR was found\n");
        free(out);
        return;
    }
    ck_assert_msg(rc > 0 && rc < 128, "expected a clean failure, got %d: %s", rc, out);
    if (strstr(out, "this build has no CUDA support")) {
        printf("dependency check skipped: built without CUDA\n");
    } else {
        ck_assert_msg(strstr(out, "cannot load") && strstr(out, "dep/libgmm-cuda.so.1") &&
                          strstr(out, "libgmm-test-gone.so.1: cannot open shared object file"),
                      "the missing dependency is not named: %s", out);
    }
    free(out);
    rc = tu_sh(&out, "dep/gmm-train '%s' -k 3 -o a.bin --png '' -q", fixture_dir());
    ck_assert_msg(rc == 0 && strstr(out, "using the CPU backend"), "%s", out);
    free(out);
}
END_TEST

/* The CPU core maps no CUDA library, so it starts, and fits 500 digits, in a small address space.
 * OpenBLAS reserves 128 MiB of buffer for each of its threads and loops for ever when that fails
 * (the programs start themselves again with one OpenBLAS thread under such a limit: app/cli.c);
 * OpenMP's thread stacks and glibc's per-thread arenas grow with the cores. So the fit runs with
 * two OpenMP threads and two arenas: the limit then measures the program, not the machine. */
START_TEST(test_cpu_run_in_a_small_address_space)
{
#if defined(__SANITIZE_ADDRESS__)
    printf("skipped under AddressSanitizer (its shadow memory needs terabytes of address space)\n");
    return;
#endif
    char *out = NULL;
    /* OpenBLAS starts its threads when it is loaded, before main: on a many-core machine their
     * stacks alone pass 200 MB, so the start is measured with its pool held to one thread */
    int rc = tu_sh(&out, "ulimit -v 200000 && export OPENBLAS_NUM_THREADS=1 && "
                         "$B/gmm-train --help >/dev/null && $B/gmm-predict --help >/dev/null");
    ck_assert_msg(rc == 0, "the programs do not start under ulimit -v 200000: %s", out);
    free(out);
    /* OPENBLAS_NUM_THREADS is left to the program (it starts itself again with one OpenBLAS
     * thread under a small limit) on machines of a few cores; on many cores OpenBLAS's pool,
     * started before main, may not fit the first start at all */
    rc = tu_sh(&out,
               "ulimit -v 400000 && { [ \"$(nproc)\" -le 4 ] || export OPENBLAS_NUM_THREADS=1; } && "
               "OMP_NUM_THREADS=2 MALLOC_ARENA_MAX=2 "
               "timeout -s KILL 300 $B/gmm-train '%s' --device cpu -k 3 -o small.bin --png '' -q",
               fixture_dir());
    ck_assert_msg(rc == 0, "gmm-train --device cpu under ulimit -v 400000: rc %d: %s", rc, out);
    free(out);
}
END_TEST

/* ---- the error sink: a second copy's details land in this copy's buffer -------------------- */

static char sunk[256];
static gmm_status sink_record(gmm_status status, const char *detail)
{
    snprintf(sunk, sizeof sunk, "%s", detail);
    return status;
}
static const char *sink_message(gmm_status status)
{
    (void)status;
    return sunk[0] ? sunk : "nothing";
}
static void sink_clear(void) { sunk[0] = '\0'; }

START_TEST(test_error_sink_forwards)
{
    static const gmm_error_sink sink = {sink_record, sink_message, sink_clear};
    gmm_error_forward_to(&sink);
    ck_assert_int_eq(gmm_error(GMM_ERR_CUDA, "kernel %d failed", 7), GMM_ERR_CUDA);
    ck_assert_str_eq(sunk, "kernel 7 failed");
    ck_assert_str_eq(gmm_error_message(GMM_ERR_CUDA), "kernel 7 failed");
    gmm_error_clear();
    ck_assert_str_eq(gmm_error_message(GMM_ERR_CUDA), "nothing");
    gmm_error_forward_to(NULL);
    /* the core's own sink records into its own buffer */
    const gmm_error_sink *here = gmm_error_sink_here();
    ck_assert_int_eq(here->record(GMM_ERR_IO, "from the backend"), GMM_ERR_IO);
    ck_assert_str_eq(gmm_error_message(GMM_ERR_IO), "from the backend");
    here->clear();
    ck_assert_str_eq(gmm_error_message(GMM_ERR_IO), gmm_strerror(GMM_ERR_IO));
}
END_TEST

static Suite *cuda_loading_suite(void)
{
    Suite *s = suite_create("cuda_loading");
    TCase *tc = tcase_create("loading");
    tcase_set_timeout(tc, 400);
    tcase_add_test(tc, test_gpu_asked_names_what_is_missing);
    tcase_add_test(tc, test_program_without_the_backend_library);
    tcase_add_test(tc, test_backend_missing_a_dependency);
    tcase_add_test(tc, test_cpu_run_in_a_small_address_space);
    tcase_add_test(tc, test_error_sink_forwards);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(cuda_loading_suite()); }
