"""RBFNetClassifier: rbfnet's incremental RBF network as a scikit-learn classifier."""
import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.multiclass import check_classification_targets

from ._base import RBFNetBase, row_weights, target_names


def _labels(names):
    """Class labels from a model file's class names: integers, numbers or booleans when every
    name is exactly how Python writes that value (so '01', ' 1' and '1.0' beside '1' stay
    distinct strings, as they were distinct classes), else the strings."""
    names = [str(n) for n in names]
    if names and set(names) <= {"True", "False"}:
        return np.array([n == "True" for n in names])
    for kind in (int, float):
        try:
            values = [kind(n) for n in names]
        except ValueError:
            continue
        if [str(v) for v in values] == names:
            return np.array(values)
    return np.array(names)


class RBFNetClassifier(ClassifierMixin, RBFNetBase):
    """Gaussian RBF network classifier grown one node at a time by orthogonal least squares.

    The network regresses one-hot class indicators; predict() takes the class of the largest
    score, predict_proba() the softmax of the scores times a scale fitted on held-out rows (see
    predict_proba). The parameters mirror the keys of rbfnet's YAML config (docs/PYTHON.md).

    Fitted attributes: classes_, n_nodes_, centers_ (n_nodes_, n_features_in_) and widths_ in
    standardized input units ((X - x_mean_) / x_scale_), weights_ and bias_ (class scores),
    linear_coef_ ((n_features_in_, n_classes) on standardized inputs, or None), history_ (the per-iteration cost log, a dict of arrays), fit_summary_, n_features_in_,
    and network_ (the C++ model: save(), predict()).
    """

    _task = "classification"

    def fit(self, X, y, sample_weight=None):
        """Grows a network on X, y; with warm_start=True and a fitted network, continues from it
        (partial_fit). sample_weight: one weight >= 0 per row, each row's share of the squared
        error the fit minimizes and of the validation score, times its class's class_weight."""
        return self._fit(X, y, None, sample_weight, self.warm_start)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Continues training on new rows: the fitted network's nodes are kept, more are grown to
        max_nodes in all, and the weights are solved on these rows (docs/PYTHON.md). `classes`:
        every class, needed on the first call when these rows lack some."""
        return self._fit(X, y, classes, sample_weight, True)

    def _fit(self, X, y, classes, sample_weight, warm):
        return self._keeping_state_on_failure(self._fit_unguarded, X, y, classes, sample_weight, warm)

    def _fit_unguarded(self, X, y, classes, sample_weight, warm):
        init = self._continued(warm)
        given = y
        # Continuing, X must have the fitted network's features (scikit-learn's partial_fit rule).
        X, text, y = self._validate_fit(X, y, init)
        check_classification_targets(y)
        if classes is None and init is not None:
            classes = self.classes_  # continuing: the model's classes, whichever these rows have
        if classes is None:
            classes, indices = np.unique(y, return_inverse=True)
        else:
            classes = np.unique(np.asarray(classes))
            indices = np.searchsorted(classes, y)
            unknown = (indices >= len(classes)) | (classes[np.minimum(indices, len(classes) - 1)] != y)
            if np.any(unknown):
                raise ValueError("y has labels not among the classes %r: %r" % (list(classes), list(np.unique(y[unknown]))))
        if len(classes) < 2:
            raise ValueError("RBFNetClassifier needs at least 2 classes in y; it has 1 class")
        names = [str(c) for c in classes]
        if len(set(names)) != len(names):
            raise ValueError("the class labels must read as distinct text; %r do not" % (names,))
        weights = row_weights(sample_weight, X)
        if self.class_weight is not None:
            # scikit-learn's rule: "balanced" counts these rows' classes; a dict names classes.
            per_row = compute_sample_weight(self.class_weight, y)
            weights = per_row if weights is None else weights * per_row
        self._train(X, indices.astype(np.float64).reshape(-1, 1), names, target_names(given, ["class"]), init, text,
                    weights)
        self.classes_ = classes  # after the network it names: a failed fit leaves both as they were
        return self

    def predict(self, X):
        """The class with the largest score (ties: the first class), as `rbfnet predict` says."""
        scores = self._scores(X)  # first: it raises NotFittedError before classes_ exists
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_proba(self, X):
        """Class probabilities, as `rbfnet predict --proba` writes them: the softmax of the class
        scores times a scale fitted on the validation rows (network_.proba_scale; the training
        rows without validation, every row when cross-validated), the scale that gives those
        rows the least log loss. None is exactly 0 or 1, and argmax(predict_proba(X)) always
        equals predict(X). A model file from before the scale gives the scores clipped at 0 and
        normalized."""
        X, text = self._checked(X)
        return self.network_.probabilities(X, text)

    @classmethod
    def _from_network(cls, network):
        estimator = super()._from_network(network)
        estimator.classes_ = _labels(network.class_names)
        return estimator
