"""Each bad input is a ValueError (or OSError for a missing file) with a sentence, never a
crash: the shapes, values and dtypes of X, the parameters, the initial arrays, unfitted use,
and broken model files."""

import numpy as np
import pytest

import gmm
from conftest import blobs


@pytest.fixture
def fitted():
    X, _ = blobs()
    return gmm.GaussianMixture(2, random_state=0).fit(X), X


@pytest.mark.parametrize("X, pattern", [
    (np.ones(10), "2-D array"),
    (np.ones((4, 3, 2)), "2-D array"),
    (np.ones((0, 3)), "empty"),
    (np.ones((5, 0)), "empty"),
    (np.array([["a", "b"], ["c", "d"]]), "cannot be converted"),
    (np.ones((5, 2), dtype=complex), "complex"),
    (np.array([[1.0, np.nan], [2.0, 3.0], [4.0, 5.0]]), "NaN or infinite"),
    (np.array([[1.0, np.inf], [2.0, 3.0], [4.0, 5.0]]), "NaN or infinite"),
    (np.array([[1.0, 2.0], [2.0, 3.0], [4.0, -np.inf]], dtype=np.float32), "NaN or infinite"),
    ([[1.0, 2.0], [3.0]], "could not be read|2-D array|cannot be converted"),
])
def test_bad_data(X, pattern):
    with pytest.raises(ValueError, match=pattern):
        gmm.GaussianMixture(1).fit(X)


def test_fewer_samples_than_components():
    with pytest.raises(ValueError, match="n_samples >= n_components"):
        gmm.GaussianMixture(5).fit(np.random.RandomState(0).randn(3, 2))


@pytest.mark.parametrize("params, pattern", [
    (dict(n_components=0), "n_components"),
    (dict(n_components=2.5), "n_components"),
    (dict(covariance_type="banded"), "covariance_type"),
    (dict(tol=-1.0), "tol"),
    (dict(reg_covar=float("nan")), "reg_covar"),
    (dict(max_iter=0), "max_iter"),
    (dict(n_init=0), "n_init"),
    (dict(init_params="magic"), "init_params"),
    (dict(device="tpu"), "device"),
    (dict(precision="fp16"), "precision"),
    (dict(random_state=-3), "random_state"),
    (dict(random_state="seed"), "random_state"),
    (dict(means_init=np.zeros((3, 4))), "means_init has shape"),
    (dict(weights_init=np.ones(2)), "weights_init"),
    (dict(weights_init=np.array([0.5, np.nan])), "NaN"),
    (dict(precisions_init=np.ones((2, 4))), "precisions_init has shape"),
    (dict(precisions_init=-np.stack([np.eye(4)] * 2)), "not positive definite"),
])
def test_bad_parameters(params, pattern):
    X, _ = blobs()
    with pytest.raises(ValueError, match=pattern):
        gmm.GaussianMixture(**{"n_components": 2, **params}).fit(X)


def test_unfitted_use():
    X, _ = blobs()
    est = gmm.GaussianMixture(2)
    for call in (est.predict, est.predict_proba, est.score_samples, est.score):
        with pytest.raises(gmm.NotFittedError):
            call(X)
    with pytest.raises(gmm.NotFittedError):
        est.sample(3)


def test_wrong_feature_count_and_sample_count(fitted):
    est, X = fitted
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])
    with pytest.raises(ValueError, match="n_samples"):
        est.sample(0)


def test_bad_model_files(tmp_path, fitted):
    with pytest.raises(OSError, match="no-such"):
        gmm.load(tmp_path / "no-such.bin")
    est, _ = fitted
    good = tmp_path / "model.bin"
    est.save(good)
    blob = bytearray(good.read_bytes())
    blob[-20] ^= 0xFF
    bad = tmp_path / "bad.bin"
    bad.write_bytes(bytes(blob))
    with pytest.raises(ValueError, match="GMM_CODE_ERR"):
        gmm.load(bad)
    (tmp_path / "short.bin").write_bytes(b"GMMMODEL")
    with pytest.raises(ValueError):
        gmm.load(tmp_path / "short.bin")


def test_gpu_device_without_gpu_is_an_error_not_a_crash():
    X, _ = blobs()
    try:
        gmm.GaussianMixture(2, device="gpu").fit(X)
    except gmm.GMMError as e:
        assert "GPU" in str(e) or "gpu" in str(e)


def test_precisions_init_symmetry_as_sklearn():
    rng = np.random.RandomState(0)
    X = rng.randn(200, 30)
    prec = np.linalg.inv(np.cov(X.T) + 0.1 * np.eye(30))  # symmetric up to rounding only
    est = gmm.GaussianMixture(2, covariance_type="tied", precisions_init=prec, max_iter=2,
                              tol=0.0)
    with pytest.warns(Warning):
        est.fit(X)
    bad = prec.copy()
    bad[0, 1] += 0.5
    with pytest.raises(ValueError, match=r"precisions_init\[0\] is not symmetric"):
        gmm.GaussianMixture(2, covariance_type="tied", precisions_init=bad).fit(X)
