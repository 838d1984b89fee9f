"""sample_weight and class_weight: weighted fits from Python, with the same rules as the CLI's
--weight column (a weight of 0 is the row left out; negative, non-finite and all-zero weights
are refused), and scikit-learn's class_weight="balanced" and dict forms."""
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score, r2_score

from rbfnet import RBFNetClassifier, RBFNetRegressor


def _fast(cls, **kw):
    return cls(threads=1, folds=0, max_nodes=40, **kw)


def test_zero_weights_leave_rows_out_and_weights_steer_the_fit(friedman):
    X, y = friedman
    bad = np.arange(len(y)) % 5 == 2
    y_bad = y + 30.0 * bad  # a fifth of the targets wrong by 30
    weights = np.where(bad, 0.0, 1.0)
    weighted = _fast(RBFNetRegressor).fit(X, y_bad, sample_weight=weights)
    dropped = _fast(RBFNetRegressor).fit(X[~bad], y_bad[~bad])
    np.testing.assert_allclose(weighted.predict(X), dropped.predict(X), rtol=1e-9, atol=1e-9)
    assert weighted.score(X[~bad], y[~bad]) > 0.9
    assert _fast(RBFNetRegressor).fit(X, y_bad).score(X[~bad], y[~bad]) < 0.5
    # score takes sample_weight as scikit-learn's r2_score does.
    assert weighted.score(X, y_bad, sample_weight=weights) == pytest.approx(
        r2_score(y_bad, weighted.predict(X), sample_weight=weights))


def test_bad_weights_are_refused(friedman):
    X, y = friedman
    model = _fast(RBFNetRegressor)
    with pytest.raises(ValueError, match="one value per row of X"):
        model.fit(X, y, sample_weight=np.ones(len(y) - 1))
    w = np.ones(len(y))
    w[3] = -1
    with pytest.raises(ValueError, match="row 4 has the weight -1"):
        model.fit(X, y, sample_weight=w)
    w[3] = np.inf
    with pytest.raises(ValueError, match="row 4 has the weight inf"):
        model.fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="are all zero"):
        model.fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="class_weight is for RBFNetClassifier"):
        _fast(RBFNetRegressor, class_weight="balanced").fit(X, y)
    assert not hasattr(model, "network_")  # every failed fit left the estimator unfitted


def test_balanced_class_weight_lifts_the_rare_class():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(570, 2), rng.randn(30, 2) + [1.2, 1.2]])
    y = np.array(["common"] * 570 + ["rare"] * 30)
    plain = _fast(RBFNetClassifier).fit(X, y)
    balanced = _fast(RBFNetClassifier, class_weight="balanced").fit(X, y)
    as_dict = _fast(RBFNetClassifier, class_weight={"common": 1.0, "rare": 19.0}).fit(X, y)
    assert balanced_accuracy_score(y, balanced.predict(X)) > balanced_accuracy_score(y, plain.predict(X)) + 0.1
    assert balanced_accuracy_score(y, as_dict.predict(X)) > balanced_accuracy_score(y, plain.predict(X)) + 0.1
    # class_weight multiplies sample_weight: doubling every row changes nothing.
    doubled = _fast(RBFNetClassifier, class_weight="balanced").fit(X, y, sample_weight=np.full(len(y), 2.0))
    np.testing.assert_allclose(doubled.predict_proba(X), balanced.predict_proba(X), rtol=1e-9, atol=1e-12)


def test_weights_from_pandas_with_a_dataframe(friedman):
    X, y = friedman
    frame = pd.DataFrame(X, columns=["f%d" % j for j in range(X.shape[1])])
    weights = pd.Series(np.linspace(0.5, 2.0, len(y)))
    model = _fast(RBFNetRegressor).fit(frame, pd.Series(y, name="target"), sample_weight=weights)
    assert model.score(frame, y) > 0.8
    assert model.network_.target_names == ["target"]
