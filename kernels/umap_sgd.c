/* The CPU twin of UMAP's layout SGD (kernels/umap_sgd.h), the checks and the edge schedule that
 * the CUDA twin shares (kernels/umap_sgd_epoch.h), and the a/b curve fit (umap_find_ab). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/umap_sgd.h"
#include "kernels/umap_sgd_epoch.h"

gmm_status umap_sgd_prepare(const umap_edges *edges, const float *head_embedding,
                            const float *tail_embedding, int dim,
                            const umap_sgd_options *options, umap_sgd_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    if (!edges || !options) return gmm_error(GMM_ERR_ARG, "umap sgd: NULL edges or options");
    const int64_t n_heads = edges->n_heads, n_tails = edges->n_tails;
    const int layout = tail_embedding == NULL;
    if (dim < 1) return gmm_error(GMM_ERR_ARG, "umap sgd: dim %d < 1", dim);
    if (options->n_epochs < 1)
        return gmm_error(GMM_ERR_ARG, "umap sgd: n_epochs %d < 1", options->n_epochs);
    if (n_heads < 0 || n_tails < 0 || n_tails > INT32_MAX)
        return gmm_error(GMM_ERR_ARG, "umap sgd: %lld heads, %lld tails", (long long)n_heads,
                         (long long)n_tails);
    if (layout && n_tails != n_heads)
        return gmm_error(GMM_ERR_ARG, "umap sgd: layout (no tail embedding) with %lld heads but "
                         "%lld tails", (long long)n_heads, (long long)n_tails);
    if (n_heads > 0 && (!edges->row_ptr || !head_embedding))
        return gmm_error(GMM_ERR_ARG, "umap sgd: NULL row_ptr or head embedding");
    const double a = options->a, b = options->b;
    const double gamma = options->gamma == 0 ? 1.0 : options->gamma;
    const double alpha0 = options->initial_alpha == 0 ? 1.0 : options->initial_alpha;
    const int rate = options->negative_sample_rate == 0 ? 5 : options->negative_sample_rate;
    if (!(a > 0 && a < HUGE_VAL && b > 0 && b < HUGE_VAL))
        return gmm_error(GMM_ERR_ARG, "umap sgd: curve a = %g, b = %g (both must be > 0)", a, b);
    if (!(gamma > 0 && gamma < HUGE_VAL) || !(alpha0 > 0 && alpha0 < HUGE_VAL) || rate < 0)
        return gmm_error(GMM_ERR_ARG, "umap sgd: gamma %g, initial_alpha %g or negative sample "
                         "rate %d out of range", gamma, alpha0, rate);
    const int64_t nnz = n_heads > 0 ? edges->row_ptr[n_heads] : 0;
    if (n_heads > 0 && edges->row_ptr[0] != 0)
        return gmm_error(GMM_ERR_ARG, "umap sgd: row_ptr[0] = %lld, not 0",
                         (long long)edges->row_ptr[0]);
    for (int64_t i = 0; i < n_heads; i++)
        if (edges->row_ptr[i + 1] < edges->row_ptr[i])
            return gmm_error(GMM_ERR_ARG, "umap sgd: row_ptr decreases at row %lld", (long long)i);
    if (nnz > 0 && (!edges->col || !edges->weight))
        return gmm_error(GMM_ERR_ARG, "umap sgd: NULL columns or weights");
    double max_w = 0;
    for (int64_t p = 0; p < nnz; p++) {
        if (edges->col[p] < 0 || edges->col[p] >= n_tails)
            return gmm_error(GMM_ERR_ARG, "umap sgd: edge %lld has column %d outside [0, %lld)",
                             (long long)p, (int)edges->col[p], (long long)n_tails);
        const double w = edges->weight[p];
        if (!(w > -HUGE_VAL && w < HUGE_VAL))
            return gmm_error(GMM_ERR_ARG, "umap sgd: edge %lld has weight %g", (long long)p, w);
        if (w > max_w) max_w = w;
    }

    plan->n_heads = n_heads;
    plan->nnz = nnz;
    plan->n_epochs = options->n_epochs;
    plan->initial_alpha = alpha0;
    plan->any_edge = max_w > 0;
    umap_sgd_epoch_args *g = &plan->args;
    g->row_ptr = edges->row_ptr;
    g->col = edges->col;
    g->tails = layout ? head_embedding : tail_embedding;
    g->n_tails = n_tails;
    g->dim = dim;
    g->layout = layout;
    g->a = (float)a;
    g->b = (float)b;
    g->b_minus_1 = (float)(b - 1.0);
    g->attraction = (float)(-2.0 * a * b);
    g->repulsion = (float)(2.0 * gamma * b);
    g->attraction_factor = layout ? 2.0f : 1.0f;
    g->seed_key = usgd_mix(options->seed);
    if (nnz == 0) return GMM_OK;
    plan->schedule = malloc(sizeof(double) * 4 * (size_t)nnz);
    if (!plan->schedule) return gmm_error(GMM_ERR_NOMEM, "umap sgd: schedule of %lld edges",
                                          (long long)nnz);
    double *eps = plan->schedule, *epns = eps + nnz, *next = epns + nnz, *next_neg = next + nnz;
    /* umap-learn's make_epochs_per_sample: an edge of weight w every max_w / w epochs */
    for (int64_t p = 0; p < nnz; p++) {
        const double w = edges->weight[p];
        eps[p] = w > 0 ? max_w / w : -1.0;
        epns[p] = eps[p] / rate;
        next[p] = eps[p];
        next_neg[p] = epns[p];
    }
    g->epochs_per_sample = eps;
    g->epochs_per_negative_sample = epns;
    g->epoch_of_next_sample = next;
    g->epoch_of_next_negative_sample = next_neg;
    return GMM_OK;
}

void umap_sgd_plan_free(umap_sgd_plan *plan)
{
    free(plan->schedule);
    plan->schedule = NULL;
}

float umap_sgd_alpha(const umap_sgd_plan *plan, int epoch)
{
    return (float)(plan->initial_alpha * (1.0 - (double)epoch / plan->n_epochs));
}

gmm_status umap_sgd_cpu(const umap_edges *edges, float *head_embedding,
                        const float *tail_embedding, int dim, const umap_sgd_options *options)
{
    umap_sgd_plan plan;
    float *snapshot = NULL;
    gmm_status status =
        umap_sgd_prepare(edges, head_embedding, tail_embedding, dim, options, &plan);
    if (status != GMM_OK || !plan.any_edge) goto done;
    const size_t size = sizeof(float) * (size_t)plan.n_heads * (size_t)dim;
    if (plan.args.layout) {
        /* every "other" read of an epoch sees the heads as they were when it began */
        if (!(snapshot = malloc(size))) {
            status = gmm_error(GMM_ERR_NOMEM, "umap sgd: snapshot of %lld x %d",
                               (long long)plan.n_heads, dim);
            goto done;
        }
        plan.args.tails = snapshot;
    }
    for (int epoch = 0; epoch < plan.n_epochs; epoch++) {
        if (snapshot) memcpy(snapshot, head_embedding, size);
        const float alpha = umap_sgd_alpha(&plan, epoch);
        const umap_sgd_epoch_args *args = &plan.args;
        /* each head's row is one thread's, in order: no result depends on the schedule */
#pragma omp parallel for schedule(dynamic, 64)
        for (int64_t i = 0; i < plan.n_heads; i++)
            umap_sgd_row(args, i, head_embedding + i * dim, epoch, alpha);
    }
done:
    free(snapshot);
    umap_sgd_plan_free(&plan);
    return status;
}

/* ---- the a/b fit --------------------------------------------------------------------------- */

enum { AB_POINTS = 300 };

/* Half the sum of squared residuals of 1 / (1 + a x^(2b)) - y; with jac, also J^T J (jtj, 2 x 2)
 * and J^T r (jtr). */
static double ab_cost(const double *x, const double *y, double a, double b, double jtj[4],
                      double jtr[2])
{
    double cost = 0;
    if (jtj) jtj[0] = jtj[1] = jtj[2] = jtj[3] = jtr[0] = jtr[1] = 0;
    for (int i = 0; i < AB_POINTS; i++) {
        const double u = x[i] > 0 ? pow(x[i], 2 * b) : 0; /* numpy: 0 ** (2b) is 0 for b > 0 */
        const double den = 1 + a * u, r = 1 / den - y[i];
        cost += 0.5 * r * r;
        if (jtj && x[i] > 0) {
            const double ja = -u / (den * den), jb = ja * a * 2 * log(x[i]);
            jtj[0] += ja * ja, jtj[1] += ja * jb, jtj[3] += jb * jb;
            jtr[0] += ja * r, jtr[1] += jb * r;
        }
    }
    if (jtj) jtj[2] = jtj[1];
    return cost;
}

gmm_status umap_find_ab(double spread, double min_dist, double *a, double *b)
{
    if (!a || !b) return gmm_error(GMM_ERR_ARG, "umap sgd: find_ab with NULL outputs");
    if (!(spread > 0 && spread < HUGE_VAL) || !(min_dist >= 0) || !(min_dist <= spread))
        return gmm_error(GMM_ERR_ARG, "umap sgd: find_ab with spread %g, min_dist %g (want "
                         "0 <= min_dist <= spread, spread > 0)", spread, min_dist);
    /* numpy.linspace(0, 3 spread, 300): i x step, the last point exactly 3 spread */
    double x[AB_POINTS], y[AB_POINTS];
    const double stop = 3 * spread, step = stop / (AB_POINTS - 1);
    for (int i = 0; i < AB_POINTS; i++) {
        x[i] = i == AB_POINTS - 1 ? stop : i * step;
        y[i] = x[i] < min_dist ? 1.0 : exp(-(x[i] - min_dist) / spread);
    }
    /* Levenberg-Marquardt from (1, 1) (scipy's curve_fit), Marquardt's scaling of the damping,
     * steps that leave a > 0, b > 0 or do not lower the cost refused (the damping grows) */
    double pa = 1, pb = 1, jtj[4], jtr[2], lambda = 1e-3;
    double cost = ab_cost(x, y, pa, pb, jtj, jtr);
    for (int iter = 0; iter < 1000; iter++) {
        const double m00 = jtj[0] * (1 + lambda), m11 = jtj[3] * (1 + lambda), m01 = jtj[1];
        const double det = m00 * m11 - m01 * m01;
        if (!(det > 0) || !isfinite(det)) break;
        const double da = -(m11 * jtr[0] - m01 * jtr[1]) / det;
        const double db = -(m00 * jtr[1] - m01 * jtr[0]) / det;
        const double na = pa + da, nb = pb + db;
        const double new_cost = na > 0 && nb > 0 ? ab_cost(x, y, na, nb, NULL, NULL) : HUGE_VAL;
        if (new_cost <= cost) {
            pa = na, pb = nb;
            cost = ab_cost(x, y, pa, pb, jtj, jtr);
            lambda = fmax(lambda / 10, 1e-15);
            if (fabs(da) <= 1e-13 * (1 + fabs(pa)) && fabs(db) <= 1e-13 * (1 + fabs(pb))) {
                *a = pa, *b = pb;
                return GMM_OK;
            }
        } else if ((lambda *= 10) > 1e16) {
            /* no step lowers the cost, however short: a minimum to rounding */
            *a = pa, *b = pb;
            return GMM_OK;
        }
    }
    return gmm_error(GMM_ERR_NUMERIC, "umap sgd: find_ab(spread %g, min_dist %g) did not "
                     "converge", spread, min_dist);
}
