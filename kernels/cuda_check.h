/* The one checking macro family for CUDA, cuBLAS and cuSOLVER calls (CUDA sources only).
 * Each records the failing expression, file and line as the error detail and jumps to the
 * enclosing function's `fail:` label with `status` set; GMM_LAUNCH_CHECK follows every kernel
 * launch and, when sync debugging is on (gmm_cuda_set_sync_debug in gpu_info.h; the programs
 * turn it on for GMM_SYNC_DEBUG=1), synchronises so that a fault names its kernel. Functions using them declare `gmm_status status = GMM_OK;`. */
#ifndef GMM_CUDA_CHECK_H
#define GMM_CUDA_CHECK_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif
/* 1 when sync debugging is on. */
int gmm_cuda_sync_debug(void);
const char *gmm_cublas_status_name(cublasStatus_t s);
const char *gmm_cusolver_status_name(cusolverStatus_t s);
#ifdef __cplusplus
}
#endif

#define GMM_CUDA_CHECK(expr)                                                                   \
    do {                                                                                       \
        cudaError_t gmm_e_ = (expr);                                                           \
        if (gmm_e_ != cudaSuccess) {                                                           \
            status = gmm_error(GMM_ERR_CUDA, "%s failed at %s:%d: %s", #expr, __FILE__,       \
                               __LINE__, cudaGetErrorString(gmm_e_));                          \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

#define GMM_CUBLAS_CHECK(expr)                                                                 \
    do {                                                                                       \
        cublasStatus_t gmm_s_ = (expr);                                                        \
        if (gmm_s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
            status = gmm_error(GMM_ERR_CUDA, "%s failed at %s:%d: %s", #expr, __FILE__,       \
                               __LINE__, gmm_cublas_status_name(gmm_s_));                      \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

#define GMM_CUSOLVER_CHECK(expr)                                                               \
    do {                                                                                       \
        cusolverStatus_t gmm_s_ = (expr);                                                      \
        if (gmm_s_ != CUSOLVER_STATUS_SUCCESS) {                                               \
            status = gmm_error(GMM_ERR_CUDA, "%s failed at %s:%d: %s", #expr, __FILE__,       \
                               __LINE__, gmm_cusolver_status_name(gmm_s_));                    \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

/* After every <<<...>>> launch: the launch error, and in debug mode the execution error. */
#define GMM_LAUNCH_CHECK(kernel_name)                                                          \
    do {                                                                                       \
        cudaError_t gmm_e_ = cudaGetLastError();                                               \
        if (gmm_e_ == cudaSuccess && gmm_cuda_sync_debug()) gmm_e_ = cudaDeviceSynchronize();  \
        if (gmm_e_ != cudaSuccess) {                                                           \
            status = gmm_error(GMM_ERR_CUDA, "kernel %s failed at %s:%d: %s", kernel_name,     \
                               __FILE__, __LINE__, cudaGetErrorString(gmm_e_));                \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

#endif
