/* GPU version of the precision factors' log-determinants and the E-step constant (see
 * log_det.h): a thread per component, the logs summed in index order like the CPU. */
#include <math.h>

#include "kernels/cuda_check.h"
#include "linalg/log_det.h"

static __global__ void log_det_kernel(const double *__restrict__ w, const double *__restrict__ prec,
                                      int layout, int K, int d, double *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    const int64_t dd = (int64_t)d * d;
    double s = 0;
    switch (layout) {
    case LOG_DET_FULL:
        for (int j = 0; j < d; j++) s += log(prec[k * dd + (int64_t)j * d + j]);
        break;
    case LOG_DET_TIED:
        for (int j = 0; j < d; j++) s += log(prec[(int64_t)j * d + j]);
        break;
    case LOG_DET_DIAG:
        for (int j = 0; j < d; j++) s += log(prec[(int64_t)k * d + j]);
        break;
    default: s = d * log(prec[k]); break;
    }
    out[k] = w ? -0.5 * (d * log(2.0 * M_PI)) + s + log(w[k]) : s;
}

extern "C" gmm_status log_det_cholesky_cuda(log_det_layout layout, int n_components, int dim,
                                            const double *d_prec_chol, const double *d_weights,
                                            double *d_out, void *stream)
{
    gmm_status status = GMM_OK;
    if (!d_prec_chol || !d_out || n_components <= 0 || dim <= 0 || layout < LOG_DET_FULL ||
        layout > LOG_DET_SPHERICAL)
        return gmm_error(GMM_ERR_ARG, "log_det_cholesky_cuda: bad arguments");
    log_det_kernel<<<(n_components + 127) / 128, 128, 0, (cudaStream_t)stream>>>(
        d_weights, d_prec_chol, (int)layout, n_components, dim, d_out);
    GMM_LAUNCH_CHECK("log_det_kernel");
fail:
    return status;
}
