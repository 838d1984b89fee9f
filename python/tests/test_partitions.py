"""partitions=K from Python: a partitioned model fits local structure, predicts, and keeps its
parts through save/load and pickling."""
import pickle

import numpy as np

import rbfnet
from rbfnet import RBFNetRegressor


def _bumps(rows, seed):
    rng = np.random.RandomState(seed)
    fixed = np.random.RandomState(7)
    centres, widths, heights = fixed.rand(30, 2), 0.03 + 0.08 * fixed.rand(30), 2 * fixed.rand(30) - 1
    X = rng.rand(rows, 2)
    d2 = ((X[:, None, :] - centres[None]) ** 2).sum(axis=2)
    return X, (heights * np.exp(-d2 / (2 * widths ** 2))).sum(axis=1) + 0.03 * rng.randn(rows)


def test_partitioned_regressor_round_trips(tmp_path):
    X, y = _bumps(4000, 1)
    Xt, yt = _bumps(1000, 2)
    one = RBFNetRegressor(threads=2, folds=0).fit(X, y)
    parts = RBFNetRegressor(threads=2, folds=0, partitions=4).fit(X, y)
    assert parts.network_.parts >= 2
    assert parts.n_nodes_ == parts.network_.nodes > 0
    assert len(parts.fit_summary_["parts"]) == parts.network_.parts
    assert parts.score(Xt, yt) > one.score(Xt, yt)
    path = tmp_path / "parts.rbfn"
    parts.save(path)
    loaded = rbfnet.load(path)
    np.testing.assert_array_equal(loaded.predict(Xt), parts.predict(Xt))
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(parts)).predict(Xt), parts.predict(Xt))
