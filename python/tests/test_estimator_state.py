"""A fit that fails leaves the estimator as it was; loaded labels keep their identity; a row
the model cannot compute is an error, not a NaN."""
import numpy as np
import pandas as pd
import pytest

import rbfnet


def _data(rows=90, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=rows), "b": rng.normal(size=rows)})
    y = np.where(X["a"] + X["b"] > 0, "up", "down")
    return X, y


def test_a_failed_fit_leaves_classes_features_and_network_as_they_were():
    X, y = _data()
    model = rbfnet.RBFNetClassifier(folds=0, max_nodes=5, categorical="off").fit(X, y)
    before = model.predict(X)
    state = (list(model.classes_), list(model.feature_names_in_), model.n_features_in_, model.network_)
    # Other classes and other columns, one of them text that categorical="off" refuses.
    other = pd.DataFrame({"c": ["p", "q"] * 45, "d": np.arange(90.0), "e": np.arange(90.0)})
    with pytest.raises(ValueError, match="data.categorical is off"):
        model.fit(other, np.repeat(["x", "y", "z"], 30))
    assert (list(model.classes_), list(model.feature_names_in_), model.n_features_in_, model.network_) == state
    np.testing.assert_array_equal(model.predict(X), before)


def test_loaded_labels_stay_the_labels_they_were(tmp_path):
    X, _ = _data(rows=90)
    y = np.array(["01", "1", "1.0"] * 30)
    model = rbfnet.RBFNetClassifier(folds=0, max_nodes=3).fit(X, y)
    model.save(tmp_path / "m.rbfn")
    assert list(rbfnet.load(tmp_path / "m.rbfn").classes_) == ["01", "1", "1.0"]
    flags = np.array([True, False] * 45)
    rbfnet.RBFNetClassifier(folds=0, max_nodes=3).fit(X, flags).save(tmp_path / "b.rbfn")
    assert rbfnet.load(tmp_path / "b.rbfn").classes_.dtype == bool
    numbers = np.array([1, 2, 3] * 30)
    rbfnet.RBFNetClassifier(folds=0, max_nodes=3).fit(X, numbers).save(tmp_path / "n.rbfn")
    assert list(rbfnet.load(tmp_path / "n.rbfn").classes_) == [1, 2, 3]


def test_a_row_beyond_the_model_is_an_error_not_nan():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 2))
    model = rbfnet.RBFNetRegressor(folds=0, max_nodes=4, linear_terms="on").fit(X, X[:, 0] * 3 + 1)
    with pytest.raises(ValueError, match="data row 2: the model's output is not a finite number"):
        model.predict(np.array([[0.0, 0.0], [1e308, -1e308]]))


def _decimal_comma_locale(locale, tmp_path):
    """Switches to a German or French locale, compiling one with localedef (glibc reads
    LOCPATH when a locale is set) where none is installed. False when neither works."""
    import os
    import shutil
    import subprocess

    names = ("de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8")
    for attempt in range(2):
        for name in names:
            try:
                locale.setlocale(locale.LC_ALL, name)
                return True
            except locale.Error:
                continue
        if attempt == 0:
            if not shutil.which("localedef"):
                return False
            subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", str(tmp_path / "de_DE.UTF-8")],
                           capture_output=True)
            os.environ["LOCPATH"] = str(tmp_path)
    return False


def test_a_decimal_comma_locale_changes_nothing(tmp_path, monkeypatch):
    import os

    monkeypatch.setenv("LOCPATH", os.environ.get("LOCPATH", ""))  # put back as it was afterwards
    if not os.environ["LOCPATH"]:
        monkeypatch.delenv("LOCPATH")
    """locale.setlocale with a decimal comma made every fit fail ("got '0.2'")."""
    import locale

    previous = locale.setlocale(locale.LC_ALL)
    if not _decimal_comma_locale(locale, tmp_path):
        pytest.skip("no decimal-comma locale is installed, and localedef cannot make one")
    try:
        assert locale.localeconv()["decimal_point"] == ","
        X = np.random.default_rng(0).normal(size=(60, 2))
        model = rbfnet.RBFNetRegressor(folds=0, max_nodes=3, reg_lambda=0.5).fit(X, X[:, 0])
        model.save(tmp_path / "m.rbfn")
        loaded = rbfnet.load(tmp_path / "m.rbfn")
        assert loaded.get_params()["reg_lambda"] == 0.5
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    finally:
        locale.setlocale(locale.LC_ALL, previous)
