/* The kernel layer's table of CUDA entry points (kernels/cuda_api.h), the one definition, and the
 * CUDA backend library's two other exports: its interface checksum and the function the loader
 * calls once to attach it to the core (kernels/cuda_loader.h). Built into libgmm-cuda.so only. */
#include "kernels/cuda_api.h"

#ifndef GMM_CUDA_ABI
#define GMM_CUDA_ABI "unknown"
#endif

extern "C" const gmm_kernels_cuda_api gmm_cuda_api_kernels = {
    sizeof(gmm_kernels_cuda_api),
    GMM_KERNELS_CUDA_API(GMM_CUDA_API_ENTRY)
};

extern "C" const char gmm_cuda_backend_abi[] = GMM_CUDA_ABI;

/* This library's copy of the CPU code records its error details in the core's buffer. */
extern "C" void gmm_cuda_backend_attach(const gmm_error_sink *sink) { gmm_error_forward_to(sink); }
