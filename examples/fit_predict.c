/* libgmm's README example: fit a 2-component mixture to points in memory, then predict. */
#include <gmm/gmm.h>
#include <stdio.h>

int main(void)
{
    enum { N = 400, D = 2 };
    static float X[N][D]; /* two blobs of points, around (0, 0) and (5, 5) */
    static int32_t truth[N], labels[N];
    unsigned s = 1;
    for (int i = 0; i < N; i++) {
        truth[i] = i % 2;
        for (int j = 0; j < D; j++) {
            s = s * 1103515245u + 12345u;
            X[i][j] = 5.0f * truth[i] + (float)((s >> 16) % 1000) / 1000.0f - 0.5f;
        }
    }
    gmm_params *params = NULL;
    gmm_mixture *model = NULL;
    if (gmm_params_new(&params) || gmm_params_set_int(params, "n_components", 2) ||
        gmm_params_set_string(params, "covariance_type", "diag") ||
        gmm_mixture_fit(params, X, N, D, GMM_DTYPE_FLOAT32, 1.0, &model) ||
        gmm_mixture_score_samples(model, X, N, D, GMM_DTYPE_FLOAT32, 1.0, NULL, NULL, labels)) {
        fprintf(stderr, "gmm: %s\n", gmm_last_error());
        return 1;
    }
    int same = 0; /* points whose label matches their blob's, up to renaming the two */
    for (int i = 0; i < N; i++) same += (labels[i] == labels[0]) == (truth[i] == truth[0]);
    printf("converged %d after %d iterations; %d of %d points in their own blob's component\n",
           gmm_mixture_converged(model), gmm_mixture_n_iter(model), same, N);
    gmm_mixture_free(model);
    gmm_params_free(params);
    return same == N ? 0 : 1;
}
