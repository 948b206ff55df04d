#!/usr/bin/env python3
"""Reference for tests/test_spectral.c: the k largest eigenpairs of a sparse symmetric matrix by
scipy.sparse.linalg.eigsh. Reads "n k" then one "row col value" line per entry from the file
named on the command line; prints the k eigenvalues (descending) on one line, then the n x k
eigenvectors, one row per line."""
import sys

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh


def main():
    with open(sys.argv[1]) as f:
        n, k = (int(t) for t in f.readline().split())
        rows, cols, vals = [], [], []
        for line in f:
            r, c, v = line.split()
            rows.append(int(r))
            cols.append(int(c))
            vals.append(float(v))
    A = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    w, V = eigsh(A, k=k, which="LA", tol=1e-14, v0=np.ones(n))
    order = np.argsort(w)[::-1]
    print(" ".join("%.17g" % x for x in w[order]))
    for row in V[:, order]:
        print(" ".join("%.17g" % x for x in row))


if __name__ == "__main__":
    main()
