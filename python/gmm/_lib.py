"""Finds and loads libgmm (ctypes) and declares the C functions of gmm/gmm.h.

Where the library comes from, first match wins:
  1. the GMM_LIBRARY environment variable: the path of a libgmm.so (an error if it is not there);
  2. the package's own copy, gmm/_libs/libgmm.so.1, which the wheel carries (python/gmm_build.py
     copies build/libgmm.so.1 or $GMM_LIBRARY into it: `pip install ./python`, `make
     install-python`), with the CUDA backend library beside it when that was built: libgmm opens
     it from its own folder only when a GPU is asked for, so the package works without CUDA;
  3. the checkout's build directory, python/../build/libgmm.so.1 (running from the source tree);
  4. the system's loader: libgmm.so.1 in a directory it searches (`make install` into a prefix
     known to ldconfig, or LD_LIBRARY_PATH).
"""

import ctypes
import ctypes.util
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
SONAME = "libgmm.so.1"


def _candidates():
    env = os.environ.get("GMM_LIBRARY")
    if env:
        return [("GMM_LIBRARY", env)]
    return [
        ("the package's copy", os.path.join(_HERE, "_libs", SONAME)),
        ("the checkout's build directory", os.path.join(_HERE, "..", "..", "build", SONAME)),
        ("the system's loader", SONAME),
    ]


def _load():
    tried = []
    for where, path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{where}: {path} (not there)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{where}: {path} ({e})")
    raise ImportError(
        "gmm: libgmm could not be loaded; tried " + "; ".join(tried) +
        ". Build it with `make` (build/libgmm.so.1), install it with `make install`, "
        "or set GMM_LIBRARY to the path of libgmm.so.1.")


lib, path = _load()

_c_int, _c_double, _c_i64, _c_size = ctypes.c_int, ctypes.c_double, ctypes.c_int64, ctypes.c_size_t
_vp, _cp, _dp = ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_double)
_i32p = ctypes.POINTER(ctypes.c_int32)
_u8p = ctypes.POINTER(ctypes.c_uint8)
_fp = ctypes.POINTER(ctypes.c_float)
_pp = ctypes.POINTER(ctypes.c_void_p)

_SIGNATURES = {
    "gmm_version": (_cp, []),
    "gmm_last_error": (_cp, []),
    "gmm_code_name": (_cp, [_c_int]),
    "gmm_params_new": (_c_int, [_pp]),
    "gmm_params_free": (None, [_vp]),
    "gmm_params_set_int": (_c_int, [_vp, _cp, ctypes.c_longlong]),
    "gmm_params_set_double": (_c_int, [_vp, _cp, _c_double]),
    "gmm_params_set_string": (_c_int, [_vp, _cp, _cp]),
    "gmm_params_set_weights_init": (_c_int, [_vp, _dp, _c_int]),
    "gmm_params_set_means_init": (_c_int, [_vp, _dp, _c_int, _c_int]),
    "gmm_params_set_precisions_init": (_c_int, [_vp, _dp, _c_size]),
    "gmm_params_set_resp_init": (_c_int, [_vp, _dp, _c_i64, _c_int]),
    "gmm_params_set_start": (_c_int, [_vp, _vp]),
    "gmm_params_set_progress": (_c_int, [_vp, _vp, _vp]),
    "gmm_mixture_fit": (_c_int, [_vp, _vp, _c_i64, _c_int, _c_int, _c_double, _pp]),
    "gmm_mixture_free": (None, [_vp]),
    "gmm_mixture_set_device": (_c_int, [_vp, _cp]),
    "gmm_mixture_score_samples": (_c_int, [_vp, _vp, _c_i64, _c_int, _c_int, _c_double, _dp, _dp,
                                           _i32p]),
    "gmm_mixture_score": (_c_int, [_vp, _vp, _c_i64, _c_int, _c_int, _c_double, _dp]),
    "gmm_mixture_bic": (_c_int, [_vp, _vp, _c_i64, _c_int, _c_int, _c_double, _dp]),
    "gmm_mixture_aic": (_c_int, [_vp, _vp, _c_i64, _c_int, _c_int, _c_double, _dp]),
    "gmm_mixture_sample": (_c_int, [_vp, _c_i64, ctypes.c_uint64, _dp, _i32p]),
    "gmm_mixture_transform": (_c_int, [_vp, _vp, _c_i64, _c_int, _c_int, _c_double, _dp]),
    "gmm_mixture_save": (_c_int, [_vp, _cp]),
    "gmm_mixture_load": (_c_int, [_cp, _pp]),
    "gmm_mixture_n_components": (_c_int, [_vp]),
    "gmm_mixture_dim": (_c_int, [_vp]),
    "gmm_mixture_input_dim": (_c_int, [_vp]),
    "gmm_mixture_space": (_cp, [_vp]),
    "gmm_mixture_embedding": (_fp, [_vp]),
    "gmm_mixture_covariance_type": (_cp, [_vp]),
    "gmm_mixture_cov_size": (_c_size, [_vp]),
    "gmm_mixture_weights": (_dp, [_vp]),
    "gmm_mixture_means": (_dp, [_vp]),
    "gmm_mixture_covariances": (_dp, [_vp]),
    "gmm_mixture_precisions_cholesky": (_dp, [_vp]),
    "gmm_mixture_converged": (_c_int, [_vp]),
    "gmm_mixture_n_iter": (_c_int, [_vp]),
    "gmm_mixture_lower_bound": (_c_double, [_vp]),
    "gmm_mixture_n_train_samples": (_c_i64, [_vp]),
    "gmm_mixture_n_parameters": (_c_i64, [_vp]),
    "gmm_params_set_mean_prior": (_c_int, [_vp, _dp, _c_int]),
    "gmm_params_set_covariance_prior": (_c_int, [_vp, _dp, _c_size]),
    "gmm_mixture_is_bayesian": (_c_int, [_vp]),
    "gmm_mixture_weight_concentration_prior_type": (_cp, [_vp]),
    "gmm_mixture_prior": (_c_double, [_vp, _cp]),
    "gmm_mixture_weight_concentration": (_dp, [_vp]),
    "gmm_mixture_mean_precision": (_dp, [_vp]),
    "gmm_mixture_degrees_of_freedom": (_dp, [_vp]),
    "gmm_mixture_mean_prior": (_dp, [_vp]),
    "gmm_mixture_covariance_prior": (_dp, [_vp]),
    "gmm_cluster_scores": (_c_int, [_i32p, _c_int, _u8p, _c_int, _c_i64, _dp, _dp, _dp]),
}

for _name, (_res, _args) in _SIGNATURES.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

# gmm_progress_callback(user, init_index, iteration, lower_bound, change, seconds)
PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_double,
                            ctypes.c_double, ctypes.c_double)

# gmm/gmm.h's codes and dtypes
CODE_NAMES = {
    1: "ERR_NOMEM", 2: "ERR_IO", 3: "ERR_FORMAT", 4: "ERR_VERSION", 5: "ERR_CHECKSUM",
    6: "ERR_ARG", 7: "ERR_CHOLESKY", 8: "ERR_NUMERIC", 9: "ERR_CUDA", 10: "ERR_NO_DEVICE",
    11: "ERR_UNSUPPORTED",
}
DTYPE_FLOAT64, DTYPE_FLOAT32, DTYPE_UINT8 = 0, 1, 2
