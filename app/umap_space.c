/* The programs' UMAP space (see umap_space.h). */
#include "app/umap_space.h"

#include <stdio.h>
#include <stdlib.h>

#include "app/cli.h"
#include "app/images.h"
#include "data/cluster_map.h"
#include "models/core/pixel_means.h"
#include "models/features/umap.h"

static double *to_double(const float *x, int64_t n, int dim)
{
    double *d = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * dim);
    if (d)
        for (size_t i = 0; i < (size_t)n * dim; i++) d[i] = x[i];
    return d;
}

static void print_step(void *user, const char *step, double seconds)
{
    if (*(const int *)user) return; /* quiet */
    printf("umap space: %s ... (started at %.2f s)\n", step, seconds);
    fflush(stdout);
}

int umap_train_apply(const dataset *ds, const gmm_train_args *args, const gmm_options *o,
                     double **X, int *dim, gmm_gpu *gpu, int quiet, gmm_umap_space **space,
                     double **pixels)
{
    const int64_t n = ds->n_samples;
    *space = NULL;
    *pixels = NULL;
    float *Xf = images_to_float(*X, n, *dim);
    if (!Xf) return cli_error("out of memory for the %lld images in float32", (long long)n);
    const gmm_umap_options uo = {.n_neighbors = o->knn_neighbors, .n_dims = args->embed_dims,
                                 .min_dist = args->min_dist, .n_epochs = args->epochs,
                                 .metric = args->metric, .knn_pca = args->knn_pca,
                                 .knn_power = args->knn_power, .knn_whiten = args->knn_whiten,
                                 .map_dims = *args->map_path ? 2 : 0, .seed = o->seed,
                                 .on_step = print_step, .user = &quiet};
    gmm_umap_report rep;
    const double t0 = cli_now_seconds();
    gmm_status st = gmm_umap_embed(Xf, n, *dim, ds->pixels, &uo, gpu, space, &rep);
    free(Xf);
    if (st != GMM_OK) return cli_fail(st);
    const gmm_umap_space *s = *space;
    double *coords = to_double(s->embedding, n, s->n_dims);
    if (!coords) {
        gmm_umap_space_free(*space);
        *space = NULL;
        return cli_error("out of memory for the %lld images' coordinates", (long long)n);
    }
    char search[160], axes[48] = "", power[48] = "", scaled[48] = "";
    if (s->knn_pca)
        snprintf(axes, sizeof axes, " among the top %d principal axes", s->knn_pca->n_axes);
    if (s->knn_power == 0.5) snprintf(power, sizeof power, " of the values' square roots");
    else if (s->knn_power != 1) snprintf(power, sizeof power, " of the values to the power %g",
                                         s->knn_power);
    if (s->knn_whiten > 0)
        snprintf(scaled, sizeof scaled, ", each scaled by variance^-%g", s->knn_whiten / 2);
    snprintf(search, sizeof search, "%s distance%s%s%s",
             s->metric == GMM_UMAP_COSINE ? "cosine" : "euclidean", axes, power, scaled);
    if (!quiet)
        printf("umap space: %d dimensions from the %d-nearest-neighbour fuzzy graph of %lld "
               "images (%s; %lld edges; min_dist %g, a %.4f, b %.4f; %d "
               "epochs%s) in %.2f s on the %s: principal axes %.2f s, kNN %.2f s, graph %.2f s, "
               "spectral start %.2f s (Lanczos %d steps%s), layout %.2f s%s", s->n_dims,
               s->n_neighbors, (long long)n, search, (long long)rep.n_edges, s->min_dist, s->a,
               s->b, s->n_epochs, s->map_dims ? ", and the 2-D map" : "",
               cli_now_seconds() - t0, gpu ? "GPU" : "CPU", rep.seconds_pca, rep.seconds_knn,
               rep.seconds_graph,
               rep.seconds_init, rep.lanczos.steps, rep.lanczos.converged ? "" : ", not converged",
               rep.seconds_layout, s->map_dims ? "" : "\n");
    if (!quiet && s->map_dims) printf(", map %.2f s\n", rep.seconds_map);
    *pixels = *X;
    *X = coords;
    *dim = s->n_dims;
    return 0;
}

int umap_predict_apply(const gmm_model *model, double **X, int64_t n_samples, gmm_gpu *gpu,
                       double **pixels, float **map)
{
    const gmm_umap_space *s = gmm_space_umap(model->space);
    if (map) *map = NULL;
    if (!s) return 0;
    const int p = s->input_dim, D = s->n_dims;
    float *coords = malloc(sizeof(float) * (size_t)(n_samples > 0 ? n_samples : 1) * D);
    float *places = map && s->map_dims ? malloc(sizeof(float) * (size_t)(n_samples > 0 ? n_samples : 1) * 2) : NULL;
    float *train_f = NULL, *new_f = NULL;
    double *coords_d = NULL;
    int rc = 0;
    gmm_status st;
    if (!coords || (map && s->map_dims && !places)) {
        rc = cli_error("out of memory for the images' places");
        goto done;
    }
    if ((st = images_training_float(model, s->images, s->values, s->n_train, p, gpu,
                                    &train_f)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    if (!(new_f = images_to_float(*X, n_samples, p))) {
        rc = cli_error("out of memory for the images in float32");
        goto done;
    }
    if ((st = gmm_umap_transform(s, train_f, new_f, n_samples, gpu, coords, places)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    if (!(coords_d = to_double(coords, n_samples, D))) {
        rc = cli_error("out of memory for the images' coordinates");
        goto done;
    }
    *pixels = *X;
    *X = coords_d;
    if (map) {
        *map = places;
        places = NULL;
    }
done:
    free(coords);
    free(places);
    free(train_f);
    free(new_f);
    return rc;
}

int umap_map_write(const char *path, const gmm_model *model, const float *map, int64_t n,
                   const int *assignments, const uint8_t *labels, const char *title)
{
    const int K = model->n_components, p = gmm_model_input_dim(model);
    int32_t *component = malloc(sizeof(int32_t) * (size_t)n);
    double *means = malloc(sizeof(double) * (size_t)K * p);
    int rc = 0;
    gmm_status st;
    if (!component || !means) {
        rc = cli_error("out of memory for the map");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) component[i] = assignments[i];
    if ((st = gmm_model_pixel_means(model, means)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    int n_classes = 0;
    for (int64_t i = 0; labels && i < n; i++)
        if (labels[i] + 1 > n_classes) n_classes = labels[i] + 1;
    const cluster_map cm = {.xy = map, .n = n, .component = component, .n_components = K,
                            .labels = labels, .n_classes = n_classes, .mean_images = means,
                            .rows = model->image_rows, .cols = model->image_cols,
                            .matched_label = model->matched_label, .title = title};
    if ((st = cluster_map_write(path, &cm)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    printf("map of the clusters written to %s\n", path);
done:
    free(component);
    free(means);
    return rc;
}
