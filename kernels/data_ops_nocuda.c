/* Stand-ins for the CUDA entry points of kNN, distance histograms, local entropy, transpose,
 * 2-D convolution and element conversion in a build without CUDA: each reports that no GPU is
 * built in. */
#include "kernels/conv2d.h"
#include "kernels/convert.h"
#include "kernels/dist_hist.h"
#include "kernels/entropy.h"
#include "kernels/knn.h"
#include "kernels/transpose.h"

static gmm_status no_device(const char *name)
{
    return gmm_error(GMM_ERR_NO_DEVICE, "%s: this build has no CUDA support", name);
}

gmm_status knn_blocks(const float *d_queries, size_t n_queries, const float *d_refs,
                      size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index, float *d_nn_dist,
                      knn_fill_fn fill, const char *name)
{
    return no_device("knn_blocks");
}

gmm_status knn_cublas(const float *d_queries, size_t n_queries, const float *d_refs,
                      size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index, float *d_nn_dist,
                      gmm_gpu *gpu)
{
    return no_device("knn_cublas");
}

gmm_status knn_cuda_host(const float *queries, size_t n_queries, const float *refs,
                         size_t n_refs, size_t dim, size_t k, gmm_gpu *gpu, int32_t *nn_index,
                         float *nn_dist)
{
    return no_device("knn_cuda_host");
}

gmm_status dist_hist_cuda(const float *d_queries, size_t n_queries, const float *d_refs,
                          size_t n_refs, size_t dim, size_t n_bins, uint32_t *d_hist,
                          float *d_dist_min, float *d_dist_max)
{
    return no_device("dist_hist_cuda");
}

gmm_status dist_hist_cuda_host(const float *queries, size_t n_queries, const float *refs,
                               size_t n_refs, size_t dim, size_t n_bins, uint32_t *hist,
                               float *dist_min, float *dist_max)
{
    return no_device("dist_hist_cuda_host");
}

gmm_status entropy_cuda(const uint8_t *d_levels, size_t n_rows, size_t n_cols, float *d_entropy)
{
    return no_device("entropy_cuda");
}

gmm_status entropy_cuda_host(const uint8_t *levels, size_t n_rows, size_t n_cols, float *entropy)
{
    return no_device("entropy_cuda_host");
}

gmm_status transpose_cuda(const float *d_in, size_t n_rows, size_t n_cols, float *d_out)
{
    return no_device("transpose_cuda");
}

gmm_status conv2d_i32_cuda(const int32_t *d_in, size_t n_rows, size_t n_cols,
                           const int32_t *filter, int filter_size, int32_t *d_out)
{
    return no_device("conv2d_i32_cuda");
}

gmm_status conv2d_f32_cuda(const float *d_in, size_t n_rows, size_t n_cols, const float *filter,
                           int filter_size, float *d_out)
{
    return no_device("conv2d_f32_cuda");
}

gmm_status transpose_cuda_host(const float *in, size_t n_rows, size_t n_cols, float *out)
{
    return no_device("transpose_cuda_host");
}

gmm_status conv2d_i32_cuda_host(const int32_t *in, size_t n_rows, size_t n_cols,
                                const int32_t *filter, int filter_size, int32_t *out)
{
    return no_device("conv2d_i32_cuda_host");
}

gmm_status conv2d_f32_cuda_host(const float *in, size_t n_rows, size_t n_cols,
                                const float *filter, int filter_size, float *out)
{
    return no_device("conv2d_f32_cuda_host");
}

gmm_status convert_rows_cuda(const void *d_in, gmm_elem in_elem, size_t n, void *d_out,
                             gmm_elem out_elem, void *stream)
{
    return no_device("convert_rows_cuda");
}
