/* model.bin reading and writing, field by field in little-endian order (the layout is in
 * model_io.h), so that files move between machines and a damaged file is an error, not a crash. */
#include "models/io/model_io.h"

#include "data/file_open.h"
#include "data/file_write.h"
#include "data/gunzip.h"
#include "models/io/model_bytes.h"
#include "models/io/model_sections.h"
#include "models/io/model_triangles.h"
#include "models/features/pca.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char model_magic[8] = {'G', 'M', 'M', 'M', 'O', 'D', 'E', 'L'};

enum {
    DTYPE_FLOAT64 = 1,
    /* magic, twelve u32 fields, seed, n_train_samples, four f64, the projection's input
     * dimension, whiten flag and total variance, the spectral space's neighbours, input
     * dimension and points (version 3), the packed-triangles flag (version 4), and the path
     * length */
    FIXED_HEADER_BYTES = 8 + 12 * 4 + 8 + 8 + 4 * 8 + 4 + 4 + 8 + 4 + 4 + 8 + 4 + 4,
    CRC_BYTES = 4,
    MAX_DATA_PATH = (int)sizeof(((gmm_model *)0)->data_path) - 1,
};


/* ---- writing ---------------------------------------------------------------------------- */

gmm_status gmm_model_save(const char *path, const gmm_model *model)
{
    if (!path || !model) return gmm_error(GMM_ERR_ARG, "gmm_model_save: NULL argument");
    const gmm_model *m = model;
    if (m->n_components < 1 || m->dim < 1)
        return gmm_error(GMM_ERR_ARG, "cannot save a model with n_components=%d, dim=%d",
                         m->n_components, m->dim);
    if ((int)m->covariance_type < 0 || (int)m->covariance_type > GMM_COV_SPHERICAL)
        return gmm_error(GMM_ERR_ARG, "cannot save a model of covariance type %d",
                         (int)m->covariance_type);
    if (!m->weights || !m->means || !m->covariances || !m->precisions_cholesky)
        return gmm_error(GMM_ERR_ARG, "cannot save a model whose arrays are not allocated");
    const gmm_projection *proj = gmm_space_pca(m->space);
    if (proj && (proj->n_axes != m->dim || proj->input_dim < m->dim || !proj->mean ||
                 !proj->components || !proj->explained_variance))
        return gmm_error(GMM_ERR_ARG, "cannot save a model of dim=%d with a projection of %d "
                         "axes of %d dimensions", m->dim, proj->n_axes, proj->input_dim);
    const gmm_spectral_space *space = gmm_space_spectral(m->space);
    if (space && (space->n_dims != m->dim || space->n_train < 1 || space->input_dim < 1 ||
                  !space->images || !space->embedding || !space->eigenvalues || !space->degrees))
        return gmm_error(GMM_ERR_ARG, "cannot save a model of dim=%d with a spectral space of %d "
                         "dimensions", m->dim, space->n_dims);
    const int input_dim = gmm_model_input_dim(m);
    if (m->image_rows < 0 || m->image_cols < 0 ||
        (int64_t)m->image_rows * m->image_cols != (m->image_rows || m->image_cols ? input_dim : 0))
        return gmm_error(GMM_ERR_ARG, "image shape %d x %d does not match the input dimension %d",
                         m->image_rows, m->image_cols, input_dim);
    if (m->n_iter < 0 || m->max_iter < 0 || m->n_init < 0 || (int)m->init < 0 ||
        m->n_train_samples < 0)
        return gmm_error(GMM_ERR_ARG, "cannot save a model with negative training metadata");
    if (!(m->blur_sigma >= 0) || !isfinite(m->blur_sigma))
        return gmm_error(GMM_ERR_ARG, "cannot save a model with blur sigma %g", m->blur_sigma);

    size_t path_len = strnlen(m->data_path, MAX_DATA_PATH);
    size_t k = (size_t)m->n_components, d = (size_t)m->dim;
    size_t n_cov = gmm_cov_size(m->covariance_type, m->n_components, m->dim);
    size_t n_proj = proj ? (size_t)proj->input_dim * (1 + d) + d : 0;
    const size_t n_space = space ? (size_t)space->n_train : 0;
    const size_t image_bytes = space ? n_space * (size_t)space->input_dim : 0;
    const size_t image_pad = (8 - image_bytes % 8) % 8;
    /* Full and tied: the covariances and factors as their upper triangles when the lower ones
     * are exactly the mirror and zeros (every fit's are), else dense: nothing is ever lost. */
    const int triangular = m->covariance_type == GMM_COV_FULL || m->covariance_type == GMM_COV_TIED;
    const size_t n_mats = m->covariance_type == GMM_COV_FULL ? k : 1;
    const int packed = triangular && d > 1 &&
                       model_lower_is(m->covariances, n_mats, d, MODEL_TRIANGLE_SYMMETRIC) &&
                       model_lower_is(m->precisions_cholesky, n_mats, d, MODEL_TRIANGLE_UPPER);
    const size_t n_cov_stored = packed ? n_mats * model_triangle_size(d) : n_cov;
    /* On a little-endian host the arrays are already the file's bytes: only the header is
     * serialised, and the arrays are written (and their CRC taken) where they are, a packed
     * triangle as its rows' upper parts (row i from column i on). Else everything is
     * serialised into one buffer, the triangles packed first. */
    const int in_place = host_is_little_endian();
    double *tri = NULL;
    if (packed && !in_place) {
        tri = malloc(sizeof(double) * 2 * n_cov_stored);
        if (!tri) return gmm_error(GMM_ERR_NOMEM, "out of memory to pack the model's triangles");
        model_pack_upper(m->covariances, n_mats, d, MODEL_TRIANGLE_SYMMETRIC, tri);
        model_pack_upper(m->precisions_cholesky, n_mats, d, MODEL_TRIANGLE_UPPER,
                         tri + n_cov_stored);
    }
    const double *cov_stored = tri ? tri : m->covariances;
    const double *prec_stored = tri ? tri + n_cov_stored : m->precisions_cholesky;
    size_t n_doubles = k + k * d + 2 * n_cov_stored + n_proj +
                       (space ? n_space * d + d + n_space : 0);
    unsigned char *sections = NULL;
    size_t section_bytes = 0;
    gmm_status st = model_sections_encode(m, &sections, &section_bytes);
    if (st != GMM_OK) {
        free(tri);
        return st;
    }
    size_t total = FIXED_HEADER_BYTES + path_len + image_bytes + image_pad + 8 * n_doubles +
                   section_bytes + CRC_BYTES;
    static const unsigned char zeros[8] = {0};

    file_segment *seg = NULL;
    size_t header_bytes = FIXED_HEADER_BYTES + path_len;
    size_t buf_bytes = in_place ? header_bytes + CRC_BYTES : total;
    unsigned char *buf = malloc(buf_bytes);
    /* the header, 12 arrays (the two triangular ones as n_mats d rows each) and the CRC */
    const size_t max_seg = 15 + (in_place && packed ? 2 * n_mats * d : 0);
    if (!buf || !(seg = malloc(sizeof *seg * max_seg))) {
        st = gmm_error(GMM_ERR_NOMEM, "cannot allocate %zu bytes to serialise the model",
                       buf_bytes);
        goto fail;
    }

    writer w = {buf};
    memcpy(w.p, model_magic, sizeof model_magic);
    w.p += sizeof model_magic;
    put_u32(&w, section_bytes ? GMM_MODEL_VERSION : 4u); /* the oldest that holds the model */
    put_u32(&w, DTYPE_FLOAT64);
    put_u32(&w, (uint32_t)m->n_components);
    put_u32(&w, (uint32_t)m->dim);
    put_u32(&w, (uint32_t)m->image_rows);
    put_u32(&w, (uint32_t)m->image_cols);
    put_u32(&w, (uint32_t)m->covariance_type);
    put_u32(&w, m->converged ? 1u : 0u);
    put_u32(&w, (uint32_t)m->n_iter);
    put_u32(&w, (uint32_t)m->max_iter);
    put_u32(&w, (uint32_t)m->n_init);
    put_u32(&w, (uint32_t)m->init);
    put_u64(&w, m->seed);
    put_u64(&w, (uint64_t)m->n_train_samples);
    put_f64(&w, m->lower_bound);
    put_f64(&w, m->reg_covar);
    put_f64(&w, m->tol);
    put_f64(&w, m->blur_sigma);
    put_u32(&w, proj ? (uint32_t)proj->input_dim : 0u);
    put_u32(&w, proj && proj->whiten ? 1u : 0u);
    put_f64(&w, proj ? proj->total_variance : 0.0);
    put_u32(&w, space ? (uint32_t)space->n_neighbors : 0u);
    put_u32(&w, space ? (uint32_t)space->input_dim : 0u);
    put_u64(&w, (uint64_t)n_space);
    put_u32(&w, packed ? 1u : 0u);
    put_u32(&w, (uint32_t)path_len);
    memcpy(w.p, m->data_path, path_len);
    w.p += path_len;
    size_t n_seg = 0;
    if (in_place) {
        const file_segment arrays[12] = {
            {m->weights, 8 * k},
            {m->means, 8 * k * d},
            {cov_stored, 8 * n_cov_stored},
            {prec_stored, 8 * n_cov_stored},
            {proj ? proj->mean : NULL, proj ? 8 * (size_t)proj->input_dim : 0},
            {proj ? proj->components : NULL, proj ? 8 * d * (size_t)proj->input_dim : 0},
            {proj ? proj->explained_variance : NULL, proj ? 8 * d : 0},
            {space ? space->images : NULL, image_bytes},
            {zeros, image_pad},
            {space ? space->embedding : NULL, 8 * n_space * d},
            {space ? space->eigenvalues : NULL, space ? 8 * d : 0},
            {space ? space->degrees : NULL, 8 * n_space}};
        uint32_t crc = data_crc32(buf, header_bytes);
        seg[n_seg++] = (file_segment){buf, header_bytes};
        for (int a = 0; a < 12; a++) {
            if (!arrays[a].bytes) continue;
            if (packed && (a == 2 || a == 3)) { /* the triangle's rows, where they are */
                const double *A = a == 2 ? m->covariances : m->precisions_cholesky;
                for (size_t r = 0; r < n_mats * d; r++) {
                    const size_t i = r % d;
                    seg[n_seg] = (file_segment){A + r * d + i, 8 * (d - i)};
                    crc = data_crc32_update(crc, seg[n_seg].data, seg[n_seg].bytes);
                    n_seg++;
                }
                continue;
            }
            crc = data_crc32_update(crc, arrays[a].data, arrays[a].bytes);
            seg[n_seg++] = arrays[a];
        }
        if (section_bytes) {
            crc = data_crc32_update(crc, sections, section_bytes);
            seg[n_seg++] = (file_segment){sections, section_bytes};
        }
        put_u32(&w, crc);
        seg[n_seg++] = (file_segment){buf + header_bytes, CRC_BYTES};
    } else {
        put_f64_array(&w, m->weights, k);
        put_f64_array(&w, m->means, k * d);
        put_f64_array(&w, cov_stored, n_cov_stored);
        put_f64_array(&w, prec_stored, n_cov_stored);
        if (proj) {
            put_f64_array(&w, proj->mean, (size_t)proj->input_dim);
            put_f64_array(&w, proj->components, d * (size_t)proj->input_dim);
            put_f64_array(&w, proj->explained_variance, d);
        }
        if (space) {
            memcpy(w.p, space->images, image_bytes);
            memset(w.p + image_bytes, 0, image_pad);
            w.p += image_bytes + image_pad;
            put_f64_array(&w, space->embedding, n_space * d);
            put_f64_array(&w, space->eigenvalues, d);
            put_f64_array(&w, space->degrees, n_space);
        }
        if (section_bytes) memcpy(w.p, sections, section_bytes);
        w.p += section_bytes;
        put_u32(&w, data_crc32(buf, total - CRC_BYTES));
        seg[n_seg++] = (file_segment){buf, total};
    }

    /* Written to a new temporary file beside the target and renamed over it (data/file_write.h),
     * so a reader never sees half a model and a failed save leaves any previous file intact. */
    st = file_write_all(path, seg, n_seg);

fail:
    free(seg);
    free(buf);
    free(tri);
    free(sections);
    return st;
}

/* ---- reading ---------------------------------------------------------------------------- */

gmm_status gmm_model_load(const char *path, gmm_model *model)
{
    if (!path || !model) return gmm_error(GMM_ERR_ARG, "gmm_model_load: NULL argument");
    memset(model, 0, sizeof *model);

    unsigned char *data = NULL;
    gmm_model m;
    memset(&m, 0, sizeof m);
    /* Headers first: the fixed header alone is read, and its magic, version and the sizes it
     * promises are checked against the file's size and the memory there is, before the rest of
     * the file is read or anything is allocated (a 6 GB file that is not a model fails at once). */
    struct stat sb;
    gmm_status st = GMM_OK;
    int fd = file_open_regular(path, "a model file", &sb, &st);
    if (fd < 0) return st;
    if ((uint64_t)sb.st_size > SIZE_MAX - 1) {
        close(fd);
        return gmm_error(GMM_ERR_NOMEM, "%s: too large to read (%jd bytes)", path,
                         (intmax_t)sb.st_size);
    }
    const size_t size = (size_t)sb.st_size;
    unsigned char head[FIXED_HEADER_BYTES];
    const size_t head_len = size < sizeof head ? size : sizeof head;
    if ((st = file_read_exact(fd, path, head, head_len, 0)) != GMM_OK) goto fail;

    reader r = {head, head + head_len};
    size_t magic_bytes = size < sizeof model_magic ? size : sizeof model_magic;
    if (memcmp(head, model_magic, magic_bytes) != 0) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: not a gmm model file (wrong magic)", path);
        goto fail;
    }
    r.p += magic_bytes;

    /* The version decides the rest of the layout, the CRC's position included, so it is checked
     * before anything else is believed. */
    uint32_t version = 0, dtype = 0, n_components = 0, dim = 0, rows = 0, cols = 0, cov_type = 0,
             converged = 0, n_iter = 0, max_iter = 0, n_init = 0, init = 0, path_len = 0,
             proj_input_dim = 0, proj_whiten = 0, space_neighbors = 0, space_input_dim = 0,
             packed = 0;
    double proj_total_variance = 0;
    uint64_t seed = 0, n_train = 0, space_points = 0;
    double lower_bound = 0, reg_covar = 0, tol = 0, blur_sigma = 0;
    if (get_u32(&r, &version) != 0) goto truncated;
    if (version < GMM_MODEL_VERSION_OLDEST || version > GMM_MODEL_VERSION) {
        st = gmm_error(GMM_ERR_VERSION, "%s: model file format version %u, this program supports "
                       "versions %u to %u", path, version, GMM_MODEL_VERSION_OLDEST,
                       GMM_MODEL_VERSION);
        goto fail;
    }
    int short_read = 0;
    short_read |= get_u32(&r, &dtype);
    short_read |= get_u32(&r, &n_components);
    short_read |= get_u32(&r, &dim);
    short_read |= get_u32(&r, &rows);
    short_read |= get_u32(&r, &cols);
    short_read |= get_u32(&r, &cov_type);
    short_read |= get_u32(&r, &converged);
    short_read |= get_u32(&r, &n_iter);
    short_read |= get_u32(&r, &max_iter);
    short_read |= get_u32(&r, &n_init);
    short_read |= get_u32(&r, &init);
    short_read |= get_u64(&r, &seed);
    short_read |= get_u64(&r, &n_train);
    short_read |= get_f64(&r, &lower_bound);
    short_read |= get_f64(&r, &reg_covar);
    short_read |= get_f64(&r, &tol);
    if (version >= 2) short_read |= get_f64(&r, &blur_sigma); /* version 1: no blur */
    if (version >= 3) { /* versions 1 and 2: no projection */
        short_read |= get_u32(&r, &proj_input_dim);
        short_read |= get_u32(&r, &proj_whiten);
        short_read |= get_f64(&r, &proj_total_variance);
        short_read |= get_u32(&r, &space_neighbors);
        short_read |= get_u32(&r, &space_input_dim);
        short_read |= get_u64(&r, &space_points);
    }
    if (version >= 4) short_read |= get_u32(&r, &packed); /* earlier versions: dense */
    short_read |= get_u32(&r, &path_len);
    if (short_read) goto truncated;

    if (dtype != DTYPE_FLOAT64) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: unknown dtype %u (only 1 = float64 is known)", path,
                       dtype);
        goto fail;
    }
    if (cov_type > GMM_COV_SPHERICAL) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: unknown covariance type %u", path, cov_type);
        goto fail;
    }
    if (n_components < 1 || n_components > INT_MAX || dim < 1 || dim > INT_MAX) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: invalid sizes n_components=%u, dim=%u", path,
                       n_components, dim);
        goto fail;
    }
    if (proj_input_dim != 0 && (proj_input_dim < dim || proj_input_dim > INT_MAX)) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: a projection from %u input dimensions cannot have "
                       "dim=%u axes", path, proj_input_dim, dim);
        goto fail;
    }
    if (!proj_input_dim &&
        (proj_whiten || proj_total_variance != 0.0 || signbit(proj_total_variance))) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: no projection, but whiten %u and total variance %g "
                       "(must be 0)", path, proj_whiten, proj_total_variance);
        goto fail;
    }
    if (proj_whiten > 1) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: projection whiten flag %u, must be 0 or 1", path,
                       proj_whiten);
        goto fail;
    }
    if ((space_neighbors == 0) != (space_input_dim == 0 && space_points == 0) ||
        (space_neighbors && (proj_input_dim || space_input_dim > INT_MAX ||
                             space_points > INT32_MAX || space_neighbors > 1024))) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: invalid spectral space (k = %u, %llu points of %u "
                       "dimensions%s)", path, space_neighbors, (unsigned long long)space_points,
                       space_input_dim, proj_input_dim ? ", with a projection" : "");
        goto fail;
    }
    if (packed > 1 || (packed && cov_type != GMM_COV_FULL && cov_type != GMM_COV_TIED)) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: packed-triangles flag %u (must be 0, or 1 for the "
                       "full and tied covariance types)", path, packed);
        goto fail;
    }
    if (path_len > MAX_DATA_PATH) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: invalid data path length %u (at most %d)", path,
                       path_len, MAX_DATA_PATH);
        goto fail;
    }
    /* the bytes of the file after the fixed header (whose length depends on the version) */
    const size_t header_used = (size_t)(r.p - head), after_header = size - header_used;
    if (after_header < path_len + CRC_BYTES) goto truncated;

    /* Everything left between the path and the CRC must hold exactly the four arrays. Each
     * count is checked against what the file can hold before it is multiplied further, so a
     * forged K or d can neither overflow the arithmetic nor make us allocate anything. */
    uint64_t budget = after_header - path_len - CRC_BYTES, avail = budget / 8;
    uint64_t k = n_components, d = dim, n_means = k * d, n_cov = 0;
    int fits = k <= avail && n_means <= avail;
    /* n_stored: the values of each of the two arrays in the file (half of n_cov and the
     * diagonals when packed); the dense arrays allocated are at most twice the file's bytes */
    const uint64_t n_mats = cov_type == GMM_COV_FULL ? k : 1, tri = d * (d + 1) / 2;
    uint64_t n_stored = 0;
    switch ((gmm_cov_type)cov_type) {
    case GMM_COV_FULL:
    case GMM_COV_TIED:
        if (packed) {
            fits = fits && tri <= avail / n_mats;
            n_stored = fits ? n_mats * tri : 0;
            n_cov = fits ? n_mats * d * d : 0;
        } else {
            fits = fits && d <= avail / (cov_type == GMM_COV_FULL ? n_means : d);
            n_cov = n_stored = fits ? n_mats * d * d : 0;
        }
        break;
    case GMM_COV_DIAG: n_cov = n_stored = n_means; break;
    case GMM_COV_SPHERICAL: n_cov = n_stored = k; break;
    }
    fits = fits && n_stored <= avail && k + n_means + 2 * n_stored <= avail;
    /* the projection: mean[p], components[d * p], explained variance[d] */
    uint64_t p_in = proj_input_dim, n_proj = 0;
    if (p_in) {
        fits = fits && p_in <= avail && d <= avail / p_in;
        n_proj = fits ? p_in + d * p_in + d : 0;
        fits = fits && n_proj <= avail && k + n_means + 2 * n_stored + n_proj <= avail;
    }
    /* the spectral space: images[n * p] bytes padded to 8, embedding[n * d], eigenvalues[d],
     * degrees[n] */
    uint64_t sp_n = space_points, sp_p = space_input_dim, sp_images = 0, sp_pad = 0, sp_bytes = 0;
    if (space_neighbors) {
        fits = fits && sp_n >= 1 && sp_p >= 1 && sp_n <= budget && sp_p <= budget / sp_n &&
               d <= avail / sp_n;
        sp_images = fits ? sp_n * sp_p : 0;
        sp_pad = (8 - sp_images % 8) % 8;
        sp_bytes = fits ? sp_images + sp_pad + 8 * (sp_n * d + d + sp_n) : 0;
        fits = fits && sp_n * d + d + sp_n <= avail && sp_bytes <= budget;
    }
    if (!fits) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: truncated: %zu bytes cannot hold a model with "
                       "n_components=%u, dim=%u (%s)", path, size, n_components, dim,
                       gmm_cov_type_name((gmm_cov_type)cov_type));
        goto fail;
    }
    uint64_t expected = 8 * (k + n_means + 2 * n_stored + n_proj) + sp_bytes;
    /* version 5 on: the tagged sections fill what is left (their decoder checks they do) */
    if (version >= 5 && budget < expected + 16) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: truncated (%zu bytes): no room for the sections", path,
                       size);
        goto fail;
    }
    if (version < 5 && budget != expected) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: %llu trailing bytes after the checksum", path,
                       (unsigned long long)(budget - expected));
        goto fail;
    }

    /* The header is consistent with the file's size: the file is read whole (for its CRC) when
     * it and the arrays made from it (dense ones at most twice the file's bytes) fit the
     * memory this process may have (physical memory, ulimit -v, the cgroup's limit). */
    const uint64_t memory = file_memory_budget();
    if ((uint64_t)size + 2 * budget > memory) {
        st = gmm_error(GMM_ERR_NOMEM, "%s: out of memory: a model of %zu bytes (n_components=%u, "
                       "dim=%u) needs about %llu bytes to load, more than the %llu bytes of memory "
                       "this process may have", path, size, n_components, dim,
                       (unsigned long long)((uint64_t)size + 2 * budget),
                       (unsigned long long)memory);
        goto fail;
    }
    data = malloc(size + 1);
    if (!data) {
        st = gmm_error(GMM_ERR_NOMEM, "%s: out of memory: cannot allocate %zu bytes to read it",
                       path, size);
        goto fail;
    }
    if ((st = file_read_exact(fd, path, data, size, 0)) != GMM_OK) goto fail;
    close(fd);
    fd = -1;
    if (memcmp(data, head, head_len) != 0) {
        st = gmm_error(GMM_ERR_IO, "%s: the file changed while being read", path);
        goto fail;
    }
    r = (reader){data + header_used, data + size};

    uint32_t stored_crc = 0, computed_crc = data_crc32(data, size - CRC_BYTES);
    reader crc_reader = {data + size - CRC_BYTES, data + size};
    get_u32(&crc_reader, &stored_crc);
    if (stored_crc != computed_crc) {
        st = gmm_error(GMM_ERR_CHECKSUM, "%s: checksum mismatch (stored %08x, computed %08x); "
                       "the file is corrupted", path, stored_crc, computed_crc);
        goto fail;
    }

    if (converged > 1 || n_iter > INT_MAX || max_iter > INT_MAX || n_init > INT_MAX ||
        init > GMM_INIT_MERGE || n_train > INT64_MAX) {
        st = gmm_error(GMM_ERR_FORMAT,
                       "%s: invalid training metadata (converged %u, n_iter %u, max_iter %u, "
                       "n_init %u, init %u, n_train_samples %llu)",
                       path, converged, n_iter, max_iter, n_init, init,
                       (unsigned long long)n_train);
        goto fail;
    }

    const unsigned char *nul = memchr(r.p, 0, path_len);
    if (nul) {
        st = gmm_error(GMM_ERR_FORMAT,
                       "%s: the data path (%u bytes) has a NUL byte at offset %td; a path cannot "
                       "hold one", path, path_len, nul - r.p);
        goto fail;
    }
    st = gmm_model_alloc(&m, (int)n_components, (int)dim, (gmm_cov_type)cov_type);
    if (st != GMM_OK) goto fail;
    m.image_rows = (int)rows;
    m.image_cols = (int)cols;
    m.converged = (int)converged;
    m.n_iter = (int)n_iter;
    m.max_iter = (int)max_iter;
    m.n_init = (int)n_init;
    m.init = (gmm_init_method)init;
    m.seed = seed;
    m.n_train_samples = (int64_t)n_train;
    m.lower_bound = lower_bound;
    m.reg_covar = reg_covar;
    m.tol = tol;
    m.blur_sigma = blur_sigma;
    memcpy(m.data_path, r.p, path_len);
    m.data_path[path_len] = '\0';
    r.p += path_len;
    get_f64_array(&r, m.weights, k);
    get_f64_array(&r, m.means, k * d);
    if (packed) { /* each row's columns i .. d-1, then the lower triangles filled in */
        double *const arrays[2] = {m.covariances, m.precisions_cholesky};
        for (int a = 0; a < 2; a++)
            for (uint64_t row = 0; row < n_mats * d; row++)
                get_f64_array(&r, arrays[a] + row * d + row % d, d - row % d);
        model_fill_lower(m.covariances, n_mats, d, MODEL_TRIANGLE_SYMMETRIC);
        model_fill_lower(m.precisions_cholesky, n_mats, d, MODEL_TRIANGLE_UPPER);
    } else {
        get_f64_array(&r, m.covariances, n_cov);
        get_f64_array(&r, m.precisions_cholesky, n_cov);
    }
    if (p_in) {
        gmm_projection *projection = NULL;
        if ((st = gmm_projection_alloc((int)p_in, (int)dim, (int)proj_whiten, &projection)) !=
                GMM_OK ||
            (st = gmm_feature_space_from_pca(projection, &m.space)) != GMM_OK)
            goto fail;
        gmm_space_pca(m.space)->total_variance = proj_total_variance;
        get_f64_array(&r, gmm_space_pca(m.space)->mean, p_in);
        get_f64_array(&r, gmm_space_pca(m.space)->components, d * p_in);
        get_f64_array(&r, gmm_space_pca(m.space)->explained_variance, d);
    }
    if (space_neighbors) {
        gmm_spectral_space *spectral = NULL;
        if ((st = gmm_spectral_space_alloc((int64_t)sp_n, (int)sp_p, (int)space_neighbors,
                                           (int)dim, &spectral)) != GMM_OK ||
            (st = gmm_feature_space_from_spectral(spectral, &m.space)) != GMM_OK)
            goto fail;
        memcpy(gmm_space_spectral(m.space)->images, r.p, sp_images);
        for (uint64_t b = 0; b < sp_pad; b++)
            if (r.p[sp_images + b] != 0) {
                st = gmm_error(GMM_ERR_FORMAT, "%s: the spectral space's padding byte %llu is "
                               "%u, must be 0", path, (unsigned long long)b, r.p[sp_images + b]);
                goto fail;
            }
        r.p += sp_images + sp_pad;
        get_f64_array(&r, gmm_space_spectral(m.space)->embedding, sp_n * d);
        get_f64_array(&r, gmm_space_spectral(m.space)->eigenvalues, d);
        get_f64_array(&r, gmm_space_spectral(m.space)->degrees, sp_n);
    }
    if (version >= 5 && (st = model_sections_decode(path, r.p, (size_t)(budget - expected),
                                                    &m)) != GMM_OK)
        goto fail;
    const uint64_t in_dim = (uint64_t)gmm_model_input_dim(&m);
    if ((uint64_t)rows * cols != (rows || cols ? in_dim : 0)) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: image shape %u x %u does not match the input "
                       "dimension %llu", path, rows, cols, (unsigned long long)in_dim);
        goto fail;
    }

    st = gmm_model_check(&m);
    if (st != GMM_OK) {
        char detail[512];
        snprintf(detail, sizeof detail, "%s", gmm_error_message(st));
        st = gmm_error(st, "%s: %s", path, detail);
        goto fail;
    }

    free(data);
    *model = m;
    return GMM_OK;

truncated:
    st = gmm_error(GMM_ERR_FORMAT, "%s: truncated (%zu bytes)", path, size);
fail:
    gmm_model_free(&m);
    free(data);
    if (fd >= 0) close(fd);
    return st;
}
