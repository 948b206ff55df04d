/* The CUDA backend's E-step (see backend_cuda.cu): the derived quantities of the parameters
 * (constants, [U_1 .. U_K], mu_k U_k), then per row chunk the GEMM Y = X [U_1 .. U_K] and one
 * fused kernel per row for the squared distances, log-probabilities and their log-sum-exp. */
#include "models/backend_cuda.cuh"

/* One block per row i: for each component k (one warp each), s = sum_j t_j^2 with
 *   MODE 0 (full, tied): t_j = Y[i, k*koff + j] - b[k, j]       (Y = X U, b = mu U)
 *   MODE 1 (diag):       t_j = (X[i, j] - mu[k, j]) * p[k, j]
 *   MODE 2 (spherical):  t_j = X[i, j] - mu[k, j], s *= p[k]^2
 * then log_prob = const_k - s/2, its log-sum-exp over k, and log_resp = log_prob - lse. */
template <int MODE, typename T>
static __global__ void __launch_bounds__(LSE_THREADS)
estep_rows_kernel(const T *__restrict__ Y, int64_t ldy, int64_t koff,
                  const double *__restrict__ b, const double *__restrict__ p,
                  const double *__restrict__ cst, int K, int d, double *__restrict__ log_resp,
                  double *__restrict__ lpn)
{
    extern __shared__ double lp[];
    const int64_t i = blockIdx.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const T *y = Y + i * ldy;
    for (int k = warp; k < K; k += nwarps) {
        const T *yk = y + (int64_t)k * koff;
        const double *bk = b + (int64_t)k * d;
        double s0 = 0, s1 = 0;
        int j = lane;
        for (; j + 32 < d; j += 64) {
            double t0 = (double)yk[j] - bk[j];
            double t1 = (double)yk[j + 32] - bk[j + 32];
            if (MODE == 1) {
                t0 *= p[(int64_t)k * d + j];
                t1 *= p[(int64_t)k * d + j + 32];
            }
            s0 += t0 * t0;
            s1 += t1 * t1;
        }
        if (j < d) {
            double t0 = (double)yk[j] - bk[j];
            if (MODE == 1) t0 *= p[(int64_t)k * d + j];
            s0 += t0 * t0;
        }
        double s = warp_sum(s0 + s1);
        if (MODE == 2) s *= p[k] * p[k];
        if (lane == 0) lp[k] = cst[k] - 0.5 * s;
    }
    __syncthreads();
    if (warp == 0) {
        double mx = -INFINITY;
        for (int k = lane; k < K; k += 32) mx = fmax(mx, lp[k]);
        mx = warp_max(mx);
        double s = 0;
        for (int k = lane; k < K; k += 32) s += exp(lp[k] - mx);
        s = warp_sum(s);
        double norm = mx + log(s);
        for (int k = lane; k < K; k += 32) log_resp[i * K + k] = lp[k] - norm;
        if (lane == 0) lpn[i] = norm;
    }
}


/* const[k] = log w_k + log det U_k - d/2 log(2 pi), log det summed in order like the CPU. */
static __global__ void const_kernel(const double *__restrict__ w, const double *__restrict__ prec,
                             int type, int K, int d, double *cst)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    const int64_t dd = (int64_t)d * d;
    double s = 0;
    switch (type) {
    case GMM_COV_FULL:
        for (int j = 0; j < d; j++) s += log(prec[k * dd + (int64_t)j * d + j]);
        break;
    case GMM_COV_TIED:
        for (int j = 0; j < d; j++) s += log(prec[(int64_t)j * d + j]);
        break;
    case GMM_COV_DIAG:
        for (int j = 0; j < d; j++) s += log(prec[(int64_t)k * d + j]);
        break;
    default: s = d * log(prec[k]); break;
    }
    cst[k] = -0.5 * (d * log(2.0 * M_PI)) + s + log(w[k]);
}

/* full: ucat[j, k*d + l] = U_k[j, l] (d x Kd); tied: ucat = U. Converted to T. */
template <typename T>
static __global__ void ucat_kernel(const double *__restrict__ prec, int n_mats, int d, T *ucat)
{
    const int64_t dd = (int64_t)d * d, n = dd * n_mats, W = (int64_t)n_mats * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = e / dd, rem = e - k * dd, j = rem / d, l = rem - j * d;
        ucat[j * W + k * d + l] = (T)prec[e];
    }
}

/* b[k, l] = sum_j mu[k, j] U_k[j, l], with U read from ucat (the same rounded values the GEMM
 * uses), so that y - b = (x - mu) U up to the GEMM's rounding. */
template <typename T>
static __global__ void mean_prec_kernel(const double *__restrict__ mu, const T *__restrict__ ucat,
                                 int K, int d, int full, double *b)
{
    const int64_t n = (int64_t)K * d, W = full ? (int64_t)K * d : d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = e / d, l = e - k * d;
        const T *u = ucat + (full ? k * d : 0) + l;
        const double *m = mu + k * d;
        double s = 0;
        for (int j = 0; j < d; j++) s += m[j] * (double)u[j * W];
        b[e] = s;
    }
}

/* Derived E-step quantities: constants, [U_1 .. U_K] in the data's precision, mu_k U_k. */
gmm_status cuda_prepare_estep(gmm_backend_ctx *c)
{
    gmm_status status = GMM_OK;
    int K = c->n_components, d = c->dim;
    int64_t nm = (int64_t)d * d * c->n_mats;
    const_kernel<<<(K + 127) / 128, 128>>>(c->d_weights, c->d_prec, (int)c->type, K, d, c->d_const);
    GMM_LAUNCH_CHECK("const_kernel");
    if (c->n_mats > 0) {
        if (c->single) {
            ucat_kernel<float><<<grid_for(nm, 256), 256>>>(c->d_prec, c->n_mats, d, (float *)c->d_ucat);
            GMM_LAUNCH_CHECK("ucat_kernel");
            mean_prec_kernel<float><<<grid_for((int64_t)K * d, 128), 128>>>(
                c->d_means, (const float *)c->d_ucat, K, d, c->type == GMM_COV_FULL, c->d_b);
            GMM_LAUNCH_CHECK("mean_prec_kernel");
        } else {
            ucat_kernel<double><<<grid_for(nm, 256), 256>>>(c->d_prec, c->n_mats, d, (double *)c->d_ucat);
            GMM_LAUNCH_CHECK("ucat_kernel");
            mean_prec_kernel<double><<<grid_for((int64_t)K * d, 128), 128>>>(
                c->d_means, (const double *)c->d_ucat, K, d, c->type == GMM_COV_FULL, c->d_b);
            GMM_LAUNCH_CHECK("mean_prec_kernel");
        }
    }
    c->have_params = true;
fail:
    return status;
}

template <typename T>
static gmm_status estep_chunk(gmm_backend_ctx *c, int64_t r0, int64_t rows)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const T *Xc = (const T *)c->d_X + r0 * d;
    T *Y = (T *)c->d_work;
    const T *U = (const T *)c->d_ucat;
    double *lr = c->d_log_resp + r0 * K, *lpn = c->d_lpn + r0;
    size_t shmem = sizeof(double) * K;
    int W = c->type == GMM_COV_FULL ? K * d : d;
    if (c->type == GMM_COV_FULL || c->type == GMM_COV_TIED) {
        if (c->kgemm && c->type == GMM_COV_FULL) {
            for (int k = 0; k < K; k++) {
                if (c->single)
                    status = gmm_gpu_sgemm(c->gpu, false, false, (int)rows, d, d, 1.0f,
                                           (const float *)Xc, d, (const float *)U + (size_t)k * d,
                                           W, 0.0f, (float *)Y + (size_t)k * d, W);
                else
                    status = gmm_gpu_dgemm(c->gpu, false, false, (int)rows, d, d, 1.0,
                                           (const double *)Xc, d,
                                           (const double *)U + (size_t)k * d, W, 0.0,
                                           (double *)Y + (size_t)k * d, W);
                if (status != GMM_OK) goto fail;
            }
        } else {
            if (c->single)
                status = gmm_gpu_sgemm(c->gpu, false, false, (int)rows, W, d, 1.0f,
                                       (const float *)Xc, d, (const float *)U, W, 0.0f,
                                       (float *)Y, W);
            else
                status = gmm_gpu_dgemm(c->gpu, false, false, (int)rows, W, d, 1.0,
                                       (const double *)Xc, d, (const double *)U, W, 0.0,
                                       (double *)Y, W);
            if (status != GMM_OK) goto fail;
        }
        estep_rows_kernel<0, T><<<(unsigned)rows, LSE_THREADS, shmem>>>(
            Y, W, c->type == GMM_COV_FULL ? d : 0, c->d_b, NULL, c->d_const, K, d, lr, lpn);
        GMM_LAUNCH_CHECK("estep_rows_kernel<full/tied>");
    } else if (c->type == GMM_COV_DIAG) {
        estep_rows_kernel<1, T><<<(unsigned)rows, LSE_THREADS, shmem>>>(
            Xc, d, 0, c->d_means, c->d_prec, c->d_const, K, d, lr, lpn);
        GMM_LAUNCH_CHECK("estep_rows_kernel<diag>");
    } else {
        estep_rows_kernel<2, T><<<(unsigned)rows, LSE_THREADS, shmem>>>(
            Xc, d, 0, c->d_means, c->d_prec, c->d_const, K, d, lr, lpn);
        GMM_LAUNCH_CHECK("estep_rows_kernel<spherical>");
    }
fail:
    return status;
}

gmm_status cuda_e_step(gmm_backend_ctx *c, double *mean_log_likelihood)
{
    gmm_status status = GMM_OK;
    int64_t N = c->n_samples;
    int blocks = grid_for(N, REDUCE_THREADS);
    if (!c->have_params) return gmm_error(GMM_ERR_ARG, "E-step before parameters were set");
    if (c->n_components > 6000)
        return gmm_error(GMM_ERR_UNSUPPORTED, "the CUDA E-step supports at most 6000 components");
    for (int64_t r0 = 0; r0 < N; r0 += c->chunk_rows) {
        int64_t rows = N - r0 < c->chunk_rows ? N - r0 : c->chunk_rows;
        status = c->single ? estep_chunk<float>(c, r0, rows) : estep_chunk<double>(c, r0, rows);
        if (status != GMM_OK) goto fail;
    }
    if (blocks > REDUCE_BLOCKS) blocks = REDUCE_BLOCKS;
    reduce_stage1_kernel<<<blocks, REDUCE_THREADS>>>(c->d_lpn, N, c->d_partial);
    GMM_LAUNCH_CHECK("reduce_stage1_kernel");
    reduce_stage2_kernel<<<1, REDUCE_THREADS>>>(c->d_partial, blocks, 1.0 / (double)N, c->d_scalar);
    GMM_LAUNCH_CHECK("reduce_stage2_kernel");
    GMM_CUDA_CHECK(cudaMemcpy(mean_log_likelihood, c->d_scalar, sizeof(double),
                              cudaMemcpyDeviceToHost));
    c->resp_state = 2;
    if (!isfinite(*mean_log_likelihood))
        return gmm_error(GMM_ERR_NUMERIC, "the log-likelihood is not finite (%g)",
                         *mean_log_likelihood);
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
