"""RBFNetRegressor: rbfnet's incremental RBF network as a scikit-learn regressor."""
import numpy as np
from sklearn.base import RegressorMixin

from ._base import RBFNetBase, row_weights, target_names


class RBFNetRegressor(RegressorMixin, RBFNetBase):
    """Gaussian RBF network grown one node at a time by orthogonal least squares.

    One or several targets (y of shape (n,) or (n, k)); predictions have y's shape. The
    parameters mirror the keys of rbfnet's YAML config (docs/PYTHON.md lists them).

    Fitted attributes: n_nodes_, centers_ (n_nodes_, n_features_in_) and widths_ in
    standardized input units ((X - x_mean_) / x_scale_), weights_ and bias_ (standardized
    targets), linear_coef_ ((n_features_in_, outputs), standardized: the linear terms, or
    None), history_ (the per-iteration cost log, a dict of arrays), fit_summary_,
    n_features_in_, and network_ (the C++ model: save(), predict()).
    """

    _task = "regression"

    def fit(self, X, y, sample_weight=None):
        """Grows a network on X, y; with warm_start=True and a fitted network, continues from it
        (partial_fit). sample_weight: one weight >= 0 per row, each row's share of the squared
        error the fit minimizes and of the validation score."""
        return self._fit(X, y, sample_weight, self.warm_start)

    def partial_fit(self, X, y, sample_weight=None):
        """Continues training on new rows: the fitted network's nodes are kept, more are grown to
        max_nodes in all, and the weights are solved on these rows (docs/PYTHON.md)."""
        return self._fit(X, y, sample_weight, True)

    def _fit(self, X, y, sample_weight, warm):
        return self._keeping_state_on_failure(self._fit_unguarded, X, y, sample_weight, warm)

    def _fit_unguarded(self, X, y, sample_weight, warm):
        if self.class_weight is not None:
            raise ValueError("class_weight is for RBFNetClassifier; a regressor takes sample_weight in fit()")
        init = self._continued(warm)
        given = y
        # Continuing, X must have the fitted network's features (scikit-learn's partial_fit rule).
        X, text, y = self._validate_fit(X, y, init, multi_output=True, y_numeric=True)
        weights = row_weights(sample_weight, X)
        self._y_2d = y.ndim == 2
        y2 = y.reshape(len(y), -1)
        names = ["y"] if y2.shape[1] == 1 and not self._y_2d else ["y%d" % j for j in range(y2.shape[1])]
        return self._train(X, y2, [], target_names(given, names), init, text, weights)

    def predict(self, X):
        """Predicted targets, (n,) or (n, k) like the y it was fitted on."""
        out = self._scores(X)
        return out if getattr(self, "_y_2d", out.shape[1] > 1) else out[:, 0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def _more_tags(self):  # scikit-learn < 1.6
        return {"multioutput": True}
