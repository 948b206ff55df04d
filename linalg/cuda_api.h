/* The linear-algebra layer's CUDA entry points that C code calls, as one table: defined in the
 * CUDA backend library (linalg/cuda_api.cu, exported as GMM_LINALG_CUDA_API_SYMBOL) and reached
 * from the core through the stand-ins of linalg/cuda_api_forward.c (kernels/cuda_loader.h says
 * how). A function joins the table by its name in the X-list below and a stand-in there. */
#ifndef GMM_LINALG_CUDA_API_H
#define GMM_LINALG_CUDA_API_H

#include <stddef.h>

#include "kernels/cuda_loader.h"
#include "linalg/chol_inverse.h"
#include "linalg/cholesky.h"
#include "linalg/eigen.h"
#include "linalg/lanczos.h"
#include "linalg/log_det.h"
#include "linalg/trsm.h"

#define GMM_LINALG_CUDA_API_SYMBOL "gmm_cuda_api_linalg"

#define GMM_LINALG_CUDA_API(X)                                                                     \
    X(cholesky_cusolver) X(chol_inverse_cuda) X(trsm_cublas) X(eigen_sym_cusolver)                \
    X(lanczos_largest_cuda) X(log_det_cholesky_cuda)

typedef struct gmm_linalg_cuda_api {
    size_t size; /* sizeof(gmm_linalg_cuda_api): a table of another build does not match */
    GMM_LINALG_CUDA_API(GMM_CUDA_API_FIELD)
} gmm_linalg_cuda_api;

#endif
