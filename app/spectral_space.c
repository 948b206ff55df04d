/* The programs' spectral space (see spectral_space.h). */
#include "app/spectral_space.h"

#include <stdio.h>
#include <stdlib.h>

#include "app/cli.h"
#include "app/images.h"
#include "models/features/spectral.h"

int spectral_train_apply(const dataset *ds, const gmm_options *o, double **X, int *dim,
                         gmm_gpu *gpu, int quiet, gmm_spectral_space **space, double **pixels)
{
    const int64_t n = ds->n_samples;
    *space = NULL;
    *pixels = NULL;
    float *Xf = images_to_float(*X, n, *dim);
    if (!Xf) return cli_error("out of memory for the %lld images in float32", (long long)n);
    const gmm_spectral_options so = {.n_neighbors = o->knn_neighbors, .n_dims = o->spectral_dims,
                                     .seed = o->seed};
    gmm_spectral e;
    const double t0 = cli_now_seconds();
    gmm_status st = gmm_spectral_embed(Xf, n, *dim, &so, gpu, &e);
    free(Xf);
    if (st != GMM_OK) return cli_fail(st);
    if ((st = gmm_spectral_space_from(&e, ds->pixels, *dim, space)) != GMM_OK) {
        gmm_spectral_free(&e);
        return cli_fail(st);
    }
    if (!quiet) {
        printf("spectral space: the %d leading eigenvectors of the %d-nearest-neighbour graph "
               "of %lld images (Lanczos, %d steps, residual %.1e%s) in %.2f s on the %s (kNN "
               "%.2f s, graph %.2f s, eigenvectors %.2f s)\n", e.n_dims, e.n_neighbors,
               (long long)n, e.lanczos.steps, e.lanczos.max_residual,
               e.lanczos.converged ? "" : ", NOT converged", cli_now_seconds() - t0,
               gpu ? "GPU" : "CPU", e.seconds_knn, e.seconds_graph, e.seconds_eigen);
        if (e.graph_components > 1)
            printf("spectral space: note: the graph has %d connected components; the first "
                   "coordinates then only tell the components apart\n", e.graph_components);
    }
    *pixels = *X;
    *X = e.embedding; /* handed over */
    e.embedding = NULL;
    *dim = e.n_dims;
    gmm_spectral_free(&e);
    return 0;
}

int spectral_predict_apply(const gmm_model *model, double **X, int64_t n_samples, gmm_gpu *gpu,
                           double **pixels)
{
    const gmm_spectral_space *s = gmm_space_spectral(model->space);
    if (!s) return 0; /* *pixels is left as it is (a projection's step may have set it) */
    const int p = s->input_dim, D = s->n_dims;
    double *coords = malloc(sizeof(double) * (size_t)(n_samples > 0 ? n_samples : 1) * D);
    float *train_f = NULL, *new_f = NULL;
    int rc = 0;
    gmm_status st;
    if (!coords) {
        rc = cli_error("out of memory for the images' coordinates");
        goto done;
    }
    if ((st = images_training_float(model, s->images, NULL, s->n_train, p, gpu, &train_f)) !=
        GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    if (!(new_f = images_to_float(*X, n_samples, p))) {
        rc = cli_error("out of memory for the images in float32");
        goto done;
    }
    const gmm_spectral e = {.n = s->n_train, .n_dims = D, .n_neighbors = s->n_neighbors,
                            .embedding = s->embedding, .eigenvalues = s->eigenvalues,
                            .degrees = s->degrees};
    if ((st = gmm_spectral_extend(&e, train_f, p, new_f, n_samples, gpu, coords)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    *pixels = *X;
    *X = coords;
    coords = NULL;
done:
    free(coords);
    free(train_f);
    free(new_f);
    return rc;
}
