"""gmm.BayesianGaussianMixture: scikit-learn's BayesianGaussianMixture (variational inference
with a Dirichlet-process or Dirichlet-distribution prior on the weights) over libgmm, on the CPU
or a CUDA GPU. n_components is an upper bound: the components the data does not need keep a
weight near 0 (weights_), which is how the model chooses their number."""

import ctypes
import numbers

import numpy as np

from . import mixture as _mixture
from ._lib import lib
from .mixture import GaussianMixture, _check, _dptr


class BayesianGaussianMixture(GaussianMixture):
    """Variational Bayesian Gaussian mixture fitted by libgmm; parameters and attributes as
    scikit-learn's sklearn.mixture.BayesianGaussianMixture, plus device ("auto", "cpu", "gpu")
    and precision ("fp64", "fp32", "tf32"). The E-step and the M-step's statistics are the
    GaussianMixture's (one large product per iteration on the device); the prior terms are
    added in the M-step. predict, predict_proba and score_samples use the posterior's expected
    log weights and precisions, as scikit-learn does."""

    # GaussianMixture's parameters that this model does not have (scikit-learn's neither)
    weights_init = means_init = precisions_init = None
    space, n_neighbors, embed_dims, min_dist, n_epochs = "pixels", 15, 10, 0.0, None
    metric, knn_pca, knn_power, knn_whiten = "auto", None, None, None

    def __init__(self, *, n_components=1, covariance_type="full", tol=1e-3, reg_covar=1e-6,
                 max_iter=100, n_init=1, init_params="kmeans",
                 weight_concentration_prior_type="dirichlet_process",
                 weight_concentration_prior=None, mean_precision_prior=None, mean_prior=None,
                 degrees_of_freedom_prior=None, covariance_prior=None, random_state=None,
                 warm_start=False, verbose=0, verbose_interval=10, device="auto",
                 precision="fp64"):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.tol = tol
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.weight_concentration_prior_type = weight_concentration_prior_type
        self.weight_concentration_prior = weight_concentration_prior
        self.mean_precision_prior = mean_precision_prior
        self.mean_prior = mean_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
        self.verbose_interval = verbose_interval
        self.device = device
        self.precision = precision

    # ---- parameters --------------------------------------------------------------------
    def _check_params(self, n_samples, n_features):
        arrays = super()._check_params(n_samples, n_features)
        types = ("dirichlet_process", "dirichlet_distribution")
        if self.weight_concentration_prior_type not in types:
            raise ValueError(f"weight_concentration_prior_type="
                             f"{self.weight_concentration_prior_type!r} must be one of "
                             f"{', '.join(types)}.")
        for name in ("weight_concentration_prior", "mean_precision_prior",
                     "degrees_of_freedom_prior"):
            v = getattr(self, name)
            if v is None:
                continue
            if (not isinstance(v, numbers.Real) or isinstance(v, bool) or not np.isfinite(v)
                    or v <= 0):
                raise ValueError(f"The '{name}' parameter of {type(self).__name__} must be None "
                                 f"or a float in the range (0.0, inf). Got {v!r} instead.")
        if (self.degrees_of_freedom_prior is not None and
                not self.degrees_of_freedom_prior > n_features - 1.0):
            raise ValueError(f"The parameter 'degrees_of_freedom_prior' should be greater than "
                             f"{n_features - 1}, but got {self.degrees_of_freedom_prior:.3f}.")
        cov_shape = {"full": (n_features, n_features), "tied": (n_features, n_features),
                     "diag": (n_features,), "spherical": ()}[self.covariance_type]
        for name, shape in (("mean_prior", (n_features,)), ("covariance_prior", cov_shape)):
            v = getattr(self, name)
            if v is None:
                continue
            try:
                a = np.array(v, dtype=np.float64)  # a copy, 0-d for a spherical prior
            except (TypeError, ValueError):
                raise ValueError(f"{name} cannot be converted to an array of float64.") from None
            if a.shape != shape:
                raise ValueError(f"The parameter '{name}' should have the shape of {shape}, but "
                                 f"got {a.shape}")
            if not np.all(np.isfinite(a)):
                raise ValueError(f"{name} contains NaN or infinity.")
            arrays[name] = a.reshape(-1)
        return arrays

    def _make_params(self, arrays, n_features):
        params = super()._make_params(arrays, n_features)
        try:
            p = params
            _check(lib.gmm_params_set_int(p, b"bayesian", 1))
            _check(lib.gmm_params_set_string(p, b"weight_concentration_prior_type",
                                             self.weight_concentration_prior_type.encode()))
            for name in ("weight_concentration_prior", "mean_precision_prior",
                         "degrees_of_freedom_prior"):
                v = getattr(self, name)
                if v is not None:
                    _check(lib.gmm_params_set_double(p, name.encode(), float(v)))
            if "mean_prior" in arrays:
                a = arrays["mean_prior"]
                _check(lib.gmm_params_set_mean_prior(p, _dptr(a), a.size))
            if "covariance_prior" in arrays:
                a = arrays["covariance_prior"]
                _check(lib.gmm_params_set_covariance_prior(p, _dptr(a), a.size))
            return params
        except BaseException:
            lib.gmm_params_free(params)
            raise

    def _adopt(self, handle):
        """The GaussianMixture's attributes, then the posterior's (scikit-learn's names)."""
        super()._adopt(handle)
        m = handle.ptr
        k, d = self.means_.shape

        def copy(ptr, n):
            return np.ctypeslib.as_array(ptr, shape=(n,)).copy()

        wpt = lib.gmm_mixture_weight_concentration_prior_type(m).decode()
        if wpt == "dirichlet_process":
            wc = copy(lib.gmm_mixture_weight_concentration(m), 2 * k)
            self.weight_concentration_ = (wc[:k], wc[k:])
        else:
            self.weight_concentration_ = copy(lib.gmm_mixture_weight_concentration(m), k)
        self.weight_concentration_prior_ = lib.gmm_mixture_prior(m, b"weight_concentration_prior")
        self.mean_precision_prior_ = lib.gmm_mixture_prior(m, b"mean_precision_prior")
        self.mean_precision_ = copy(lib.gmm_mixture_mean_precision(m), k)
        self.mean_prior_ = copy(lib.gmm_mixture_mean_prior(m), d)
        self.degrees_of_freedom_prior_ = lib.gmm_mixture_prior(m, b"degrees_of_freedom_prior")
        dof = copy(lib.gmm_mixture_degrees_of_freedom(m), k)
        cov_type = self._fitted_covariance_type
        self.degrees_of_freedom_ = float(dof[0]) if cov_type == "tied" else dof
        shape = {"full": (d, d), "tied": (d, d), "diag": (d,), "spherical": ()}[cov_type]
        prior = copy(lib.gmm_mixture_covariance_prior(m), int(np.prod(shape, dtype=int)))
        self.covariance_prior_ = float(prior[0]) if cov_type == "spherical" else prior.reshape(shape)

    def bic(self, X):
        """Not defined for a variational mixture (scikit-learn's has none either)."""
        raise AttributeError("BayesianGaussianMixture has no bic: the number of components "
                             "it uses is chosen by the fit (weights_)")

    def aic(self, X):
        """Not defined for a variational mixture (scikit-learn's has none either)."""
        raise AttributeError("BayesianGaussianMixture has no aic: the number of components "
                             "it uses is chosen by the fit (weights_)")

    @classmethod
    def _from_handle(cls, handle, device):
        m = handle.ptr
        est = cls(n_components=lib.gmm_mixture_n_components(m),
                  covariance_type=lib.gmm_mixture_covariance_type(m).decode(),
                  weight_concentration_prior_type=(
                      lib.gmm_mixture_weight_concentration_prior_type(m).decode()),
                  device=device)
        if lib.gmm_mixture_space(m).decode() == "umap":  # gmm-train --space umap --bayesian
            est.space, est.embed_dims = "umap", int(lib.gmm_mixture_dim(m))
        est._adopt(handle)
        return est

    @classmethod
    def load(cls, path, device="auto"):
        """A fitted BayesianGaussianMixture from a model.bin (gmm-train --bayesian's or
        save's)."""
        return _mixture.load(path, device=device, _cls=cls)
