"""gmm.GaussianMixture: scikit-learn's GaussianMixture interface over libgmm (CPU or CUDA GPU).

X is validated as scikit-learn validates it (_validation.py: the same exceptions and messages);
arrays go to the library without a copy when they are already C-contiguous float64, float32 or
uint8 (the library converts them to float64 itself); other numeric arrays are converted to
float64 once. Errors from the library carry its sentence; bad parameters are a ValueError.
"""

import ctypes
import numbers
import os
import tempfile
import time
import warnings

import numpy as np

from . import _lib
from ._lib import lib
from ._params import available_if
from ._validation import check_n_samples, validate_data

try:  # scikit-learn is optional: with it the estimator joins Pipeline and GridSearchCV
    from sklearn.base import BaseEstimator as _Base, DensityMixin as _Density
    from sklearn.exceptions import ConvergenceWarning, NotFittedError
    _BASES = (_Density, _Base)
except ImportError:  # pragma: no cover - exercised only without scikit-learn
    from ._params import ParamsBase as _Base
    _BASES = (_Base,)

    class ConvergenceWarning(UserWarning):
        """EM stopped at max_iter before converging."""

    class NotFittedError(ValueError, AttributeError):
        """The estimator is used before fit."""


class GMMError(RuntimeError):
    """A failure inside libgmm; .code is its GMM_CODE_* value."""

    def __init__(self, message, code=0):
        super().__init__(message)
        self.code = code


class GMMValueError(GMMError, ValueError):
    """libgmm rejected the input or the parameters (also raised for a singular covariance)."""


_VALUE_CODES = {3, 4, 5, 6, 7, 8}  # format, version, checksum, argument, Cholesky, numeric


def _check(code):
    if code == 0:
        return
    message = lib.gmm_last_error().decode("utf-8", "replace") or f"libgmm failed with code {code}"
    if code == 1:
        raise MemoryError(message)
    if code == 2:
        raise OSError(message)
    raise (GMMValueError if code in _VALUE_CODES else GMMError)(message, code)


def _data_args(arr, code):
    return (arr.ctypes.data_as(ctypes.c_void_p), arr.shape[0], arr.shape[1], code, 1.0)


def _dptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


class _Handle:
    """Owns one gmm_mixture* and frees it."""

    def __init__(self, ptr):
        self.ptr = ptr

    def __del__(self):
        if self.ptr and lib is not None:
            lib.gmm_mixture_free(self.ptr)
            self.ptr = None


class _VerbosePrinter:
    """scikit-learn's verbose lines (sklearn/mixture/_base.py, _print_verbose_msg_*) from the
    library's progress callback, which runs after every EM iteration: "Initialization i" before
    a run's first line, "  Iteration n" every verbose_interval iterations (verbose >= 2: with the
    time since the last such line and the lower bound's change) and "Initialization converged:
    ..." after its last iteration (printed when the next run starts, or by finish). The times
    are wall-clock from the fit's start, so the first includes the initialisation, as
    scikit-learn's; "converged" is scikit-learn's converged_ at that point: any run so far.
    With verbose 0 it prints nothing and only keeps that flag (the fit's converged_)."""

    def __init__(self, verbose, interval, tol, previous_lower_bound=None):
        self.verbose, self.interval, self.tol = verbose, interval, tol
        self.previous_lower_bound = previous_lower_bound  # a warm start's, else None
        self.converged = False
        self.run_open = False
        self.init_start = self.line_time = self.last_time = time.perf_counter()
        self.lower_bound = None
        self.callback = _lib.PROGRESS(self._report)

    def _report(self, user, init_index, iteration, lower_bound, change, seconds):
        now = time.perf_counter()
        if iteration == 1:
            self.finish()
            if self.verbose:
                print(f"Initialization {init_index}")
            self.run_open = True
            self.init_start = self.line_time = self.last_time  # the previous run's end
            if self.previous_lower_bound is not None:  # scikit-learn starts from lower_bound_
                change = lower_bound - self.previous_lower_bound
        self.last_time, self.lower_bound = now, lower_bound
        if abs(change) < self.tol:
            self.converged = True
        if self.verbose and iteration % self.interval == 0:
            if self.verbose == 1:
                print(f"  Iteration {iteration}")
            else:
                print(f"  Iteration {iteration}\t time lapse {now - self.line_time:.5f}s\t "
                      f"ll change {change:.5f}")
                self.line_time = now

    def finish(self):
        """The last line of the run that is open, if one is."""
        if not self.run_open:
            return
        self.run_open = False
        if not self.verbose:
            return
        if self.verbose == 1:
            print(f"Initialization converged: {self.converged}")
        else:
            print(f"Initialization converged: {self.converged}\t time lapse "
                  f"{self.last_time - self.init_start:.5f}s\t ll {self.lower_bound:.5f}")


def _precisions_shape(cov_type, k, d):
    return {"full": (k, d, d), "tied": (d, d), "diag": (k, d), "spherical": (k,)}[cov_type]


_METRICS = ("auto", "euclidean", "cosine")  # the library's gmm_umap_metric codes 0, 1, 2


class GaussianMixture(*_BASES):
    """Gaussian mixture fitted with EM by libgmm; parameters and attributes as scikit-learn's
    sklearn.mixture.GaussianMixture, plus device ("auto", "cpu", "gpu") and precision
    ("fp64", "fp32", "tf32"). init_params also takes "knn" (density peaks of the kNN graph),
    "spectral" (a mixture fitted in the spectral embedding of the kNN graph) and "merge" (a
    mixture of 2 x n_components, the best of n_init runs, joined into n_components along the kNN
    graph; EM then runs once from it).

    space="umap" fits the mixture in the UMAP embedding of X (umap-learn's algorithm, as
    gmm-train --space umap) instead of X itself: n_neighbors (2..128), embed_dims (1..100, the
    mixture's dimension), min_dist (0..1), n_epochs (None: 500) and metric ("auto",
    "euclidean", "cosine") are umap-learn's parameters; knn_pca (None: 50 when X has more
    features, else none; 0: none) projects X onto its top principal axes before the neighbours
    are found, and metric "auto" is cosine there, else euclidean; before the axes knn_power
    (None: 1, the values as they are; 0.5: their square root, which gmm-train takes for
    images) raises every value to that power, and on them knn_whiten (None: 0.5; 0: none; 1:
    whitened) divides each coordinate by its axis's variance to the power knn_whiten / 2;
    random_state seeds the embedding too. predict, predict_proba,
    score_samples, score, bic and aic take X of the original feature count, place it in the
    embedding (umap-learn's transform) and score the places; transform(X) returns them and
    embedding_ holds the training data's. means_ and covariances_ live in the embedding, so
    means_init and precisions_init have embed_dims there, and sample() is not available. In a
    umap space several starts and joined components find the clusters far more often:
    n_init=10 and init_params="merge" are recommended (gmm-train's defaults there; these stay 1
    and "kmeans" as scikit-learn's)."""

    def __init__(self, n_components=1, *, covariance_type="full", tol=1e-3, reg_covar=1e-6,
                 max_iter=100, n_init=1, init_params="kmeans", weights_init=None,
                 means_init=None, precisions_init=None, random_state=None, warm_start=False,
                 verbose=0, verbose_interval=10, device="auto", precision="fp64",
                 space="pixels", n_neighbors=15, embed_dims=10, min_dist=0.0, n_epochs=None,
                 metric="auto", knn_pca=None, knn_power=None, knn_whiten=None):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.tol = tol
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.weights_init = weights_init
        self.means_init = means_init
        self.precisions_init = precisions_init
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
        self.verbose_interval = verbose_interval
        self.device = device
        self.precision = precision
        self.space = space
        self.n_neighbors = n_neighbors
        self.embed_dims = embed_dims
        self.min_dist = min_dist
        self.n_epochs = n_epochs
        self.metric = metric
        self.knn_pca = knn_pca
        self.knn_power = knn_power
        self.knn_whiten = knn_whiten

    # ---- parameters --------------------------------------------------------------------
    def _seed(self):
        rs = self.random_state
        if rs is None:
            return int(np.random.randint(0, 2**31 - 1))
        if isinstance(rs, numbers.Integral) and not isinstance(rs, bool):
            if rs < 0:
                raise ValueError(f"random_state={rs} must be a non-negative integer, a "
                                 f"numpy RandomState or None.")
            return int(rs)
        if isinstance(rs, np.random.RandomState):
            return int(rs.randint(0, 2**31 - 1))
        if isinstance(rs, np.random.Generator):
            return int(rs.integers(0, 2**31 - 1))
        raise ValueError(f"random_state={rs!r} must be None, a non-negative integer, a "
                         f"numpy RandomState or a numpy Generator.")

    def _check_params(self, n_samples, n_features):
        def integer(name, lo, hi=None):
            v = getattr(self, name)
            if (not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < lo or
                    (hi is not None and v > hi)):
                raise ValueError(f"{name}={v!r} must be an integer >= {lo}" +
                                 ("." if hi is None else f" and <= {hi}."))

        def real(name, hi=None):
            v = getattr(self, name)
            if (not isinstance(v, numbers.Real) or isinstance(v, bool) or not np.isfinite(v) or
                    v < 0 or (hi is not None and v > hi)):
                raise ValueError(f"{name}={v!r} must be a finite number >= 0" +
                                 ("." if hi is None else f" and <= {hi}."))

        integer("n_components", 1)
        integer("max_iter", 1)
        integer("n_init", 1)
        integer("verbose", 0)
        integer("verbose_interval", 1)
        real("tol")
        real("reg_covar")
        integer("n_neighbors", 2, 128)
        integer("embed_dims", 1, 100)
        real("min_dist", 1)
        if self.n_epochs is not None:
            integer("n_epochs", 1, 100000)
        if self.knn_pca is not None:
            integer("knn_pca", 0, 100000)
        if self.knn_power is not None:
            real("knn_power", 1)
            if self.knn_power == 0:
                raise ValueError("knn_power=0 must be above 0 (1: the values as they are).")
        if self.knn_whiten is not None:
            real("knn_whiten", 1)
        choices = {"covariance_type": ("full", "tied", "diag", "spherical"),
                   "init_params": ("kmeans", "k-means++", "random", "random_from_data", "knn",
                                   "spectral", "merge"),
                   "device": ("auto", "cpu", "gpu"), "precision": ("fp64", "fp32", "tf32"),
                   "space": ("pixels", "umap"), "metric": _METRICS}
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}={getattr(self, name)!r} must be one of "
                                 f"{', '.join(allowed)}.")
        check_n_samples(n_samples, self.n_components)
        # the mixture's dimension: the embedding's in a umap space
        k, d = self.n_components, (self.embed_dims if self.space == "umap" else n_features)
        shapes = {"weights_init": (k,), "means_init": (k, d),
                  "precisions_init": _precisions_shape(self.covariance_type, k, d)}
        arrays = {}
        for name, shape in shapes.items():
            v = getattr(self, name)
            if v is None:
                continue
            try:
                a = np.ascontiguousarray(v, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"{name} cannot be converted to an array of float64.") from None
            if a.shape != shape:
                raise ValueError(f"{name} has shape {a.shape} but {shape} is expected for "
                                 f"n_components={k}, {d} dimensions and covariance_type="
                                 f"'{self.covariance_type}'.")
            if not np.all(np.isfinite(a)):
                raise ValueError(f"{name} contains NaN or infinity.")
            arrays[name] = a
        return arrays

    def _make_params(self, arrays, n_features):
        params = ctypes.c_void_p()
        _check(lib.gmm_params_new(ctypes.byref(params)))
        try:
            p = params
            _check(lib.gmm_params_set_int(p, b"n_components", self.n_components))
            _check(lib.gmm_params_set_int(p, b"max_iter", self.max_iter))
            _check(lib.gmm_params_set_int(p, b"n_init", self.n_init))
            _check(lib.gmm_params_set_int(p, b"verbose", min(self.verbose, 10)))
            _check(lib.gmm_params_set_int(p, b"random_state", self._seed()))
            _check(lib.gmm_params_set_double(p, b"tol", float(self.tol)))
            _check(lib.gmm_params_set_double(p, b"reg_covar", float(self.reg_covar)))
            for name in ("covariance_type", "init_params", "device", "precision", "space"):
                _check(lib.gmm_params_set_string(p, name.encode(), getattr(self, name).encode()))
            if self.space == "umap":
                _check(lib.gmm_params_set_int(p, b"n_neighbors", self.n_neighbors))
                _check(lib.gmm_params_set_int(p, b"embed_dims", self.embed_dims))
                _check(lib.gmm_params_set_int(p, b"n_epochs", self.n_epochs or 0))
                _check(lib.gmm_params_set_double(p, b"min_dist", float(self.min_dist)))
                _check(lib.gmm_params_set_int(p, b"metric", _METRICS.index(self.metric)))
                pca = {None: 0, 0: -1}.get(self.knn_pca, self.knn_pca)  # auto, none or D axes
                _check(lib.gmm_params_set_int(p, b"knn_pca", pca))
                _check(lib.gmm_params_set_double(p, b"knn_power", float(self.knn_power or 0)))
                whiten = -1.0 if self.knn_whiten == 0 else float(self.knn_whiten or 0)
                _check(lib.gmm_params_set_double(p, b"knn_whiten", whiten))
            if "weights_init" in arrays:
                _check(lib.gmm_params_set_weights_init(p, _dptr(arrays["weights_init"]),
                                                       self.n_components))
            if "means_init" in arrays:
                means = arrays["means_init"]  # (k, d): d is embed_dims in a umap space
                _check(lib.gmm_params_set_means_init(p, _dptr(means), self.n_components,
                                                     means.shape[1]))
            if "precisions_init" in arrays:
                a = arrays["precisions_init"]
                _check(lib.gmm_params_set_precisions_init(p, _dptr(a), a.size))
            return params
        except BaseException:
            lib.gmm_params_free(params)
            raise

    # ---- fitting -----------------------------------------------------------------------
    def fit(self, X, y=None):
        """Fits the mixture to X (n_samples, n_features) with EM; returns self."""
        arr, code = validate_data(self, X, reset=True)
        arrays = self._check_params(*arr.shape)
        params = self._make_params(arrays, arr.shape[1])
        try:
            start = getattr(self, "_model", None) if self.warm_start else None
            if start is not None:
                if (lib.gmm_mixture_input_dim(start.ptr) != arr.shape[1] or
                        self.means_.shape[0] != self.n_components or
                        self._fitted_covariance_type != self.covariance_type):
                    raise ValueError("warm_start=True needs the same n_components, "
                                     "covariance_type and number of features as the previous "
                                     "fit.")
                _check(lib.gmm_params_set_start(params, start.ptr))
            printer = self._progress_printer(start)
            _check(lib.gmm_params_set_progress(
                params, ctypes.cast(printer.callback, ctypes.c_void_p), None))
            out = ctypes.c_void_p()
            _check(lib.gmm_mixture_fit(params, *_data_args(arr, code), ctypes.byref(out)))
        finally:
            lib.gmm_params_free(params)
        printer.finish()
        self._adopt(_Handle(out.value))
        # scikit-learn's converged_: whether any run converged (the model file keeps the best
        # run's flag), and its warning when none did, naming the last run
        self.converged_ = printer.converged
        if not self.converged_:
            n_runs = 1 if start is not None else self.n_init
            warnings.warn(f"Initialization {n_runs} did not converge. Try different init "
                          f"parameters, or increase max_iter, tol or check for degenerate data.",
                          ConvergenceWarning)
        return self

    def _progress_printer(self, start=None):
        """A _VerbosePrinter (its callback kept alive by the caller through the fit), silent at
        verbose 0. start: the warm start's model, whose lower bound the first iteration's
        change is taken from, as scikit-learn's."""
        previous = self.lower_bound_ if start is not None else None
        return _VerbosePrinter(self.verbose, self.verbose_interval, self.tol, previous)

    def fit_predict(self, X, y=None):
        """fit(X), then the component of each sample (as scikit-learn, the labels of a final
        E-step under the fitted parameters)."""
        return self.fit(X).predict(X)

    def _adopt(self, handle):
        """Reads the fitted attributes out of a model handle."""
        m = handle.ptr
        _check(lib.gmm_mixture_set_device(m, self.device.encode()))
        k, d = lib.gmm_mixture_n_components(m), lib.gmm_mixture_dim(m)
        cov_type = lib.gmm_mixture_covariance_type(m).decode()
        n_cov = lib.gmm_mixture_cov_size(m)

        def copy(ptr, n, shape):
            return np.ctypeslib.as_array(ptr, shape=(n,)).copy().reshape(shape)

        shape = _precisions_shape(cov_type, k, d)
        self._model = handle
        self._fitted_covariance_type = cov_type
        self.weights_ = copy(lib.gmm_mixture_weights(m), k, (k,))
        self.means_ = copy(lib.gmm_mixture_means(m), k * d, (k, d))
        self.covariances_ = copy(lib.gmm_mixture_covariances(m), n_cov, shape)
        pc = copy(lib.gmm_mixture_precisions_cholesky(m), n_cov, shape)
        self.precisions_cholesky_ = pc
        if cov_type == "full":  # as scikit-learn: precision = U U^T
            self.precisions_ = pc @ np.swapaxes(pc, 1, 2)  # batched BLAS (einsum: 2 s at 784)
        elif cov_type == "tied":
            self.precisions_ = pc @ pc.T
        else:
            self.precisions_ = pc ** 2
        self.converged_ = bool(lib.gmm_mixture_converged(m))
        self.n_iter_ = int(lib.gmm_mixture_n_iter(m))
        self.lower_bound_ = float(lib.gmm_mixture_lower_bound(m))
        self.n_features_in_ = int(lib.gmm_mixture_input_dim(m))
        self._fitted_space = lib.gmm_mixture_space(m).decode()
        if self._fitted_space == "umap":  # umap-learn's embedding_: the training data's places
            n_train = int(lib.gmm_mixture_n_train_samples(m))
            self.embedding_ = copy(lib.gmm_mixture_embedding(m), n_train * d,
                                   (n_train, d)).astype(np.float32)
        else:
            self.__dict__.pop("embedding_", None)

    # ---- scoring -----------------------------------------------------------------------
    def __sklearn_is_fitted__(self):
        return getattr(self, "_model", None) is not None

    def _fitted_data(self, X):
        if getattr(self, "_model", None) is None:
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet. Call "
                                 f"'fit' with appropriate arguments before using this "
                                 f"estimator.")
        return validate_data(self, X, reset=False)

    def _score_samples(self, X, want_ll=False, want_proba=False, want_labels=False):
        arr, code = self._fitted_data(X)
        n, k = arr.shape[0], self.means_.shape[0]
        ll = np.empty(n) if want_ll else None
        proba = np.empty((n, k)) if want_proba else None
        labels = np.empty(n, dtype=np.int32) if want_labels else None
        _check(lib.gmm_mixture_score_samples(
            self._model.ptr, *_data_args(arr, code), None if ll is None else _dptr(ll),
            None if proba is None else _dptr(proba),
            None if labels is None else labels.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))))
        return ll, proba, labels

    def score_samples(self, X):
        """log p(x) of each sample, shape (n_samples,)."""
        return self._score_samples(X, want_ll=True)[0]

    def predict_proba(self, X):
        """Each sample's responsibilities, shape (n_samples, n_components)."""
        return self._score_samples(X, want_proba=True)[1]

    def predict(self, X):
        """The most likely component of each sample, shape (n_samples,), int64."""
        return self._score_samples(X, want_labels=True)[2].astype(np.int64)

    def score(self, X, y=None):
        """The mean log-likelihood of the samples."""
        return float(np.mean(self.score_samples(X)))

    @available_if(lambda self: self.space == "umap",
                  "transform needs a model fitted with space='umap'; this one has space={!r}.",
                  "space")
    def transform(self, X):
        """For a model fitted with space="umap": X's places in the embedding (umap-learn's
        transform), shape (n_samples, embed_dims), the coordinates the mixture scores. Only
        there: with space="pixels" the estimator has no transform (hasattr is False), as
        scikit-learn's GaussianMixture has none."""
        arr, code = self._fitted_data(X)
        if self._fitted_space != "umap":
            raise ValueError(f"transform needs a model fitted with space='umap'; this one was "
                             f"fitted in {self._fitted_space!r}.")
        coords = np.empty((arr.shape[0], self.means_.shape[1]))
        _check(lib.gmm_mixture_transform(self._model.ptr, *_data_args(arr, code), _dptr(coords)))
        return coords

    def _n_parameters(self):
        return int(lib.gmm_mixture_n_parameters(self._model.ptr))

    def bic(self, X):
        """Bayesian information criterion on X (lower is better)."""
        ll = self.score_samples(X)
        return float(-2 * ll.sum() + self._n_parameters() * np.log(ll.shape[0]))

    def aic(self, X):
        """Akaike information criterion on X (lower is better)."""
        ll = self.score_samples(X)
        return float(-2 * ll.sum() + 2 * self._n_parameters())

    def sample(self, n_samples=1):
        """(X, y): n_samples drawn from the fitted mixture and their components, grouped by
        component as scikit-learn returns them."""
        if getattr(self, "_model", None) is None:
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet.")
        if (not isinstance(n_samples, numbers.Integral) or isinstance(n_samples, bool)
                or n_samples < 1):
            raise ValueError(f"Invalid value for 'n_samples': {n_samples!r}. The sampling "
                             f"requires at least one sample.")
        X = np.empty((n_samples, self.n_features_in_))
        y = np.empty(n_samples, dtype=np.int32)
        _check(lib.gmm_mixture_sample(self._model.ptr, n_samples, self._seed(), _dptr(X),
                                      y.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))))
        order = np.argsort(y, kind="stable")
        return X[order], y[order].astype(np.int64)

    # ---- model.bin and pickling --------------------------------------------------------
    def save(self, path):
        """Writes the fitted model to path as model.bin (readable by gmm-predict)."""
        if getattr(self, "_model", None) is None:
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet.")
        _check(lib.gmm_mixture_save(self._model.ptr, os.fsencode(path)))

    @classmethod
    def load(cls, path, device="auto"):
        """A fitted GaussianMixture from a model.bin (gmm-train's or save's)."""
        return load(path, device=device, _cls=cls)

    @classmethod
    def _from_handle(cls, handle, device):
        est = cls(n_components=lib.gmm_mixture_n_components(handle.ptr),
                  covariance_type=lib.gmm_mixture_covariance_type(handle.ptr).decode(),
                  device=device)
        if lib.gmm_mixture_space(handle.ptr).decode() == "umap":
            est.set_params(space="umap", embed_dims=int(lib.gmm_mixture_dim(handle.ptr)))
        est._adopt(handle)
        return est

    def _model_bytes(self):
        with tempfile.TemporaryDirectory(prefix="gmm-") as tmp:
            path = os.path.join(tmp, "model.bin")
            self.save(path)
            with open(path, "rb") as f:
                return f.read()

    def __getstate__(self):
        state = self.__dict__.copy()
        if state.get("_model") is not None:
            state["_model"] = self._model_bytes()
        return state

    def __setstate__(self, state):
        blob = state.pop("_model", None)
        self.__dict__.update(state)
        self._model = None
        if blob is not None:
            with tempfile.TemporaryDirectory(prefix="gmm-") as tmp:
                path = os.path.join(tmp, "model.bin")
                with open(path, "wb") as f:
                    f.write(blob)
                out = ctypes.c_void_p()
                _check(lib.gmm_mixture_load(os.fsencode(path), ctypes.byref(out)))
            self._adopt(_Handle(out.value))


def _fit_from_resp(estimator, X, resp):
    """Tests only: estimator.fit(X) with every run starting from the responsibilities resp
    (n_samples, n_components; rows >= 0 summing to 1) instead of init_params', the *_init arrays
    then replacing their parts (gmm_params_set_resp_init). Returns the estimator."""
    resp = np.ascontiguousarray(resp, dtype=np.float64)
    if resp.ndim != 2:
        raise ValueError(f"resp must be 2-D (n_samples, n_components), got shape {resp.shape}.")
    make_params = estimator._make_params

    def with_resp(arrays, n_features):
        params = make_params(arrays, n_features)
        try:
            _check(lib.gmm_params_set_resp_init(params, _dptr(resp), resp.shape[0],
                                                resp.shape[1]))
        except BaseException:
            lib.gmm_params_free(params)
            raise
        return params

    estimator._make_params = with_resp  # this fit only
    try:
        return estimator.fit(X)
    finally:
        del estimator._make_params


def load(path, device="auto", _cls=None):
    """A fitted model from a model.bin: a GaussianMixture, or a BayesianGaussianMixture when the
    file holds a variational fit (gmm-train --bayesian)."""
    from .bayesian_mixture import BayesianGaussianMixture
    out = ctypes.c_void_p()
    _check(lib.gmm_mixture_load(os.fsencode(path), ctypes.byref(out)))
    handle = _Handle(out.value)
    bayesian = bool(lib.gmm_mixture_is_bayesian(handle.ptr))
    cls = _cls or (BayesianGaussianMixture if bayesian else GaussianMixture)
    if bayesian != issubclass(cls, BayesianGaussianMixture):
        raise ValueError(f"{os.fsdecode(path)} holds a "
                         f"{'variational' if bayesian else 'maximum-likelihood'} mixture: load "
                         f"it with gmm.load or "
                         f"{'BayesianGaussianMixture' if bayesian else 'GaussianMixture'}.load.")
    return cls._from_handle(handle, device)
