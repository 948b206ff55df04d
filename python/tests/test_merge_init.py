"""init_params="merge" through the module: a long bar beside two small blobs, where k-means
starts cut the bar and put the blobs together (scikit-learn: adjusted Rand index 0.38 on every
random_state) and the merged start finds the three groups, the same again for the same seed;
the parameter is kept by get_params and clone, and a misspelt one is refused."""

import numpy as np
import pytest

import gmm


def bar_and_blobs():
    rng = np.random.default_rng(1)
    bar = np.c_[rng.uniform(0, 20, 3000), rng.uniform(0, 0.5, 3000)]
    blob1 = rng.normal([8, 2.0], 0.25, (400, 2))
    blob2 = rng.normal([12, 2.0], 0.25, (400, 2))
    return np.r_[bar, blob1, blob2], np.r_[np.zeros(3000), np.ones(400), 2 * np.ones(400)]


def test_merged_start_keeps_the_bar_whole():
    metrics = pytest.importorskip("sklearn.metrics")
    X, y = bar_and_blobs()
    kmeans = gmm.GaussianMixture(3, n_init=3, random_state=0, device="cpu").fit(X)
    merged = gmm.GaussianMixture(3, n_init=3, random_state=0, device="cpu",
                                 init_params="merge").fit(X)
    assert metrics.adjusted_rand_score(y, kmeans.predict(X)) < 0.5
    assert metrics.adjusted_rand_score(y, merged.predict(X)) > 0.98
    assert merged.lower_bound_ > kmeans.lower_bound_
    again = gmm.GaussianMixture(3, n_init=3, random_state=0, device="cpu",
                                init_params="merge").fit(X)
    np.testing.assert_array_equal(again.means_, merged.means_)


def test_merge_is_a_parameter_like_the_others():
    base = pytest.importorskip("sklearn.base")
    est = gmm.GaussianMixture(4, init_params="merge")
    assert base.clone(est).get_params()["init_params"] == "merge"
    with pytest.raises(ValueError, match="init_params"):
        gmm.GaussianMixture(2, init_params="merged").fit(np.random.default_rng(0).normal(size=(50, 2)))
