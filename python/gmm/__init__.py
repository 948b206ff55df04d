"""gmm: Gaussian mixture models fitted with EM by libgmm (C, with a CUDA GPU path), with
scikit-learn's GaussianMixture and BayesianGaussianMixture interfaces. See the README's "Library and Python module"."""

from ._lib import lib as _lib_handle, path as library_path
from .mixture import (ConvergenceWarning, GaussianMixture, GMMError, GMMValueError,
                      NotFittedError, load)
from .bayesian_mixture import BayesianGaussianMixture

__version__ = _lib_handle.gmm_version().decode()
__all__ = ["GaussianMixture", "BayesianGaussianMixture", "GMMError", "GMMValueError", "NotFittedError",
           "ConvergenceWarning", "load", "library_path", "__version__"]
