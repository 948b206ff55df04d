#!/usr/bin/env python3
"""Times EM iterations of scikit-learn's GaussianMixture on MNIST-format data, for the
comparison printed by bench/bench_cpu_vs_sklearn.sh.

usage: bench_sklearn.py DATA_DIR [--k 10] [--covariance full] [--reg-covar 1e-2] [--iters 3]
       [--limit N] [--dtype float64|float32]
Prints one line: "sklearn <version> <dtype> N=<n> d=<d> K=<k> median_iter_s=<seconds>".
--dtype float32 hands scikit-learn X.astype(np.float32), which GaussianMixture accepts; how much
of its work then runs in float32 depends on the version (the printed one).
Run it with Debian's interpreter (/usr/bin/python3, python3-sklearn) and libopenblas0-pthread
installed, or numpy falls back to single-core reference BLAS.
"""
import argparse, gzip, os, struct, sys, time

import numpy as np
import sklearn
from sklearn.mixture import GaussianMixture


def read_images(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
        if magic != 0x803:
            sys.exit(f"{path}: not an idx3 image file")
        return np.frombuffer(f.read(n * rows * cols), dtype=np.uint8).reshape(n, rows * cols)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--covariance", default="full")
    ap.add_argument("--reg-covar", type=float, default=1e-2)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    a = ap.parse_args()
    path = a.data
    if os.path.isdir(path):
        for name in ("train-images-idx3-ubyte.gz", "train-images-idx3-ubyte"):
            if os.path.exists(os.path.join(path, name)):
                path = os.path.join(path, name)
                break
    X = read_images(path).astype(np.float64) / 255.0
    if a.limit:
        X = X[: a.limit]
    X = X.astype(a.dtype)
    gm = GaussianMixture(a.k, covariance_type=a.covariance, reg_covar=a.reg_covar, random_state=0)
    gm._check_parameters(X) if hasattr(gm, "_check_parameters") else None
    from sklearn.utils import check_random_state
    gm._initialize_parameters(X, check_random_state(0))
    times = []
    for _ in range(a.iters):
        t0 = time.perf_counter()
        log_prob_norm, log_resp = gm._e_step(X)
        gm._m_step(X, log_resp)
        times.append(time.perf_counter() - t0)
    print(f"sklearn {sklearn.__version__} {a.dtype} N={X.shape[0]} d={X.shape[1]} K={a.k} "
          f"median_iter_s={sorted(times)[len(times) // 2]:.4f}")


if __name__ == "__main__":
    main()
