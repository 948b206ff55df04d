#!/usr/bin/env python3
"""Times scikit-learn's SpectralEmbedding(affinity="nearest_neighbors", n_neighbors=10,
n_components=10) on the first MAX training images of an MNIST-format directory, for
bench/bench_spectral_vs_sklearn.sh. usage: bench_sklearn_spectral.py DIR [MAX]
Prints one line in the table of gmm-bench spectral."""
import os, sys, time

import sklearn
from sklearn.manifold import SpectralEmbedding
from sklearn.neighbors import kneighbors_graph

from bench_sklearn import read_images  # the IDX reader of the EM comparison, beside this file


def main():
    d, cap = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    for name in ("train-images-idx3-ubyte", "train-images-idx3-ubyte.gz"):
        if os.path.exists(os.path.join(d, name)):
            X = read_images(os.path.join(d, name))[:cap] / 255.0
            break
    else:
        sys.exit(f"{d}: no train-images-idx3-ubyte[.gz]")
    t0 = time.perf_counter()
    kneighbors_graph(X, 10, include_self=True)
    t_knn = time.perf_counter() - t0
    t0 = time.perf_counter()
    SpectralEmbedding(n_components=10, affinity="nearest_neighbors", n_neighbors=10,
                      random_state=0).fit_transform(X)
    total = time.perf_counter() - t0
    print("%-10s %7d  %-4s  %4d  %3d  %8.3f  %8s  %8.3f  %8.3f  (scikit-learn %s; its kNN "
          "graph timed apart, eigen = total - kNN)" % ("sklearn", len(X), "CPU", 10, 10, t_knn,
          "-", total - t_knn, total, sklearn.__version__))


if __name__ == "__main__":
    main()
