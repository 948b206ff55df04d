/* Scores, metrics and pictures shared by gmm-train and gmm-predict (see report.h). */
#include "app/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "data/png_write.h"
#include "models/bayes.h"
#include "models/core/pixel_means.h"
#include "models/eval/metrics.h"
#include "models/features/pca.h"

static int n_classes_of(const uint8_t *labels, int64_t n)
{
    int n_classes = 0;
    for (int64_t i = 0; i < n; i++)
        if (labels[i] + 1 > n_classes) n_classes = labels[i] + 1;
    return n_classes;
}

int report_clustering(const int *assignments, int n_components, const uint8_t *labels,
                      int64_t n_samples)
{
    const int n_classes = n_classes_of(labels, n_samples);
    cluster_metrics m = {0};
    gmm_status st = cluster_metrics_compute(assignments, n_components, labels, n_classes,
                                            n_samples, &m);
    if (st != GMM_OK) return cli_fail(st);
    printf("accuracy %.4f   NMI %.4f   ARI %.4f   (best one-to-one matching of clusters to these labels)\n",
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

int report_match_labels(gmm_model *model, const int *assignments, const uint8_t *labels,
                        int64_t n_samples)
{
    const int K = model->n_components;
    cluster_metrics m = {0};
    gmm_status st = cluster_metrics_compute(assignments, K, labels, n_classes_of(labels, n_samples),
                                            n_samples, &m);
    if (st != GMM_OK) return cli_fail(st);
    free(model->matched_label);
    model->matched_label = malloc(sizeof(int) * (size_t)K);
    if (!model->matched_label) {
        cluster_metrics_free(&m);
        return cli_error("out of memory for the matched labels");
    }
    memcpy(model->matched_label, m.cluster_to_class, sizeof(int) * (size_t)K);
    cluster_metrics_free(&m);
    return 0;
}

int report_stored_matching(const gmm_model *model, const int *assignments, const uint8_t *labels,
                           int64_t n_samples)
{
    if (!model->matched_label) {
        printf("the model stores no matching of its components to labels (trained without "
               "labels, or by an older gmm-train)\n");
        return 0;
    }
    int64_t right = 0;
    for (int64_t i = 0; i < n_samples; i++)
        right += model->matched_label[assignments[i]] == (int)labels[i];
    printf("accuracy %.4f with the matching stored at training (each component read as the "
           "training label it was matched to: the out-of-sample figure)\n",
           (double)right / (double)n_samples);
    return 0;
}

void report_data_score(const gmm_model *model, double mean, int64_t n_samples)
{
    if (model->bayes) /* a variational fit chose its components: no BIC or AIC */
        printf("mean log p(x) under the posterior's expected parameters %.6f\n", mean);
    else
        printf("mean log-likelihood %.6f   BIC %.6g   AIC %.6g\n", mean,
               gmm_bic(model, mean, n_samples), gmm_aic(model, mean, n_samples));
}

int report_training(const gmm_model *model, const gmm_fit_scores *scores, const uint8_t *labels)
{
    double mean = scores->mean_log_likelihood;
    int64_t n_samples = scores->n_samples;
    if (model->bayes) {
        /* a variational fit: no BIC (it chose its components), what it kept instead */
        int *holds = calloc((size_t)model->n_components, sizeof(int)), with_images = 0;
        if (!holds) return cli_error("out of memory");
        for (int64_t i = 0; i < n_samples; i++) holds[scores->labels[i]] = 1;
        for (int k = 0; k < model->n_components; k++) with_images += holds[k];
        free(holds);
        printf("variational fit (%s weight prior, concentration %g): %d of %d components keep "
               "weight (> %g%%), %d hold training images; lower bound %.6f\n",
               gmm_weight_prior_name(model->bayes->weight_prior_type),
               model->bayes->weight_concentration_prior,
               gmm_bayes_components_kept(model, GMM_BAYES_KEPT_WEIGHT), model->n_components,
               100 * GMM_BAYES_KEPT_WEIGHT, with_images, model->lower_bound);
        printf("training data: mean log p(x) under the posterior's expected parameters %.6f\n",
               mean);
    } else {
        printf("training data: mean log-likelihood %.6f   BIC %.6g   AIC %.6g   (%lld "
               "parameters)\n", mean, gmm_bic(model, mean, n_samples),
               gmm_aic(model, mean, n_samples), (long long)gmm_n_parameters(model));
    }
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
    const gmm_umap_space *u = gmm_space_umap(model->space);
    if (u)
        printf("space: the %d-dimensional UMAP embedding of the %d-nearest-neighbour fuzzy graph "
               "of the %lld training images (min_dist %g, %d epochs)\n", u->n_dims,
               u->n_neighbors, (long long)u->n_train, u->min_dist, u->n_epochs);
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
        if (model->bayes && model->weights[k] * (double)model->n_train_samples < 1) {
            /* a component a variational fit switched off: its "mean" would be the one image
             * nearest to it, so a blank tile says what it is */
            memset(pixel_means + (size_t)k * d, 0, sizeof(double) * (size_t)d);
            snprintf(captions[k], REPORT_CAPTION_LEN, "k=%d empty", k);
        } else if (model->matched_label && model->matched_label[k] >= 0)
            snprintf(captions[k], REPORT_CAPTION_LEN, "k=%d->%d w=%.3f", k,
                     model->matched_label[k], model->weights[k]);
        else
            snprintf(captions[k], REPORT_CAPTION_LEN, "k=%d w=%.3f", k, model->weights[k]);
    st = png_write_tile_grid(path, pixel_means, K, model->image_rows, model->image_cols, 4,
                             (const char *const *)captions);
fail:
    free(pixel_means);
    free(captions);
    return st;
}
