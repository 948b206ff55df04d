"""gmm.GaussianMixture against scikit-learn's GaussianMixture from the same initial parameters
(weights_init, means_init, precisions_init) on the same data: every covariance type agrees to
1e-8 on the fitted parameters, the lower bound, the scores and the predictions."""

import warnings

import numpy as np
import pytest

import gmm
from conftest import blobs

mixture = pytest.importorskip("sklearn.mixture")
ConvergenceWarning = pytest.importorskip("sklearn.exceptions").ConvergenceWarning

TOL = dict(rtol=1e-8, atol=1e-8)


def initial_parameters(X, k, cov_type):
    """Means from k samples, equal weights, precisions from the data's spread."""
    d = X.shape[1]
    means = X[[0, 1, 2, 3, 4][:k]].copy() + 0.1
    weights = np.full(k, 1.0 / k)
    var = X.var(axis=0)
    cov = np.cov(X.T) + 0.1 * np.eye(d)
    precisions = {
        "full": np.stack([np.linalg.inv(cov * (1 + 0.2 * i)) for i in range(k)]),
        "tied": np.linalg.inv(cov),
        "diag": np.stack([1.0 / (var * (1 + 0.2 * i)) for i in range(k)]),
        "spherical": np.array([1.0 / (var.mean() * (1 + 0.2 * i)) for i in range(k)]),
    }[cov_type]
    return dict(weights_init=weights, means_init=means, precisions_init=precisions)


@pytest.mark.parametrize("cov_type", ["full", "tied", "diag", "spherical"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fit_matches_sklearn(cov_type, dtype):
    X, _ = blobs(n=400, d=5, k=3, seed=1)
    X = X.astype(dtype)
    k = 3
    init = initial_parameters(X.astype(np.float64), k, cov_type)
    common = dict(n_components=k, covariance_type=cov_type, tol=1e-6, max_iter=200,
                  reg_covar=1e-6, **init)
    ours = gmm.GaussianMixture(device="cpu", **common).fit(X)
    ref = mixture.GaussianMixture(**common).fit(X.astype(np.float64))
    assert ours.converged_ and ref.converged_
    assert ours.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(ours.weights_, ref.weights_, **TOL)
    np.testing.assert_allclose(ours.means_, ref.means_, **TOL)
    assert ours.covariances_.shape == ref.covariances_.shape
    np.testing.assert_allclose(ours.covariances_, ref.covariances_, **TOL)
    assert ours.precisions_.shape == ref.precisions_.shape
    np.testing.assert_allclose(ours.precisions_, ref.precisions_, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(ours.precisions_cholesky_, ref.precisions_cholesky_, **TOL)
    np.testing.assert_allclose(ours.lower_bound_, ref.lower_bound_, **TOL)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X.astype(np.float64)))
    np.testing.assert_array_equal(ours.fit_predict(X), ref.fit_predict(X.astype(np.float64)))
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X.astype(np.float64)),
                               **TOL)
    np.testing.assert_allclose(ours.score_samples(X), ref.score_samples(X.astype(np.float64)),
                               **TOL)
    np.testing.assert_allclose(ours.score(X), ref.score(X.astype(np.float64)), **TOL)
    np.testing.assert_allclose(ours.bic(X), ref.bic(X.astype(np.float64)), **TOL)
    np.testing.assert_allclose(ours.aic(X), ref.aic(X.astype(np.float64)), **TOL)


def test_uint8_data_matches_float64():
    rng = np.random.RandomState(3)
    X8 = np.concatenate([rng.randint(0, 60, (100, 6)), rng.randint(150, 255, (100, 6))])
    X8 = X8.astype(np.uint8)
    init = initial_parameters(X8.astype(np.float64), 2, "diag")
    a = gmm.GaussianMixture(2, covariance_type="diag", **init).fit(X8)
    b = mixture.GaussianMixture(2, covariance_type="diag", **init).fit(X8.astype(np.float64))
    np.testing.assert_allclose(a.means_, b.means_, **TOL)
    np.testing.assert_allclose(a.lower_bound_, b.lower_bound_, **TOL)


def test_warm_start_continues_like_sklearn():
    X, _ = blobs(n=300, d=3, k=2, seed=4)
    init = initial_parameters(X, 2, "full")
    common = dict(n_components=2, max_iter=2, tol=1e-12, warm_start=True, **init)
    ours = gmm.GaussianMixture(**common)
    ref = mixture.GaussianMixture(**common)
    with pytest.warns(Warning):
        ours.fit(X)
        ref.fit(X)
    with pytest.warns(Warning):
        ours.fit(X)  # two more iterations from where the first fit stopped
        ref.fit(X)
    np.testing.assert_allclose(ours.means_, ref.means_, **TOL)
    np.testing.assert_allclose(ours.lower_bound_, ref.lower_bound_, **TOL)


@pytest.mark.parametrize("n_init", [1, 2])
def test_convergence_warning_and_flag_like_sklearn(n_init):
    """converged_ is scikit-learn's (any run converged) and the warning when none did is its
    sentence, naming the last run."""
    X, _ = blobs(n=300, d=3, k=2, seed=5)
    common = dict(n_components=2, max_iter=1, n_init=n_init, random_state=0)
    with pytest.warns(ConvergenceWarning) as ours:
        a = gmm.GaussianMixture(**common).fit(X)
    with pytest.warns(ConvergenceWarning) as ref:
        b = mixture.GaussianMixture(**common).fit(X)
    assert a.converged_ is False and b.converged_ is False
    assert [str(w.message) for w in ours] == [str(w.message) for w in ref]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converging runs warn nothing
        assert gmm.GaussianMixture(n_components=2, n_init=n_init, random_state=0).fit(X).converged_
