/* The CUDA backend's loader, the lower half of the backend registry (models/backend/backend.c): the one
 * place that knows that the whole CUDA side of the project (every CUDA object of kernels/,
 * linalg/, models/ and bench/, with the CUDA runtime and NCCL) is a shared library of its own,
 * libgmm-cuda.so.1, opened with dlopen the first time a GPU is asked for, and where to look for
 * it. The CPU core (the programs, libgmm.so, libgmm.a) links no CUDA library, so it starts on a
 * machine without CUDA; ggml's backend registry is the model.
 *
 * Each folder's CUDA entry points are one table of function pointers (<folder>/cuda_api.h) that
 * the backend library exports under one name, defined in <folder>/cuda_api.cu; the folder's
 * stand-ins (<folder>/cuda_api_forward.c, in the core) fetch it here once and forward every call
 * through it, or return GMM_ERR_NO_DEVICE with this loader's reason.
 *
 * Where it looks, in order: the folder of the program or library that holds this code (dladdr);
 * then, for a program or library inside the source tree it was built in, that tree's build
 * folder, and for any other (an installed one) the install's LIBDIR (both compiled in); then the
 * dynamic loader's own search (LD_LIBRARY_PATH, the cache). So an installed program never takes
 * a backend from a build tree, nor a program of the tree an installed one. A library from
 * another build of gmm (its interface checksum differs) is passed over. */
#ifndef GMM_CUDA_LOADER_H
#define GMM_CUDA_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GMM_CUDA_BACKEND_SONAME "libgmm-cuda.so.1"

/* What the backend library exports besides its tables: its interface checksum (a string, compared
 * with the core's before anything else is touched) and the function the loader calls once, after
 * opening it, to hand it the core's error buffer (kernels/gmm_status.h's gmm_error_sink). */
#define GMM_CUDA_BACKEND_ABI_SYMBOL "gmm_cuda_backend_abi"
#define GMM_CUDA_BACKEND_ATTACH_SYMBOL "gmm_cuda_backend_attach"
typedef void (*gmm_cuda_backend_attach_fn)(const gmm_error_sink *sink);

/* Opens the backend library, once per process (thread-safe; later calls return the first
 * answer). GMM_ERR_NO_DEVICE whose detail says why: the dynamic loader's words, naming the
 * library that is missing (libgmm-cuda.so.1 itself, or the libcudart.so.13 it needs), or that
 * this build has no CUDA. Makes no CUDA call: opening the CUDA runtime starts nothing. */
gmm_status gmm_cuda_backend_open(void);

/* Whether the backend library is open already, without trying to open it (a CPU run that asks
 * "was a GPU resources object ever made?" must not load CUDA to answer). */
bool gmm_cuda_backend_is_open(void);

/* The table the backend exports as `name`, opening the library first: NULL when it cannot be
 * opened (gmm_cuda_backend_open says why), has no such table, or has one of another size (the
 * first field of every table holds its size). */
const void *gmm_cuda_backend_table(const char *name, size_t size);

/* The stand-ins' answer when the backend or its table is missing: GMM_ERR_NO_DEVICE with the
 * detail "caller: <why>" (one wording for every folder). */
gmm_status gmm_cuda_backend_missing(const char *caller);

#ifdef __cplusplus
}
#endif

/* ---- the building blocks of the folders' tables and stand-ins ------------------------------ */

/* A table's field, typed from the function's own declaration (a table cannot disagree with its
 * header), and an entry of the table's one definition (positional, in the X-list's order). */
#ifdef __cplusplus
#define GMM_CUDA_API_FIELD(name) decltype(&::name) name;
#else
#define GMM_CUDA_API_FIELD(name) __typeof__(&name) name;
#endif
#define GMM_CUDA_API_ENTRY(name) name,

/* static const type *getter(void): the table exported as symbol, fetched on the first call that
 * finds it (NULL while the backend is missing). */
#define GMM_CUDA_API_GETTER(getter, type, symbol)                                                 \
    static const type *getter(void)                                                              \
    {                                                                                            \
        static const type *table;                                                                \
        const type *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);                               \
        if (!t) {                                                                                \
            t = (const type *)gmm_cuda_backend_table(symbol, sizeof(type));                      \
            __atomic_store_n(&table, t, __ATOMIC_RELEASE);                                       \
        }                                                                                        \
        return t;                                                                                \
    }

/* The body of a stand-in returning a gmm_status: the call through the table, else the reason. */
#define GMM_CUDA_FORWARD(getter, name, ...)                                                       \
    do {                                                                                         \
        __typeof__(getter()) t_ = getter();                                                      \
        return t_ ? t_->name(__VA_ARGS__) : gmm_cuda_backend_missing(#name);                     \
    } while (0)

#endif
