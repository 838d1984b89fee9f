"""Linear terms beside the Gaussians (linear_terms): fitted, saved, predicted with, and read
back by the command line's model files."""
import subprocess

import numpy as np
import pytest

from rbfnet import RBFNetClassifier, RBFNetRegressor


def linear_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3)) * [10.0, 1.0, 100.0]
    y = 3.0 + 2.0 * X[:, 0] - 5.0 * X[:, 1]
    return X, y


def test_linear_data_is_fitted_to_rounding_without_nodes():
    X, y = linear_data()
    model = RBFNetRegressor(linear_terms="on", goal=1e-10, precision="float64", threads=1).fit(X, y)
    assert model.n_nodes_ == 0
    assert model.linear_coef_.shape == (3, 1)
    assert np.max(np.abs(model.predict(X) - y)) < 1e-9
    assert model.fit_summary_["linear_ridge"] == 0.0


def test_noisy_linear_data_keep_no_gaussians_by_default():
    X, y = linear_data(300, seed=1)
    y = y + np.random.default_rng(2).normal(scale=1.0, size=len(y))
    model = RBFNetRegressor(max_nodes=20, threads=1).fit(X, y)
    cv = model.fit_summary_["cross_validation"]
    assert cv["nodes"] == model.n_nodes_ == 0  # Gaussians would only fit the noise
    assert cv["lowest_rmse"] <= cv["rmse"]
    assert model.score(X, y) > 0.95


def test_off_leaves_them_out():
    X, y = linear_data()
    model = RBFNetRegressor(linear_terms="off", max_nodes=10, threads=1).fit(X, y)
    assert model.linear_coef_ is None
    assert model.fit_summary_["linear_ridge"] is None
    assert np.max(np.abs(model.predict(X) - y)) > 1e-6


def test_a_bad_value_is_refused_by_the_config_check():
    X, y = linear_data(40)
    with pytest.raises(ValueError, match="linear_terms"):
        RBFNetRegressor(linear_terms="sometimes").fit(X, y)


def test_classifier_scores_include_them():
    X, y = linear_data(240, 1)
    labels = np.where(y > 13, "high", "low")
    model = RBFNetClassifier(linear_terms="on", threads=1).fit(X, labels)
    assert model.linear_coef_.shape == (3, 2)
    assert model.score(X, labels) > 0.95


def test_saved_model_keeps_them_in_python_and_the_cli(rbfnet_cli, tmp_path):
    X, y = linear_data()
    rng = np.random.default_rng(2)
    y = y + np.sin(X[:, 0]) + 0.1 * rng.normal(size=len(y))
    model = RBFNetRegressor(linear_terms="on", threads=1).fit(X, y)
    path = str(tmp_path / "linear.rbfn")
    model.save(path)
    loaded = RBFNetRegressor.load(path)
    np.testing.assert_array_equal(loaded.linear_coef_, model.linear_coef_)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    csv = tmp_path / "x.csv"
    np.savetxt(csv, X, delimiter=",", header="x0,x1,x2", comments="", fmt="%.17g")
    out = subprocess.run([rbfnet_cli, "predict", "--model", path, "--data", str(csv)], check=True,
                         capture_output=True, text=True).stdout.split()
    np.testing.assert_allclose(np.array(out[1:], dtype=float), model.predict(X), rtol=1e-12)
