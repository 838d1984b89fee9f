"""The compiled extension: inside the package when installed with pip, else on PYTHONPATH
(a plain CMake build with -DRBF_PYTHON=ON, as on a Jetson).

OpenMP's idle threads sleep instead of spinning in rbfnet's training, as in the rbfnet
command line: libgomp's default spin at every barrier took cores from the threads with work
on a loaded machine (a fit took 3.4 times as long). libgomp reads OMP_WAIT_POLICY once, when
it is loaded, so the variable is set for the extension's import (which loads libgomp) and
then put back as it was: other OpenMP libraries loaded later keep their own default. A value
the user set (OMP_WAIT_POLICY or GOMP_SPINCOUNT) is left alone.
"""
import os

_SET_HERE = "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ
if _SET_HERE:
    os.environ["OMP_WAIT_POLICY"] = "passive"
try:
    try:
        from . import _rbfnet as native
    except ImportError:  # pragma: no cover - the plain CMake build's layout
        import _rbfnet as native  # noqa: F401
finally:
    if _SET_HERE:
        del os.environ["OMP_WAIT_POLICY"]

# GNU OpenMP's threads do not survive fork(): a forked child (multiprocessing's default on
# Linux) predicts and fits on one thread instead of waiting forever for the parent's threads.
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=native._after_fork_in_child)
