/* gmm-train -k A:B[:STEP]: the fits of the K range (gmm_fit_k_range on one backend context), a
 * line per K as it finishes, the table, the test split's mean log-likelihood per K when the
 * data directory has one, and the picture of BIC, AIC and ICL against K. */
#ifndef GMM_SELECT_K_REPORT_H
#define GMM_SELECT_K_REPORT_H

#include "app/gmm_train_args.h"
#include "models/fit/select_k.h"

typedef struct {
    gmm_k_result *results; /* n_fits rows, n_done filled */
    double *test_mean_ll;  /* n_fits: the test split's mean log-likelihood (NaN: none) */
    int n_fits, n_done, chosen; /* chosen: index into results, -1 when none finished */
    int have_test;
    char test_path[1024];  /* the test images scored */
    int n_test;
} k_table;

/* Fits the range of args on X (n_samples x dim) with opt (whose progress callbacks stay as
 * they are; k_done, when not NULL, is told each K as its fit ends), scoring the test split of
 * args->data_path when it is a directory that has one (blurred as the training images with
 * blur, then projected when projection is not NULL). Prints a line per K; fills table, and
 * model and scores with the chosen fit. Returns gmm_fit_k_range's status (GMM_INTERRUPTED keeps the
 * chosen of the finished fits). */
gmm_status select_k_fit(const gmm_train_args *args, const double *X, int64_t n_samples, int dim,
                        double blur, const gmm_projection *projection, const gmm_options *opt,
                        k_table *table, gmm_model *model, gmm_fit_scores *scores,
                        void (*k_done)(void *user, int n_components), void *k_done_user);

/* After select_k_fit: the table, and args->bic_png unless it is "". Returns an exit code. */
int select_k_report(const gmm_train_args *args, const k_table *table);

/* "BIC", "AIC" or "ICL". */
const char *select_k_criterion_label(gmm_k_criterion criterion);

/* Prints the table of the finished fits with the chosen K marked, and says which was chosen. */
void select_k_print_table(const k_table *table, gmm_k_criterion criterion);

/* Draws BIC, AIC and ICL against K with the chosen K marked into path. */
gmm_status select_k_write_png(const char *path, const k_table *table, gmm_k_criterion criterion);

void k_table_free(k_table *table);

#endif
