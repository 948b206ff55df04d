/* The --json summaries of gmm-train and gmm-predict (written with app/json.h), so that a script
 * reads numbers instead of parsing the progress lines; and the recorder of every EM iteration's
 * lower bound and time that gmm-train's summary holds. */
#ifndef GMM_SUMMARY_JSON_H
#define GMM_SUMMARY_JSON_H

#include "app/gmm_train_args.h"
#include "app/select_k_report.h"
#include "data/dataset.h"
#include "models/core/em.h"
#include "models/core/score.h"

/* Every EM iteration as the library reports it, forwarded to next (a gmm_progress_fn). */
typedef struct {
    int n, capacity;
    int *k;          /* the fit's K (-1 until iter_log_mark_k names it) */
    int *init_index, *iteration;
    double *lower_bound, *change, *seconds;
    int fixed_k;     /* the K of a single fit (0 in a range) */
    gmm_progress_fn next;
    void *next_user;
} iter_log;

/* A gmm_progress_fn: user is an iter_log. */
void iter_log_progress(void *user, int init_index, int iteration, double lower_bound,
                       double change, double seconds);
/* The iterations recorded since the last call belong to the fit of K components. */
void iter_log_mark_k(void *log, int n_components);
void iter_log_free(iter_log *log);

typedef struct {
    const gmm_train_args *args;
    const gmm_options *opt;      /* as fitted (n_components of the kept model) */
    const dataset *ds;           /* the training images (labels may be NULL) */
    const gmm_model *model;
    const gmm_fit_scores *scores;
    const iter_log *iterations;
    const k_table *k_table;      /* NULL without a K range */
    double seconds_load, seconds_fit, seconds_pictures, seconds_save, seconds_total;
} train_summary;

/* Writes gmm-train's summary to path. Returns an exit code (0 = ok). */
int train_json_write(const char *path, const train_summary *summary);

/* Writes gmm-predict's summary (the model file, the data, N, the mean log-likelihood, BIC/AIC,
 * the metrics against labels, the images per component and per component and label) to
 * path. Returns an exit code. */
int predict_json_write(const char *path, const char *model_path, const gmm_model *model,
                       const dataset *ds, double mean_log_likelihood, const int *assignments);

#endif
