"""Input validation for the gmm estimators: X is checked as scikit-learn's mixtures check it
(check_array through the estimator's _validate_data: the same exception types and messages),
with scikit-learn's own code when it is importable and an equivalent here when it is not.

validate_data(estimator, X, reset=True) is fit's check (scikit-learn's dtype=[float64, float32],
at least 2 samples, n_features_in_ set); reset=False is the scoring methods' check (dtype
"numeric", n_features_in_ compared). A C-contiguous float64, float32 or uint8 array passes
without a copy (the library reads all three); any other numeric array becomes float64 once.
"""

import numbers
import warnings

import numpy as np

from . import _lib

DTYPE_CODES = {np.dtype(np.float64): _lib.DTYPE_FLOAT64, np.dtype(np.float32): _lib.DTYPE_FLOAT32,
               np.dtype(np.uint8): _lib.DTYPE_UINT8}
_FIT_DTYPES = [np.float64, np.float32, np.uint8]  # scikit-learn's [float64, float32], plus uint8

try:  # scikit-learn >= 1.6 has a function; before, a method of BaseEstimator
    from sklearn.utils.validation import validate_data as _sklearn_validate_data
except ImportError:
    _sklearn_validate_data = None

try:
    from scipy.sparse import issparse as _issparse
except ImportError:  # pragma: no cover - scipy comes with scikit-learn
    def _issparse(X):
        return False

_ComplexWarning = getattr(getattr(np, "exceptions", np), "ComplexWarning", None)


def validate_data(estimator, X, *, reset, ensure_min_samples=None):
    """(array, dtype code): X as a 2-D C-contiguous float64/float32/uint8 array, X itself when
    it is one already. reset=True (fit) sets estimator.n_features_in_; reset=False checks X
    against it. Raises what scikit-learn 1.2's validation raises for the same X."""
    if ensure_min_samples is None:
        ensure_min_samples = 2 if reset else 1
    kw = dict(reset=reset, dtype=_FIT_DTYPES if reset else "numeric", order="C",
              ensure_min_samples=ensure_min_samples)
    if _sklearn_validate_data is not None:
        arr = _sklearn_validate_data(estimator, X, **kw)
    elif hasattr(estimator, "_validate_data"):
        arr = estimator._validate_data(X, **kw)
    else:
        arr = _validate_like_sklearn(estimator, X, **kw)
    if arr.dtype not in DTYPE_CODES:  # "numeric" keeps integers; the library reads floats
        arr = np.ascontiguousarray(arr, dtype=np.float64)
    return arr, DTYPE_CODES[arr.dtype]


# ---- without scikit-learn: check_array's steps and sentences for dense X -------------------

_RESHAPE = ("Reshape your data either using array.reshape(-1, 1) if your data has a single "
            "feature or array.reshape(1, -1) if it contains a single sample.")
_NAN_HELP = (" does not accept missing values encoded as NaN natively. For supervised learning, "
             "you might want to consider sklearn.ensemble.HistGradientBoostingClassifier and "
             "Regressor which accept missing values encoded as NaNs natively. Alternatively, it "
             "is possible to preprocess the data, for instance by using an imputer transformer "
             "in a pipeline or drop samples with missing values. See "
             "https://scikit-learn.org/stable/modules/impute.html You can find a list of all "
             "estimators that handle NaN values at the following page: "
             "https://scikit-learn.org/stable/modules/impute.html"
             "#estimators-that-handle-nan-values")


def _validate_like_sklearn(estimator, X, *, reset, dtype, order, ensure_min_samples):
    name = type(estimator).__name__
    if _issparse(X) or (hasattr(X, "tocsr") and hasattr(X, "nnz")):
        raise TypeError("A sparse matrix was passed, but dense data is required. Use "
                        "X.toarray() to convert to a dense numpy array.")
    dtype_orig = getattr(X, "dtype", None)
    if not hasattr(dtype_orig, "kind"):
        dtype_orig = None
    if dtype == "numeric":
        numeric, dtype = True, (np.float64 if dtype_orig is not None and dtype_orig.kind == "O"
                                else None)
    else:
        numeric, dtype = False, (None if dtype_orig is not None and dtype_orig in dtype
                                 else dtype[0])
    with warnings.catch_warnings():
        if _ComplexWarning is not None:
            warnings.simplefilter("error", _ComplexWarning)
        try:
            arr = np.asarray(X, order=order, dtype=dtype)
        except Exception as e:
            if _ComplexWarning is not None and isinstance(e, _ComplexWarning):
                raise ValueError(f"Complex data not supported\n{X}\n") from e
            raise
    if arr.dtype.kind == "c":
        raise ValueError(f"Complex data not supported\n{arr}\n")
    if arr.ndim == 0:
        raise ValueError(f"Expected 2D array, got scalar array instead:\narray={arr}.\n"
                         f"{_RESHAPE}")
    if arr.ndim == 1:
        raise ValueError(f"Expected 2D array, got 1D array instead:\narray={arr}.\n{_RESHAPE}")
    if numeric and arr.dtype.kind in "USV":
        raise ValueError("dtype='numeric' is not compatible with arrays of bytes/strings."
                         "Convert your data to numeric values explicitly instead.")
    if arr.ndim >= 3:
        raise ValueError(f"Found array with dim {arr.ndim}. {name} expected <= 2.")
    _assert_all_finite(arr, name)
    if arr.shape[0] < ensure_min_samples:
        raise ValueError(f"Found array with {arr.shape[0]} sample(s) (shape={arr.shape}) while a "
                         f"minimum of {ensure_min_samples} is required by {name}.")
    if arr.shape[1] < 1:
        raise ValueError(f"Found array with {arr.shape[1]} feature(s) (shape={arr.shape}) while "
                         f"a minimum of 1 is required by {name}.")
    if reset:
        estimator.n_features_in_ = arr.shape[1]
    elif hasattr(estimator, "n_features_in_") and arr.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X has {arr.shape[1]} features, but {name} is expecting "
                         f"{estimator.n_features_in_} features as input.")
    return arr


def _assert_all_finite(arr, name):
    if arr.dtype.kind == "O":
        if np.any(arr != arr):  # what is not equal to itself is NaN
            raise ValueError("Input contains NaN")
        return
    if arr.dtype.kind not in "fc":
        return
    with np.errstate(over="ignore"):
        if np.isfinite(np.sum(arr)):  # one pass, no memory, for the usual all-finite case
            return
    if np.isnan(arr).any():
        raise ValueError(f"Input X contains NaN.\n{name}{_NAN_HELP}")
    if np.isinf(arr).any():
        raise ValueError(f"Input X contains infinity or a value too large for {arr.dtype!r}.")


def check_n_samples(n_samples, n_components):
    """scikit-learn's check at fit of the sample count against n_components."""
    if isinstance(n_components, numbers.Integral) and n_samples < n_components:
        raise ValueError(f"Expected n_samples >= n_components but got n_components = "
                         f"{n_components}, n_samples = {n_samples}")
