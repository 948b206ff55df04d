"""Each bad input is a ValueError (or OSError for a missing file) with a sentence, never a
crash: the shapes, values and dtypes of X, the parameters, the initial arrays, unfitted use,
and broken model files. A bad X raises exactly what scikit-learn's GaussianMixture raises (type
and message) in fit and in predict, through scikit-learn's validation and through the module's
own (used when scikit-learn is not installed), which is also run without scikit-learn."""

import os
import subprocess
import sys

import numpy as np
import pytest

import gmm
from gmm import _validation
from conftest import blobs

try:
    from scipy import sparse
except ImportError:  # pragma: no cover
    sparse = None


@pytest.fixture
def fitted():
    X, _ = blobs()
    return gmm.GaussianMixture(2, random_state=0).fit(X), X


BAD_X = {  # name: (X, what fit raises: scikit-learn's sentence)
    "1-D": (np.ones(10), r"Expected 2D array, got 1D array instead:\narray=\[1\. 1\."),
    "scalar": (np.float64(5.0), "Expected 2D array, got scalar array instead"),
    "3-D": (np.ones((4, 3, 2)), r"Found array with dim 3\. GaussianMixture expected <= 2\."),
    "no samples": (np.ones((0, 3)), r"Found array with 0 sample\(s\) \(shape=\(0, 3\)\)"),
    "one sample": (np.ones((1, 3)), r"1 sample\(s\) \(shape=\(1, 3\)\) while a minimum of 2 "
                   r"is required by GaussianMixture\.$"),
    "no features": (np.ones((5, 0)), r"Found array with 0 feature\(s\) \(shape=\(5, 0\)\) "
                    r"while a minimum of 1 is required by GaussianMixture\.$"),
    "strings": (np.array([["a", "b"], ["c", "d"]]), "could not convert string to float"),
    "complex": (np.ones((5, 3), dtype=complex), "^Complex data not supported\n"),
    "complex list": ([[1 + 1j, 2.0, 3.0]] * 4, "complex"),
    "NaN": (np.array([[1.0, np.nan, 0], [2.0, 3.0, 0], [4.0, 5.0, 0]]),
            r"^Input X contains NaN\.\nGaussianMixture does not accept missing values"),
    "inf": (np.array([[1.0, np.inf, 0], [2.0, 3.0, 0], [4.0, 5.0, 0]]),
            r"^Input X contains infinity or a value too large for dtype\('float64'\)\.$"),
    "-inf float32": (np.array([[1.0, 2.0, 0], [2.0, 3.0, 0], [4.0, -np.inf, 0]],
                              dtype=np.float32), r"too large for dtype\('float32'\)"),
    "ragged": ([[1.0, 2.0, 3.0], [3.0]], "sequence"),
    "dict in object array": (np.array([[{"a": 1}, 2.0, 3.0]] * 3, dtype=object),
                             "argument must be a string.* number"),
}
if sparse is not None:
    BAD_X["sparse"] = (sparse.csr_matrix(np.ones((5, 3))),
                       "^A sparse matrix was passed, but dense data is required")


@pytest.mark.parametrize("name", list(BAD_X))
def test_bad_data(name):
    X, pattern = BAD_X[name]
    with pytest.raises((ValueError, TypeError), match=pattern):
        gmm.GaussianMixture(1).fit(X)


def _raised(call, X):
    try:
        call(X)
    except Exception as e:
        return type(e), str(e)
    return None


@pytest.fixture(params=["sklearn", "own"])
def validation(request, monkeypatch):
    """Which validation the module uses: scikit-learn's, or its own (as without scikit-learn)."""
    pytest.importorskip("sklearn")
    if request.param == "own":
        monkeypatch.setattr(_validation, "_sklearn_validate_data",
                            _validation._validate_like_sklearn)
    return request.param


@pytest.mark.parametrize("name", list(BAD_X) + ["wrong feature count", "1-D of 3", "bool"])
@pytest.mark.parametrize("method", ["fit", "predict", "score_samples"])
def test_bad_data_raises_what_sklearn_raises(validation, method, name):
    from sklearn.mixture import GaussianMixture
    X = {"wrong feature count": np.ones((4, 2)), "1-D of 3": np.arange(3.0),
         "bool": np.eye(3, dtype=bool)}.get(name, BAD_X.get(name, (None,))[0])
    ours, ref = gmm.GaussianMixture(1), GaussianMixture(1)
    if method != "fit":
        train = np.random.RandomState(0).randn(20, 3)
        ours.fit(train), ref.fit(train)
    expected = _raised(getattr(ref, method), X)
    assert _raised(getattr(ours, method), X) == expected


def test_without_sklearn_the_same_sentences():
    """In a python where scikit-learn (and scipy) cannot be imported."""
    code = """
import sys
sys.modules["sklearn"] = sys.modules["scipy"] = None
import numpy as np, gmm
assert gmm.GaussianMixture.__mro__[1].__name__ == "ParamsBase"
for X in (np.ones(4), np.ones((1, 3)), np.array([[1.0, np.nan]] * 3)):
    try:
        gmm.GaussianMixture(1).fit(X)
    except ValueError as e:
        print(str(e).splitlines()[0])
est = gmm.GaussianMixture(2, random_state=0).fit(np.arange(40.0).reshape(20, 2))
print(est.n_features_in_, hasattr(est, "transform"), est.predict([[0.0, 1.0]]).shape)
"""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(gmm.__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["Expected 2D array, got 1D array instead:",
                   "Found array with 1 sample(s) (shape=(1, 3)) while a minimum of 2 is required "
                   "by GaussianMixture.",
                   "Input X contains NaN.",
                   "2 False (1,)"]


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
