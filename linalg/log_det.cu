/* GPU version of the precision factors' log-determinants and the E-step constant (see
 * log_det.h): a block per component, the logs summed in index order like the CPU. */
#include <math.h>

#include "kernels/cuda_check.h"
#include "linalg/log_det.h"

#define LOG_DET_THREADS 256
#define LOG_DET_CHUNK 2048 /* values per pass through shared memory */

/* One block per component: the threads read a chunk of the d values and take their logs at once
 * (a thread per component waited d times on memory: half a millisecond at d = 784), then one
 * thread adds them in index order, as the CPU does. */
static __global__ void log_det_kernel(const double *__restrict__ w, const double *__restrict__ prec,
                                      int layout, int K, int d, double *out)
{
    __shared__ double logs[LOG_DET_CHUNK];
    const int k = blockIdx.x;
    if (k >= K) return;
    const int64_t dd = (int64_t)d * d;
    const int n = layout == LOG_DET_SPHERICAL ? 1 : d;
    double s = 0;
    for (int j0 = 0; j0 < n; j0 += LOG_DET_CHUNK) {
        const int m = n - j0 < LOG_DET_CHUNK ? n - j0 : LOG_DET_CHUNK;
        for (int i = threadIdx.x; i < m; i += blockDim.x) {
            const int64_t j = j0 + i;
            double v;
            switch (layout) {
            case LOG_DET_FULL: v = prec[k * dd + j * d + j]; break;
            case LOG_DET_TIED: v = prec[j * d + j]; break;
            case LOG_DET_DIAG: v = prec[(int64_t)k * d + j]; break;
            default: v = prec[k]; break;
            }
            logs[i] = log(v);
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int i = 0; i < m; i++) s += logs[i];
        __syncthreads();
    }
    if (threadIdx.x != 0) return;
    if (layout == LOG_DET_SPHERICAL) s = d * s;
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
    log_det_kernel<<<n_components, LOG_DET_THREADS, 0, (cudaStream_t)stream>>>(
        d_weights, d_prec_chol, (int)layout, n_components, dim, d_out);
    GMM_LAUNCH_CHECK("log_det_kernel");
fail:
    return status;
}
