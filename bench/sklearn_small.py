#!/usr/bin/env python3
"""Times gmm.GaussianMixture against scikit-learn's GaussianMixture, in one run, on the small
calls where per-call overhead and thread start-up matter more than FLOP: fits of 2000 x 20,
K = 3 (full and diag; once from the same given weights, means and precisions, so that both run
the same EM iterations, once from each one's default k-means start), and the scoring calls
predict / predict_proba / score_samples on 10000 x 784 (full, K = 10), the test digits / 255
with a model gmm fitted on them in a few iterations and handed to scikit-learn as its fitted
attributes. Prints one table: median seconds of --repeats calls (after one untimed warm-up
call each), gmm / scikit-learn, and how far the results agree. gmm runs with its defaults
(device "auto": the CPU on a machine without a GPU), as a scikit-learn user would call it.

usage: sklearn_small.py [--mnist DIR (default /work/shared/data/mnist or $GMM_MNIST_DIR)]
       [--repeats 7] [--skip-scoring] [--skip-fits]
Run with Debian's /usr/bin/python3 (scikit-learn, numpy over OpenBLAS), PYTHONPATH=python and
GMM_LIBRARY=build-cpu/libgmm.so.1. Thread counts are whatever the environment gives both
(OMP_NUM_THREADS, OPENBLAS_NUM_THREADS): the table's header prints them.
"""
import argparse
import gzip
import os
import platform
import statistics
import struct
import sys
import time
import warnings

import numpy as np
import sklearn
from sklearn.mixture import GaussianMixture as SkGMM

import gmm


def read_images(directory, stem):
    for name in (stem, stem + ".gz"):
        path = os.path.join(directory, name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                gz = f.read(2) == b"\x1f\x8b"
            with (gzip.open if gz else open)(path, "rb") as f:
                magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
                return np.frombuffer(f.read(n * rows * cols), np.uint8).reshape(n, rows * cols)
    return None


def blobs(n=2000, d=20, k=3, seed=0):
    """k well-separated Gaussian clusters of random shape in d dimensions."""
    rng = np.random.RandomState(seed)
    centres = rng.normal(scale=4.0, size=(k, d))
    labels = rng.randint(k, size=n)
    mix = rng.normal(size=(k, d, d)) / np.sqrt(d)
    X = centres[labels] + np.einsum("nd,nde->ne", rng.normal(size=(n, d)), mix[labels])
    return np.ascontiguousarray(X)


def same_start(X, k, cov_type, seed=1):
    rng = np.random.RandomState(seed)
    d = X.shape[1]
    means = X[rng.choice(X.shape[0], k, replace=False)]
    cov = np.cov(X.T) + 1e-6 * np.eye(d)
    prec = {"full": np.repeat(np.linalg.inv(cov)[None], k, axis=0),
            "diag": np.repeat((1.0 / np.diag(cov))[None], k, axis=0)}[cov_type]
    return dict(weights_init=np.full(k, 1.0 / k), means_init=means, precisions_init=prec)


def timed(call, repeats):
    call()  # warm-up: thread pools, first-touch pages, lazy imports
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def fit_rows(X, repeats):
    rows = []
    for cov_type in ("full", "diag"):
        for start in ("same", "kmeans"):
            kw = dict(n_components=3, covariance_type=cov_type, random_state=0)
            if start == "same":  # both skip their own start: the same iterations
                kw.update(same_start(X, 3, cov_type), init_params="random_from_data")

            def fit(cls, extra={}):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return cls(**kw, **extra).fit(X)

            tg, mg = timed(lambda: fit(gmm.GaussianMixture), repeats)
            ts, ms = timed(lambda: fit(SkGMM), repeats)
            if start == "same":
                agree = (f"iters {mg.n_iter_}/{ms.n_iter_}, |dLB| "
                         f"{abs(mg.lower_bound_ - ms.lower_bound_):.1e}")
            else:
                agree = (f"iters {mg.n_iter_}/{ms.n_iter_}, LB {mg.lower_bound_:.4f}/"
                         f"{ms.lower_bound_:.4f}")
            rows.append((f"fit 2000x20 K=3 {cov_type}, {start} start", tg, ts, agree))
    return rows


def scoring_rows(X, repeats):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = gmm.GaussianMixture(10, covariance_type="full", reg_covar=1e-2, max_iter=3,
                                random_state=0).fit(X)
    s = SkGMM(10, covariance_type="full", reg_covar=1e-2)
    for name in ("weights_", "means_", "covariances_", "precisions_cholesky_", "precisions_"):
        setattr(s, name, getattr(g, name).copy())
    s.converged_, s.n_iter_, s.lower_bound_ = True, g.n_iter_, g.lower_bound_
    s.n_features_in_ = X.shape[1]
    rows = []
    for method in ("predict", "predict_proba", "score_samples"):
        tg, rg = timed(lambda: getattr(g, method)(X), repeats)
        ts, rs = timed(lambda: getattr(s, method)(X), repeats)
        if method == "predict":
            agree = f"{int(np.sum(rg != rs))} labels differ"
        else:
            agree = f"max |diff| {np.max(np.abs(rg - rs)):.1e}"
        rows.append((f"{method} 10000x784 full K=10", tg, ts, agree))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mnist", default=os.environ.get("GMM_MNIST_DIR", "/work/shared/data/mnist"))
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--skip-scoring", action="store_true")
    ap.add_argument("--skip-fits", action="store_true")
    args = ap.parse_args()

    env = " ".join(f"{v}={os.environ[v]}" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                    "OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
                   if v in os.environ) or "no thread variables set"
    print(f"# {platform.node()}: {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"numpy {np.__version__}, scikit-learn {sklearn.__version__}; {env}; "
          f"median of {args.repeats}")
    rows = []
    if not args.skip_fits:
        rows += fit_rows(blobs(), args.repeats)
    if not args.skip_scoring:
        X = read_images(args.mnist, "t10k-images-idx3-ubyte")
        if X is None:
            X = np.random.RandomState(0).randint(0, 256, size=(10000, 784)).astype(np.uint8)
            print(f"# no t10k-images-idx3-ubyte in {args.mnist}: uniform random pixels instead")
        rows += scoring_rows(X[:10000].astype(np.float64) / 255.0, args.repeats)
    print(f"{'call':40s} {'gmm ms':>9s} {'sklearn ms':>11s} {'gmm/skl':>8s}  agreement")
    for name, tg, ts, agree in rows:
        print(f"{name:40s} {tg * 1e3:9.1f} {ts * 1e3:11.1f} {tg / ts:8.2f}  {agree}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
