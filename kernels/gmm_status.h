/* Status codes and error details shared by every library layer (kernels, linalg, data, models).
 * Library code never prints: it returns a gmm_status and may record a one-line detail that the
 * programs in app/ show to the user. */
#ifndef GMM_STATUS_H
#define GMM_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GMM_OK = 0,
    GMM_ERR_NOMEM,       /* an allocation failed */
    GMM_ERR_IO,          /* a file could not be opened, read or written */
    GMM_ERR_FORMAT,      /* a file's content is malformed (bad magic, truncated, wrong sizes) */
    GMM_ERR_VERSION,     /* a model file of another format version */
    GMM_ERR_CHECKSUM,    /* a model file whose CRC-32 does not match */
    GMM_ERR_ARG,         /* an invalid argument or option */
    GMM_ERR_CHOLESKY,    /* a covariance matrix is not positive definite */
    GMM_ERR_NUMERIC,     /* NaN or infinity where a finite number was expected */
    GMM_ERR_CUDA,        /* a CUDA, cuBLAS or cuSOLVER call failed */
    GMM_ERR_NO_DEVICE,   /* a GPU was asked for and none is present or built in */
    GMM_ERR_UNSUPPORTED, /* the backend does not support this configuration */
    GMM_ERR_NETWORK,     /* a download failed */
    GMM_INTERRUPTED,     /* a fit stopped early on request; the model so far is returned */
    GMM_STATUS_COUNT
} gmm_status;

/* Short fixed description of a status code. */
const char *gmm_strerror(gmm_status status);

/* Records a printf-style detail for the current thread and returns status, so that library code
 * can write `return gmm_error(GMM_ERR_FORMAT, "%s: wrong magic number", path);`. */
gmm_status gmm_error(gmm_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The last recorded detail of this thread, or gmm_strerror(status) when none was recorded since
 * the last gmm_error_clear(). Never NULL. */
const char *gmm_error_message(gmm_status status);

void gmm_error_clear(void);

/* Where the error details of a second copy of this code go. The CUDA backend library
 * (libgmm-cuda.so, kernels/cuda_loader.h) carries its own hidden copy of the CPU code it calls,
 * this file's included; once attached, its gmm_error records into the core's per-thread buffer
 * through the core's sink, so a caller reads a detail with gmm_error_message wherever it was
 * recorded. */
typedef struct gmm_error_sink {
    gmm_status (*record)(gmm_status status, const char *detail);
    const char *(*message)(gmm_status status);
    void (*clear)(void);
} gmm_error_sink;

/* This copy's own buffer as a sink (the loader hands it to the backend). */
const gmm_error_sink *gmm_error_sink_here(void);
/* From now on gmm_error, gmm_error_message and gmm_error_clear of this copy use sink (NULL: this
 * copy's own buffer again). Called once, before any other thread uses this copy. */
void gmm_error_forward_to(const gmm_error_sink *sink);

#ifdef __cplusplus
}
#endif
#endif
