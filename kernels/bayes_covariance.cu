/* GPU version of the variational covariance update (see bayes_covariance.h): a thread per
 * output value, each doing the CPU's operations in the CPU's order. */
#include "kernels/bayes_covariance.h"
#include "kernels/cuda_check.h"

static __global__ void bayes_covariance_kernel(int layout, int K, int d,
                                               const double *__restrict__ prior,
                                               const double *__restrict__ coef,
                                               const double *__restrict__ diff, double *cov,
                                               int64_t n_out)
{
    const int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (e >= n_out) return;
    const double *a = coef, *g = coef + K, *c = coef + 2 * K;
    const int64_t dd = (int64_t)d * d;
    switch (layout) {
    case BAYES_COV_FULL: {
        const int k = (int)(e / dd);
        const int64_t ij = e % dd;
        const int i = (int)(ij / d), j = (int)(ij % d);
        const double *dk = diff + (int64_t)k * d;
        cov[e] = (prior[ij] + a[k] * cov[e] + g[k] * (dk[i] * dk[j])) / c[k];
        break;
    }
    case BAYES_COV_TIED: {
        const int i = (int)(e / d), j = (int)(e % d);
        double outer = 0;
        for (int k = 0; k < K; k++)
            outer += g[k] * (diff[(int64_t)k * d + i] * diff[(int64_t)k * d + j]);
        cov[e] = (prior[e] + a[0] * cov[e] + outer) / c[0];
        break;
    }
    case BAYES_COV_DIAG: {
        const int k = (int)(e / d), j = (int)(e % d);
        const double dkj = diff[e];
        cov[e] = (prior[j] + a[k] * cov[e] + g[k] * (dkj * dkj)) / c[k];
        break;
    }
    default: {
        const int k = (int)e;
        double s = 0;
        for (int j = 0; j < d; j++) s += diff[(int64_t)k * d + j] * diff[(int64_t)k * d + j];
        cov[k] = (prior[0] + a[k] * cov[k] + g[k] * (s / d)) / c[k];
        break;
    }
    }
}

extern "C" gmm_status bayes_covariance_cuda(bayes_cov_layout layout, int n_components, int dim,
                                            const double *d_prior, const double *d_coef,
                                            const double *d_diff, double *d_cov, void *stream)
{
    gmm_status status = GMM_OK;
    if (!d_prior || !d_coef || !d_diff || !d_cov || n_components <= 0 || dim <= 0 ||
        layout < BAYES_COV_FULL || layout > BAYES_COV_SPHERICAL)
        return gmm_error(GMM_ERR_ARG, "bayes_covariance_cuda: bad arguments");
    {
        const int64_t K = n_components, d = dim;
        const int64_t n_out = layout == BAYES_COV_FULL   ? K * d * d
                              : layout == BAYES_COV_TIED ? d * d
                              : layout == BAYES_COV_DIAG ? K * d
                                                         : K;
        const int threads = 256;
        const int64_t blocks = (n_out + threads - 1) / threads;
        bayes_covariance_kernel<<<(unsigned)blocks, threads, 0, (cudaStream_t)stream>>>(
            (int)layout, n_components, dim, d_prior, d_coef, d_diff, d_cov, n_out);
        GMM_LAUNCH_CHECK("bayes_covariance_kernel");
    }
fail:
    return status;
}
