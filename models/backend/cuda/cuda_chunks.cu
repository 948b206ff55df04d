/* The CUDA backend's data (see backend_cuda.cu): where the view's rows live and how the steps
 * read them, chunk by chunk, in the type they compute in.
 *
 * The rows stay in their stored type (image bytes take 1 byte a value: 8.1 million 784-pixel
 * images are 6.4 GB, not 51 GB in float64). When the stored rows, the staging buffers and the
 * per-row buffers fit the memory budget (tuning.memory_budget, else the free device memory) they
 * are copied to the device once (d_X); otherwise they stay in host memory, pinned
 * (cudaHostRegister on the view, else a pinned copy, else pageable as a last resort), and every
 * pass streams them: chunk i + 1 is copied on a non-blocking copy stream into the other of two
 * raw buffers while the legacy stream works on chunk i; events order the two (ev_copied: the copy
 * landed; ev_free: the work that read a buffer was queued before it, so the buffer may be
 * overwritten).
 *
 * A chunk in the asked type (float64 or float32) is a pointer into d_X when the resident data
 * already has that type (the whole step in one chunk: no copy, the former speed), else the chunk
 * converted on the legacy stream (convert_rows_cuda) into d_conv. Every kernel and cuBLAS call of
 * the backend runs on the legacy stream or on lanes that synchronise with it. The float64 E-step
 * of a float32/TF32 context (a fit's final scores) reads the view's exact values even where the
 * device holds a float32 copy (cuda_chunks_begin_f64_exact). */
#include "models/backend/cuda/backend_cuda.cuh"

/* Rows of one staged chunk when nothing else bounds them: 256 MiB of float64. */
#define STAGE_BYTES ((size_t)256 << 20)

static inline size_t raw_row_bytes(const gmm_backend_ctx *c)
{
    return gmm_elem_size(c->data_elem) * (size_t)c->dim;
}

int64_t cuda_chunk_step(const gmm_backend_ctx *c, gmm_elem want, int64_t step)
{
    if (step < 1) step = 1;
    if (!c->streams && c->data_elem == want) return step;
    return step < c->stage_rows ? step : c->stage_rows;
}

/* Queues the copy of rows [r0, r0 + rows) into raw buffer `slot` once ev_free[slot] is reached. */
static gmm_status queue_copy(gmm_backend_ctx *c, int slot, int64_t r0, int64_t rows)
{
    gmm_status status = GMM_OK;
    const size_t rb = raw_row_bytes(c);
    GMM_CUDA_CHECK(cudaStreamWaitEvent(c->copy_stream, c->ev_free[slot], 0));
    GMM_CUDA_CHECK(cudaMemcpyAsync(c->d_raw[slot], (const char *)c->h_rows + (size_t)r0 * rb,
                                   (size_t)rows * rb, cudaMemcpyHostToDevice, c->copy_stream));
    GMM_CUDA_CHECK(cudaEventRecord(c->ev_copied[slot], c->copy_stream));
fail:
    return status;
}

gmm_status cuda_chunks_begin(gmm_backend_ctx *c, gmm_elem want, int64_t step, cuda_chunk_loop *L)
{
    gmm_status status = GMM_OK;
    memset(L, 0, sizeof *L);
    L->c = c;
    L->want = want;
    L->step = cuda_chunk_step(c, want, step);
    if (c->streams && c->n_samples > 0) {
        /* both raw buffers are free once the work queued so far has run */
        GMM_CUDA_CHECK(cudaEventRecord(c->ev_free[0], 0));
        GMM_CUDA_CHECK(cudaEventRecord(c->ev_free[1], 0));
        status = queue_copy(c, 0, 0, c->n_samples < L->step ? c->n_samples : L->step);
    }
fail:
    return status;
}

/* Image bytes b from their float32 copy f = (float)(b / 255.0): |f * 255 - b| <= 255 * 2^-24 <
 * 0.5 (the product is exact in float64), so rint gives b, and b / 255.0 is the CPU's value. */
static __global__ void bytes_from_f32_kernel(const float *__restrict__ in, int64_t n,
                                             double *__restrict__ out)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        out[i] = rint((double)in[i] * 255.0) / 255.0;
}

gmm_status cuda_chunks_begin_f64_exact(gmm_backend_ctx *c, int64_t step, cuda_chunk_loop *L)
{
    gmm_status status = cuda_chunks_begin(c, GMM_ELEM_F64, step, L);
    /* a float32 copy made on the device of other stored values (never when streaming); the
     * chunks are at most stage_rows, what d_conv holds in float64 */
    if (status == GMM_OK && !c->streams && c->data_elem == GMM_ELEM_F32 &&
        c->view_elem != GMM_ELEM_F32)
        L->exact_from = c->view_elem == GMM_ELEM_U8 ? 1 : 2;
    return status;
}

bool cuda_chunks_next(cuda_chunk_loop *L, gmm_status *out_status)
{
    gmm_status status = GMM_OK;
    gmm_backend_ctx *c = L->c;
    const int64_t N = c->n_samples;
    const int slot = L->index % 2;
    const void *src;
    *out_status = GMM_OK;
    if (L->next_r0 >= N) return false;
    L->r0 = L->next_r0;
    L->rows = N - L->r0 < L->step ? N - L->r0 : L->step;
    L->next_r0 = L->r0 + L->rows;
    if (L->exact_from == 2) {
        /* a copy on the legacy stream: after the work that read d_conv before it */
        const size_t rb = sizeof(double) * (size_t)c->dim;
        GMM_CUDA_CHECK(cudaMemcpy(c->d_conv, (const char *)c->view_rows + (size_t)L->r0 * rb,
                                  (size_t)L->rows * rb, cudaMemcpyHostToDevice));
        L->X = c->d_conv;
        L->index++;
        return true;
    }
    if (!c->streams) {
        src = (const char *)c->d_X + (size_t)L->r0 * raw_row_bytes(c);
    } else {
        /* the previous chunk's work is queued: its buffer is free after it */
        if (L->index > 0) GMM_CUDA_CHECK(cudaEventRecord(c->ev_free[1 - slot], 0));
        GMM_CUDA_CHECK(cudaStreamWaitEvent(0, c->ev_copied[slot], 0));
        src = c->d_raw[slot];
    }
    if (c->data_elem == L->want) {
        L->X = src;
    } else if (L->exact_from == 1) {
        const int64_t n = L->rows * c->dim;
        bytes_from_f32_kernel<<<grid_for(n, 256), 256>>>((const float *)src, n,
                                                         (double *)c->d_conv);
        GMM_LAUNCH_CHECK("bytes_from_f32_kernel");
        L->X = c->d_conv;
    } else {
        if ((status = convert_rows_cuda(src, c->data_elem, (size_t)L->rows * c->dim, c->d_conv,
                                        L->want, NULL)) != GMM_OK)
            goto fail;
        L->X = c->d_conv;
    }
    if (c->streams && L->next_r0 < N) {
        const int64_t n = N - L->next_r0 < L->step ? N - L->next_r0 : L->step;
        if ((status = queue_copy(c, 1 - slot, L->next_r0, n)) != GMM_OK) goto fail;
    }
    L->index++;
    return true;
fail:
    *out_status = status;
    return false;
}

gmm_status cuda_data_row_f64(gmm_backend_ctx *c, int64_t index, double *row)
{
    gmm_status status = GMM_OK;
    const size_t rb = raw_row_bytes(c);
    void *raw = NULL;
    if (index < 0 || index >= c->n_samples)
        return gmm_error(GMM_ERR_ARG, "row %lld is outside this rank's %lld rows",
                         (long long)index, (long long)c->n_samples);
    if (c->streams)
        return convert_rows_cpu((const char *)c->h_rows + (size_t)index * rb, c->data_elem,
                                (size_t)c->dim, row, GMM_ELEM_F64);
    /* the stored bytes of the row fit in the output's place */
    raw = malloc(rb);
    if (!raw) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    GMM_CUDA_CHECK(cudaMemcpy(raw, (const char *)c->d_X + (size_t)index * rb, rb,
                              cudaMemcpyDeviceToHost));
    status = convert_rows_cpu(raw, c->data_elem, (size_t)c->dim, row, GMM_ELEM_F64);
fail:
    free(raw);
    return status;
}

/* Pins the view's rows for asynchronous copies: registered in place, else a pinned copy, else
 * left pageable (the copies are then staged by the driver; correct, slower). The failures are
 * expected outcomes here, not errors: they are cleared and the next way tried. */
static void pin_host_rows(gmm_backend_ctx *c, const gmm_data_view *v, size_t bytes)
{
    c->h_rows = v->rows;
    if (cudaHostRegister((void *)v->rows, bytes, cudaHostRegisterReadOnly) == cudaSuccess) {
        c->h_registered = true;
        return;
    }
    (void)cudaGetLastError();
    if (cudaMallocHost(&c->h_pinned_copy, bytes) == cudaSuccess) {
        memcpy(c->h_pinned_copy, v->rows, bytes);
        c->h_rows = c->h_pinned_copy;
        return;
    }
    (void)cudaGetLastError();
    c->h_pinned_copy = NULL;
}

gmm_status cuda_data_place(gmm_backend_ctx *c, const gmm_data_view *v, size_t *asked_bytes)
{
    gmm_status status = GMM_OK;
    const size_t N = (size_t)v->n_rows, d = (size_t)v->dim, K = (size_t)c->n_components;
    const size_t es_raw = gmm_elem_size(v->elem), data_bytes = N * d * es_raw;
    const gmm_elem compute = c->single ? GMM_ELEM_F32 : GMM_ELEM_F64;
    size_t free_b = 0, total_b = 0, budget, stage_cap_rows, per_row_bytes, converted_bytes,
           bound, kept_bytes;
    bool cache, converts;
    c->data_elem = v->elem;
    c->view_rows = v->rows;
    c->view_elem = v->elem;
    stage_cap_rows = STAGE_BYTES / (d * sizeof(double));
    if (stage_cap_rows < 1) stage_cap_rows = 1;
    c->stage_rows = (int64_t)(N < stage_cap_rows ? N : stage_cap_rows);
    if (c->tuning.chunk_rows > 0 && c->tuning.chunk_rows < c->stage_rows)
        c->stage_rows = c->tuning.chunk_rows;
    if (c->stage_rows < 1) c->stage_rows = 1;

    GMM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    {
        size_t reserve = ((size_t)1 << 30) + total_b / 20;
        budget = free_b > reserve ? free_b - reserve : free_b / 4;
    }
    /* Float data in the other float type (float64 data under fp32/TF32) is converted once on
     * the device when it fits, as before data views: the E-step's GEMM then runs on all the rows
     * at once. Image bytes stay bytes (that is what they are kept for: 8.1 million images are
     * 6.4 GB, 51 GB in float64) unless their converted copy takes at most a quarter of the
     * budget (60000 images: 0.38 GB) and no chunk size was forced: then they too are converted
     * once, the same values as a float64 matrix converted on the host, uploaded as 1 byte a
     * value instead of 8. */
    converted_bytes = N * d * gmm_elem_size(compute);
    bound = c->tuning.memory_budget > 0 ? (size_t)c->tuning.memory_budget : budget;
    cache = v->elem != compute &&
            (v->elem != GMM_ELEM_U8 || (converted_bytes <= bound / 4 && c->tuning.chunk_rows <= 0));
    kept_bytes = cache ? converted_bytes : data_bytes;
    /* float64 data computed in float64 is read in place by every step; anything else is
     * converted chunk by chunk (k-means always reads float64) */
    converts = !((cache ? compute : v->elem) == GMM_ELEM_F64 && !c->single);
    /* the per-row buffers that come after the data: log resp, resp (N x K), log p, k-means */
    per_row_bytes = sizeof(double) * (2 * K + 3);
    if (c->tuning.memory_budget > 0) {
        /* the caller's bound covers the data and the chunk buffers */
        c->streams = kept_bytes + (converts ? (size_t)c->stage_rows * d * sizeof(double) : 0) >
                     bound;
        if (c->streams) {
            size_t rows = bound / (d * (2 * es_raw + sizeof(double)));
            if (rows < 1) rows = 1;
            if ((int64_t)rows < c->stage_rows) c->stage_rows = (int64_t)rows;
        }
    } else {
        c->streams = kept_bytes + N * per_row_bytes +
                         (converts ? (size_t)c->stage_rows * d * sizeof(double) : 0) >
                     budget;
    }
    if (c->streams) cache = false; /* the stored rows stream as they are */

    if (!c->streams && !cache) {
        *asked_bytes = data_bytes;
        DMALLOC(c->d_X, data_bytes);
        c->held_bytes += data_bytes;
        GMM_CUDA_CHECK(cudaMemcpy(c->d_X, v->rows, data_bytes, cudaMemcpyHostToDevice));
    } else if (!c->streams) {
        /* converted once into the compute type, a staged chunk at a time */
        *asked_bytes = kept_bytes;
        DMALLOC(c->d_X, kept_bytes);
        c->held_bytes += kept_bytes;
        *asked_bytes = (size_t)c->stage_rows * d * es_raw;
        DMALLOC(c->d_raw[0], *asked_bytes);
        for (size_t r0 = 0; r0 < N; r0 += (size_t)c->stage_rows) {
            const size_t rows = N - r0 < (size_t)c->stage_rows ? N - r0 : (size_t)c->stage_rows;
            GMM_CUDA_CHECK(cudaMemcpy(c->d_raw[0], (const char *)v->rows + r0 * d * es_raw,
                                      rows * d * es_raw, cudaMemcpyHostToDevice));
            if ((status = convert_rows_cuda(c->d_raw[0], v->elem, rows * d,
                                            (char *)c->d_X + r0 * d * gmm_elem_size(compute),
                                            compute, NULL)) != GMM_OK)
                goto fail;
        }
        GMM_CUDA_CHECK(cudaDeviceSynchronize());
        cudaFree(c->d_raw[0]);
        c->d_raw[0] = NULL;
        c->data_elem = compute;
    } else {
        const size_t raw_bytes = (size_t)c->stage_rows * d * es_raw;
        pin_host_rows(c, v, data_bytes);
        GMM_CUDA_CHECK(cudaStreamCreateWithFlags(&c->copy_stream, cudaStreamNonBlocking));
        for (int s = 0; s < 2; s++) {
            GMM_CUDA_CHECK(cudaEventCreateWithFlags(&c->ev_copied[s], cudaEventDisableTiming));
            GMM_CUDA_CHECK(cudaEventCreateWithFlags(&c->ev_free[s], cudaEventDisableTiming));
            *asked_bytes = raw_bytes;
            DMALLOC(c->d_raw[s], raw_bytes);
            c->held_bytes += raw_bytes;
        }
    }
    if (converts) {
        *asked_bytes = (size_t)c->stage_rows * d * sizeof(double);
        DMALLOC(c->d_conv, *asked_bytes);
        c->held_bytes += *asked_bytes;
    }
fail:
    return status;
}

void cuda_data_free(gmm_backend_ctx *c)
{
    /* teardown: nothing to report; a copy in flight finishes before its buffers go */
    if (c->copy_stream) {
        cudaStreamSynchronize(c->copy_stream);
        cudaStreamDestroy(c->copy_stream);
        c->copy_stream = NULL;
    }
    for (int s = 0; s < 2; s++) {
        if (c->ev_copied[s]) cudaEventDestroy(c->ev_copied[s]);
        if (c->ev_free[s]) cudaEventDestroy(c->ev_free[s]);
        c->ev_copied[s] = c->ev_free[s] = NULL;
        cudaFree(c->d_raw[s]);
        c->d_raw[s] = NULL;
    }
    cudaFree(c->d_X);
    cudaFree(c->d_conv);
    c->d_X = c->d_conv = NULL;
    if (c->h_registered) cudaHostUnregister((void *)c->h_rows);
    if (c->h_pinned_copy) cudaFreeHost(c->h_pinned_copy);
    c->h_registered = false;
    c->h_pinned_copy = NULL;
    c->h_rows = NULL;
}

gmm_status cuda_comm_sum(gmm_backend_ctx *c, double *d_buf, size_t n)
{
    gmm_status status = GMM_OK;
    double *h = NULL;
    if (gmm_comm_size(c->comm) <= 1 || n == 0) return GMM_OK;
    if (c->comm->sum_device) return c->comm->sum_device(c->comm, d_buf, n, NULL);
    h = (double *)malloc(sizeof(double) * n);
    if (!h) return gmm_error(GMM_ERR_NOMEM, "out of memory for a sum over ranks");
    GMM_CUDA_CHECK(cudaMemcpy(h, d_buf, sizeof(double) * n, cudaMemcpyDeviceToHost));
    if ((status = gmm_comm_sum(c->comm, h, n)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(d_buf, h, sizeof(double) * n, cudaMemcpyHostToDevice));
fail:
    free(h);
    return status;
}
