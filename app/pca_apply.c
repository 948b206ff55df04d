/* The programs' PCA step (see pca_apply.h). */
#include "app/pca_apply.h"

#include <stdio.h>
#include <stdlib.h>

#include "app/cli.h"
#include "models/features/pca.h"

static int project(const gmm_projection *p, double **X, int64_t n_samples, gmm_gpu *gpu,
                   double **pixels)
{
    double *Z = malloc(sizeof(double) * (size_t)(n_samples > 0 ? n_samples : 1) * p->n_axes);
    if (!Z) return cli_error("out of memory for the %lld x %d projected images",
                             (long long)n_samples, p->n_axes);
    gmm_status st = gmm_projection_apply(p, *X, n_samples, gpu, Z);
    if (st != GMM_OK) {
        free(Z);
        return cli_fail(st);
    }
    *pixels = *X;
    *X = Z;
    return 0;
}

int pca_train_apply(int pca_axes, int whiten, double **X, int64_t n_samples, int *dim,
                    gmm_gpu *gpu, int quiet, gmm_projection **projection, double **pixels)
{
    *projection = NULL;
    *pixels = NULL;
    if (pca_axes <= 0) return 0;
    if (pca_axes > *dim)
        return cli_error("--pca %d is larger than the image dimension %d: give at most %d axes",
                         pca_axes, *dim, *dim);
    if (pca_axes > n_samples) {
        fprintf(stderr, "%s: error: --pca %d needs at least %d images, the data has %lld (only "
                "that many axes carry variance)\n", cli_program, pca_axes, pca_axes,
                (long long)n_samples);
        return 2;
    }
    double t0 = cli_now_seconds();
    gmm_status st = gmm_projection_fit(*X, n_samples, *dim, pca_axes, whiten, gpu, projection);
    if (st != GMM_OK) return cli_fail(st);
    int rc = project(*projection, X, n_samples, gpu, pixels);
    if (rc) {
        gmm_projection_free(*projection);
        *projection = NULL;
        return rc;
    }
    if (!quiet)
        printf("pca: %d axes of %d keep %.1f%% of the variance%s (%.2f s on the %s)\n", pca_axes,
               *dim, 100.0 * gmm_projection_explained_ratio(*projection),
               whiten ? ", whitened" : "", cli_now_seconds() - t0, gpu ? "GPU" : "CPU");
    *dim = pca_axes;
    return 0;
}

int pca_predict_apply(const gmm_model *model, double **X, int64_t n_samples, gmm_gpu *gpu,
                      double **pixels)
{
    *pixels = NULL;
    if (!gmm_space_pca(model->space)) return 0;
    return project(gmm_space_pca(model->space), X, n_samples, gpu, pixels);
}
