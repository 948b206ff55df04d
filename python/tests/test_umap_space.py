"""GaussianMixture(space="umap"): the mixture fitted in the UMAP embedding of X. Three blobs found
and new points placed with them; the space's parameters in get_params, clone and validation;
pickling and model.bin keeping the space; transform and embedding_; and on scikit-learn's digits
a clearly better clustering than the same mixture in pixel space."""

import pickle

import numpy as np
import pytest

import gmm

DIM, BLOBS = 12, 3


def blob_points(n, seed):
    """n points of 12 features: point i in blob i % 3, N(0, 1) around a centre 6 units out on
    axis i % 3 (tests/test_umap.c's blobs)."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, DIM)
    X[np.arange(n), np.arange(n) % BLOBS] += 6.0
    return X, np.arange(n) % BLOBS


def wrong(labels, truth, names):
    """Wrong labels when blob b is called names[b]."""
    return int(np.sum(labels != np.asarray(names)[truth]))


@pytest.fixture(scope="module")
def fitted():
    X, truth = blob_points(600, 5)
    est = gmm.GaussianMixture(n_components=3, space="umap", random_state=0).fit(X)
    return est, X, truth


def test_blobs_found_and_new_points_placed(fitted):
    est, X, truth = fitted
    labels = est.predict(X)
    names = labels[:BLOBS]
    assert len(set(names)) == BLOBS
    assert wrong(labels, truth, names) == 0
    Y, ytruth = blob_points(90, 99)
    assert wrong(est.predict(Y), ytruth, names) == 0
    proba = est.predict_proba(Y)
    assert proba.shape == (90, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    # the mixture lives in the embedding, the inputs keep their 12 features
    assert est.n_features_in_ == DIM
    assert est.means_.shape == (3, 10) and est.covariances_.shape == (3, 10, 10)
    assert est.embedding_.shape == (600, 10) and est.embedding_.dtype == np.float32
    ll = est.score_samples(Y)
    assert ll.shape == (90,) and np.all(np.isfinite(ll))
    assert est.score(Y) == pytest.approx(ll.mean(), rel=1e-12)
    k = est._n_parameters()
    assert k == 3 * (10 + 55) + 2
    assert est.bic(Y) == pytest.approx(-2 * ll.sum() + k * np.log(90), rel=1e-12)
    assert est.aic(Y) == pytest.approx(-2 * ll.sum() + 2 * k, rel=1e-12)


def test_transform_is_what_the_mixture_scores(fitted):
    est, X, _ = fitted
    Y, _ = blob_points(30, 7)
    Z = est.transform(Y)
    assert Z.shape == (30, 10)
    np.testing.assert_array_equal(est.transform(Y), Z)  # placing is deterministic
    # the mixture's own densities at those places
    from scipy.stats import multivariate_normal
    dens = sum(w * multivariate_normal(m, c).pdf(Z)
               for w, m, c in zip(est.weights_, est.means_, est.covariances_))
    np.testing.assert_allclose(est.score_samples(Y), np.log(dens), rtol=1e-6)
    # a training point is placed near its own place in the embedding
    near = np.linalg.norm(est.transform(X[:50]) - est.embedding_[:50], axis=1)
    spread = np.linalg.norm(est.embedding_ - est.embedding_.mean(axis=0), axis=1).mean()
    assert np.median(near) < 0.2 * spread


def test_params_visible_and_cloned():
    est = gmm.GaussianMixture(3, space="umap", n_neighbors=10, embed_dims=4, min_dist=0.1,
                              n_epochs=50, metric="cosine", knn_pca=20, knn_power=1,
                              knn_whiten=0.25)
    p = est.get_params()
    assert p["space"] == "umap" and p["n_neighbors"] == 10 and p["embed_dims"] == 4
    assert p["min_dist"] == 0.1 and p["n_epochs"] == 50
    assert p["metric"] == "cosine" and p["knn_pca"] == 20
    assert p["knn_power"] == 1 and p["knn_whiten"] == 0.25
    d = gmm.GaussianMixture().get_params()
    assert (d["space"], d["n_neighbors"], d["embed_dims"], d["min_dist"], d["n_epochs"],
            d["metric"], d["knn_pca"], d["knn_power"], d["knn_whiten"]) == (
            "pixels", 15, 10, 0.0, None, "auto", None, None, None)
    sk = pytest.importorskip("sklearn")
    c = sk.base.clone(est)
    assert c.get_params() == p and c is not est
    est.set_params(space="pixels", embed_dims=3)
    assert est.space == "pixels" and est.embed_dims == 3
    assert "space='umap'" in repr(c)


def test_small_settings_fit_with_uint8():
    X, truth = blob_points(300, 11)
    X8 = np.clip(100 + 15 * X, 0, 255).astype(np.uint8)
    est = gmm.GaussianMixture(3, space="umap", n_neighbors=10, embed_dims=3, n_epochs=200,
                              n_init=3, random_state=1).fit(X8)
    assert est.means_.shape == (3, 3) and est.embedding_.shape == (300, 3)
    labels = est.predict(X8)
    assert wrong(labels, truth, labels[:BLOBS]) == 0


def test_pickle_and_model_file_keep_the_space(fitted, tmp_path):
    est, X, _ = fitted
    Y, _ = blob_points(60, 3)
    back = pickle.loads(pickle.dumps(est))
    assert back.get_params() == est.get_params()
    np.testing.assert_array_equal(back.predict(Y), est.predict(Y))
    np.testing.assert_array_equal(back.score_samples(Y), est.score_samples(Y))
    np.testing.assert_array_equal(back.embedding_, est.embedding_)
    np.testing.assert_array_equal(back.transform(Y), est.transform(Y))
    path = tmp_path / "umap.bin"
    est.save(path)
    loaded = gmm.load(path)
    assert loaded.space == "umap" and loaded.embed_dims == 10 and loaded.n_features_in_ == DIM
    np.testing.assert_array_equal(loaded.predict(Y), est.predict(Y))
    np.testing.assert_array_equal(loaded.score_samples(Y), est.score_samples(Y))


def test_what_a_umap_model_refuses(fitted):
    est, X, _ = fitted
    with pytest.raises(ValueError, match="12 features"):
        est.predict(X[:, :10])
    with pytest.raises(gmm.GMMError, match="umap"):
        est.sample(5)
    pixels = gmm.GaussianMixture(2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="space='umap'"):
        pixels.transform(X)
    assert not hasattr(pixels, "embedding_")


@pytest.mark.parametrize("params, pattern", [
    (dict(space="tangent"), "space='tangent' must be one of pixels, umap"),
    (dict(space="umap", n_neighbors=1), "n_neighbors=1 must be an integer >= 2"),
    (dict(space="umap", n_neighbors=129), "n_neighbors=129"),
    (dict(space="umap", embed_dims=0), "embed_dims=0"),
    (dict(space="umap", embed_dims=2.5), "embed_dims=2.5"),
    (dict(space="umap", min_dist=2.0), "min_dist=2.0 must be a finite number >= 0 and <= 1"),
    (dict(space="umap", n_epochs=0), "n_epochs=0"),
    (dict(space="umap", metric="manhattan"), "metric='manhattan' must be one of auto, euclidean"),
    (dict(space="umap", knn_pca=-1), "knn_pca=-1 must be an integer >= 0"),
    (dict(space="umap", knn_power=0), "knn_power=0 must be above 0"),
    (dict(space="umap", knn_power=1.5), "knn_power=1.5 must be a finite number >= 0 and <= 1"),
    (dict(space="umap", knn_whiten=-0.5), "knn_whiten=-0.5 must be a finite number >= 0"),
    (dict(space="umap", means_init=np.zeros((2, DIM))), r"means_init has shape \(2, 12\) but "
                                                          r"\(2, 10\)"),
])
def test_bad_space_parameters(params, pattern):
    X, _ = blob_points(60, 1)
    with pytest.raises(ValueError, match=pattern):
        gmm.GaussianMixture(2, **params).fit(X)


def test_too_few_samples_for_the_graph():
    X, _ = blob_points(12, 1)
    with pytest.raises(gmm.GMMValueError, match="umap embedding: 12 images, 15 neighbours"):
        gmm.GaussianMixture(2, space="umap").fit(X)


def test_digits_cluster_better_in_the_embedding():
    """scikit-learn's digits (1797 x 64, values 0..16), 10 components, n_init=10 both. Measured
    (random_state 0..9, adjusted Rand index against the digits): pixels 0.52-0.61 (mean 0.58),
    umap 0.77-0.80 (mean 0.78; cosine among 50 half-whitened principal axes, the default above
    50 features; not whitened: 0.68-0.83, mean 0.78; the square root too: mean 0.71; euclidean
    in the 64 values: mean 0.74); random_state=0: pixels 0.606, umap 0.801."""
    datasets = pytest.importorskip("sklearn.datasets")
    from sklearn.metrics import adjusted_rand_score
    X, y = datasets.load_digits(return_X_y=True)
    pixels = gmm.GaussianMixture(10, n_init=10, random_state=0).fit(X)
    umap = gmm.GaussianMixture(10, n_init=10, random_state=0, space="umap").fit(X)
    ari_pixels = adjusted_rand_score(y, pixels.predict(X))
    ari_umap = adjusted_rand_score(y, umap.predict(X))
    assert ari_umap >= 0.65 > ari_pixels
    assert ari_umap - ari_pixels >= 0.05


def test_initial_means_and_warm_start_in_the_embedding():
    """means_init has embed_dims columns; a warm start re-embeds (the same random_state: the
    same embedding) and continues EM from the previous fit."""
    X, truth = blob_points(300, 11)
    small = dict(space="umap", embed_dims=3, n_neighbors=10, n_epochs=200, random_state=2)
    first = gmm.GaussianMixture(3, n_init=3, **small).fit(X)
    means = first.means_.copy()
    again = gmm.GaussianMixture(3, means_init=means, **small).fit(X)
    np.testing.assert_array_equal(again.embedding_, first.embedding_)
    np.testing.assert_allclose(again.means_, means, atol=1e-6)
    with pytest.raises(ValueError, match=r"means_init has shape \(3, 12\)"):
        gmm.GaussianMixture(3, means_init=np.zeros((3, DIM)), **small).fit(X)
    warm = gmm.GaussianMixture(3, n_init=3, warm_start=True, max_iter=2, tol=0.0, **small)
    with pytest.warns(Warning):  # 2 iterations, tol 0: not converged
        warm.fit(X)
    with pytest.warns(Warning):
        warm.fit(X)
    labels = warm.predict(X)
    assert wrong(labels, truth, labels[:BLOBS]) == 0
