#!/usr/bin/env python3
"""Times predict on small batches (1, 10, 100, 1000 rows of the MNIST test digits) with a K = 10
full model, gmm against scikit-learn given gmm's fitted parameters, median of 11 calls after one
warm-up call: the per-call overhead of scoring (bench/results/2026-11-26-small-fits.md).

usage: PYTHONPATH=python GMM_LIBRARY=build/libgmm.so.1 /usr/bin/python3 bench/sklearn_score_batches.py LABEL [MNIST_DIR]
"""
import gzip
import os
import sys
import time
import warnings

import numpy as np

import gmm
from sklearn.mixture import GaussianMixture as SkGaussianMixture

warnings.simplefilter("ignore")  # the 3-iteration fit does not converge
label = sys.argv[1] if len(sys.argv) > 1 else "gmm"
data_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__),
                                                              "../../shared/data/mnist")
X = np.frombuffer(gzip.open(os.path.join(data_dir, "t10k-images-idx3-ubyte.gz")).read(),
                  np.uint8, offset=16).reshape(-1, 784) / 255.0
m = gmm.GaussianMixture(10, max_iter=3, random_state=0, device="cpu").fit(X[:5000])
s = SkGaussianMixture(10)
s.weights_, s.means_, s.covariances_ = m.weights_, m.means_, m.covariances_
s.precisions_cholesky_, s.n_features_in_ = m.precisions_cholesky_, 784
print(label)
for n in (1, 10, 100, 1000):
    m.predict(X[:n]), s.predict(X[:n])
    tg, ts = [], []
    for _ in range(11):
        t = time.perf_counter(); m.predict(X[:n]); tg.append(time.perf_counter() - t)
        t = time.perf_counter(); s.predict(X[:n]); ts.append(time.perf_counter() - t)
    print(f"predict {n:5d} rows: gmm {1000 * np.median(tg):7.2f} ms   "
          f"scikit-learn {1000 * np.median(ts):7.2f} ms")
