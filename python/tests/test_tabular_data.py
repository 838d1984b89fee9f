"""Raw tabular X from Python: text and category columns one-hot encoded, missing values filled,
the encoding kept in the model (and its file, which `rbfnet predict` reads with raw rows)."""
import os
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

import rbfnet


def _frame(rows=120, seed=0):
    rng = np.random.default_rng(seed)
    port = rng.choice(["Cherbourg", "Queenstown", "Southampton"], size=rows, p=[0.3, 0.2, 0.5])
    age = rng.uniform(1, 70, size=rows)
    age[rng.random(rows) < 0.2] = np.nan
    fare = rng.uniform(5, 80, size=rows)
    X = pd.DataFrame({"port": pd.Categorical(port), "age": age, "fare": fare})
    y = (port == "Cherbourg") * 10.0 + np.nan_to_num(age, nan=30.0) / 10 + rng.normal(0, 0.5, rows)
    return X, pd.Series(y, name="score")


def _regressor(**kw):
    kw.setdefault("folds", 0)
    kw.setdefault("max_nodes", 8)
    return rbfnet.RBFNetRegressor(**kw)


def test_a_frame_with_categories_and_gaps_trains_and_predicts():
    X, y = _frame()
    model = _regressor().fit(X, y)
    assert list(model.feature_names_in_) == ["port", "age", "fare"]
    assert model.n_features_in_ == 3
    assert list(model.network_.text_columns) == ["port"]
    assert "age=(missing)" in model.network_.feature_names
    assert model.score(X, y) > 0.8
    pred = model.predict(X)
    assert np.all(np.isfinite(pred))


def test_a_loaded_model_reads_raw_rows_by_name_and_the_cli_agrees(tmp_path):
    X, y = _frame()
    model = _regressor().fit(X, y)
    path = tmp_path / "m.rbfn"
    model.save(path)
    loaded = rbfnet.load(path)
    swapped = X[["fare", "age", "port"]]
    np.testing.assert_allclose(loaded.predict(swapped), model.predict(X))
    cli = os.environ.get("RBFNET_CLI")
    if not cli:
        pytest.skip("RBFNET_CLI names no rbfnet binary")
    csv = tmp_path / "rows.csv"
    X.head(10).to_csv(csv, index=False, na_rep="")
    out = subprocess.run([cli, "predict", "--model", str(path), "--data", str(csv)], capture_output=True, text=True,
                         check=True)
    values = np.array([float(v) for v in out.stdout.split()[1:]])
    np.testing.assert_allclose(values, model.predict(X.head(10)), rtol=1e-12)


def test_unseen_levels_are_reported_and_read_as_no_known_level():
    X, y = _frame()
    model = _regressor().fit(X, y)
    new = X.head(3).copy()
    new["port"] = new["port"].cat.add_categories(["Atlantis"])
    new.loc[new.index[0], "port"] = "Atlantis"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pred = model.predict(new)
    assert any("the first 'Atlantis'" in str(w.message) for w in caught)
    assert np.all(np.isfinite(pred))


def test_numbers_with_nan_are_filled_and_missing_off_refuses_them():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    y = X[:, 0] + X[:, 1]
    X[::7, 1] = np.nan
    model = _regressor().fit(X, y)
    assert model.network_.encoding[1].startswith("x1: numbers; a missing value reads as")
    assert np.all(np.isfinite(model.predict(X)))
    with pytest.raises(ValueError, match="NaN"):
        _regressor(missing="off").fit(X, y)


def test_categorical_off_refuses_text_with_the_column_named():
    X, y = _frame()
    with pytest.raises(ValueError, match="column 'port' holds text .* data.categorical is off"):
        _regressor(categorical="off").fit(X, y)


def test_a_classifier_on_strings_and_booleans_gives_probabilities():
    rng = np.random.default_rng(2)
    rows = 150
    colour = rng.choice(["red", "green", "blue"], size=rows)
    flag = rng.random(rows) < 0.5
    size = rng.normal(size=rows)
    X = pd.DataFrame({"colour": colour, "flag": flag, "size": size})
    y = np.where((colour == "red") | flag, "a", "b")
    model = rbfnet.RBFNetClassifier(folds=0, max_nodes=6).fit(X, y)
    assert set(model.network_.text_columns) == {"colour", "flag"}
    proba = model.predict_proba(X)
    assert proba.shape == (rows, 2) and np.all((proba > 0) & (proba < 1))
    assert model.score(X, y) > 0.9


def test_continued_training_keeps_the_first_encoding():
    X, y = _frame(rows=200)
    model = _regressor(max_nodes=6).fit(X.iloc[:100], y.iloc[:100])
    before = list(model.network_.feature_names)
    model.partial_fit(X.iloc[100:], y.iloc[100:])
    assert list(model.network_.feature_names) == before
    assert model.score(X, y) > 0.8
