/* Stand-ins for the CUDA k-means steps (kernels/kmeans.h) in a build without CUDA: each reports
 * that no GPU is built in. */
#include "kernels/kmeans.h"

#define NO_DEVICE(name) gmm_error(GMM_ERR_NO_DEVICE, "%s: built without CUDA", name)

gmm_status kmeans_to_double_cuda(const float *d_x, size_t n, double *d_y, void *stream)
{
    return NO_DEVICE("kmeans_to_double_cuda");
}
gmm_status kmeans_column_sums_cuda(const double *d_X, int64_t n_samples, int dim, double *d_sums,
                                   void *stream)
{
    return NO_DEVICE("kmeans_column_sums_cuda");
}
gmm_status kmeans_row_norms_cuda(const double *d_X, int64_t n_samples, int dim,
                                 const double *d_mean, double *d_x_norm, double *d_deviation,
                                 void *stream)
{
    return NO_DEVICE("kmeans_row_norms_cuda");
}
gmm_status kmeans_sq_norms_cuda(const double *d_A, int n_rows, int dim, double *d_norm,
                                void *stream)
{
    return NO_DEVICE("kmeans_sq_norms_cuda");
}
gmm_status kmeans_assign_cuda(const double *d_dots, const double *d_x_norm,
                              const double *d_c_norm, int64_t n_samples, int n_components,
                              int *d_labels, double *d_min_dist, double *d_onehot,
                              unsigned long long *d_n_changed, void *stream)
{
    return NO_DEVICE("kmeans_assign_cuda");
}
gmm_status kmeans_sums_cuda(gmm_gpu *gpu, const double *d_X, int64_t n_samples, int dim,
                            const int *d_labels, const double *d_onehot, int n_components,
                            double *d_sums, int *d_counts)
{
    return NO_DEVICE("kmeans_sums_cuda");
}
gmm_status kmeans_assign_rows_cuda(const double *d_X, int64_t n_samples, int dim,
                                   const double *d_centers, const double *d_x_norm,
                                   const double *d_c_norm, int n_components, int *d_labels,
                                   double *d_min_dist, double *d_onehot,
                                   unsigned long long *d_n_changed, void *stream)
{
    return NO_DEVICE("kmeans_assign_rows_cuda");
}
gmm_status kmeans_label_sums_cuda(const double *d_X, int64_t n_samples, int dim,
                                  const int *d_labels, int n_components, double *d_sums,
                                  int *d_counts, double *d_work, void *stream)
{
    return NO_DEVICE("kmeans_label_sums_cuda");
}
gmm_status kmeans_argmax_cuda(const double *d_x, int64_t n, int64_t *d_index, void *stream)
{
    return NO_DEVICE("kmeans_argmax_cuda");
}
gmm_status kmeans_pp_distances_cuda(const double *d_X, int64_t n_samples, int dim,
                                    const int64_t *d_candidates, int n_candidates,
                                    const double *d_closest, double *d_out, void *stream)
{
    return NO_DEVICE("kmeans_pp_distances_cuda");
}
gmm_status kmeans_pp_distances_f32_cuda(const float *d_X, int64_t n_samples, int dim,
                                        const int64_t *d_candidates, int n_candidates,
                                        const double *d_closest, double *d_out, void *stream)
{
    return NO_DEVICE("kmeans_pp_distances_f32_cuda");
}

gmm_status kmeans_pp_distances_rows_cuda(const void *d_X, gmm_elem x_elem, int64_t n_samples,
                                         int dim, const double *d_rows, int n_rows,
                                         const double *d_closest, double *d_out, void *stream)
{
    return NO_DEVICE("kmeans_pp_distances_rows_cuda");
}
gmm_status kmeans_pp_potentials_cuda(const double *d_x, int64_t n, int n_rows, double *d_pot,
                                     double *d_work, void *stream)
{
    return NO_DEVICE("kmeans_pp_potentials_cuda");
}
gmm_status kmeans_pp_pick_cuda(const double *d_weights, int64_t n, const double *d_draws,
                               int n_draws, int64_t *d_picks, double *d_work, void *stream)
{
    return NO_DEVICE("kmeans_pp_pick_cuda");
}
