"""Copies libgmm into the package when it is built, so that an installed gmm finds its library
without GMM_LIBRARY: $GMM_LIBRARY if set, else the checkout's build/libgmm.so.1 (from `make`),
with the CUDA backend library (libgmm-cuda.so.1) beside it when it was built.
Without either the package installs alone and looks for the library at import (gmm/_lib.py)."""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class build_py_with_library(build_py):
    def run(self):
        source = os.environ.get("GMM_LIBRARY") or os.path.join(HERE, "..", "build", "libgmm.so.1")
        super().run()
        target = os.path.join(self.build_lib, "gmm", "_libs")  # not in the source tree
        if os.path.exists(source):
            os.makedirs(target, exist_ok=True)
            shutil.copy2(os.path.realpath(source), os.path.join(target, "libgmm.so.1"))
            # the CUDA backend, which libgmm loads from its own folder when a GPU is asked for
            backend = os.path.join(os.path.dirname(source), "libgmm-cuda.so.1")
            if os.path.exists(backend):
                shutil.copy2(os.path.realpath(backend), os.path.join(target, "libgmm-cuda.so.1"))
        else:
            print(f"gmm: {source} not found; the package will look for libgmm at import")


setup(cmdclass={"build_py": build_py_with_library})
