"""Reading model files without knowing their task first."""
from ._native import native
from .classifier import RBFNetClassifier
from .regressor import RBFNetRegressor


def load(path):
    """The fitted estimator in a model file (from save() or `rbfnet train`): an RBFNetClassifier
    for a classification model, else an RBFNetRegressor, with the settings it was trained with."""
    network = native.Model.load(str(path))
    cls = RBFNetClassifier if network.task == "classification" else RBFNetRegressor
    return cls._from_network(network)
