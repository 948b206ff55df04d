"""Shared data for the gmm Python suites: small blobs with a fixed seed."""

import numpy as np
import pytest


def blobs(n=300, d=4, k=3, seed=0):
    rng = np.random.RandomState(seed)
    centres = rng.uniform(-6, 6, size=(k, d))
    scales = rng.uniform(0.5, 1.5, size=(k, d))
    labels = rng.randint(0, k, size=n)
    X = centres[labels] + rng.randn(n, d) * scales[labels]
    return X, labels


@pytest.fixture
def data():
    return blobs()
