"""warm_start and partial_fit: continued training keeps the fitted network's nodes, grows more
to max_nodes in all, and solves the weights on the new rows (model/growth_init.cpp)."""
import numpy as np
import pytest
from sklearn.datasets import make_friedman1

import rbfnet
from rbfnet import RBFNetClassifier, RBFNetRegressor


def test_partial_fit_keeps_the_nodes_and_grows_more(tmp_path):
    X, y = make_friedman1(n_samples=2000, n_features=8, noise=0.5, random_state=0)
    model = RBFNetRegressor(max_nodes=20, folds=0, threads=1).fit(X[:1000], y[:1000])
    first = model.centers_.copy()
    model.set_params(max_nodes=40)
    model.partial_fit(X[1000:], y[1000:])
    assert model.fit_summary_["init_nodes"] == len(first)
    np.testing.assert_array_equal(model.centers_[: len(first)], first)
    assert model.n_nodes_ >= len(first)
    # The same through warm_start, and from a model file.
    model.save(tmp_path / "m.rbfn")
    loaded = rbfnet.load(tmp_path / "m.rbfn")
    loaded.set_params(warm_start=True, max_nodes=50)
    loaded.fit(X[:1000], y[:1000])
    # A node the rows cannot tell from the others (dependent there) leaves; the rest stay.
    assert 0.9 * model.n_nodes_ <= loaded.fit_summary_["init_nodes"] <= model.n_nodes_
    # Without warm_start, fit starts over.
    fresh = RBFNetRegressor(max_nodes=20, folds=0, threads=1).fit(X[:1000], y[:1000])
    assert fresh.fit_summary_["init_nodes"] == 0


def test_partial_fit_classes(blobs):
    X, y = blobs
    model = RBFNetClassifier(max_nodes=6, folds=0, threads=1)
    # The first call names every class: these rows lack one.
    some = y != y[0]
    model.partial_fit(X[some], y[some], classes=np.unique(y))
    assert list(model.classes_) == sorted(set(y))
    model.set_params(max_nodes=10)
    model.partial_fit(X, y)
    assert model.fit_summary_["init_nodes"] > 0
    assert model.score(X, y) > 0.95
    with pytest.raises(ValueError, match="not among the classes"):
        RBFNetClassifier(max_nodes=4, folds=0, threads=1).partial_fit(X, y, classes=["blue", "green"])
