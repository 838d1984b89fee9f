"""rbfnet: incremental Gaussian RBF networks (OLS forward selection on CPU or GPU) as
scikit-learn estimators, reading and writing the rbfnet command line's model files."""
from ._native import native as _native
from .classifier import RBFNetClassifier
from .files import load
from .regressor import RBFNetRegressor

__version__ = _native.__version__
__all__ = ["RBFNetClassifier", "RBFNetRegressor", "load", "__version__"]
