/* What gmm-train and gmm-predict print and draw about a model and a labelled dataset: scores,
 * BIC/AIC, clustering metrics with the confusion matrix, the PNG of the cluster means, and the
 * caption buffers of the pictures. */
#ifndef GMM_REPORT_H
#define GMM_REPORT_H

#include <stdint.h>

#include "models/core/em.h"
#include "models/core/score.h"

/* The data's mean log-likelihood with BIC and AIC (with a variational model's words instead). */
void report_data_score(const gmm_model *model, double mean, int64_t n_samples);

/* Prints the training scores that the fit handed on (mean log-likelihood, BIC, AIC; for a
 * variational model the components it kept) and, when labels is not NULL, the clustering
 * metrics of the model's assignments. Returns an exit code (0 = ok). */
int report_training(const gmm_model *model, const gmm_fit_scores *scores, const uint8_t *labels);

/* Prints accuracy, NMI, ARI and the confusion matrix of assignments against labels. Returns an
 * exit code. */
int report_clustering(const int *assignments, int n_components, const uint8_t *labels,
                      int64_t n_samples);

/* Stores in model->matched_label the best one-to-one matching of its components to labels
 * (the Hungarian matching behind the accuracy), so that the model file remembers which
 * component stands for which label. Returns an exit code. */
int report_match_labels(gmm_model *model, const int *assignments, const uint8_t *labels,
                        int64_t n_samples);

/* Prints the accuracy of assignments read through the matching stored in the model at training
 * (the honest out-of-sample figure; report_clustering fits a matching on these labels), or that
 * the model stores none. Returns an exit code. */
int report_stored_matching(const gmm_model *model, const int *assignments, const uint8_t *labels,
                           int64_t n_samples);

/* The grid of cluster means, each tile captioned with its index and weight. */
gmm_status report_means_png(const char *path, const gmm_model *model);

/* n caption buffers of REPORT_CAPTION_LEN bytes, in one allocation (free it with free):
 * captions[i] is the i-th. NULL when out of memory. */
#define REPORT_CAPTION_LEN 96
char **report_captions_alloc(int n);

#endif
