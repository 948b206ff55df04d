/* The model file's tagged sections: the UMAP space, the matched labels and a variational
 * model's priors and posterior (models/io/model_sections.h). */
#include "models/io/model_sections.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "models/io/model_bytes.h"

enum {
    SECTION_END = 0,
    SECTION_UMAP = 1,
    SECTION_MATCHED_LABELS = 2,
    SECTION_BAYES = 3,
    SECTION_UMAP_NEIGHBOURS = 4, /* the umap space's metric and principal axes (after tag 1) */
    SECTION_LAST = SECTION_UMAP_NEIGHBOURS,
    SECTION_HEAD = 16,
    UMAP_FIXED = 4 + 4 + 8 + 4 + 4 + 4 + 4 + 8 + 4 * 8,
};

static size_t pad8(size_t n) { return (8 - n % 8) % 8; }

static void put_f32_array(writer *w, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &x[i], 4);
        put_u32(w, bits);
    }
}

static void put_zeros(writer *w, size_t n)
{
    memset(w->p, 0, n);
    w->p += n;
}

static void put_head(writer *w, uint32_t tag, uint64_t length)
{
    put_u32(w, tag);
    put_u32(w, 0);
    put_u64(w, length);
}

/* Bytes of the training data a umap section holds (before its padding): u8 images or f32
 * values. */
static uint64_t umap_data_bytes(uint64_t n, uint64_t q, uint32_t storage)
{
    return n * q * (storage == GMM_UMAP_KEEPS_VALUES ? 4 : 1);
}

static size_t umap_bytes(const gmm_umap_space *u)
{
    const size_t data = (size_t)umap_data_bytes((uint64_t)u->n_train, (uint64_t)u->input_dim,
                                                gmm_umap_space_storage(u));
    return UMAP_FIXED + data + pad8(data) +
           4 * (size_t)u->n_train * (size_t)(u->n_dims + u->map_dims);
}

/* Whether a umap neighbours section carries the power and whitening (flag 1 in its fourth word):
 * only when either differs from none, so older spaces are written as they were. */
static int prepares_values(const gmm_umap_space *u)
{
    return u->knn_power != 1.0 || u->knn_whiten != 0.0;
}

/* A neighbours section: u32 metric, u32 axes (0: none), u32 input_dim, u32 flag (0 or 1); with
 * the flag the power and the whitening (float64); then with axes the total variance, the mean
 * (input_dim), the explained variances (axes) and the axes (axes x input_dim), float64. Written
 * when the space differs from euclidean on the input as it is. */
static size_t neighbours_bytes(const gmm_umap_space *u)
{
    const gmm_projection *p = u->knn_pca;
    const size_t axes = p ? 8 * (1 + (size_t)p->input_dim +
                                 (size_t)p->n_axes * (1 + (size_t)p->input_dim))
                          : 0;
    return 16 + (prepares_values(u) ? 16 : 0) + axes;
}

static void put_neighbours(writer *w, const gmm_umap_space *u)
{
    const gmm_projection *p = u->knn_pca;
    put_u32(w, (uint32_t)u->metric);
    put_u32(w, p ? (uint32_t)p->n_axes : 0);
    put_u32(w, (uint32_t)u->input_dim);
    put_u32(w, (uint32_t)prepares_values(u));
    if (prepares_values(u)) {
        put_f64(w, u->knn_power);
        put_f64(w, u->knn_whiten);
    }
    if (!p) return;
    put_f64(w, p->total_variance);
    put_f64_array(w, p->mean, (size_t)p->input_dim);
    put_f64_array(w, p->explained_variance, (size_t)p->n_axes);
    put_f64_array(w, p->components, (size_t)p->n_axes * p->input_dim);
}

static gmm_status read_neighbours(const char *path, reader *r, uint64_t length, gmm_model *m)
{
    gmm_umap_space *u = gmm_space_umap(m->space);
    uint32_t metric = 0, axes = 0, q = 0, prepared = 0;
    if (!u)
        return gmm_error(GMM_ERR_FORMAT, "%s: a umap neighbours section without a umap space "
                         "before it", path);
    int bad = get_u32(r, &metric) | get_u32(r, &axes) | get_u32(r, &q) | get_u32(r, &prepared);
    if (bad || prepared > 1 || q != (uint32_t)u->input_dim || axes > q ||
        (metric != GMM_UMAP_EUCLIDEAN && metric != GMM_UMAP_COSINE) ||
        length != 16 + 16ull * prepared +
                      (axes ? 8 * (1 + (uint64_t)q + (uint64_t)axes * (1 + (uint64_t)q)) : 0))
        return gmm_error(GMM_ERR_FORMAT, "%s: invalid umap neighbours section (metric %u, %u "
                         "axes of %u values for a space of %d, flag %u, %llu bytes)", path,
                         metric, axes, q, u->input_dim, prepared, (unsigned long long)length);
    u->metric = (gmm_umap_metric)metric;
    if (prepared) { /* checked with the space (gmm_umap_space_check) */
        get_f64(r, &u->knn_power);
        get_f64(r, &u->knn_whiten);
    }
    if (!axes) return GMM_OK;
    gmm_projection *p = NULL;
    gmm_status st = gmm_projection_alloc((int)q, (int)axes, 0, &p);
    if (st != GMM_OK) return st;
    get_f64(r, &p->total_variance);
    get_f64_array(r, p->mean, q);
    get_f64_array(r, p->explained_variance, axes);
    get_f64_array(r, p->components, (size_t)axes * q);
    u->knn_pca = p; /* checked with the space (gmm_umap_space_check) */
    return GMM_OK;
}

/* The doubles of a bayes section after its 4 u32: the 3 scalar priors, mean_prior (d),
 * covariance_prior, the concentrations (2K), beta (K), nu (K) and the log-weight terms (K). */
static size_t bayes_values(const gmm_model *m)
{
    return 3 + (size_t)m->dim + gmm_bayes_prior_cov_size(m->covariance_type, m->dim) +
           5 * (size_t)m->n_components;
}

static void put_bayes(writer *w, const gmm_model *m)
{
    const gmm_bayes *b = m->bayes;
    const size_t K = (size_t)m->n_components;
    put_u32(w, (uint32_t)b->weight_prior_type);
    put_u32(w, (uint32_t)m->n_components);
    put_u32(w, (uint32_t)m->dim);
    put_u32(w, (uint32_t)m->covariance_type);
    put_f64(w, b->weight_concentration_prior);
    put_f64(w, b->mean_precision_prior);
    put_f64(w, b->degrees_of_freedom_prior);
    put_f64_array(w, b->mean_prior, (size_t)m->dim);
    put_f64_array(w, b->covariance_prior, gmm_bayes_prior_cov_size(m->covariance_type, m->dim));
    put_f64_array(w, b->weight_concentration, 2 * K);
    put_f64_array(w, b->mean_precision, K);
    put_f64_array(w, b->degrees_of_freedom, K);
    put_f64_array(w, b->log_weight_terms, K);
}

static gmm_status read_bayes(const char *path, reader *r, uint64_t length, gmm_model *m)
{
    uint32_t type = 0, K = 0, d = 0, cov = 0;
    int bad = get_u32(r, &type) | get_u32(r, &K) | get_u32(r, &d) | get_u32(r, &cov);
    if (bad || K != (uint32_t)m->n_components || d != (uint32_t)m->dim ||
        cov != (uint32_t)m->covariance_type || type > GMM_WEIGHT_PRIOR_DIRICHLET_DISTRIBUTION ||
        length != 16 + 8 * bayes_values(m))
        return gmm_error(GMM_ERR_FORMAT, "%s: invalid variational section (%u components of %u "
                         "features, covariance %u, weight prior %u, %llu bytes) for a model of "
                         "%d x %d", path, K, d, cov, type, (unsigned long long)length,
                         m->n_components, m->dim);
    gmm_bayes *b = NULL;
    gmm_status st = gmm_bayes_alloc(&b, m->covariance_type, m->n_components, m->dim);
    if (st != GMM_OK) return st;
    b->weight_prior_type = (gmm_weight_prior_type)type;
    get_f64(r, &b->weight_concentration_prior);
    get_f64(r, &b->mean_precision_prior);
    get_f64(r, &b->degrees_of_freedom_prior);
    get_f64_array(r, b->mean_prior, (size_t)m->dim);
    get_f64_array(r, b->covariance_prior, gmm_bayes_prior_cov_size(m->covariance_type, m->dim));
    get_f64_array(r, b->weight_concentration, 2 * (size_t)K);
    get_f64_array(r, b->mean_precision, K);
    get_f64_array(r, b->degrees_of_freedom, K);
    get_f64_array(r, b->log_weight_terms, K);
    /* what scoring divides by or takes the log of must be a positive number; the rest finite,
     * and the log-weight terms, which the E-step adds to every log-probability, far from
     * overflowing it (a fitted model's are d log terms: thousands at most) */
    for (uint32_t k = 0; k < K; k++)
        if (!(b->mean_precision[k] > 0) || !(b->degrees_of_freedom[k] > 0) ||
            !(fabs(b->log_weight_terms[k]) <= 1e100) || !isfinite(b->mean_precision[k]) ||
            !isfinite(b->degrees_of_freedom[k])) {
            st = gmm_error(GMM_ERR_FORMAT, "%s: the variational section's component %u has "
                           "mean precision %g, %g degrees of freedom and log-weight term %g",
                           path, k, b->mean_precision[k], b->degrees_of_freedom[k],
                           b->log_weight_terms[k]);
            gmm_bayes_free(b);
            return st;
        }
    m->bayes = b;
    return GMM_OK;
}

gmm_status model_sections_encode(const gmm_model *m, unsigned char **bytes, size_t *n_bytes)
{
    const gmm_umap_space *u = gmm_space_umap(m->space);
    size_t total = SECTION_HEAD, umap_len = 0, match_len = 0, bayes_len = 0, nb_len = 0;
    if (u) {
        umap_len = umap_bytes(u);
        total += SECTION_HEAD + umap_len + pad8(umap_len);
        if (u->metric != GMM_UMAP_EUCLIDEAN || u->knn_pca || prepares_values(u)) {
            nb_len = neighbours_bytes(u);
            total += SECTION_HEAD + nb_len; /* a multiple of 8 */
        }
    }
    if (m->matched_label) {
        match_len = 4 + 4 * (size_t)m->n_components;
        total += SECTION_HEAD + match_len + pad8(match_len);
    }
    if (m->bayes) {
        bayes_len = 16 + 8 * bayes_values(m);
        total += SECTION_HEAD + bayes_len; /* a multiple of 8 */
    }
    *bytes = NULL;
    *n_bytes = 0;
    if (!u && !m->matched_label && !m->bayes) return GMM_OK; /* a version-4 file: no sections */
    unsigned char *buf = malloc(total);
    if (!buf) return gmm_error(GMM_ERR_NOMEM, "out of memory to serialise the model's sections");
    writer w = {buf};
    if (u) {
        put_head(&w, SECTION_UMAP, umap_len);
        put_u32(&w, (uint32_t)u->n_neighbors);
        put_u32(&w, (uint32_t)u->input_dim);
        put_u64(&w, (uint64_t)u->n_train);
        put_u32(&w, (uint32_t)u->n_dims);
        put_u32(&w, (uint32_t)u->map_dims);
        put_u32(&w, (uint32_t)u->n_epochs);
        put_u32(&w, (uint32_t)gmm_umap_space_storage(u));
        put_u64(&w, u->seed);
        put_f64(&w, u->min_dist);
        put_f64(&w, u->spread);
        put_f64(&w, u->a);
        put_f64(&w, u->b);
        const size_t inputs = (size_t)u->n_train * (size_t)u->input_dim;
        if (u->images) {
            memcpy(w.p, u->images, inputs);
            w.p += inputs;
            put_zeros(&w, pad8(inputs));
        } else {
            put_f32_array(&w, u->values, inputs);
            put_zeros(&w, pad8(4 * inputs));
        }
        put_f32_array(&w, u->embedding, (size_t)u->n_train * u->n_dims);
        if (u->map_dims) put_f32_array(&w, u->map, (size_t)u->n_train * u->map_dims);
        put_zeros(&w, pad8(umap_len));
        if (nb_len) {
            put_head(&w, SECTION_UMAP_NEIGHBOURS, nb_len);
            put_neighbours(&w, u);
        }
    }
    if (m->matched_label) {
        put_head(&w, SECTION_MATCHED_LABELS, match_len);
        put_u32(&w, (uint32_t)m->n_components);
        for (int k = 0; k < m->n_components; k++) put_u32(&w, (uint32_t)m->matched_label[k]);
        put_zeros(&w, pad8(match_len));
    }
    if (m->bayes) {
        put_head(&w, SECTION_BAYES, bayes_len);
        put_bayes(&w, m);
    }
    put_head(&w, SECTION_END, 0);
    *bytes = buf;
    *n_bytes = total;
    return GMM_OK;
}

static int get_f32_array(reader *r, float *x, size_t n)
{
    if (remaining(r) / 4 < n) return -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits = 0;
        get_u32(r, &bits);
        memcpy(&x[i], &bits, 4);
    }
    return 0;
}

static gmm_status read_umap(const char *path, reader *r, uint64_t length, gmm_model *m)
{
    uint32_t k = 0, q = 0, d = 0, map_dims = 0, epochs = 0, storage = 0;
    uint64_t n = 0, seed = 0;
    double min_dist = 0, spread = 0, a = 0, b = 0;
    int bad = get_u32(r, &k) | get_u32(r, &q) | get_u64(r, &n) | get_u32(r, &d) |
              get_u32(r, &map_dims) | get_u32(r, &epochs) | get_u32(r, &storage) |
              get_u64(r, &seed) | get_f64(r, &min_dist) | get_f64(r, &spread) | get_f64(r, &a) |
              get_f64(r, &b);
    /* every size bounded by the section's length before anything is multiplied or allocated */
    if (bad || length < UMAP_FIXED || d != (uint32_t)m->dim ||
        (map_dims != 0 && map_dims != 2) || k < 2 || k > 128 || q < 1 || n < 1 ||
        n > length || q > length / n || (uint64_t)(d + map_dims) > (length / 4) / n)
        return gmm_error(GMM_ERR_FORMAT, "%s: invalid umap space (k = %u, %llu images of %u "
                         "values, %u dimensions for a model of %d, map %u)", path, k,
                         (unsigned long long)n, q, d, m->dim, map_dims);
    if (storage != GMM_UMAP_KEEPS_IMAGES && storage != GMM_UMAP_KEEPS_VALUES)
        return gmm_error(GMM_ERR_FORMAT, "%s: the umap space's storage is %u (0: images, 1: "
                         "values)", path, storage);
    const uint64_t data = umap_data_bytes(n, q, storage); /* n * q <= length: no overflow */
    if (length != UMAP_FIXED + data + pad8(data) + 4 * n * (d + map_dims))
        return gmm_error(GMM_ERR_FORMAT, "%s: the umap section's length %llu does not match its "
                         "%llu %s of %u values", path, (unsigned long long)length,
                         (unsigned long long)n, storage ? "samples" : "images", q);
    gmm_umap_space *u = NULL;
    gmm_status st = gmm_umap_space_alloc((int64_t)n, (int)q, (int)k, (int)d, (int)map_dims,
                                         (gmm_umap_storage)storage, &u);
    if (st != GMM_OK) return st;
    u->n_epochs = (int)(epochs > 100000 ? 0 : epochs); /* the check refuses 0 */
    u->seed = seed;
    u->min_dist = min_dist;
    u->spread = spread;
    u->a = a;
    u->b = b;
    if (u->images) {
        memcpy(u->images, r->p, data);
        r->p += data;
    } else {
        get_f32_array(r, u->values, n * q);
    }
    for (uint64_t i = 0; i < pad8(data); i++)
        if (*r->p++ != 0) {
            gmm_umap_space_free(u);
            return gmm_error(GMM_ERR_FORMAT, "%s: the umap space's padding is not zero", path);
        }
    get_f32_array(r, u->embedding, n * d);
    if (map_dims) get_f32_array(r, u->map, n * map_dims);
    return gmm_feature_space_from_umap(u, &m->space);
}

gmm_status model_sections_decode(const char *path, const unsigned char *bytes, size_t n_bytes,
                                 gmm_model *m)
{
    reader r = {bytes, bytes + n_bytes};
    unsigned seen = 0;
    for (;;) {
        uint32_t tag = 0, zero = 0;
        uint64_t length = 0;
        if (get_u32(&r, &tag) || get_u32(&r, &zero) || get_u64(&r, &length))
            return gmm_error(GMM_ERR_FORMAT, "%s: truncated in its sections", path);
        if (zero != 0 || length > remaining(&r) || pad8(length) > remaining(&r) - length)
            return gmm_error(GMM_ERR_FORMAT, "%s: section %u of %llu bytes does not fit the "
                             "%zu bytes left", path, tag, (unsigned long long)length,
                             remaining(&r));
        if (tag == SECTION_END) {
            if (length != 0 || remaining(&r) != 0)
                return gmm_error(GMM_ERR_FORMAT, "%s: %zu bytes after the end of the sections",
                                 path, remaining(&r) + (size_t)length);
            return GMM_OK;
        }
        const int known = tag <= SECTION_LAST, repeated = known && (seen & (1u << tag));
        if (!known || repeated)
            return gmm_error(GMM_ERR_FORMAT, "%s: %s section %u (this program reads 1 to %d, "
                             "once each)", path, repeated ? "repeated" : "unknown", tag,
                             SECTION_LAST);
        seen |= 1u << tag;
        const unsigned char *end = r.p + length;
        gmm_status st = GMM_OK;
        if (tag == SECTION_UMAP) {
            if (m->space)
                return gmm_error(GMM_ERR_FORMAT, "%s: a umap space besides a %s space", path,
                                 gmm_feature_space_name(m->space));
            reader sub = {r.p, end};
            st = read_umap(path, &sub, length, m);
        } else if (tag == SECTION_UMAP_NEIGHBOURS) {
            reader sub = {r.p, end};
            st = read_neighbours(path, &sub, length, m);
        } else if (tag == SECTION_BAYES) {
            reader sub = {r.p, end};
            st = read_bayes(path, &sub, length, m);
        } else {
            uint32_t K = 0;
            reader sub = {r.p, end};
            if (get_u32(&sub, &K) || K != (uint32_t)m->n_components || length != 4 + 4ull * K)
                return gmm_error(GMM_ERR_FORMAT, "%s: the matched labels are for %u components "
                                 "(%llu bytes), the model has %d", path, K,
                                 (unsigned long long)length, m->n_components);
            if (!(m->matched_label = malloc(sizeof(int) * K)))
                return gmm_error(GMM_ERR_NOMEM, "out of memory for the matched labels");
            for (uint32_t k = 0; k < K; k++) {
                uint32_t v = 0;
                get_u32(&sub, &v);
                m->matched_label[k] = (int32_t)v;
                if (m->matched_label[k] < -1 || m->matched_label[k] > 255)
                    return gmm_error(GMM_ERR_FORMAT, "%s: component %u is matched to label %d "
                                     "(must be -1..255)", path, k, m->matched_label[k]);
            }
        }
        if (st != GMM_OK) return st;
        r.p = end;
        for (uint64_t i = 0; i < pad8(length); i++)
            if (*r.p++ != 0)
                return gmm_error(GMM_ERR_FORMAT, "%s: section %u's padding is not zero", path, tag);
    }
}
