"""Fitting and predicting: accuracy, shapes, dtypes, probabilities and the fitted attributes."""
import numpy as np
import pytest

from rbfnet import RBFNetClassifier, RBFNetRegressor


def test_regressor_fits_friedman(friedman):
    X, y = friedman
    model = RBFNetRegressor(threads=1).fit(X[:300], y[:300])
    assert model.score(X[300:], y[300:]) > 0.8
    assert model.predict(X).shape == (len(X),)


def test_fitted_attributes(friedman):
    X, y = friedman
    # Held out rather than cross-validated: 12 nodes lower the folds' error by less than its
    # spread, so cross-validation would keep the linear terms alone, and this test needs nodes.
    model = RBFNetRegressor(max_nodes=12, threads=1, folds=0).fit(X, y)
    m = model.n_nodes_
    assert 1 <= m <= 12
    assert model.n_features_in_ == 10
    assert model.centers_.shape == (m, 10) and model.widths_.shape == (m,)
    assert model.weights_.shape == (m, 1) and model.bias_.shape == (1,)
    assert np.all(model.widths_ > 0)
    # Centers are training rows, standardized: each is one row of (X - x_mean_) / x_scale_.
    standardized = (X - model.x_mean_) / model.x_scale_
    distance = np.min(np.linalg.norm(standardized[None, :, :] - model.centers_[:, None, :], axis=2), axis=1)
    assert np.all(distance < 1e-9)


def test_history_is_the_cost_log(friedman):
    X, y = friedman
    model = RBFNetRegressor(max_nodes=10, validation=0.0, patience=0, threads=1).fit(X, y)
    h = model.history_
    assert list(h["nodes"]) == list(range(1, 11))
    assert set(h["backend"]) <= {"cpu", "gpu"}
    for column in ("select_ms", "add_ms", "update_ms", "evaluate_ms", "total_ms", "train_rmse", "width"):
        assert h[column].shape == (10,) and np.all(h[column] >= 0)
    assert np.all(np.diff(h["train_rmse"]) <= 1e-6)  # OLS never increases the training error
    assert np.all(np.isnan(h["val_rmse"]))  # no validation split


def test_same_seed_same_model(friedman):
    X, y = friedman
    a = RBFNetRegressor(max_nodes=15, seed=3).fit(X, y).predict(X)
    b = RBFNetRegressor(max_nodes=15, seed=3).fit(X, y).predict(X)
    np.testing.assert_array_equal(a, b)


def test_float32_and_other_layouts_are_accepted(friedman):
    X, y = friedman
    model = RBFNetRegressor(max_nodes=10, precision="float64", threads=1).fit(X, y)
    expected = model.predict(X)
    np.testing.assert_allclose(model.predict(X.astype(np.float32)), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(model.predict(np.asfortranarray(X)), expected)
    np.testing.assert_array_equal(model.predict(X.tolist()), expected)
    refit = RBFNetRegressor(max_nodes=10, precision="float64", threads=1).fit(np.asfortranarray(X), y)
    np.testing.assert_array_equal(refit.predict(X), expected)


def test_multi_target_regression(friedman):
    X, y = friedman
    Y = np.column_stack([y, -2.0 * y + 1.0])
    model = RBFNetRegressor(threads=1).fit(X, Y)
    pred = model.predict(X)
    assert pred.shape == (len(X), 2)
    assert model.score(X, Y) > 0.8


def test_classifier_labels_and_probabilities(blobs):
    X, y = blobs
    model = RBFNetClassifier(threads=1).fit(X, y)
    assert list(model.classes_) == ["blue", "green", "red"]
    assert model.score(X, y) > 0.95
    proba = model.predict_proba(X)
    assert proba.shape == (len(X), 3)
    assert np.all(proba > 0) and np.all(proba < 1)  # never exactly 0 or 1
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.classes_[np.argmax(proba, axis=1)], model.predict(X))


def test_probabilities_when_every_score_is_negative(blobs):
    X, y = blobs
    model = RBFNetClassifier(threads=1).fit(X, y)
    far = np.full((2, X.shape[1]), 1e3)  # no node reaches it: scores are the bias alone
    proba = model.predict_proba(far)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.classes_[np.argmax(proba, axis=1)], model.predict(far))


def test_binary_integer_labels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int) * 5  # classes 0 and 5
    model = RBFNetClassifier(threads=1).fit(X, y)
    assert list(model.classes_) == [0, 5]
    assert model.score(X, y) > 0.85


def test_one_class_is_an_error():
    with pytest.raises(ValueError, match="2 classes"):
        RBFNetClassifier().fit(np.eye(4), ["a"] * 4)


def test_dataframe_column_names_become_feature_names(friedman):
    pd = pytest.importorskip("pandas")
    X, y = friedman
    frame = pd.DataFrame(X, columns=["f%d" % j for j in range(X.shape[1])])
    model = RBFNetRegressor(max_nodes=5, threads=1).fit(frame, y)
    assert model.network_.feature_names == list(frame.columns)


def test_probabilities_are_fitted_on_the_validation_rows():
    """softmax(scale x scores) with the scale of least validation log loss: no exact 0 or 1,
    and a held-out log loss below the clipped scores' (the probabilities before the scale)."""
    from sklearn.datasets import make_classification
    from sklearn.metrics import log_loss
    from sklearn.model_selection import train_test_split

    X, y = make_classification(n_samples=1200, n_features=8, n_informative=5, n_classes=3, flip_y=0.05,
                               random_state=1)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    model = RBFNetClassifier(max_nodes=60, folds=0, threads=1).fit(X_train, y_train)
    assert model.network_.proba_scale > 0
    assert model.fit_summary_["proba_fitted_on"] == "validation"
    assert model.fit_summary_["proba_rows"] == model.fit_summary_["validation_rows"]
    proba = model.predict_proba(X_test)
    assert np.all(proba > 0) and np.all(proba < 1)
    scores = model.network_.predict(X_test)
    clipped = np.maximum(scores, 0.0)
    clipped[clipped.sum(axis=1) == 0, 0] = 1.0
    clipped = np.clip(clipped / clipped.sum(axis=1, keepdims=True), 1e-15, 1.0)
    assert log_loss(y_test, proba) < log_loss(y_test, clipped)
