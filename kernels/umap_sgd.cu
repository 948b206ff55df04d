/* The CUDA version of UMAP's layout SGD (kernels/umap_sgd.h): one thread per head runs the CPU
 * twin's epoch of that head (umap_sgd_row, kernels/umap_sgd_epoch.h), one launch per epoch on
 * the legacy default stream, the epoch's snapshot of the heads taken by a device-to-device copy
 * before it. The checks and the edge schedule are umap_sgd_prepare's (the host's), copied over;
 * the schedule then advances on the device. */
#include "kernels/cuda_check.h"
#include "kernels/umap_sgd.h"
#include "kernels/umap_sgd_epoch.h"

static __global__ void umap_sgd_epoch_kernel(umap_sgd_epoch_args args, float *head,
                                             int64_t n_heads, int64_t epoch, float alpha)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n_heads) return;
    umap_sgd_row(&args, i, head + i * args.dim, epoch, alpha);
}

extern "C" gmm_status umap_sgd_cuda(const umap_edges *edges, float *head_embedding,
                                    const float *tail_embedding, int dim,
                                    const umap_sgd_options *options)
{
    umap_sgd_plan plan;
    int64_t *d_row_ptr = nullptr;
    int32_t *d_col = nullptr;
    double *d_schedule = nullptr;
    float *d_head = nullptr, *d_tails = nullptr;
    gmm_status status =
        umap_sgd_prepare(edges, head_embedding, tail_embedding, dim, options, &plan);
    if (status != GMM_OK || !plan.any_edge) { /* CUDA not touched (nor started) */
        umap_sgd_plan_free(&plan);
        return status;
    }
    {
        const int64_t n_heads = plan.n_heads, nnz = plan.nnz, n_tails = plan.args.n_tails;
        const size_t head_bytes = sizeof(float) * (size_t)n_heads * (size_t)dim;
        const size_t tail_bytes = sizeof(float) * (size_t)n_tails * (size_t)dim;
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_row_ptr, sizeof(int64_t) * (size_t)(n_heads + 1)));
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_col, sizeof(int32_t) * (size_t)nnz));
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_schedule, sizeof(double) * 4 * (size_t)nnz));
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_head, head_bytes));
        /* the layout's snapshot, or the transform's fixed tails */
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_tails, tail_bytes));
        GMM_CUDA_CHECK(cudaMemcpy(d_row_ptr, edges->row_ptr,
                                  sizeof(int64_t) * (size_t)(n_heads + 1), cudaMemcpyHostToDevice));
        GMM_CUDA_CHECK(cudaMemcpy(d_col, edges->col, sizeof(int32_t) * (size_t)nnz,
                                  cudaMemcpyHostToDevice));
        GMM_CUDA_CHECK(cudaMemcpy(d_schedule, plan.schedule, sizeof(double) * 4 * (size_t)nnz,
                                  cudaMemcpyHostToDevice));
        GMM_CUDA_CHECK(cudaMemcpy(d_head, head_embedding, head_bytes, cudaMemcpyHostToDevice));
        if (!plan.args.layout)
            GMM_CUDA_CHECK(cudaMemcpy(d_tails, tail_embedding, tail_bytes, cudaMemcpyHostToDevice));

        /* the same arguments with device pointers (the schedule's four arrays in its order) */
        umap_sgd_epoch_args args = plan.args;
        args.row_ptr = d_row_ptr;
        args.col = d_col;
        args.epochs_per_sample = d_schedule;
        args.epochs_per_negative_sample = d_schedule + nnz;
        args.epoch_of_next_sample = d_schedule + 2 * nnz;
        args.epoch_of_next_negative_sample = d_schedule + 3 * nnz;
        args.tails = d_tails;
        const unsigned threads = 128, blocks = (unsigned)((n_heads + threads - 1) / threads);
        for (int epoch = 0; epoch < plan.n_epochs; epoch++) {
            if (args.layout)
                GMM_CUDA_CHECK(cudaMemcpyAsync(d_tails, d_head, head_bytes,
                                               cudaMemcpyDeviceToDevice, 0));
            umap_sgd_epoch_kernel<<<blocks, threads>>>(args, d_head, n_heads, epoch,
                                                       umap_sgd_alpha(&plan, epoch));
            GMM_LAUNCH_CHECK("umap_sgd_epoch_kernel");
        }
        GMM_CUDA_CHECK(cudaMemcpy(head_embedding, d_head, head_bytes, cudaMemcpyDeviceToHost));
    }
fail:
    cudaFree(d_row_ptr);
    cudaFree(d_col);
    cudaFree(d_schedule);
    cudaFree(d_head);
    cudaFree(d_tails);
    umap_sgd_plan_free(&plan);
    return status;
}
