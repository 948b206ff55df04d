/* Loading cuBLAS and cuSOLVER with dlopen, each once per process and cuSOLVER only when a
 * factorisation first needs it (see gpu_libs.cuh for why). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include <cublas_api.h>
#include <cusolver_common.h>

#include "kernels/gmm_status.h"
#define GMM_GPU_LIBS_LOADER
#include "kernels/gpu_libs.cuh"

gmm_gpu_lib_table gmm_gpu_lib;

#define GMM_STR(x) GMM_STR2(x)
#define GMM_STR2(x) #x

#ifndef GMM_CUDA_LIBDIR
#define GMM_CUDA_LIBDIR ""
#endif

static const char *const blas_name = "libcublas.so." GMM_STR(CUBLAS_VER_MAJOR);
static const char *const solver_name = "libcusolver.so." GMM_STR(CUSOLVER_VER_MAJOR);

static pthread_once_t load_once = PTHREAD_ONCE_INIT, solver_once = PTHREAD_ONCE_INIT;
static gmm_status load_status = GMM_OK, solver_status = GMM_OK;
#define DETAIL_BYTES 512
static char load_detail[DETAIL_BYTES], solver_detail[DETAIL_BYTES]; /* why a load failed */

/* By its soname (the program's run path, LD_LIBRARY_PATH, the system's), else from the CUDA
 * toolkit the project was built with. */
static void *open_library(const char *name, char *detail)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h && GMM_CUDA_LIBDIR[0]) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", GMM_CUDA_LIBDIR, name);
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (!h) {
        const char *why = dlerror();
        snprintf(detail, DETAIL_BYTES,
                 "cannot load %s, which the GPU backend needs: %s (is the CUDA toolkit's lib64 on "
                 "LD_LIBRARY_PATH?)",
                 name, why ? why : "not found");
    }
    return h;
}

static void *resolve(void *library, const char *library_name, const char *symbol, char *detail,
                     gmm_status *status)
{
    void *f = dlsym(library, symbol);
    if (!f) {
        snprintf(detail, DETAIL_BYTES,
                 "%s has no %s (a CUDA toolkit older than the one gmm was built with?)",
                 library_name, symbol);
        *status = GMM_ERR_CUDA;
    }
    return f;
}

/* The functions of the one library that is open (the other handle NULL) from the table. */
#define GMM_GPU_LIB_RESOLVE(lib, name)                                                             \
    if (lib && !(gmm_gpu_lib.name = (decltype(gmm_gpu_lib.name))resolve(                          \
                     lib, lib##_name, GMM_STR(name), detail, status)))                             \
        return;

static void resolve_table(void *blas, void *solver, char *detail, gmm_status *status)
{
    GMM_GPU_LIB_FUNCTIONS(GMM_GPU_LIB_RESOLVE)
}

static void load_blas(void)
{
    void *blas = open_library(blas_name, load_detail);
    if (!blas) {
        load_status = GMM_ERR_CUDA;
        return;
    }
    resolve_table(blas, NULL, load_detail, &load_status);
}

static void load_solver(void)
{
    void *solver = open_library(solver_name, solver_detail);
    if (!solver) {
        solver_status = GMM_ERR_CUDA;
        return;
    }
    resolve_table(NULL, solver, solver_detail, &solver_status);
}

extern "C" gmm_status gmm_gpu_libs_load(void)
{
    pthread_once(&load_once, load_blas);
    if (load_status != GMM_OK) return gmm_error(load_status, "%s", load_detail);
    return GMM_OK;
}

extern "C" gmm_status gmm_gpu_solver_load(void)
{
    pthread_once(&solver_once, load_solver);
    if (solver_status != GMM_OK) return gmm_error(solver_status, "%s", solver_detail);
    return GMM_OK;
}
