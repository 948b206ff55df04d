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

#ifdef __cplusplus
}
#endif
#endif
