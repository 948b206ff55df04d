/* The kernel layer's CUDA entry points in the CPU core: stand-ins that forward each call through
 * the table the CUDA backend library exports (kernels/cuda_api.h), loaded the first time a GPU is
 * asked for (kernels/cuda_loader.h). Without the library (not installed, no CUDA runtime, a build
 * without CUDA) each returns GMM_ERR_NO_DEVICE saying which library is missing; the queries
 * (gmm_gpu_count and the like) answer "no GPU" instead, and the calls on objects the backend
 * made (gmm_gpu_destroy) or that only tidy up load nothing. */
#include "kernels/cuda_api.h"

GMM_CUDA_API_GETTER(kernels_table, gmm_kernels_cuda_api, GMM_KERNELS_CUDA_API_SYMBOL)

/* GMM_SYNC_DEBUG's setting (gmm_cuda_set_sync_debug), kept here until the backend is loaded (a
 * CPU run does not load it) and handed to it by the first call that finds its table. */
static int sync_debug_wanted, sync_debug_handed;

static const gmm_kernels_cuda_api *kernels_api(void)
{
    const gmm_kernels_cuda_api *t = kernels_table();
    if (t && !__atomic_load_n(&sync_debug_handed, __ATOMIC_SEQ_CST) &&
        !__atomic_exchange_n(&sync_debug_handed, 1, __ATOMIC_SEQ_CST) &&
        __atomic_load_n(&sync_debug_wanted, __ATOMIC_SEQ_CST))
        t->gmm_cuda_set_sync_debug(1);
    return t;
}
#define FORWARD(name, ...) GMM_CUDA_FORWARD(kernels_api, name, __VA_ARGS__)

/* kernels_api() only when the library is open already: for calls that must not load it */
static const gmm_kernels_cuda_api *kernels_api_if_open(void)
{
    return gmm_cuda_backend_is_open() ? kernels_api() : NULL;
}

/* ---- the resources object (gpu.h) ---------------------------------------------------------- */

gmm_status gmm_gpu_libs_load(void) { FORWARD(gmm_gpu_libs_load); }
gmm_status gmm_gpu_solver_load(void) { FORWARD(gmm_gpu_solver_load); }

gmm_status gmm_gpu_create(gmm_gpu **out)
{
    *out = NULL;
    FORWARD(gmm_gpu_create, out);
}

gmm_status gmm_gpu_create_on(int device, gmm_gpu **out)
{
    *out = NULL;
    FORWARD(gmm_gpu_create_on, device, out);
}

void gmm_gpu_destroy(gmm_gpu *gpu)
{
    const gmm_kernels_cuda_api *t = gpu ? kernels_api_if_open() : NULL;
    if (t) t->gmm_gpu_destroy(gpu);
}

void gmm_gpu_blas_warm_up_start(gmm_gpu *gpu)
{
    const gmm_kernels_cuda_api *t = gpu ? kernels_api_if_open() : NULL;
    if (t) t->gmm_gpu_blas_warm_up_start(gpu);
}

long gmm_gpu_created_count(void)
{
    const gmm_kernels_cuda_api *t = kernels_api_if_open();
    return t ? t->gmm_gpu_created_count() : 0;
}

bool gmm_gpu_tf32(const gmm_gpu *gpu)
{
    const gmm_kernels_cuda_api *t = gpu ? kernels_api_if_open() : NULL;
    return t ? t->gmm_gpu_tf32(gpu) : false;
}

void *gmm_gpu_stream(const gmm_gpu *gpu)
{
    const gmm_kernels_cuda_api *t = gpu ? kernels_api_if_open() : NULL;
    return t ? t->gmm_gpu_stream(gpu) : NULL;
}

/* ---- the device (gpu_info.h) --------------------------------------------------------------- */

int gmm_cuda_built(void) { return kernels_api() != NULL; }

int gmm_gpu_count(void)
{
    const gmm_kernels_cuda_api *t = kernels_api();
    return t ? t->gmm_gpu_count() : 0;
}

gmm_status gmm_gpu_probe(int *count)
{
    *count = 0;
    FORWARD(gmm_gpu_probe, count);
}

void gmm_cuda_start_context(void)
{
    const gmm_kernels_cuda_api *t = kernels_api();
    if (t) t->gmm_cuda_start_context();
}

int gmm_gpu_describe(char *name, size_t name_len, size_t *free_bytes, size_t *total_bytes)
{
    const gmm_kernels_cuda_api *t = kernels_api();
    return t ? t->gmm_gpu_describe(name, name_len, free_bytes, total_bytes) : -1;
}

void gmm_cuda_set_sync_debug(int on)
{
    __atomic_store_n(&sync_debug_wanted, on != 0, __ATOMIC_SEQ_CST);
    const gmm_kernels_cuda_api *t = kernels_api_if_open();
    if (t) t->gmm_cuda_set_sync_debug(on);
}

void gmm_cuda_release(void)
{
    const gmm_kernels_cuda_api *t = kernels_api_if_open();
    if (t) t->gmm_cuda_release();
}

/* ---- kNN, distance histograms, entropy, transpose, 2-D convolution, conversion ------------ */

gmm_status knn_cublas(const float *d_queries, size_t n_queries, const float *d_refs,
                      size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index, float *d_nn_dist,
                      gmm_gpu *gpu)
{
    FORWARD(knn_cublas, d_queries, n_queries, d_refs, n_refs, dim, k, d_nn_index, d_nn_dist, gpu);
}

gmm_status knn_cuda_host(const float *queries, size_t n_queries, const float *refs,
                         size_t n_refs, size_t dim, size_t k, gmm_gpu *gpu, int32_t *nn_index,
                         float *nn_dist)
{
    FORWARD(knn_cuda_host, queries, n_queries, refs, n_refs, dim, k, gpu, nn_index, nn_dist);
}

gmm_status dist_hist_cuda(const float *d_queries, size_t n_queries, const float *d_refs,
                          size_t n_refs, size_t dim, size_t n_bins, uint32_t *d_hist,
                          float *d_dist_min, float *d_dist_max)
{
    FORWARD(dist_hist_cuda, d_queries, n_queries, d_refs, n_refs, dim, n_bins, d_hist,
            d_dist_min, d_dist_max);
}

gmm_status dist_hist_cuda_host(const float *queries, size_t n_queries, const float *refs,
                               size_t n_refs, size_t dim, size_t n_bins, uint32_t *hist,
                               float *dist_min, float *dist_max)
{
    FORWARD(dist_hist_cuda_host, queries, n_queries, refs, n_refs, dim, n_bins, hist, dist_min,
            dist_max);
}

gmm_status entropy_cuda(const uint8_t *d_levels, size_t n_rows, size_t n_cols, float *d_entropy)
{
    FORWARD(entropy_cuda, d_levels, n_rows, n_cols, d_entropy);
}

gmm_status entropy_cuda_host(const uint8_t *levels, size_t n_rows, size_t n_cols, float *entropy)
{
    FORWARD(entropy_cuda_host, levels, n_rows, n_cols, entropy);
}

gmm_status transpose_cuda(const float *d_in, size_t n_rows, size_t n_cols, float *d_out)
{
    FORWARD(transpose_cuda, d_in, n_rows, n_cols, d_out);
}

gmm_status transpose_cuda_host(const float *in, size_t n_rows, size_t n_cols, float *out)
{
    FORWARD(transpose_cuda_host, in, n_rows, n_cols, out);
}

gmm_status conv2d_i32_cuda(const int32_t *d_in, size_t n_rows, size_t n_cols,
                           const int32_t *filter, int filter_size, int32_t *d_out)
{
    FORWARD(conv2d_i32_cuda, d_in, n_rows, n_cols, filter, filter_size, d_out);
}

gmm_status conv2d_f32_cuda(const float *d_in, size_t n_rows, size_t n_cols, const float *filter,
                           int filter_size, float *d_out)
{
    FORWARD(conv2d_f32_cuda, d_in, n_rows, n_cols, filter, filter_size, d_out);
}

gmm_status conv2d_i32_cuda_host(const int32_t *in, size_t n_rows, size_t n_cols,
                                const int32_t *filter, int filter_size, int32_t *out)
{
    FORWARD(conv2d_i32_cuda_host, in, n_rows, n_cols, filter, filter_size, out);
}

gmm_status conv2d_f32_cuda_host(const float *in, size_t n_rows, size_t n_cols,
                                const float *filter, int filter_size, float *out)
{
    FORWARD(conv2d_f32_cuda_host, in, n_rows, n_cols, filter, filter_size, out);
}

gmm_status convert_rows_cuda(const void *d_in, gmm_elem in_elem, size_t n, void *d_out,
                             gmm_elem out_elem, void *stream)
{
    FORWARD(convert_rows_cuda, d_in, in_elem, n, d_out, out_elem, stream);
}

/* ---- the dense products -------------------------------------------------------------------- */

gmm_status matmul_cuda(const double *d_resp, const double *d_X, size_t n_samples,
                       int n_components, int dim, double *d_out, void *stream)
{
    FORWARD(matmul_cuda, d_resp, d_X, n_samples, n_components, dim, d_out, stream);
}

gmm_status matmul_cublas(const double *d_resp, const double *d_X, size_t n_samples,
                         int n_components, int dim, double *d_out, gmm_gpu *gpu)
{
    FORWARD(matmul_cublas, d_resp, d_X, n_samples, n_components, dim, d_out, gpu);
}

gmm_status covariance_cuda(const double *d_X, size_t n_samples, int dim, double *d_cov,
                           void *stream)
{
    FORWARD(covariance_cuda, d_X, n_samples, dim, d_cov, stream);
}

gmm_status covariance_cublas(const double *d_X, size_t n_samples, int dim, double *d_cov,
                             gmm_gpu *gpu)
{
    FORWARD(covariance_cublas, d_X, n_samples, dim, d_cov, gpu);
}

gmm_status wcov_cuda(const double *d_X, size_t n_samples, int dim, const double *d_weights,
                     size_t weight_stride, const double *d_mean, double *d_cov, void *stream)
{
    FORWARD(wcov_cuda, d_X, n_samples, dim, d_weights, weight_stride, d_mean, d_cov, stream);
}

gmm_status wcov_cublas(const double *d_X, size_t n_samples, int dim, const double *d_weights,
                       size_t weight_stride, const double *d_mean, double *d_cov, gmm_gpu *gpu)
{
    FORWARD(wcov_cublas, d_X, n_samples, dim, d_weights, weight_stride, d_mean, d_cov, gpu);
}

gmm_status matvec_f32_cuda(const float *d_A, size_t n_rows, size_t n_cols, const float *d_x,
                           float *d_y, void *stream)
{
    FORWARD(matvec_f32_cuda, d_A, n_rows, n_cols, d_x, d_y, stream);
}

gmm_status matvec_f32_cublas(const float *d_A, size_t n_rows, size_t n_cols, const float *d_x,
                             float *d_y, gmm_gpu *gpu)
{
    FORWARD(matvec_f32_cublas, d_A, n_rows, n_cols, d_x, d_y, gpu);
}

gmm_status matvec_f64_cublas(const double *d_A, size_t n_rows, size_t n_cols, const double *d_x,
                             double *d_y, gmm_gpu *gpu)
{
    FORWARD(matvec_f64_cublas, d_A, n_rows, n_cols, d_x, d_y, gpu);
}

/* ---- the E-step's rows and the reductions -------------------------------------------------- */

gmm_status estep_rows_cuda(estep_rows_mode mode, const double *d_Y, size_t ld_y,
                           size_t comp_stride, size_t col_block, const double *d_centers,
                           const double *d_scales, const double *d_log_const, size_t n_rows,
                           int n_components, int dim, double *d_log_resp, double *d_log_prob_norm,
                           void *stream)
{
    FORWARD(estep_rows_cuda, mode, d_Y, ld_y, comp_stride, col_block, d_centers, d_scales,
            d_log_const, n_rows, n_components, dim, d_log_resp, d_log_prob_norm, stream);
}

gmm_status estep_rows_f32_cuda(estep_rows_mode mode, const float *d_Y, size_t ld_y,
                               size_t comp_stride, size_t col_block, const double *d_centers,
                               const double *d_scales, const double *d_log_const, size_t n_rows,
                               int n_components, int dim, double *d_log_resp,
                               double *d_log_prob_norm, void *stream)
{
    FORWARD(estep_rows_f32_cuda, mode, d_Y, ld_y, comp_stride, col_block, d_centers, d_scales,
            d_log_const, n_rows, n_components, dim, d_log_resp, d_log_prob_norm, stream);
}

gmm_status estep_rows_from_dist_cuda(const double *d_log_const, size_t n_rows, int n_components,
                                     double *d_dist_to_log_resp, double *d_log_prob_norm,
                                     void *stream)
{
    FORWARD(estep_rows_from_dist_cuda, d_log_const, n_rows, n_components, d_dist_to_log_resp,
            d_log_prob_norm, stream);
}

gmm_status reduce_sum_cuda(const double *d_x, size_t n, double scale, double *d_partial,
                           double *d_out, void *stream)
{
    FORWARD(reduce_sum_cuda, d_x, n, scale, d_partial, d_out, stream);
}

gmm_status reduce_resp_entropy_cuda(const double *d_log_resp, size_t n, double *d_partial,
                                    double *d_out, void *stream)
{
    FORWARD(reduce_resp_entropy_cuda, d_log_resp, n, d_partial, d_out, stream);
}

gmm_status bayes_covariance_cuda(bayes_cov_layout layout, int n_components, int dim,
                                 const double *d_prior, const double *d_coef,
                                 const double *d_diff, double *d_cov, void *stream)
{
    FORWARD(bayes_covariance_cuda, layout, n_components, dim, d_prior, d_coef, d_diff, d_cov,
            stream);
}

gmm_status reduce_cols_cuda(const double *d_x, size_t n_rows, int n_cols, double *d_out,
                            void *stream)
{
    FORWARD(reduce_cols_cuda, d_x, n_rows, n_cols, d_out, stream);
}

/* ---- the k-means steps --------------------------------------------------------------------- */

gmm_status kmeans_to_double_cuda(const float *d_x, size_t n, double *d_y, void *stream)
{
    FORWARD(kmeans_to_double_cuda, d_x, n, d_y, stream);
}

gmm_status kmeans_column_sums_cuda(const double *d_X, int64_t n_samples, int dim, double *d_sums,
                                   void *stream)
{
    FORWARD(kmeans_column_sums_cuda, d_X, n_samples, dim, d_sums, stream);
}

gmm_status kmeans_row_norms_cuda(const double *d_X, int64_t n_samples, int dim,
                                 const double *d_mean, double *d_x_norm, double *d_deviation,
                                 void *stream)
{
    FORWARD(kmeans_row_norms_cuda, d_X, n_samples, dim, d_mean, d_x_norm, d_deviation, stream);
}

gmm_status kmeans_sq_norms_cuda(const double *d_A, int n_rows, int dim, double *d_norm,
                                void *stream)
{
    FORWARD(kmeans_sq_norms_cuda, d_A, n_rows, dim, d_norm, stream);
}

gmm_status kmeans_assign_cuda(const double *d_dots, const double *d_x_norm,
                              const double *d_c_norm, int64_t n_samples, int n_components,
                              int *d_labels, double *d_min_dist, double *d_onehot,
                              unsigned long long *d_n_changed, void *stream)
{
    FORWARD(kmeans_assign_cuda, d_dots, d_x_norm, d_c_norm, n_samples, n_components, d_labels,
            d_min_dist, d_onehot, d_n_changed, stream);
}

gmm_status kmeans_sums_cuda(gmm_gpu *gpu, const double *d_X, int64_t n_samples, int dim,
                            const int *d_labels, const double *d_onehot, int n_components,
                            double *d_sums, int *d_counts)
{
    FORWARD(kmeans_sums_cuda, gpu, d_X, n_samples, dim, d_labels, d_onehot, n_components, d_sums,
            d_counts);
}

gmm_status kmeans_assign_rows_cuda(const double *d_X, int64_t n_samples, int dim,
                                   const double *d_centers, const double *d_x_norm,
                                   const double *d_c_norm, int n_components, int *d_labels,
                                   double *d_min_dist, double *d_onehot,
                                   unsigned long long *d_n_changed, void *stream)
{
    FORWARD(kmeans_assign_rows_cuda, d_X, n_samples, dim, d_centers, d_x_norm, d_c_norm,
            n_components, d_labels, d_min_dist, d_onehot, d_n_changed, stream);
}

gmm_status kmeans_label_sums_cuda(const double *d_X, int64_t n_samples, int dim,
                                  const int *d_labels, int n_components, double *d_sums,
                                  int *d_counts, double *d_work, void *stream)
{
    FORWARD(kmeans_label_sums_cuda, d_X, n_samples, dim, d_labels, n_components, d_sums, d_counts,
            d_work, stream);
}

gmm_status kmeans_argmax_cuda(const double *d_x, int64_t n, int64_t *d_index, void *stream)
{
    FORWARD(kmeans_argmax_cuda, d_x, n, d_index, stream);
}

gmm_status kmeans_pp_distances_cuda(const double *d_X, int64_t n_samples, int dim,
                                    const int64_t *d_candidates, int n_candidates,
                                    const double *d_closest, double *d_out, void *stream)
{
    FORWARD(kmeans_pp_distances_cuda, d_X, n_samples, dim, d_candidates, n_candidates, d_closest,
            d_out, stream);
}

gmm_status kmeans_pp_distances_f32_cuda(const float *d_X, int64_t n_samples, int dim,
                                        const int64_t *d_candidates, int n_candidates,
                                        const double *d_closest, double *d_out, void *stream)
{
    FORWARD(kmeans_pp_distances_f32_cuda, d_X, n_samples, dim, d_candidates, n_candidates,
            d_closest, d_out, stream);
}

gmm_status kmeans_pp_distances_rows_cuda(const void *d_X, gmm_elem x_elem, int64_t n_samples,
                                         int dim, const double *d_rows, int n_rows,
                                         const double *d_closest, double *d_out, void *stream)
{
    FORWARD(kmeans_pp_distances_rows_cuda, d_X, x_elem, n_samples, dim, d_rows, n_rows, d_closest,
            d_out, stream);
}

gmm_status kmeans_pp_potentials_cuda(const double *d_x, int64_t n, int n_rows, double *d_pot,
                                     double *d_work, void *stream)
{
    FORWARD(kmeans_pp_potentials_cuda, d_x, n, n_rows, d_pot, d_work, stream);
}

gmm_status kmeans_pp_pick_cuda(const double *d_weights, int64_t n, const double *d_draws,
                               int n_draws, int64_t *d_picks, double *d_work, void *stream)
{
    FORWARD(kmeans_pp_pick_cuda, d_weights, n, d_draws, n_draws, d_picks, d_work, stream);
}

/* ---- the M-step's operations and the sparse product ---------------------------------------- */

gmm_status scaled_centre_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples, int dim,
                              const double *d_weights, size_t weight_stride, int n_components,
                              const double *d_means, void *d_out, gmm_elem out_elem,
                              void *stream)
{
    FORWARD(scaled_centre_cuda, d_X, x_elem, n_samples, dim, d_weights, weight_stride,
            n_components, d_means, d_out, out_elem, stream);
}

gmm_status compact_rows_workspace_bytes(size_t max_rows, int n_components, size_t *bytes)
{
    FORWARD(compact_rows_workspace_bytes, max_rows, n_components, bytes);
}

gmm_status compact_rows_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples, int dim,
                             const double *d_weights, size_t weight_stride, int n_components,
                             const double *d_means, void *d_packed, gmm_elem packed_elem,
                             void *d_workspace, size_t workspace_bytes, int *bounds,
                             void *stream)
{
    FORWARD(compact_rows_cuda, d_X, x_elem, n_samples, dim, d_weights, weight_stride,
            n_components, d_means, d_packed, packed_elem, d_workspace, workspace_bytes, bounds,
            stream);
}

gmm_status wsum_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples, int dim,
                     const double *d_resp, int n_components, const double *d_centres,
                     const double *d_divisors, double add, double *d_partial, size_t partial_n,
                     double *d_out, void *stream)
{
    FORWARD(wsum_cuda, d_X, x_elem, n_samples, dim, d_resp, n_components, d_centres, d_divisors,
            add, d_partial, partial_n, d_out, stream);
}

gmm_status mixture_weights_cuda(const double *d_resp, size_t n_samples, int n_components,
                                double *d_nk, double *d_weights, void *stream)
{
    FORWARD(mixture_weights_cuda, d_resp, n_samples, n_components, d_nk, d_weights, stream);
}

gmm_status spmv_csr_cuda(int64_t n_rows, const int64_t *d_row_ptr, const int32_t *d_col,
                         const double *d_val, const double *d_x, double *d_y, void *stream)
{
    FORWARD(spmv_csr_cuda, n_rows, d_row_ptr, d_col, d_val, d_x, d_y, stream);
}

/* ---- UMAP's fuzzy simplicial set and its layout ---------------------------------------------- */

gmm_status fuzzy_memberships_cuda(const int32_t *nn_index, const float *nn_dist, int64_t n, int k,
                                  double local_connectivity, int bipartite, double *rho,
                                  double *sigma, double *memberships)
{
    FORWARD(fuzzy_memberships_cuda, nn_index, nn_dist, n, k, local_connectivity, bipartite, rho,
            sigma, memberships);
}

gmm_status umap_sgd_cuda(const umap_edges *edges, float *head_embedding,
                         const float *tail_embedding, int dim, const umap_sgd_options *options)
{
    FORWARD(umap_sgd_cuda, edges, head_embedding, tail_embedding, dim, options);
}
