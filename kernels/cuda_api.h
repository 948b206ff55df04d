/* The kernel layer's CUDA entry points that C code calls, as one table: defined in the CUDA
 * backend library (kernels/cuda_api.cu, exported as GMM_KERNELS_CUDA_API_SYMBOL) and reached
 * from the core through the stand-ins of kernels/cuda_api_forward.c (kernels/cuda_loader.h says
 * how). A function joins the table by its name in the X-list below and a stand-in there. */
#ifndef GMM_KERNELS_CUDA_API_H
#define GMM_KERNELS_CUDA_API_H

#include <stddef.h>

#include "kernels/bayes_covariance.h"
#include "kernels/compact.h"
#include "kernels/conv2d.h"
#include "kernels/convert.h"
#include "kernels/covariance.h"
#include "kernels/cuda_loader.h"
#include "kernels/dist_hist.h"
#include "kernels/entropy.h"
#include "kernels/estep_rows.h"
#include "kernels/fuzzy_set.h"
#include "kernels/gpu.h"
#include "kernels/gpu_info.h"
#include "kernels/kmeans.h"
#include "kernels/knn.h"
#include "kernels/matmul.h"
#include "kernels/matvec.h"
#include "kernels/mixture_weights.h"
#include "kernels/reduce.h"
#include "kernels/scaled_centre.h"
#include "kernels/spmv.h"
#include "kernels/transpose.h"
#include "kernels/umap_sgd.h"
#include "kernels/wcov.h"
#include "kernels/wsum.h"

#define GMM_KERNELS_CUDA_API_SYMBOL "gmm_cuda_api_kernels"

/* knn_blocks is not here: its distance kernel is device code, so only CUDA code can call it. */
#define GMM_KERNELS_CUDA_API(X)                                                                    \
    /* the resources object (gpu.h) and the device (gpu_info.h) */                                 \
    X(gmm_gpu_libs_load) X(gmm_gpu_solver_load) X(gmm_gpu_create) X(gmm_gpu_create_on)            \
    X(gmm_gpu_destroy) X(gmm_gpu_blas_warm_up_start) X(gmm_gpu_created_count) X(gmm_gpu_stream)    \
    X(gmm_gpu_tf32)                                                                                \
    X(gmm_gpu_count) X(gmm_cuda_start_context) X(gmm_gpu_describe) X(gmm_gpu_probe)               \
    X(gmm_cuda_set_sync_debug) X(gmm_cuda_release)                                                 \
    /* kNN, distance histograms, entropy, transpose, 2-D convolution, conversion */                \
    X(knn_cublas) X(knn_cuda_host) X(dist_hist_cuda) X(dist_hist_cuda_host) X(entropy_cuda)       \
    X(entropy_cuda_host) X(transpose_cuda) X(transpose_cuda_host) X(conv2d_i32_cuda)              \
    X(conv2d_f32_cuda) X(conv2d_i32_cuda_host) X(conv2d_f32_cuda_host) X(convert_rows_cuda)       \
    /* the dense products */                                                                       \
    X(matmul_cuda) X(matmul_cublas) X(covariance_cuda) X(covariance_cublas) X(wcov_cuda)          \
    X(wcov_cublas) X(matvec_f32_cuda) X(matvec_f32_cublas) X(matvec_f64_cublas)                   \
    /* the E-step's rows and the reductions */                                                     \
    X(estep_rows_cuda) X(estep_rows_f32_cuda) X(estep_rows_from_dist_cuda) X(reduce_sum_cuda)     \
    X(reduce_cols_cuda)                                                                            \
    X(reduce_resp_entropy_cuda) X(bayes_covariance_cuda)                                           \
    /* the k-means steps */                                                                        \
    X(kmeans_to_double_cuda) X(kmeans_column_sums_cuda) X(kmeans_row_norms_cuda)                  \
    X(kmeans_sq_norms_cuda) X(kmeans_assign_cuda) X(kmeans_sums_cuda) X(kmeans_assign_rows_cuda)  \
    X(kmeans_label_sums_cuda) X(kmeans_argmax_cuda) X(kmeans_pp_distances_cuda)                   \
    X(kmeans_pp_distances_f32_cuda) X(kmeans_pp_distances_rows_cuda) X(kmeans_pp_potentials_cuda) \
    X(kmeans_pp_pick_cuda)                                                                         \
    /* the M-step's operations and the sparse product */                                           \
    X(scaled_centre_cuda) X(compact_rows_workspace_bytes) X(compact_rows_cuda) X(wsum_cuda)       \
    X(mixture_weights_cuda) X(spmv_csr_cuda)                                                      \
    /* UMAP's fuzzy simplicial set and its layout */                                               \
    X(fuzzy_memberships_cuda) X(umap_sgd_cuda)

typedef struct gmm_kernels_cuda_api {
    size_t size; /* sizeof(gmm_kernels_cuda_api): a table of another build does not match */
    GMM_KERNELS_CUDA_API(GMM_CUDA_API_FIELD)
} gmm_kernels_cuda_api;

#endif
