/* Scores, metrics and pictures shared by gmm-train and gmm-predict (see report.h). */
#include "app/report.h"

#include <stdio.h>
#include <stdlib.h>

#include "app/cli.h"
#include "data/png_write.h"
#include "models/core/pixel_means.h"
#include "models/eval/metrics.h"
#include "models/features/pca.h"

int report_clustering(const int *assignments, int n_components, const uint8_t *labels,
                      int64_t n_samples)
{
    int n_classes = 0;
    for (int64_t i = 0; i < n_samples; i++)
        if (labels[i] + 1 > n_classes) n_classes = labels[i] + 1;
    cluster_metrics m = {0};
    gmm_status st = cluster_metrics_compute(assignments, n_components, labels, n_classes,
                                            n_samples, &m);
    if (st != GMM_OK) return cli_fail(st);
    printf("accuracy %.4f   NMI %.4f   ARI %.4f   (best one-to-one matching of clusters to labels)\n",
           m.accuracy, m.nmi, m.ari);
    printf("confusion matrix (rows: components, columns: labels; -> matched label)\n      ");
    for (int c = 0; c < n_classes; c++) printf("%6d", c);
    printf("\n");
    for (int k = 0; k < n_components; k++) {
        printf("k=%-3d ", k);
        for (int c = 0; c < n_classes; c++) printf("%6lld", (long long)m.confusion[(size_t)k * n_classes + c]);
        if (m.cluster_to_class[k] >= 0) printf("   -> %d", m.cluster_to_class[k]);
        printf("\n");
    }
    cluster_metrics_free(&m);
    return 0;
}

int report_training(const gmm_model *model, const gmm_fit_scores *scores, const uint8_t *labels)
{
    double mean = scores->mean_log_likelihood;
    int64_t n_samples = scores->n_samples;
    printf("training data: mean log-likelihood %.6f   BIC %.6g   AIC %.6g   (%lld parameters)\n",
           mean, gmm_bic(model, mean, n_samples), gmm_aic(model, mean, n_samples),
           (long long)gmm_n_parameters(model));
    const gmm_projection *p = gmm_space_pca(model->space);
    if (p)
        printf("pca: the %d axes of %d explain %.2f%% of the variance%s\n", p->n_axes,
               p->input_dim, 100.0 * gmm_projection_explained_ratio(p),
               p->whiten ? " (whitened)" : "");
    const gmm_spectral_space *sp = gmm_space_spectral(model->space);
    if (sp)
        printf("space: the %d-dimensional spectral embedding of the %d-nearest-neighbour graph of "
               "the %lld training images (eigenvalues %.6f .. %.6f)\n", sp->n_dims,
               sp->n_neighbors, (long long)sp->n_train, sp->eigenvalues[0],
               sp->eigenvalues[sp->n_dims - 1]);
    return labels ? report_clustering(scores->labels, model->n_components, labels, n_samples) : 0;
}

char **report_captions_alloc(int n)
{
    char **captions = malloc((sizeof(char *) + REPORT_CAPTION_LEN) * (size_t)n);
    if (!captions) return NULL;
    char *text = (char *)(captions + n);
    for (int i = 0; i < n; i++) {
        captions[i] = text + (size_t)i * REPORT_CAPTION_LEN;
        captions[i][0] = '\0';
    }
    return captions;
}

gmm_status report_means_png(const char *path, const gmm_model *model)
{
    const int d = gmm_model_input_dim(model);
    if (model->image_rows * model->image_cols != d || model->dim <= 0)
        return gmm_error(GMM_ERR_ARG, "cannot draw means: the model has no image shape");
    int K = model->n_components;
    gmm_status st = GMM_OK;
    char **captions = report_captions_alloc(K);
    double *pixel_means = malloc(sizeof(double) * (size_t)K * d); /* mapped back from a PCA */
    if (!captions || !pixel_means) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if ((st = gmm_model_pixel_means(model, pixel_means)) != GMM_OK) goto fail;
    for (int k = 0; k < K; k++)
        snprintf(captions[k], REPORT_CAPTION_LEN, "k=%d w=%.3f", k, model->weights[k]);
    st = png_write_tile_grid(path, pixel_means, K, model->image_rows, model->image_cols, 4,
                             (const char *const *)captions);
fail:
    free(pixel_means);
    free(captions);
    return st;
}
