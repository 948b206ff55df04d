#!/usr/bin/env python3
"""How pure the UMAP space's neighbour graph would be under ways of preparing the images: for each,
the share of every image's 15 nearest neighbours (itself left out) that carry its label. A
purer graph gave better clusters (docs/spaces.md). Uses numpy, scipy and scikit-learn.

    bench/knn_purity.py DATA_DIR [EVERY (1: all training images; 3: every third)]
"""
import gzip
import sys
import time

import numpy as np
from scipy.ndimage import gaussian_filter
from sklearn.decomposition import PCA
from sklearn.neighbors import NearestNeighbors


def load(directory, every):
    with gzip.open(directory + "/train-images-idx3-ubyte.gz") as f:
        X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784)
    with gzip.open(directory + "/train-labels-idx1-ubyte.gz") as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)
    return X[::every].astype(np.float64) / 255.0, y[::every]


def blur(X, sigma):  # a 5 x 5 Gaussian, as gmm-train --blur
    return gaussian_filter(X.reshape(-1, 28, 28), sigma=(0, sigma, sigma),
                           truncate=2.0 / sigma).reshape(-1, 784)


def principal(X, axes, whiten):  # coordinates divided by variance^(whiten / 2)
    pca = PCA(axes, random_state=0).fit(X)
    return pca.transform(X) / pca.explained_variance_ ** (whiten / 2)


def purity(F, y, metric, k=15):
    index = NearestNeighbors(n_neighbors=k + 1, metric=metric, algorithm="brute").fit(F)
    _, nearest = index.kneighbors(F)
    return (y[nearest[:, 1:]] == y[:, None]).mean()


def main():
    X, y = load(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    B = blur(X, 0.5)
    ways = [
        ("pixels, euclidean", lambda: X, "euclidean"),
        ("blur 0.5, euclidean", lambda: B, "euclidean"),
        ("blur 0.5, 50 axes, cosine", lambda: principal(B, 50, 0), "cosine"),
        ("blur 0.5, 100 axes, cosine", lambda: principal(B, 100, 0), "cosine"),
        ("blur 0.5, 50 axes whitened 0.5, cosine", lambda: principal(B, 50, 0.5), "cosine"),
        ("blur 0.5, square root, 50 axes, cosine", lambda: principal(np.sqrt(B), 50, 0), "cosine"),
        ("blur 0.5, square root, 50 axes whitened 0.5, cosine",
         lambda: principal(np.sqrt(B), 50, 0.5), "cosine"),
        ("blur 0.5, square root, 50 axes whitened 0.5, euclidean",
         lambda: principal(np.sqrt(B), 50, 0.5), "euclidean"),
        ("blur 0.5, square root, 50 axes whitened 1, cosine",
         lambda: principal(np.sqrt(B), 50, 1.0), "cosine"),
    ]
    print(f"{len(y)} images")
    for name, features, metric in ways:
        t0 = time.time()
        p = purity(features(), y, metric)
        print(f"{name:56s} {p:.4f}  ({time.time() - t0:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
