/* --diagnostics DIR: the text tables and PNG plots that judge a fit (squared Mahalanobis
 * distances against chi-square(d), cluster separation, the log-likelihood per iteration and per
 * sample, the outliers), and the per-sample scores that they and the pictures share. */
#ifndef GMM_DIAGNOSTICS_REPORT_H
#define GMM_DIAGNOSTICS_REPORT_H

#include <stdint.h>

#include "app/cli.h"
#include "models/core/em.h"
#include "models/core/score.h"

/* What one pass of gmm_score_samples gives, plus the squared Mahalanobis distance of each
 * sample to its component. */
typedef struct {
    int64_t n_samples;
    double *log_likelihood; /* n */
    double *proba;          /* n x K */
    int *labels;            /* n */
    double *distance_sq;    /* n */
} diag_scores;

/* From the per-sample scores of a fit (or of a scoring), whose arrays it takes over (fit is left
 * zeroed); adds the squared Mahalanobis distances. */
gmm_status diag_scores_adopt(const gmm_model *model, gmm_fit_scores *fit, diag_scores *scores);
void diag_scores_free(diag_scores *scores);

/* The lower bound of every EM iteration of every initialisation, gathered by diag_progress. */
typedef struct {
    cli_progress_state *cli; /* the printer it forwards to */
    int n, capacity;
    int *init_index, *iteration;
    double *lower_bound;
} diag_trace;

/* A gmm_progress_fn: user is a diag_trace; records the point, then calls cli_progress. */
void diag_progress(void *user, int init_index, int iteration, double lower_bound, double change,
                   double seconds);
void diag_trace_free(diag_trace *trace);

/* Writes into dir (created when missing): mahalanobis.txt and mahalanobis_k<k>.png, separation.txt
 * and separation.png, loglik_hist.png, outliers.png, and loglik_iterations.png when trace is not
 * NULL; prints the per-component summary table. X holds the samples in the model's space;
 * pixels (NULL when they are X) the same images in pixel space, for outliers.png. Returns an
 * exit code (0 = ok). */
int diagnostics_report_write(const char *dir, const gmm_model *model, const double *X,
                             const double *pixels, int64_t n_samples, const diag_scores *scores,
                             const diag_trace *trace, gmm_gpu *gpu);

/* Creates dir when it does not exist (one level). Returns an exit code (0 = ok). */
int diagnostics_make_dir(const char *dir);

#endif
