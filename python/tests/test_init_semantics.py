"""scikit-learn's initialisation semantics on the digits: from the same initial responsibilities
(k-means labels, one-hot), with none, only weights_init, only means_init, only precisions_init
or all three given, gmm.GaussianMixture and scikit-learn's GaussianMixture reach the same lower
bound (1e-8 relative) in the same number of iterations with the same predictions. scikit-learn's
side is its own class with the responsibilities' source replaced (_initialize_parameters calls
_initialize, as the base class does); ours takes them through gmm_params_set_resp_init."""

import gzip
import os

import numpy as np
import pytest

import gmm
from gmm.mixture import _fit_from_resp

mixture = pytest.importorskip("sklearn.mixture")
cluster = pytest.importorskip("sklearn.cluster")

MNIST = os.environ.get("GMM_TEST_MNIST_DIR", "/work/shared/data/mnist")
K = 10


def digits(n=2000):
    """The first n training digits, scaled to [0, 1] (the IDX file, gzipped or not)."""
    for name in ("train-images-idx3-ubyte", "train-images-idx3-ubyte.gz"):
        path = os.path.join(MNIST, name)
        if os.path.exists(path):
            opener = gzip.open if name.endswith(".gz") else open
            with opener(path, "rb") as f:
                raw = np.frombuffer(f.read(16 + n * 784), np.uint8, offset=16)
            return raw.reshape(n, 784).astype(np.float64) / 255.0
    pytest.skip(f"no MNIST training images in {MNIST} (set GMM_TEST_MNIST_DIR)")


class SklearnFromResp(mixture.GaussianMixture):
    """scikit-learn's GaussianMixture whose every initialisation takes self.resp_ instead of
    init_params' responsibilities: BaseMixture._initialize_parameters with its source
    replaced."""

    def _initialize_parameters(self, X, random_state):
        self._initialize(X, self.resp_.copy())


def initial_arrays(Y, cov_type):
    """weights, means and precisions unlike those the k-means responsibilities give."""
    d = Y.shape[1]
    weights = np.linspace(1.0, 2.0, K)
    weights /= weights.sum()
    means = Y[:K].copy()
    if cov_type == "diag":
        var = Y.var(axis=0) + 1e-2
        precisions = np.stack([1.0 / (var * (1 + 0.1 * i)) for i in range(K)])
    else:
        cov = np.cov(Y.T) + 0.1 * np.eye(d)
        precisions = np.stack([np.linalg.inv(cov * (1 + 0.1 * i)) for i in range(K)])
    return dict(weights_init=weights, means_init=means, precisions_init=precisions)


@pytest.fixture(scope="module")
def spaces():
    """(covariance type, data, one-hot k-means responsibilities): diag on the 784 pixels, full
    on a 30-dimensional PCA of them (numpy's SVD)."""
    X = digits()
    centred = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    out = {}
    for cov_type, Y in (("diag", X), ("full", centred @ vt[:30].T)):
        labels = cluster.KMeans(n_clusters=K, n_init=1, random_state=0).fit(Y).labels_
        out[cov_type] = (Y, np.eye(K)[labels])
    return out


GIVEN = [(), ("means_init",), ("weights_init",), ("precisions_init",),
         ("weights_init", "means_init", "precisions_init")]


@pytest.mark.parametrize("cov_type", ["diag", "full"])
@pytest.mark.parametrize("given", GIVEN, ids=lambda g: "+".join(g) or "none")
def test_same_start_as_sklearn(spaces, cov_type, given):
    Y, resp = spaces[cov_type]
    arrays = initial_arrays(Y, cov_type)
    kw = dict(n_components=K, covariance_type=cov_type, random_state=0,
              **{name: arrays[name] for name in given})
    ref = SklearnFromResp(**kw)
    ref.resp_ = resp
    ref.fit(Y)
    ours = _fit_from_resp(gmm.GaussianMixture(device="cpu", **kw), Y, resp)
    assert ours.n_iter_ == ref.n_iter_
    assert abs(ours.lower_bound_ - ref.lower_bound_) <= 1e-8 * abs(ref.lower_bound_)
    np.testing.assert_array_equal(ours.predict(Y), ref.predict(Y))
    np.testing.assert_allclose(ours.weights_, ref.weights_, rtol=1e-6, atol=1e-9)


def test_given_part_changes_the_fit(spaces):
    """The given means do matter (a test that could not fail otherwise): the fit from the
    responsibilities alone ends elsewhere."""
    Y, resp = spaces["diag"]
    arrays = initial_arrays(Y, "diag")
    plain = _fit_from_resp(gmm.GaussianMixture(K, covariance_type="diag", device="cpu"), Y, resp)
    means = _fit_from_resp(gmm.GaussianMixture(K, covariance_type="diag", device="cpu",
                                               means_init=arrays["means_init"]), Y, resp)
    assert abs(plain.lower_bound_ - means.lower_bound_) > 1e-3


def test_every_run_starts_from_resp(spaces):
    """n_init=2 from the same responsibilities: two alike runs, scikit-learn's result."""
    Y, resp = spaces["full"]
    arrays = initial_arrays(Y, "full")
    kw = dict(n_components=K, covariance_type="full", n_init=2, random_state=0,
              weights_init=arrays["weights_init"])
    ref = SklearnFromResp(**kw)
    ref.resp_ = resp
    ref.fit(Y)
    ours = _fit_from_resp(gmm.GaussianMixture(device="cpu", **kw), Y, resp)
    assert ours.n_iter_ == ref.n_iter_
    assert abs(ours.lower_bound_ - ref.lower_bound_) <= 1e-8 * abs(ref.lower_bound_)
    np.testing.assert_array_equal(ours.predict(Y), ref.predict(Y))


def test_resp_checked(spaces):
    Y, resp = spaces["diag"]
    est = gmm.GaussianMixture(K, covariance_type="diag", device="cpu")
    with pytest.raises(ValueError, match="row 0 sums to"):
        _fit_from_resp(est, Y, resp * 0.5)
    with pytest.raises(ValueError, match="resp_init is 1999 x 10 but the data has 2000"):
        _fit_from_resp(est, Y, resp[1:])
