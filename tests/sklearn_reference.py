#!/usr/bin/env python3
# Prints the scikit-learn reference numbers that tests/test_em.c (test_matches_sklearn) checks:
# a fixed 60 x 3 problem, fixed initial responsibilities, five EM iterations per covariance type.
# Run with Debian's python3-sklearn: /usr/bin/python3 tests/sklearn_reference.py
import numpy as np
from sklearn.mixture import GaussianMixture
N,d,K=60,3,3
X=np.array([[np.sin(i*1.3+j*0.7)*1.5 + (i%3)*4.0*(1 if j!=1 else -1) + 0.1*j for j in range(d)] for i in range(N)])
resp=np.zeros((N,K))
for i in range(N): resp[i,(i*7)%K if i%5==0 else i%3]=1
for t in ["full","tied","diag","spherical"]:
    gm=GaussianMixture(K,covariance_type=t,reg_covar=1e-6)
    gm._check_parameters(X) if hasattr(gm,'_check_parameters') else None
    gm._initialize(X,resp)
    for it in range(5):
        lpn,lr=gm._e_step(X); gm._m_step(X,lr)
    print(t, repr(float(lpn)), repr(gm.weights_.tolist()), repr(gm.means_.ravel().tolist()), repr(np.asarray(gm.covariances_).ravel()[:4].tolist()))
