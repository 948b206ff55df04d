#!/usr/bin/env python3
"""Times the variational mixture, gmm.BayesianGaussianMixture against scikit-learn's
BayesianGaussianMixture, per EM iteration, from the same initial responsibilities (scikit-learn's
KMeans labels) on the digits (pixels / 255), and reports the lower bound after the same
iterations (they must agree), the components that keep weight (> 1%) and, at convergence, the
accuracy and NMI against the labels. scikit-learn has no GPU path for this model.

usage: bench_bayes.py [DATA_DIR (default ../shared/data/mnist)] [--k 30] [--covariance full]
       [--iters 3] [--limit N] [--device cpu] [--converge]
Run with PYTHONPATH=python and GMM_LIBRARY=build/libgmm.so.1. The time per iteration is the
fit's time (initialisation excluded: both start from the given responsibilities) over n_iter_.
"""
import argparse
import gzip
import inspect
import os
import sys
import time
import warnings

import numpy as np

import gmm
from gmm.mixture import _fit_from_resp


def read_idx(path, header):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    return np.frombuffer(data, dtype=np.uint8, offset=header)


def load(data_dir, limit):
    def find(stem):
        for name in (stem, stem + ".gz"):
            if os.path.exists(os.path.join(data_dir, name)):
                return os.path.join(data_dir, name)
        sys.exit(f"bench_bayes: no {stem}[.gz] in {data_dir}")
    X = read_idx(find("train-images-idx3-ubyte"), 16).reshape(-1, 784)
    y = read_idx(find("train-labels-idx1-ubyte"), 8)
    if limit:
        X, y = X[:limit], y[:limit]
    return X.astype(np.float64) / 255.0, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir", nargs="?", default=os.path.join(os.path.dirname(__file__),
                                                                "../../../shared/data/mnist"))
    ap.add_argument("--k", type=int, default=30)
    ap.add_argument("--covariance", default="full")
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--converge", action="store_true", help="also fit to convergence (tol 1e-3)")
    args = ap.parse_args()
    from sklearn.cluster import KMeans
    from sklearn.mixture import BayesianGaussianMixture as SkBGM
    from sklearn.metrics import normalized_mutual_info_score

    X, y = load(args.data_dir, args.limit)
    labels = KMeans(n_clusters=args.k, n_init=1, random_state=0).fit(X).labels_
    resp = np.zeros((X.shape[0], args.k))
    resp[np.arange(X.shape[0]), labels] = 1

    class SkFromResp(SkBGM):
        def __init__(self, resp=None, **kw):
            super().__init__(**kw)
            self.resp = resp

        def _initialize_parameters(self, X, random_state, xp=None):
            if "xp" in inspect.signature(self._initialize).parameters:  # newer scikit-learn
                self._initialize(X, self.resp, xp=xp)
            else:
                self._initialize(X, self.resp)

    def accuracy(pred):
        from scipy.optimize import linear_sum_assignment
        c = np.zeros((args.k, 10))
        np.add.at(c, (pred, y), 1)
        r, col = linear_sum_assignment(-c)
        return c[r, col].sum() / len(y)

    print(f"digits {X.shape[0]} x {X.shape[1]}, K = {args.k}, {args.covariance}, "
          f"{args.iters} iterations from the same KMeans responsibilities; "
          f"{os.cpu_count()} CPU cores")
    print(f"{'':24s} {'s / iteration':>14s} {'lower bound':>22s} {'kept':>5s}")
    import sklearn
    runs = [(f"scikit-learn {sklearn.__version__} (CPU)", lambda kw: SkFromResp(resp=resp, **kw).fit(X)),
            (f"gmm ({args.device})", lambda kw: _fit_from_resp(
                gmm.BayesianGaussianMixture(device=args.device, **kw), X, resp))]
    for name, fit in runs:
        kw = dict(n_components=args.k, covariance_type=args.covariance, max_iter=args.iters,
                  tol=0.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            est = fit(kw)
            t = time.perf_counter() - t0
        print(f"{name:24s} {t / est.n_iter_:14.3f} {est.lower_bound_:22.10f} "
              f"{int(np.sum(est.weights_ > 0.01)):5d}")
        if args.converge:
            kw.update(max_iter=500, tol=1e-3)
            t0 = time.perf_counter()
            est = fit(kw)
            t = time.perf_counter() - t0
            pred = est.predict(X)
            print(f"{'  to convergence':24s} {t / est.n_iter_:14.3f} {est.lower_bound_:22.10f} "
                  f"{int(np.sum(est.weights_ > 0.01)):5d}  {est.n_iter_} iterations, accuracy "
                  f"{accuracy(pred):.4f}, NMI {normalized_mutual_info_score(y, pred):.4f}")


if __name__ == "__main__":
    main()
