/* gmm-train's K range (select_k_report.h): the test split, the per-K lines, the table and
 * bic.png around the library's gmm_fit_k_range. */
#include "app/select_k_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "app/images.h"
#include "data/dataset.h"
#include "data/plot.h"
#include "models/features/pca.h"

typedef struct {
    k_table *table;
    const gmm_options *opt;
    const double *X_test;
    int64_t n_test;
    double *ll_test; /* n_test scratch */
    void (*k_done)(void *user, int n_components);
    void *k_done_user;
} k_range_user;

/* gmm_k_result_fn: the test split's score of this K, and its line. */
static gmm_status on_k_result(void *user, const gmm_k_result *r, const gmm_model *model,
                              const gmm_fit_scores *scores)
{
    (void)scores;
    k_range_user *u = user;
    k_table *t = u->table;
    int i = t->n_done;
    if (u->k_done) u->k_done(u->k_done_user, r->n_components);
    double test = NAN;
    if (u->X_test) {
        gmm_status st = gmm_score_samples_on(model, u->X_test, u->n_test, u->opt->device,
                                             u->opt->gpu, u->ll_test, NULL, NULL);
        if (st != GMM_OK) return st;
        double sum = 0;
        for (int64_t j = 0; j < u->n_test; j++) sum += u->ll_test[j];
        test = sum / (double)u->n_test;
    }
    t->test_mean_ll[i] = test;
    t->results[i] = *r;
    t->n_done = i + 1;
    printf("K=%d: %s in %d iterations, lower bound %.6f, BIC %.6g, AIC %.6g, ICL %.6g",
           r->n_components, r->converged ? "converged" : "NOT converged", r->n_iter,
           r->lower_bound, r->bic, r->aic, r->icl);
    if (u->X_test) printf(", test log-likelihood %.6f", test);
    printf(" (%.2f s)\n", r->seconds);
    fflush(stdout);
    return GMM_OK;
}

/* The test split of dir, as doubles blurred and projected like the training images; 0 when
 * there is none. */
static int load_test_split(const char *path, double blur, const gmm_projection *projection,
                           const gmm_options *opt, int dim, k_table *t, double **X_test)
{
    struct stat sb;
    dataset test = {0};
    int ok = 0;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) return 0; /* a file has no test split */
    if (dataset_load(path, DATASET_TEST, &test) != GMM_OK) return 0;
    int test_dim = 0;
    if (dataset_image_dim(&test, &test_dim) != GMM_OK ||
        test_dim != (projection ? projection->input_dim : dim) ||
        dataset_to_double(&test, X_test) != GMM_OK)
        goto done;
    if (blur > 0 &&
        images_blur(*X_test, test.n_samples, test.rows, test.cols, blur, opt->gpu) != GMM_OK) {
        free(*X_test);
        *X_test = NULL;
        goto done;
    }
    if (projection) {
        double *Z = malloc(sizeof(double) * (size_t)test.n_samples * dim);
        if (!Z || gmm_projection_apply(projection, *X_test, test.n_samples, opt->gpu, Z) != GMM_OK) {
            free(Z);
            free(*X_test);
            *X_test = NULL;
            goto done;
        }
        free(*X_test);
        *X_test = Z;
    }
    snprintf(t->test_path, sizeof t->test_path, "%s", test.images_path);
    t->n_test = test.n_samples;
    ok = 1;
done:
    dataset_free(&test);
    return ok;
}

gmm_status select_k_fit(const gmm_train_args *args, const double *X, int64_t n_samples, int dim,
                        double blur, const gmm_projection *projection, const gmm_options *opt, k_table *table, gmm_model *model,
                        gmm_fit_scores *scores, void (*k_done)(void *user, int n_components),
                        void *k_done_user)
{
    gmm_status st;
    double *X_test = NULL;
    k_range_user user = {.table = table, .opt = opt, .k_done = k_done,
                         .k_done_user = k_done_user};
    gmm_k_range range = args->k_range;
    memset(table, 0, sizeof *table);
    table->chosen = -1;
    if ((st = gmm_k_range_validate(&range, n_samples, &table->n_fits)) != GMM_OK) return st;
    table->results = calloc((size_t)table->n_fits, sizeof *table->results);
    table->test_mean_ll = calloc((size_t)table->n_fits, sizeof(double));
    if (!table->results || !table->test_mean_ll) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory for the K table");
        goto done;
    }
    table->have_test = load_test_split(args->data_path, blur, projection, opt, dim, table, &X_test);
    if (table->have_test) {
        user.X_test = X_test;
        user.n_test = table->n_test;
        if (!(user.ll_test = malloc(sizeof(double) * (size_t)table->n_test))) {
            st = gmm_error(GMM_ERR_NOMEM, "out of memory for the test split's scores");
            goto done;
        }
        if (!args->quiet)
            printf("each K is also scored on the test split %s (%d images)\n", table->test_path,
                   table->n_test);
    }
    range.on_result = on_k_result;
    range.user = &user;
    int n_done = 0;
    st = gmm_fit_k_range(X, n_samples, dim, opt, &range, table->results, &n_done, &table->chosen,
                         model, scores);
    table->n_done = n_done;
done:
    free(X_test);
    free(user.ll_test);
    return st;
}

const char *select_k_criterion_label(gmm_k_criterion criterion)
{
    return criterion == GMM_SELECT_AIC ? "AIC" : criterion == GMM_SELECT_ICL ? "ICL" : "BIC";
}

static double criterion_of(const gmm_k_result *r, gmm_k_criterion criterion)
{
    return criterion == GMM_SELECT_AIC ? r->aic : criterion == GMM_SELECT_ICL ? r->icl : r->bic;
}

void select_k_print_table(const k_table *t, gmm_k_criterion criterion)
{
    printf("\n    K  iterations      lower bound            BIC            AIC            ICL%s"
           "   seconds\n", t->have_test ? "  test loglik" : "");
    for (int i = 0; i < t->n_done; i++) {
        const gmm_k_result *r = &t->results[i];
        printf("%c%4d  %10d%s  %15.6f  %13.6g  %13.6g  %13.6g", i == t->chosen ? '*' : ' ',
               r->n_components, r->n_iter, r->converged ? " " : "!", r->lower_bound, r->bic,
               r->aic, r->icl);
        if (t->have_test) printf("  %11.6f", t->test_mean_ll[i]);
        printf("  %8.2f\n", r->seconds);
    }
    if (t->chosen >= 0) {
        const gmm_k_result *c = &t->results[t->chosen];
        printf("chosen: K=%d, the lowest %s (%.6g) of %d fits%s\n", c->n_components,
               select_k_criterion_label(criterion), criterion_of(c, criterion), t->n_done,
               t->n_done < t->n_fits ? " (the range was not finished)" : "");
        if (t->n_done == t->n_fits && t->n_fits > 1 && t->chosen == t->n_done - 1)
            printf("the chosen K is the last of the range: a range going further may choose a "
                   "larger one\n");
        if (t->n_fits > 1 && t->chosen == 0 && c->n_components > 1)
            printf("the chosen K is the first of the range: a range starting lower may choose a "
                   "smaller one\n");
    }
    for (int i = 0; i < t->n_done; i++)
        if (!t->results[i].converged) {
            printf("(! did not converge within --max-iter)\n");
            break;
        }
}

gmm_status select_k_write_png(const char *path, const k_table *t, gmm_k_criterion criterion)
{
    int n = t->n_done;
    gmm_status st = GMM_OK;
    double *k = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * 4);
    if (!k) return gmm_error(GMM_ERR_NOMEM, "out of memory for %s", path);
    double *bic = k + n, *aic = k + 2 * n, *icl = k + 3 * n, lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        k[i] = t->results[i].n_components;
        bic[i] = t->results[i].bic;
        aic[i] = t->results[i].aic;
        icl[i] = t->results[i].icl;
        double v[3] = {bic[i], aic[i], icl[i]};
        for (int j = 0; j < 3; j++)
            if (isfinite(v[j])) {
                if (v[j] < lo) lo = v[j];
                if (v[j] > hi) hi = v[j];
            }
    }
    /* the chosen K as a vertical line across the curves */
    double mark_x[2] = {0, 0}, mark_y[2] = {lo, hi};
    char mark_label[64];
    plot_series series[4] = {{k, bic, n, "BIC"}, {k, aic, n, "AIC"}, {k, icl, n, "ICL"},
                             {mark_x, mark_y, 2, NULL}};
    int n_series = 3;
    if (t->chosen >= 0 && isfinite(lo)) {
        mark_x[0] = mark_x[1] = t->results[t->chosen].n_components;
        snprintf(mark_label, sizeof mark_label, "chosen K=%d (lowest %s)",
                 t->results[t->chosen].n_components, select_k_criterion_label(criterion));
        series[3].label = mark_label;
        n_series = 4;
    }
    st = plot_lines(path, "BIC, AIC and ICL against K (lower is better)", "K (components)",
                    "criterion", series, n_series);
    free(k);
    return st;
}

int select_k_report(const gmm_train_args *args, const k_table *table)
{
    select_k_print_table(table, args->k_range.criterion);
    if (!args->bic_png || !*args->bic_png || table->n_done == 0) return 0;
    gmm_status st = select_k_write_png(args->bic_png, table, args->k_range.criterion);
    if (st != GMM_OK) return cli_fail(st);
    printf("BIC, AIC and ICL against K written to %s\n", args->bic_png);
    return 0;
}

void k_table_free(k_table *t)
{
    free(t->results);
    free(t->test_mean_ll);
    memset(t, 0, sizeof *t);
}
