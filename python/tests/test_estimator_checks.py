"""scikit-learn's estimator checks (sklearn.utils.estimator_checks.check_estimator) on every
estimator class of the module, one test per check so that a failure names it: every check
passes, as it does for scikit-learn's own mixtures. GaussianMixture is checked twice, with
scikit-learn's input validation and with the module's own (what runs without scikit-learn).
gmm.BayesianGaussianMixture joins by itself when the module has it."""

import functools

import pytest

import gmm
from gmm import _validation

pytest.importorskip("sklearn", reason="scikit-learn is not installed: its estimator checks "
                    "cannot run")
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

CLASSES = [getattr(gmm, name) for name in ("GaussianMixture", "BayesianGaussianMixture")
           if hasattr(gmm, name)]


def _check_name(check):
    """check_fit2d_1sample, or check_estimators_fit_returns_self(readonly_memmap=True)."""
    if isinstance(check, functools.partial):
        args = ", ".join(f"{k}={v!r}" for k, v in check.keywords.items())
        return check.func.__name__ + (f"({args})" if args else "")
    return check.__name__


def _cases():
    for cls in CLASSES:
        variants = ["sklearn-validation", "own-validation"] if cls is gmm.GaussianMixture else [
            "sklearn-validation"]
        for variant in variants:
            for estimator, check in check_estimator(cls(), generate_only=True):
                yield pytest.param(estimator, check, variant,
                                   id=f"{cls.__name__}-{variant}-{_check_name(check)}")


@pytest.mark.parametrize("estimator, check, variant", list(_cases()))
def test_estimator_check(estimator, check, variant, monkeypatch):
    if variant == "own-validation":
        monkeypatch.setattr(_validation, "_sklearn_validate_data",
                            _validation._validate_like_sklearn)
    check(estimator)


def test_every_class_is_checked():
    """The checks above are those scikit-learn runs on its own GaussianMixture (28 in 1.2.1)."""
    from sklearn.mixture import GaussianMixture
    ours = sorted(_check_name(c) for _, c in check_estimator(gmm.GaussianMixture(),
                                                              generate_only=True))
    theirs = sorted(_check_name(c) for _, c in check_estimator(GaussianMixture(),
                                                                generate_only=True))
    assert ours == theirs and len(ours) >= 20
    assert gmm.GaussianMixture in CLASSES
