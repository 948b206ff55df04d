/* cuBLAS and cuSOLVER reached through dlopen, not linked (included by kernels/gpu.cu only, after
 * the vendor headers). Linking them makes the dynamic loader run libcublasLt's ~6500 static
 * constructors before main: about 0.09 s on the H100 machine, 0.3 s on a small CPU, on every
 * start of every program, even `--help`. Loaded here, gmm_gpu_libs_load (kernels/gpu.h) can run
 * on a thread of its own while CUDA creates its context, and a CPU run never pays for it;
 * cuSOLVER (gmm_gpu_solver_load) waits until a factorisation first asks for it.
 *
 * Each function the project calls is a pointer in gmm_gpu_lib, typed from the vendor's own
 * declaration (decltype), filled by dlsym; the macros below send the calls in gpu.cu to those
 * pointers, so the call sites read as plain cuBLAS/cuSOLVER. A call of a function missing here
 * fails to link (the libraries are not linked), never a silent fallback. */
#ifndef GMM_GPU_LIBS_CUH
#define GMM_GPU_LIBS_CUH

#include <cublas_v2.h>
#include <cusolverDn.h>

/* (library, symbol): the symbol's real (macro-expanded) name */
#define GMM_GPU_LIB_FUNCTIONS(X)                                                                   \
    X(blas, cublasCreate_v2)                                                                       \
    X(blas, cublasDestroy_v2)                                                                      \
    X(blas, cublasSetStream_v2)                                                                    \
    X(blas, cublasSetMathMode)                                                                     \
    X(blas, cublasDgemm_v2)                                                                        \
    X(blas, cublasSgemm_v2)                                                                        \
    X(blas, cublasDgemmStridedBatched)                                                             \
    X(blas, cublasDsyrk_v2)                                                                        \
    X(blas, cublasSsyrk_v2)                                                                        \
    X(blas, cublasDtrsm_v2)                                                                        \
    X(blas, cublasDgemv_v2)                                                                        \
    X(blas, cublasSgemv_v2)                                                                        \
    X(solver, cusolverDnCreate)                                                                    \
    X(solver, cusolverDnDestroy)                                                                   \
    X(solver, cusolverDnSetStream)                                                                 \
    X(solver, cusolverDnDpotrf_bufferSize)                                                         \
    X(solver, cusolverDnDpotrf)                                                                    \
    X(solver, cusolverDnDpotrfBatched)                                                             \
    X(solver, cusolverDnXtrtri_bufferSize)                                                         \
    X(solver, cusolverDnXtrtri)                                                                    \
    X(solver, cusolverDnDsyevd_bufferSize)                                                         \
    X(solver, cusolverDnDsyevd)

struct gmm_gpu_lib_table {
#define GMM_GPU_LIB_FIELD(lib, name) decltype(&::name) name;
    GMM_GPU_LIB_FUNCTIONS(GMM_GPU_LIB_FIELD)
#undef GMM_GPU_LIB_FIELD
};

/* Filled by gmm_gpu_libs_load; read only after it returned GMM_OK. */
extern gmm_gpu_lib_table gmm_gpu_lib;

/* The calls of gpu.cu go through the table (cublasCreate is cuBLAS's own macro for
 * cublasCreate_v2, and so on; a macro does not expand inside itself). Not in the loader, which
 * names the real symbols. */
#ifndef GMM_GPU_LIBS_LOADER
#define cublasCreate_v2 (gmm_gpu_lib.cublasCreate_v2)
#define cublasDestroy_v2 (gmm_gpu_lib.cublasDestroy_v2)
#define cublasSetStream_v2 (gmm_gpu_lib.cublasSetStream_v2)
#define cublasSetMathMode (gmm_gpu_lib.cublasSetMathMode)
#define cublasDgemm_v2 (gmm_gpu_lib.cublasDgemm_v2)
#define cublasSgemm_v2 (gmm_gpu_lib.cublasSgemm_v2)
#define cublasDgemmStridedBatched (gmm_gpu_lib.cublasDgemmStridedBatched)
#define cublasDsyrk_v2 (gmm_gpu_lib.cublasDsyrk_v2)
#define cublasSsyrk_v2 (gmm_gpu_lib.cublasSsyrk_v2)
#define cublasDtrsm_v2 (gmm_gpu_lib.cublasDtrsm_v2)
#define cublasDgemv_v2 (gmm_gpu_lib.cublasDgemv_v2)
#define cublasSgemv_v2 (gmm_gpu_lib.cublasSgemv_v2)
#define cusolverDnCreate (gmm_gpu_lib.cusolverDnCreate)
#define cusolverDnDestroy (gmm_gpu_lib.cusolverDnDestroy)
#define cusolverDnSetStream (gmm_gpu_lib.cusolverDnSetStream)
#define cusolverDnDpotrf_bufferSize (gmm_gpu_lib.cusolverDnDpotrf_bufferSize)
#define cusolverDnDpotrf (gmm_gpu_lib.cusolverDnDpotrf)
#define cusolverDnDpotrfBatched (gmm_gpu_lib.cusolverDnDpotrfBatched)
#define cusolverDnXtrtri_bufferSize (gmm_gpu_lib.cusolverDnXtrtri_bufferSize)
#define cusolverDnXtrtri (gmm_gpu_lib.cusolverDnXtrtri)
#define cusolverDnDsyevd_bufferSize (gmm_gpu_lib.cusolverDnDsyevd_bufferSize)
#define cusolverDnDsyevd (gmm_gpu_lib.cusolverDnDsyevd)
#endif

#endif
