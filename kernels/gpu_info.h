/* Whether a CUDA GPU is usable, and its name and memory, for the backend registry, the GPU test
 * suites and gmm-bench. Implemented in gpu_info.cu, in the CUDA backend library; the core reaches
 * it through kernels/cuda_api_forward.c, which answers "no GPU" when that library is missing. */
#ifndef GMM_GPU_INFO_H
#define GMM_GPU_INFO_H

#include <stddef.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the CUDA backend library is there (it is loaded to find out). */
int gmm_cuda_built(void);
/* Number of usable CUDA devices (0 without CUDA, without a driver or without a GPU). Initialises
 * CUDA: in a Check suite call it inside a test (or a child process), not before the fork. */
int gmm_gpu_count(void);
/* gmm_gpu_count with the reason when there is no GPU: GMM_OK and the count (> 0), or
 * GMM_ERR_NO_DEVICE whose detail says what is missing (the CUDA backend library, the NVIDIA
 * driver's libcuda.so.1, a device) in the words of the loader and of CUDA. */
gmm_status gmm_gpu_probe(int *count);
/* Creates the current device's primary context now (cudaFree(0)), which otherwise happens in the
 * first call that needs it; a program overlaps it with other work (app/cli.c). Errors are left
 * for the calls that follow to report. No effect without CUDA. */
void gmm_cuda_start_context(void);
/* Name and free/total memory of the current device; returns 0 on success, -1 without a GPU. */
int gmm_gpu_describe(char *name, size_t name_len, size_t *free_bytes, size_t *total_bytes);

/* Synchronise after every kernel launch so that a fault names its kernel (the programs set it
 * from GMM_SYNC_DEBUG=1). No effect without CUDA. */
void gmm_cuda_set_sync_debug(int on);

/* Releases this process's CUDA context now (cudaDeviceReset), so that a program can overlap the
 * release with other work instead of paying for it at exit. Call it only when CUDA was started
 * (it would start it otherwise), after every resources object and device buffer is freed. No
 * effect without CUDA. */
void gmm_cuda_release(void);

#ifdef __cplusplus
}
#endif
#endif
