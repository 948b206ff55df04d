/* Loading cuBLAS and cuSOLVER with dlopen, once per process (see gpu_libs.cuh for why). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include <cublas_api.h>
#include <cusolver_common.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"
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

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static gmm_status load_status = GMM_OK;
static char load_detail[512];

/* By its soname (the program's run path, LD_LIBRARY_PATH, the system's), else from the CUDA
 * toolkit the project was built with. */
static void *open_library(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h && GMM_CUDA_LIBDIR[0]) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", GMM_CUDA_LIBDIR, name);
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (!h) {
        const char *why = dlerror();
        snprintf(load_detail, sizeof load_detail,
                 "cannot load %s, which the GPU backend needs: %s (is the CUDA toolkit's lib64 on "
                 "LD_LIBRARY_PATH?)",
                 name, why ? why : "not found");
    }
    return h;
}

static void *resolve(void *library, const char *library_name, const char *symbol)
{
    void *f = dlsym(library, symbol);
    if (!f) {
        snprintf(load_detail, sizeof load_detail,
                 "%s has no %s (a CUDA toolkit older than the one gmm was built with?)",
                 library_name, symbol);
        load_status = GMM_ERR_CUDA;
    }
    return f;
}

static void load_libraries(void)
{
    void *blas = open_library(blas_name);
    void *solver = blas ? open_library(solver_name) : NULL;
    if (!blas || !solver) {
        load_status = GMM_ERR_CUDA;
        return;
    }
#define GMM_GPU_LIB_RESOLVE(lib, name)                                                             \
    if (!(gmm_gpu_lib.name = (decltype(gmm_gpu_lib.name))resolve(lib, lib##_name, GMM_STR(name)))) \
        return;
    GMM_GPU_LIB_FUNCTIONS(GMM_GPU_LIB_RESOLVE)
#undef GMM_GPU_LIB_RESOLVE
}

extern "C" gmm_status gmm_gpu_libs_load(void)
{
    pthread_once(&load_once, load_libraries);
    if (load_status != GMM_OK) return gmm_error(load_status, "%s", load_detail);
    return GMM_OK;
}
