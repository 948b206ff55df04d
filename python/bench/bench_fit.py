#!/usr/bin/env python3
"""Times gmm.GaussianMixture(10).fit(X) from Python against scikit-learn's GaussianMixture on
its CPU path (numpy) and on its GPU path (array API dispatch on PyTorch CUDA tensors), in one
run, on Fashion-MNIST (60000 x 784, pixels / 255), with the same initial parameters
(weights_init, means_init from 10 fixed samples, precisions_init; init_params
"random_from_data", whose responsibilities they replace), the same reg_covar and max_iter, and
tol=0 so that every fit runs exactly max_iter EM iterations. Prints a table.

usage: bench_fit.py [DATA_DIR (default $FASHION_MNIST_DIR)] [--iters 20] [--k 10]
       [--covariance full] [--reg-covar 1e-2] [--repeats 3] [--limit N] [--gmm-cpu]
       [--skip sklearn-cpu,sklearn-gpu]
Run with PYTHONPATH=python and GMM_LIBRARY=build/libgmm.so.1 (or after pip install ./python).
Each fit is timed whole (data conversion and upload included); a first, untimed fit of one
iteration per method warms the GPU (context, cuBLAS handles). The table gives the median of
--repeats fits, the time per EM iteration (fit time / n_iter_) and the final lower bound, which
must agree between the methods (same start, same iterations).
"""
import os

# scikit-learn's array API path needs scipy's, switched on before either is imported
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import argparse
import gzip
import statistics
import struct
import sys
import time
import warnings

import numpy as np

import gmm


def read_images(path):
    if os.path.isdir(path):
        for name in ("train-images-idx3-ubyte", "train-images-idx3-ubyte.gz"):
            if os.path.exists(os.path.join(path, name)):
                path = os.path.join(path, name)
                break
        else:
            sys.exit(f"bench_fit: no train-images-idx3-ubyte[.gz] in {path}")
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(path, "rb") as f:
        magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
        if magic != 0x803:
            sys.exit(f"bench_fit: {path} is not an idx3 image file")
        return np.frombuffer(f.read(n * rows * cols), dtype=np.uint8).reshape(n, rows * cols)


def initial_parameters(X, k, cov_type, reg):
    rng = np.random.RandomState(0)
    d = X.shape[1]
    means = X[rng.choice(X.shape[0], k, replace=False)].astype(np.float64)
    weights = np.full(k, 1.0 / k)
    cov = np.cov(X.T) + reg * np.eye(d)
    var = X.var(axis=0) + reg
    prec = {"full": lambda: np.repeat(np.linalg.inv(cov)[None], k, axis=0),
            "tied": lambda: np.linalg.inv(cov),
            "diag": lambda: np.repeat((1.0 / var)[None], k, axis=0),
            "spherical": lambda: np.full(k, 1.0 / var.mean())}[cov_type]()
    return dict(weights_init=weights, means_init=means, precisions_init=prec)


def time_fits(make, X, repeats, warm):
    """Median seconds of `repeats` fits and the last fitted model (after one warm-up fit)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tol=0: "did not converge" every time, on purpose
        if warm is not None:
            warm()
        times, model = [], None
        for _ in range(repeats):
            est = make()
            t0 = time.perf_counter()
            est.fit(X)
            sync()
            times.append(time.perf_counter() - t0)
            model = est
    return statistics.median(times), model


try:  # imported here, never inside a timed fit (importing torch takes seconds)
    import torch
except ImportError:
    torch = None


def sync():
    try:
        if torch is not None and torch.cuda.is_available():
            torch.cuda.synchronize()
    except RuntimeError:
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="?", default=os.environ.get("FASHION_MNIST_DIR"))
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--covariance", default="full")
    ap.add_argument("--reg-covar", type=float, default=1e-2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--gmm-cpu", action="store_true", help="also time gmm with device='cpu'")
    ap.add_argument("--skip", default="", help="comma-separated: sklearn-cpu, sklearn-gpu")
    a = ap.parse_args()
    if not a.data:
        sys.exit("bench_fit: give DATA_DIR or set FASHION_MNIST_DIR")
    X = read_images(a.data).astype(np.float64) / 255.0
    if a.limit:
        X = X[: a.limit]
    X = np.ascontiguousarray(X)
    init = initial_parameters(X, a.k, a.covariance, a.reg_covar)
    # init_params only shapes the responsibilities that the three given arrays then replace;
    # scikit-learn computes them all the same (its KMeans would take seconds on the CPU), so
    # the cheapest, random_from_data, is named for everyone.
    common = dict(n_components=a.k, covariance_type=a.covariance, reg_covar=a.reg_covar,
                  max_iter=a.iters, tol=0.0, init_params="random_from_data", random_state=0,
                  **init)
    skip = set(filter(None, a.skip.split(",")))
    rows = []

    def record(name, seconds, est, note=""):
        lb = float(est.lower_bound_) if est is not None else float("nan")
        n_iter = int(est.n_iter_) if est is not None else 0
        rows.append((name, seconds, n_iter, lb, note))

    devices = [("gmm (libgmm, device=gpu)", "gpu")] + ([("gmm (libgmm, device=cpu)", "cpu")]
                                                       if a.gmm_cpu else [])
    for name, device in devices:
        try:
            warm = lambda: gmm.GaussianMixture(device=device, **{**common, "max_iter": 1}).fit(X)
            s, est = time_fits(lambda: gmm.GaussianMixture(device=device, **common), X,
                               a.repeats, warm)
            record(name, s, est)
        except Exception as e:  # no GPU: say so and go on
            rows.append((name, float("nan"), 0, float("nan"), f"failed: {e}"))

    import sklearn
    from sklearn.mixture import GaussianMixture as SkGM
    version = sklearn.__version__
    if "sklearn-cpu" not in skip:
        s, est = time_fits(lambda: SkGM(**common), X, max(1, min(a.repeats, 2)), None)
        record(f"scikit-learn {version} CPU (numpy)", s, est)
    if "sklearn-gpu" not in skip:
        name = f"scikit-learn {version} GPU (array API, torch cuda)"
        try:
            import torch
            if not torch.cuda.is_available():
                raise RuntimeError("torch sees no CUDA device")
            Xt = torch.asarray(X, device="cuda")
            init_t = {k: torch.asarray(v, device="cuda") for k, v in init.items()}
            common_t = {**common, **init_t}
            with sklearn.config_context(array_api_dispatch=True):
                warm = lambda: SkGM(**{**common_t, "max_iter": 1}).fit(Xt)
                s, est = time_fits(lambda: SkGM(**common_t), Xt, a.repeats, warm)
                lb = float(est.lower_bound_)
            rows.append((name, s, int(est.n_iter_), lb, ""))
        except Exception as e:
            rows.append((name, float("nan"), 0, float("nan"),
                         f"not supported here: {type(e).__name__}: {str(e)[:150]}"))

    print(f"# Fashion-MNIST {X.shape[0]} x {X.shape[1]}, K={a.k}, covariance={a.covariance}, "
          f"reg_covar={a.reg_covar}, max_iter={a.iters}, tol=0, same initial parameters; "
          f"median of {a.repeats} fits (scikit-learn CPU: of {max(1, min(a.repeats, 2))})")
    print(f"| {'method':<52} | {'fit s':>8} | {'iters':>5} | {'ms/iter':>8} | "
          f"{'lower bound':>14} | note")
    print(f"|{'-' * 54}|{'-' * 10}|{'-' * 7}|{'-' * 10}|{'-' * 16}|------")
    for name, s, n_iter, lb, note in rows:
        per = 1000 * s / n_iter if n_iter else float("nan")
        print(f"| {name:<52} | {s:8.3f} | {n_iter:5d} | {per:8.1f} | {lb:14.6f} | {note}")


if __name__ == "__main__":
    main()
