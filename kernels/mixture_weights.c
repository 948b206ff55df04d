/* CPU version of the component masses and mixture weights (see mixture_weights.h). */
#include "kernels/mixture_weights.h"

#include <float.h>

#include "kernels/reduce.h"

gmm_status mixture_weights_cpu(const double *resp, size_t n_samples, int n_components,
                               double *nk, double *weights)
{
    if (!resp || !nk || !weights || n_components <= 0)
        return gmm_error(GMM_ERR_ARG, "mixture_weights_cpu: bad arguments");
    const int K = n_components;
    /* each column in index order (reduce_cols_cpu): the same sums whatever the thread count */
    gmm_status status = reduce_cols_cpu(resp, n_samples, K, nk);
    if (status != GMM_OK) return status;
    double total = 0.0;
    for (int k = 0; k < K; k++) {
        nk[k] += 10 * DBL_EPSILON;
        total += nk[k];
    }
    for (int k = 0; k < K; k++) weights[k] = nk[k] / total;
    nk[K] = total;
    return GMM_OK;
}
