/* Status strings and the per-thread error detail buffer (and its sink for the CUDA backend's
 * copy of this file, see gmm_error_sink). */
#include "kernels/gmm_status.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char detail[1024];

const char *gmm_strerror(gmm_status status)
{
    switch (status) {
    case GMM_OK: return "success";
    case GMM_ERR_NOMEM: return "out of memory";
    case GMM_ERR_IO: return "input/output error";
    case GMM_ERR_FORMAT: return "malformed file";
    case GMM_ERR_VERSION: return "unsupported file version";
    case GMM_ERR_CHECKSUM: return "checksum mismatch";
    case GMM_ERR_ARG: return "invalid argument";
    case GMM_ERR_CHOLESKY: return "covariance matrix is not positive definite";
    case GMM_ERR_NUMERIC: return "numerical failure (NaN or infinity)";
    case GMM_ERR_CUDA: return "CUDA error";
    case GMM_ERR_NO_DEVICE: return "no GPU available";
    case GMM_ERR_UNSUPPORTED: return "unsupported configuration";
    case GMM_ERR_NETWORK: return "download failed";
    case GMM_INTERRUPTED: return "interrupted (the model so far was kept)";
    default: return "unknown error";
    }
}

static const gmm_error_sink *forward; /* set in the CUDA backend's copy only */

gmm_status gmm_error(gmm_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return forward ? forward->record(status, detail) : status;
}

const char *gmm_error_message(gmm_status status)
{
    if (forward) return forward->message(status);
    return detail[0] ? detail : gmm_strerror(status);
}

void gmm_error_clear(void)
{
    detail[0] = '\0';
    if (forward) forward->clear();
}

static gmm_status record_here(gmm_status status, const char *text)
{
    if (text != detail) snprintf(detail, sizeof detail, "%s", text);
    return status;
}

static const char *message_here(gmm_status status)
{
    return detail[0] ? detail : gmm_strerror(status);
}

static void clear_here(void) { detail[0] = '\0'; }

const gmm_error_sink *gmm_error_sink_here(void)
{
    static const gmm_error_sink here = {record_here, message_here, clear_here};
    return &here;
}

void gmm_error_forward_to(const gmm_error_sink *sink) { forward = sink; }
