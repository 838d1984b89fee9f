"""The compiled extension: inside the package when installed with pip, else on PYTHONPATH
(a plain CMake build with -DRBF_PYTHON=ON, as on a Jetson)."""
try:
    from . import _rbfnet as native
except ImportError:  # pragma: no cover - the plain CMake build's layout
    import _rbfnet as native  # noqa: F401
