/* The CUDA backend's E-step (see backend_cuda.cu), composed from named operations: the
 * constants (log_det_cholesky_cuda, linalg/log_det.h) and the two private layout kernels below
 * once per parameter set; then per row chunk the GEMM Y = X [U_1 .. U_K] (gmm_gpu_dgemm/sgemm;
 * one GEMM per column block, skipping the zeros below the factors' diagonals, in the
 * triangle-blocked layout of the CPU backend's cpu_estep.h), the row operation
 * (estep_rows_cuda, kernels/estep_rows.h: squared distances, log-probabilities and their
 * log-sum-exp), and at the end the fixed-order mean of log p(x_i) (reduce_sum_cuda,
 * kernels/reduce.h). A GEMM per component measured slower than one over all of them
 * (bench/experiments/estep_product.cu). On a float32/TF32 context, cuda_e_step_f64 runs the same
 * chunks in float64 (the final scores of a fit: float64 whatever its precision).
 *
 * The packed factors and mu_k U_k stay private: they are this backend's way of feeding the GEMM
 * (in the data's precision, b from the same rounded U so that y - b = (x - mu) U up to the
 * GEMM's rounding); the CPU backend packs the same layout on the host (cpu_estep_pack_*), and
 * the row operation that reads it is the shared one. */
#include "kernels/estep_rows.h"
#include "kernels/reduce.h"
#include "linalg/log_det.h"
#include "models/backend/cuda/backend_cuda.cuh"
#include "models/precisions.h"

/* The GEMM's right-hand side from the factors U (n_mats x d x d, float64), converted to T.
 * block >= d: one d x (n_mats d) matrix, ucat[j, m*d + l] = U_m[j, l] (tied: U itself).
 * block < d: the triangle-blocked layout of the CPU backend (models/backend/cpu/cpu_estep.h) with column
 * blocks of width block: block J (columns [j0, j0 + w), rows [0, j1 = j0 + w)) is a j1 x
 * (n_mats w) matrix [U_1[0:j1, J] .. U_M[0:j1, J]] stored after the blocks before it, which
 * are all full, so it starts at n_mats block^2 J (J + 1) / 2. Only the columns [0, cols) are
 * written (cols = d: all; a block's worth: block 0 alone). */
template <typename T>
static __global__ void ucat_kernel(const double *__restrict__ prec, int n_mats, int d, int block,
                                   int cols, T *ucat)
{
    const int64_t dd = (int64_t)d * d, n = dd * n_mats, W = (int64_t)n_mats * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t m = e / dd, rem = e - m * dd, j = rem / d, l = rem - j * d;
        if (l >= cols) continue; /* only the blocks of the first cols columns asked */
        if (block >= d) {
            ucat[j * W + m * d + l] = (T)prec[e];
        } else {
            const int64_t J = l / block, j0 = J * block, w = d - j0 < block ? d - j0 : block;
            if (j >= j0 + w) continue; /* below the block's rows: zeros, not stored */
            const int64_t off = (int64_t)n_mats * block * block * (J * (J + 1) / 2);
            ucat[off + j * n_mats * w + m * w + (l - j0)] = (T)prec[e];
        }
    }
}

/* b[k, l] = sum_j mu[k, j] U_k[j, l], with U rounded to T as the GEMM's copy is, so that
 * y - b = (x - mu) U up to the GEMM's rounding; float64 takes a GEMM.
 * A block per (component, 32 columns l): its 8 warps take every 8th j, then one sums the 8
 * partial sums in order (a thread per (k, l) summing all d terms alone waited on d loads in a
 * row: 0.16 ms at d = 784, K = 10). */
template <typename T>
static __global__ void mean_prec_kernel(const double *__restrict__ mu,
                                        const double *__restrict__ prec, int K, int d, int full,
                                        double *b)
{
    __shared__ double part[8][33];
    const int k = blockIdx.y, l = blockIdx.x * 32 + threadIdx.x, w = threadIdx.y;
    double s = 0;
    if (l < d) {
        const double *u = prec + (full ? (int64_t)k * d * d : 0) + l;
        const double *m = mu + (int64_t)k * d;
        for (int j = w; j < d; j += 8) s += m[j] * (double)(T)u[(int64_t)j * d];
    }
    part[w][threadIdx.x] = s;
    __syncthreads();
    if (w == 0 && l < d) {
        double t = 0;
        for (int q = 0; q < 8; q++) t += part[q][threadIdx.x];
        b[(int64_t)k * d + l] = t;
    }
}

/* Width of the E-step product's column blocks (d: one GEMM): about d / estep_blocks, a multiple
 * of 16 from 16 on (aligned blocks). */
static int estep_block(const gmm_backend_ctx *c)
{
    const int d = c->dim;
    if (c->estep_blocks <= 1) return d;
    int block = (d + c->estep_blocks - 1) / c->estep_blocks;
    if (block >= 16) block = (block + 15) / 16 * 16;
    return block < d ? block : d;
}

/* The GEMM's factors (full, tied) in float32 or float64: [U_1 .. U_K] packed by ucat_kernel
 * into ucat, and b = mu_k U_k from the same rounded U into b (K x d). */
static gmm_status prepare_factors_f32(gmm_backend_ctx *c, float *ucat, double *b)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t nm = (int64_t)d * d * c->n_mats;
    ucat_kernel<float><<<grid_for(nm, 256), 256>>>(c->d_prec, c->n_mats, d, estep_block(c), d,
                                                  ucat);
    GMM_LAUNCH_CHECK("ucat_kernel");
    mean_prec_kernel<float><<<dim3((d + 31) / 32, K), dim3(32, 8)>>>(
        c->d_means, c->d_prec, K, d, c->type == GMM_COV_FULL, b);
    GMM_LAUNCH_CHECK("mean_prec_kernel");
fail:
    return status;
}
gmm_status cuda_pack_factors_f64(gmm_backend_ctx *c, const double *prec, const double *means,
                                 int cols, double *ucat, double *b)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t nm = (int64_t)d * d * c->n_mats;
    const bool full = c->type == GMM_COV_FULL;
    ucat_kernel<double><<<grid_for(nm, 256), 256>>>(prec, c->n_mats, d, estep_block(c), cols,
                                                   ucat);
    GMM_LAUNCH_CHECK("ucat_kernel");
    /* b_k = mu_k U_k: K products of one row (full) or one K-row product (tied) */
    status = gmm_gpu_dgemm_batched(c->gpu, full ? 1 : K, d, d, means, d, full ? d : 0, prec, d,
                                   full ? (int64_t)d * d : 0, b, d, full ? d : 0, full ? K : 1);
fail:
    return status;
}

/* Derived E-step quantities: constants, [U_1 .. U_K] in the data's precision, mu_k U_k. */
gmm_status cuda_prepare_estep(gmm_backend_ctx *c)
{
    gmm_status status = GMM_OK;
    int K = c->n_components, d = c->dim;
    /* a variational fit: the posterior's terms in place of log w_k (cuda_bayes.cu) */
    status = c->bayes ? cuda_bayes_constants(c)
                      : log_det_cholesky_cuda(gmm_log_det_layout(c->type), K, d, c->d_prec,
                                              c->d_weights, c->d_const, NULL);
    if (status != GMM_OK) goto fail;
    if (c->n_mats > 0) {
        status = c->single ? prepare_factors_f32(c, (float *)c->d_ucat, c->d_b)
                           : cuda_pack_factors_f64(c, c->d_prec, c->d_means, d,
                                                   (double *)c->d_ucat, c->d_b);
        if (status != GMM_OK) goto fail;
    }
    c->have_params = true;
fail:
    return status;
}

/* The row operation for the data's precision. */
static gmm_status estep_rows(estep_rows_mode mode, const double *Y, int64_t ld, int64_t koff,
                             int block, const double *b, const double *p, const double *cst,
                             int64_t rows, int K, int d, double *lr, double *lpn, void *stream)
{
    return estep_rows_cuda(mode, Y, (size_t)ld, (size_t)koff, (size_t)block, b, p, cst,
                           (size_t)rows, K, d, lr, lpn, stream);
}
static gmm_status estep_rows(estep_rows_mode mode, const float *Y, int64_t ld, int64_t koff,
                             int block, const double *b, const double *p, const double *cst,
                             int64_t rows, int K, int d, double *lr, double *lpn, void *stream)
{
    return estep_rows_f32_cuda(mode, Y, (size_t)ld, (size_t)koff, (size_t)block, b, p, cst,
                               (size_t)rows, K, d, lr, lpn, stream);
}

/* C = A B (row-major, no transposes) in T. */
static gmm_status gemm(gmm_gpu *gpu, int m, int n, int k, const float *A, int lda,
                       const float *B, int ldb, float *C, int ldc)
{
    return gmm_gpu_sgemm(gpu, false, false, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
}
static gmm_status gemm(gmm_gpu *gpu, int m, int n, int k, const double *A, int lda,
                       const double *B, int ldb, double *C, int ldc)
{
    return gmm_gpu_dgemm(gpu, false, false, m, n, k, 1.0, A, lda, B, ldb, 0.0, C, ldc);
}

/* Rows [r0, r0 + rows) (Xc, in T): the GEMM (full, tied) with the packed factors U and centers
 * b (prepare_factors_*) into the workspace Y, then the row operation. */
template <typename T>
static gmm_status estep_chunk(gmm_backend_ctx *c, const T *Xc, int64_t r0, int64_t rows,
                              const T *U, const double *b, T *Y)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    double *lr = c->d_log_resp + r0 * K, *lpn = c->d_lpn + r0;
    void *stream = gmm_gpu_stream(c->gpu);
    const int W = c->type == GMM_COV_FULL ? K * d : d, block = estep_block(c);
    if (c->type == GMM_COV_FULL || c->type == GMM_COV_TIED) {
        if (block < d) {
            /* U_k is upper triangular: column block [j0, j1) of (x - mu) U_k needs only rows
             * [0, j1) of U_k; one GEMM over all components per block, X[:, 0:j1] times the
             * packed block (ucat_kernel), into columns [M j0, M j1) of Y */
            const int M = c->n_mats;
            size_t off = 0;
            for (int j0 = 0; j0 < d; j0 += block) {
                const int w = d - j0 < block ? d - j0 : block, j1 = j0 + w;
                status = gemm(c->gpu, (int)rows, M * w, j1, Xc, d, U + off, M * w,
                              Y + (size_t)M * j0, W);
                if (status != GMM_OK) goto fail;
                off += (size_t)j1 * M * w;
            }
        } else {
            status = gemm(c->gpu, (int)rows, W, d, Xc, d, U, W, Y, W);
            if (status != GMM_OK) goto fail;
        }
        status = estep_rows(ESTEP_ROWS_PROJECTED, Y, W, c->type == GMM_COV_FULL ? d : 0,
                            block < d ? block : 0, b, NULL, c->d_const, rows, K, d, lr, lpn,
                            stream);
    } else {
        status = estep_rows(c->type == GMM_COV_DIAG ? ESTEP_ROWS_DIAG : ESTEP_ROWS_SPHERICAL, Xc, d,
                            0, 0, c->d_means, c->d_prec, c->d_const, rows, K, d, lr, lpn, stream);
    }
fail:
    return status;
}

/* What every E-step needs: parameters, and K within the row operation's bound. */
static gmm_status estep_checks(const gmm_backend_ctx *c)
{
    if (!c->have_params) return gmm_error(GMM_ERR_ARG, "E-step before parameters were set");
    if (c->n_components > ESTEP_ROWS_MAX_COMPONENTS)
        return gmm_error(GMM_ERR_UNSUPPORTED, "the CUDA E-step supports at most %d components",
                         ESTEP_ROWS_MAX_COMPONENTS);
    return GMM_OK;
}

/* After the chunks: the mean of log p(x_i) over every rank's rows (fixed order), the
 * responsibilities marked valid, a variational fit's entropy. */
static gmm_status estep_finish(gmm_backend_ctx *c, double *mean_log_likelihood)
{
    gmm_status status = GMM_OK;
    int64_t N = c->n_samples;
    if (gmm_comm_size(c->comm) <= 1) {
        status = reduce_sum_cuda(c->d_lpn, (size_t)N, 1.0 / (double)N, c->d_partial,
                                 c->d_scalar, gmm_gpu_stream(c->gpu));
        if (status != GMM_OK) goto fail;
        GMM_CUDA_CHECK(cudaMemcpy(mean_log_likelihood, c->d_scalar, sizeof(double),
                                  cudaMemcpyDeviceToHost));
    } else {
        /* this rank's sum, summed over the ranks (as the CPU backend), over every rank's rows */
        double total = 0;
        status = reduce_sum_cuda(c->d_lpn, (size_t)N, 1.0, c->d_partial, c->d_scalar,
                                 gmm_gpu_stream(c->gpu));
        if (status != GMM_OK) goto fail;
        if ((status = cuda_comm_sum(c, c->d_scalar, 1)) != GMM_OK) goto fail;
        GMM_CUDA_CHECK(cudaMemcpy(&total, c->d_scalar, sizeof(double), cudaMemcpyDeviceToHost));
        *mean_log_likelihood = total / (double)c->n_total;
    }
    c->resp_state = 2;
    c->resp_fresh = false;
    /* the entropy term of the lower bound the next M-step reports */
    if (c->bayes && (status = cuda_bayes_entropy(c)) != GMM_OK) goto fail;
    if (!isfinite(*mean_log_likelihood))
        return gmm_error(GMM_ERR_NUMERIC, "the log-likelihood is not finite (%g)",
                         *mean_log_likelihood);
fail:
    return status;
}

/* The E-step in the context's precision. With sums (an E-step that an M-step follows, when the
 * M-step's sums go chunk by chunk: cuda_estep_sums_means), each chunk also gets the M-step's
 * first sums while it is on the device in the compute type: its responsibilities and the
 * means' sums, the same operations on the same chunks as the M-step's own pass, which it then
 * skips (resp_state 3). */
static gmm_status e_step(gmm_backend_ctx *c, bool sums, double *mean_log_likelihood)
{
    gmm_status status = estep_checks(c);
    if (status != GMM_OK) return status;
    {
        bool prunes = false;
        if ((status = cuda_estep_prune_begin(c, estep_block(c), &prunes)) != GMM_OK) goto fail;
        cuda_chunk_loop L;
        if ((status = cuda_chunks_begin(c, compute_elem(c), c->estep_step, &L)) != GMM_OK)
            goto fail;
        while (cuda_chunks_next(&L, &status)) {
            status = c->single ? estep_chunk<float>(c, (const float *)L.X, L.r0, L.rows,
                                                    (const float *)c->d_ucat, c->d_b,
                                                    (float *)c->d_work)
                     : prunes ? cuda_estep_chunk_pruned(c, (const double *)L.X, L.r0, L.rows,
                                                        (const double *)c->d_ucat,
                                                        estep_block(c), (double *)c->d_work)
                              : estep_chunk<double>(c, (const double *)L.X, L.r0, L.rows,
                                                    (const double *)c->d_ucat, c->d_b,
                                                    (double *)c->d_work);
            if (status == GMM_OK && sums)
                status = cuda_estep_chunk_sums(c, L.X, L.r0, L.rows);
            if (status != GMM_OK) goto fail;
        }
        if (status != GMM_OK) goto fail;
        if (prunes) cuda_estep_prune_end(c);
    }
    status = estep_finish(c, mean_log_likelihood);
    if (status == GMM_OK && sums) c->resp_state = 3;
fail:
    return status;
}

gmm_status cuda_e_step(gmm_backend_ctx *c, double *mean_log_likelihood)
{
    return e_step(c, cuda_estep_sums_means(c), mean_log_likelihood);
}

/* On a float32/TF32 context: the factors packed in float64 and b from the unrounded factors
 * (buffers made for the call), the workspace d_work when it holds a chunk's float64 product
 * row (else a one-row buffer made for the call), then the chunks in float64 with exactly the
 * view's values (cuda_chunks_begin_f64_exact: image bytes and float32 converted on the device,
 * float64 rows copied from the host when the device holds them rounded) and the same row
 * operation and mean as cuda_e_step. The context's float32 factors stay for the next E-step;
 * the cuBLAS math mode (TF32) concerns single precision only, the DGEMMs are plain float64. */
gmm_status cuda_e_step_f64(gmm_backend_ctx *c, double *mean_log_likelihood)
{
    if (!c->single) return e_step(c, false, mean_log_likelihood); /* final scores: no M-step */
    gmm_status status = estep_checks(c);
    if (status != GMM_OK) return status;
    const size_t K = c->n_components, d = c->dim;
    double *d_ucat = NULL, *d_b = NULL, *d_y = NULL, *Y = (double *)c->d_work;
    int64_t step = c->estep_step;
    if (c->n_mats > 0) {
        const size_t W = c->type == GMM_COV_FULL ? K * d : d;
        DMALLOC(d_ucat, sizeof(double) * d * d * c->n_mats);
        DMALLOC(d_b, sizeof(double) * K * d);
        status = cuda_pack_factors_f64(c, c->d_prec, c->d_means, (int)d, d_ucat, d_b);
        if (status != GMM_OK) goto fail;
        const int64_t fit = (int64_t)(c->work_bytes / (sizeof(double) * W));
        if (fit < step) step = fit;
        if (step < 1) {
            DMALLOC(d_y, sizeof(double) * W);
            Y = d_y;
            step = 1;
        }
    }
    {
        cuda_chunk_loop L;
        if ((status = cuda_chunks_begin_f64_exact(c, step, &L)) != GMM_OK) goto fail;
        while (cuda_chunks_next(&L, &status)) {
            status = estep_chunk<double>(c, (const double *)L.X, L.r0, L.rows, d_ucat, d_b, Y);
            if (status != GMM_OK) goto fail;
        }
        if (status != GMM_OK) goto fail;
    }
    status = estep_finish(c, mean_log_likelihood);
fail:
    /* the work queued on the legacy stream reads them: cudaFree waits for it */
    cudaFree(d_ucat);
    cudaFree(d_b);
    cudaFree(d_y);
    return status;
}

gmm_status cuda_get_log_resp_rows(gmm_backend_ctx *c, int64_t r0, int64_t n, double *log_resp)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components;
    if (r0 < 0 || n < 0 || r0 + n > c->n_samples)
        return gmm_error(GMM_ERR_ARG, "rows [%lld, %lld) outside the context's %lld",
                         (long long)r0, (long long)(r0 + n), (long long)c->n_samples);
    GMM_CUDA_CHECK(cudaMemcpy(log_resp, c->d_log_resp + (size_t)r0 * K,
                              sizeof(double) * (size_t)n * K, cudaMemcpyDeviceToHost));
fail:
    return status;
}

gmm_status cuda_get_estep(gmm_backend_ctx *c, double *log_likelihood, double *log_resp)
{
    gmm_status status = GMM_OK;
    if (log_likelihood)
        GMM_CUDA_CHECK(cudaMemcpy(log_likelihood, c->d_lpn, sizeof(double) * c->n_samples,
                                  cudaMemcpyDeviceToHost));
    if (log_resp)
        GMM_CUDA_CHECK(cudaMemcpy(log_resp, c->d_log_resp,
                                  sizeof(double) * c->n_samples * c->n_components,
                                  cudaMemcpyDeviceToHost));
fail:
    return status;
}
