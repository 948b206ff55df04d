"""gmm.BayesianGaussianMixture against scikit-learn's BayesianGaussianMixture from the same initial
responsibilities (scikit-learn's KMeans labels, given to both): the lower bound after 1, 10 and
convergence iterations agrees to 1e-8 for every covariance type and both weight priors, and so
do the posterior's attributes and the predictions; the model survives save/load and pickle.
GMM_TEST_DEVICE=gpu runs gmm's side on the GPU."""

import inspect
import os
import pickle
import warnings

import numpy as np
import pytest

import gmm
from gmm.mixture import _fit_from_resp

mixture = pytest.importorskip("sklearn.mixture")
cluster = pytest.importorskip("sklearn.cluster")

COV_TYPES = ["full", "tied", "diag", "spherical"]
DEVICE = os.environ.get("GMM_TEST_DEVICE", "cpu")  # "gpu" on a machine with one
PRIORS = ["dirichlet_process", "dirichlet_distribution"]


class SklearnFromResp(mixture.BayesianGaussianMixture):
    """scikit-learn's model with its initial responsibilities replaced by given ones (the base
    class's _initialize_parameters with the resp source swapped)."""

    def __init__(self, resp=None, **kwargs):
        super().__init__(**kwargs)
        self.resp = resp

    def _initialize_parameters(self, X, random_state, xp=None):
        if "xp" in inspect.signature(self._initialize).parameters:  # newer scikit-learn
            self._initialize(X, self.resp, xp=xp)
        else:
            self._initialize(X, self.resp)


def data():
    rng = np.random.RandomState(0)
    X = np.concatenate([rng.randn(150, 3) + [0, 0, 0], rng.randn(150, 3) * 0.7 + [5, 5, 0],
                        rng.randn(100, 3) * 1.3 + [0, 7, 7]])
    labels = cluster.KMeans(n_clusters=5, n_init=1, random_state=0).fit(X).labels_
    resp = np.zeros((X.shape[0], 5))
    resp[np.arange(X.shape[0]), labels] = 1
    return X, resp


def fit_both(X, resp, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning at max_iter 1 and 10
        ours = _fit_from_resp(gmm.BayesianGaussianMixture(device=DEVICE, **params), X, resp)
        ref = SklearnFromResp(resp=resp, **params).fit(X)
    return ours, ref


@pytest.mark.parametrize("prior_type", PRIORS)
@pytest.mark.parametrize("cov_type", COV_TYPES)
@pytest.mark.parametrize("max_iter", [1, 10, 500])
def test_lower_bound_matches_sklearn(cov_type, prior_type, max_iter):
    X, resp = data()
    ours, ref = fit_both(X, resp, n_components=5, covariance_type=cov_type,
                         weight_concentration_prior_type=prior_type, max_iter=max_iter,
                         tol=1e-6)
    assert ours.n_iter_ == ref.n_iter_
    assert ours.converged_ == ref.converged_
    np.testing.assert_allclose(ours.lower_bound_, ref.lower_bound_, rtol=1e-8)
    np.testing.assert_allclose(ours.weights_, ref.weights_, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(ours.means_, ref.means_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.covariances_, ref.covariances_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.precisions_cholesky_, ref.precisions_cholesky_, rtol=1e-7,
                               atol=1e-9)
    np.testing.assert_allclose(ours.mean_precision_, ref.mean_precision_, rtol=1e-9)
    np.testing.assert_allclose(ours.degrees_of_freedom_, ref.degrees_of_freedom_, rtol=1e-9)
    if prior_type == "dirichlet_process":
        for a, b in zip(ours.weight_concentration_, ref.weight_concentration_):
            np.testing.assert_allclose(a, b, rtol=1e-9)
    else:
        np.testing.assert_allclose(ours.weight_concentration_, ref.weight_concentration_,
                                   rtol=1e-9)
    np.testing.assert_allclose(ours.mean_prior_, ref.mean_prior_, rtol=1e-12)
    np.testing.assert_allclose(ours.covariance_prior_, ref.covariance_prior_, rtol=1e-10)
    assert ours.weight_concentration_prior_ == pytest.approx(ref.weight_concentration_prior_)
    assert ours.degrees_of_freedom_prior_ == ref.degrees_of_freedom_prior_
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-6,
                               atol=1e-9)
    np.testing.assert_allclose(ours.score_samples(X), ref.score_samples(X), rtol=1e-8)


@pytest.mark.parametrize("cov_type", COV_TYPES)
def test_given_priors_match_sklearn(cov_type):
    X, resp = data()
    d = X.shape[1]
    cov_prior = {"full": np.eye(d) * 2 + 0.3, "tied": np.eye(d) * 2 + 0.3,
                 "diag": np.full(d, 1.5), "spherical": 0.8}[cov_type]
    ours, ref = fit_both(X, resp, n_components=5, covariance_type=cov_type, tol=1e-6,
                         weight_concentration_prior=0.01, mean_precision_prior=0.5,
                         mean_prior=np.array([1.0, 2.0, 3.0]), degrees_of_freedom_prior=4.5,
                         covariance_prior=cov_prior, max_iter=500)
    assert ours.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(ours.lower_bound_, ref.lower_bound_, rtol=1e-8)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_surplus_components_lose_their_weight():
    X, _ = data()  # three clusters
    est = gmm.BayesianGaussianMixture(n_components=10, random_state=0, max_iter=500,
                                      weight_concentration_prior=1e-3).fit(X)
    assert np.sum(est.weights_ > 0.01) == 3
    assert set(np.unique(est.predict(X))) <= set(np.flatnonzero(est.weights_ > 0.01))


def test_save_load_and_pickle_keep_the_posterior(tmp_path):
    X, _ = data()
    est = gmm.BayesianGaussianMixture(n_components=4, covariance_type="diag",
                                      weight_concentration_prior_type="dirichlet_distribution",
                                      random_state=1).fit(X)
    path = str(tmp_path / "model.bin")
    est.save(path)
    for back in (gmm.load(path), gmm.BayesianGaussianMixture.load(path),
                 pickle.loads(pickle.dumps(est))):
        assert isinstance(back, gmm.BayesianGaussianMixture)
        assert back.weight_concentration_prior_type == "dirichlet_distribution"
        np.testing.assert_array_equal(back.weight_concentration_, est.weight_concentration_)
        np.testing.assert_array_equal(back.degrees_of_freedom_, est.degrees_of_freedom_)
        np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    with pytest.raises(ValueError, match="variational"):
        gmm.GaussianMixture.load(path)


@pytest.mark.parametrize("params, message", [
    (dict(weight_concentration_prior_type="stick"), "weight_concentration_prior_type"),
    (dict(weight_concentration_prior=0), "weight_concentration_prior"),
    (dict(mean_precision_prior=-1.0), "mean_precision_prior"),
    (dict(degrees_of_freedom_prior=1.5), "should be greater than 2"),
    (dict(mean_prior=[1.0, 2.0]), "mean_prior"),
    (dict(covariance_prior=np.eye(2)), "covariance_prior"),
])
def test_bad_priors_are_value_errors(params, message):
    X, _ = data()
    with pytest.raises(ValueError, match=message):
        gmm.BayesianGaussianMixture(n_components=2, **params).fit(X)


def test_covariance_prior_not_positive_definite():
    X, _ = data()
    with pytest.raises(ValueError, match="positive definite"):
        gmm.BayesianGaussianMixture(n_components=2, covariance_prior=-np.eye(3)).fit(X)
