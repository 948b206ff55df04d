/* Opening the CUDA backend library at run time (see cuda_loader.h for what and where). The one
 * file of the core that knows whether CUDA was built at all. */
#include "kernels/cuda_loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Compiled in by the Makefile: the source tree, its build folder, the install's LIBDIR and the
 * checksum of the interface between the core and the backend. */
#ifndef GMM_CUDA_BACKEND_TREE
#define GMM_CUDA_BACKEND_TREE ""
#endif
#ifndef GMM_CUDA_BACKEND_BUILD_DIR
#define GMM_CUDA_BACKEND_BUILD_DIR ""
#endif
#ifndef GMM_CUDA_BACKEND_LIBDIR
#define GMM_CUDA_BACKEND_LIBDIR ""
#endif
#ifndef GMM_CUDA_ABI
#define GMM_CUDA_ABI "unknown"
#endif

/* the dynamic loader's complaint, two folders and a path: more than gmm_error keeps, never cut */
#define WHY_BYTES 1024
#define REASON_BYTES (3 * PATH_MAX + 2 * WHY_BYTES)

static pthread_once_t open_once = PTHREAD_ONCE_INIT;
static void *backend;                /* the open library, or NULL */
static gmm_status open_status = GMM_ERR_NO_DEVICE;
static char reason[REASON_BYTES];    /* why it could not be opened */

#ifdef GMM_WITH_CUDA

/* The folder (no trailing '/') of the program or shared library this code was linked into, or ""
 * when it cannot be told. For the main program dladdr gives argv[0]; /proc/self/exe is its real
 * path. */
static void module_folder(char *out, size_t out_len)
{
    Dl_info info;
    char path[PATH_MAX] = "";
    out[0] = '\0';
    if (!dladdr((void *)&gmm_cuda_backend_open, &info) || !info.dli_fname) return;
    if (strcmp(info.dli_fname, program_invocation_name) == 0 || !strchr(info.dli_fname, '/')) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        if (n <= 0) return;
        path[n] = '\0';
    } else if (!realpath(info.dli_fname, path)) {
        return;
    }
    char *slash = strrchr(path, '/');
    if (!slash) return;
    *slash = '\0';
    snprintf(out, out_len, "%s", path);
}

static bool inside_tree(const char *folder)
{
    size_t n = strlen(GMM_CUDA_BACKEND_TREE);
    return n && strncmp(folder, GMM_CUDA_BACKEND_TREE, n) == 0 &&
           (folder[n] == '/' || folder[n] == '\0');
}

/* Opens one candidate (a path, or the bare soname for the dynamic loader's search) and checks its
 * interface checksum. NULL with why set when it cannot be used. */
static void *try_open(const char *file, char *why, size_t why_len)
{
    dlerror();
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, why_len, "%s", e ? e : "cannot be opened");
        return NULL;
    }
    const char *abi = dlsym(h, GMM_CUDA_BACKEND_ABI_SYMBOL);
    if (!abi || strcmp(abi, GMM_CUDA_ABI) != 0) {
        snprintf(why, why_len, "%s is from another build of gmm (interface %s, this one's %s)",
                 file, abi ? abi : "unmarked", GMM_CUDA_ABI);
        dlclose(h);
        return NULL;
    }
    return h;
}

/* The first candidate that opens: the module's folder, the build folder or LIBDIR, then the
 * dynamic loader's search. The reason names the first candidate that exists but failed (its
 * missing dependency, say libcudart.so.13), else the search's own complaint. */
static void *find_backend(void)
{
    char module[PATH_MAX], path[PATH_MAX + 32], why[WHY_BYTES] = "";
    char failed[PATH_MAX + 2 * WHY_BYTES] = "", looked[2 * PATH_MAX + 8] = "";
    module_folder(module, sizeof module);
    const char *folders[2] = {
        module, inside_tree(module) ? GMM_CUDA_BACKEND_BUILD_DIR : GMM_CUDA_BACKEND_LIBDIR};
    void *h = NULL;
    for (int i = 0; i < 2 && !h; i++) {
        if (!folders[i][0] || (i == 1 && strcmp(folders[0], folders[1]) == 0)) continue;
        size_t used = strlen(looked);
        snprintf(looked + used, sizeof looked - used, "%s%s", used ? ", " : "", folders[i]);
        snprintf(path, sizeof path, "%s/%s", folders[i], GMM_CUDA_BACKEND_SONAME);
        if (access(path, F_OK) != 0) continue;
        h = try_open(path, why, sizeof why);
        if (!h && !failed[0]) snprintf(failed, sizeof failed, "cannot load %s: %s", path, why);
    }
    if (!h) h = try_open(GMM_CUDA_BACKEND_SONAME, why, sizeof why);
    if (h) return h;
    if (failed[0])
        snprintf(reason, sizeof reason, "the CUDA backend is not available: %s", failed);
    else
        snprintf(reason, sizeof reason,
                 "the CUDA backend is not available: %s (looked in %s and the library search path)",
                 why, looked[0] ? looked : "no folder");
    return NULL;
}

static void open_backend(void)
{
    void *h = find_backend();
    if (!h) return;
    gmm_cuda_backend_attach_fn attach =
        (gmm_cuda_backend_attach_fn)dlsym(h, GMM_CUDA_BACKEND_ATTACH_SYMBOL);
    if (!attach) {
        snprintf(reason, sizeof reason, "the CUDA backend library has no %s",
                 GMM_CUDA_BACKEND_ATTACH_SYMBOL);
        dlclose(h);
        return;
    }
    attach(gmm_error_sink_here());
    open_status = GMM_OK;
    __atomic_store_n(&backend, h, __ATOMIC_RELEASE);
}

#else /* a build without CUDA */

static void open_backend(void)
{
    snprintf(reason, sizeof reason,
             "this build has no CUDA support (rebuild with nvcc installed, or CUDA=1)");
}

#endif

gmm_status gmm_cuda_backend_open(void)
{
    pthread_once(&open_once, open_backend);
    if (open_status != GMM_OK) return gmm_error(open_status, "%s", reason);
    return GMM_OK;
}

bool gmm_cuda_backend_is_open(void)
{
    return __atomic_load_n(&backend, __ATOMIC_ACQUIRE) != NULL;
}

const void *gmm_cuda_backend_table(const char *name, size_t size)
{
    if (gmm_cuda_backend_open() != GMM_OK) return NULL;
    const size_t *table = dlsym(backend, name);
    return table && *table == size ? table : NULL;
}

gmm_status gmm_cuda_backend_missing(const char *caller)
{
    pthread_once(&open_once, open_backend);
    if (open_status != GMM_OK) return gmm_error(GMM_ERR_NO_DEVICE, "%s: %s", caller, reason);
    return gmm_error(GMM_ERR_NO_DEVICE,
                     "%s: the CUDA backend library has no table for it (from another build?)",
                     caller);
}
