"""Seeded fuzzing of the estimators' inputs: random shapes, dtypes, DataFrames with text,
category, boolean and numeric columns, gaps, infinities and odd targets. Every case either
fits and predicts finite values of the right shape, or raises ValueError or TypeError with a
message; nothing else (no crash, no other exception, no NaN answer). RBFNET_FUZZ_CASES sets
the number of cases (default 120, a few seconds)."""
import os

import numpy as np
import pandas as pd
import pytest

import rbfnet

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # rare levels predicted back
CASES = int(os.environ.get("RBFNET_FUZZ_CASES", "120"))


def _column(rng, rows):
    kind = rng.choice(["float", "int", "float32", "text", "category", "bool", "gaps", "inf", "mixed", "constant"])
    if kind == "float":
        return rng.normal(size=rows) * 10.0 ** rng.integers(-3, 4)
    if kind == "int":
        return rng.integers(-5, 5, size=rows)
    if kind == "float32":
        return rng.normal(size=rows).astype(np.float32)
    if kind == "text":
        return rng.choice(["a", "b", "c", "d e", "é", ""], size=rows)
    if kind == "category":
        return pd.Categorical(rng.choice(["x", "y", "z"], size=rows))
    if kind == "bool":
        return rng.random(rows) < 0.5
    if kind == "gaps":
        values = rng.normal(size=rows)
        values[rng.random(rows) < 0.3] = np.nan
        return values
    if kind == "inf":
        values = rng.normal(size=rows)
        values[rng.integers(rows)] = np.inf
        return values
    if kind == "mixed":
        return np.array([str(v) if i % 7 == 0 else v for i, v in enumerate(rng.normal(size=rows))], dtype=object)
    return np.full(rows, 3.0)


def _case(seed):
    rng = np.random.default_rng(seed)
    rows = int(rng.choice([1, 2, 3, 5, 20, 60]))
    columns = int(rng.integers(0, 5))
    frame = pd.DataFrame({"c%d" % j: _column(rng, rows) for j in range(columns)}, index=range(rows))
    X = frame if rng.random() < 0.7 else frame.to_numpy()
    task = rng.choice(["regression", "classification"])
    if task == "regression":
        y = rng.normal(size=rows)
        if rng.random() < 0.1:
            y[0] = np.nan
    else:
        y = rng.choice(["p", "q", "r"], size=rows) if rng.random() < 0.7 else rng.integers(0, 2, size=rows)
    params = {"folds": int(rng.choice([0, 2])), "max_nodes": int(rng.integers(1, 6)), "validation": 0.25,
              "missing": str(rng.choice(["auto", "off"])), "categorical": str(rng.choice(["auto", "off"]))}
    return X, y, task, params


@pytest.mark.parametrize("seed", range(CASES))
def test_every_input_fits_cleanly_or_raises_a_clear_error(seed):
    X, y, task, params = _case(seed)
    estimator = rbfnet.RBFNetRegressor(**params) if task == "regression" else rbfnet.RBFNetClassifier(**params)
    try:
        estimator.fit(X, y)
    except (ValueError, TypeError) as error:
        assert str(error), "an error without a message"
        return
    prediction = estimator.predict(X)
    assert len(prediction) == len(y)
    if task == "regression":
        assert np.all(np.isfinite(prediction))
    else:
        proba = estimator.predict_proba(X)
        assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
