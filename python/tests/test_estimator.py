"""gmm.GaussianMixture as a scikit-learn estimator: get_params/set_params, a Pipeline with PCA,
GridSearchCV over n_components scored by score, pickling and model.bin round trips, sample,
and the arrays handed to the library without a copy."""

import os
import pickle

import numpy as np
import pytest

import gmm
from gmm._validation import validate_data
from conftest import blobs


def fitted(cov_type="full", **kw):
    X, _ = blobs()
    return gmm.GaussianMixture(3, covariance_type=cov_type, random_state=0, **kw).fit(X), X


def test_params_round_trip():
    est = gmm.GaussianMixture(4, covariance_type="diag", tol=1e-4, device="cpu")
    p = est.get_params()
    assert p["n_components"] == 4 and p["covariance_type"] == "diag" and p["tol"] == 1e-4
    assert p["device"] == "cpu" and p["precision"] == "fp64" and p["means_init"] is None
    assert est.set_params(n_components=2, reg_covar=1e-3) is est
    assert est.n_components == 2 and est.reg_covar == 1e-3
    with pytest.raises(ValueError):
        est.set_params(no_such_parameter=1)


def test_pipeline_with_pca_matches_fit_on_projection():
    sk = pytest.importorskip("sklearn")
    from sklearn.decomposition import PCA
    from sklearn.pipeline import Pipeline
    X, _ = blobs(n=300, d=8, k=3, seed=2)
    pipe = Pipeline([("pca", PCA(3, random_state=0)),
                     ("gmm", gmm.GaussianMixture(3, random_state=0))]).fit(X)
    Z = PCA(3, random_state=0).fit_transform(X)
    direct = gmm.GaussianMixture(3, random_state=0).fit(Z)
    np.testing.assert_allclose(pipe.named_steps["gmm"].means_, direct.means_, rtol=1e-8,
                               atol=1e-8)
    np.testing.assert_array_equal(pipe.predict(X), direct.predict(Z))
    np.testing.assert_allclose(pipe.score(X), direct.score(Z), rtol=1e-10)
    assert sk.base.clone(pipe).get_params()["gmm__n_components"] == 3


def test_grid_search_over_n_components_picks_the_true_count():
    pytest.importorskip("sklearn")
    from sklearn.model_selection import GridSearchCV, KFold
    rng = np.random.RandomState(5)
    centres = np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]])
    X = centres[rng.randint(0, 3, 600)] + rng.randn(600, 2)
    search = GridSearchCV(gmm.GaussianMixture(covariance_type="full", random_state=0),
                          {"n_components": [1, 2, 3]}, cv=KFold(3)).fit(X)
    means = search.cv_results_["mean_test_score"]
    assert means[0] < means[1] < means[2]  # held-out log-likelihood grows up to the true 3
    assert search.best_params_ == {"n_components": 3}
    # the scores are score() on each held-out fold
    manual = [gmm.GaussianMixture(3, random_state=0).fit(X[tr]).score(X[te])
              for tr, te in KFold(3).split(X)]
    np.testing.assert_allclose(means[2], np.mean(manual), rtol=1e-12)


@pytest.mark.parametrize("cov_type", ["full", "tied", "diag", "spherical"])
def test_pickle_round_trip(cov_type):
    est, X = fitted(cov_type)
    back = pickle.loads(pickle.dumps(est))
    assert back.get_params() == est.get_params()
    for name in ("weights_", "means_", "covariances_", "precisions_", "precisions_cholesky_"):
        np.testing.assert_array_equal(getattr(back, name), getattr(est, name))
    assert back.lower_bound_ == est.lower_bound_ and back.n_iter_ == est.n_iter_
    np.testing.assert_array_equal(back.score_samples(X), est.score_samples(X))
    unfitted = pickle.loads(pickle.dumps(gmm.GaussianMixture(2)))
    assert unfitted.n_components == 2


def test_save_load_round_trip(tmp_path):
    est, X = fitted("tied")
    path = tmp_path / "model.bin"
    est.save(path)
    back = gmm.load(path)
    assert back.n_components == 3 and back.covariance_type == "tied"
    np.testing.assert_array_equal(back.means_, est.means_)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    np.testing.assert_allclose(back.score(X), est.score(X), rtol=0, atol=0)


def test_sample_shapes_and_grouping():
    est, X = fitted("diag")
    S, y = est.sample(500)
    assert S.shape == (500, X.shape[1]) and y.shape == (500,)
    assert np.all(np.diff(y) >= 0)  # grouped by component, as scikit-learn
    # the draws follow the mixture: component frequencies near the weights
    freq = np.bincount(y, minlength=3) / 500.0
    assert np.all(np.abs(freq - est.weights_) < 0.08)
    S2, _ = est.sample(500)
    np.testing.assert_array_equal(S, S2)  # random_state=0: the same draws again


@pytest.mark.parametrize("reset", [True, False])  # fit's check and the scoring methods'
def test_contiguous_arrays_are_not_copied(reset):
    est = gmm.GaussianMixture(2)
    est.n_features_in_ = 3
    for dtype in (np.float64, np.float32, np.uint8):
        a = np.ones((5, 3), dtype=dtype)
        arr, _ = validate_data(est, a, reset=reset)
        assert arr is a
    b = np.ones((5, 3), dtype=np.int16)  # converted once to float64
    arr, _ = validate_data(est, b, reset=reset)
    assert arr.dtype == np.float64 and np.shares_memory(arr, b) is False
    f = np.asfortranarray(np.ones((5, 3)))
    assert validate_data(est, f, reset=reset)[0].flags.c_contiguous


def test_library_errors_name_component_and_reg_covar():
    X = np.zeros((20, 2))  # every point the same: covariance 0
    X[10:] = 1.0
    with pytest.raises(ValueError, match=r"component \d.*reg_covar"):
        gmm.GaussianMixture(2, reg_covar=0.0, random_state=0).fit(X)


def test_fitted_attributes_shapes():
    X, _ = blobs(n=200, d=4, k=3)
    shapes = {"full": (3, 4, 4), "tied": (4, 4), "diag": (3, 4), "spherical": (3,)}
    for cov_type, shape in shapes.items():
        est = gmm.GaussianMixture(3, covariance_type=cov_type, random_state=1).fit(X)
        assert est.covariances_.shape == shape
        assert est.precisions_.shape == shape
        assert est.precisions_cholesky_.shape == shape
        assert est.weights_.shape == (3,) and est.means_.shape == (3, 4)
        np.testing.assert_allclose(est.weights_.sum(), 1.0, rtol=1e-12)
        assert est.predict_proba(X).shape == (200, 3)
