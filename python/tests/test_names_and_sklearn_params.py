"""Feature and target names kept through fit, save and load (a loaded model reorders a
DataFrame's columns by name), scikit-learn's random_state, n_jobs and verbose, and OpenMP's
passive waiting without an environment variable."""
import os
import subprocess
import sys

import numpy as np
import pytest

import rbfnet
from rbfnet import RBFNetClassifier, RBFNetRegressor
from rbfnet._native import native

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def frame(friedman):
    X, y = friedman
    columns = ["age", "fare", "x2", "deck", "pclass", "f5", "f6", "f7", "f8", "f9"]
    return pd.DataFrame(X, columns=columns), pd.Series(y, name="wage")


def test_a_loaded_model_reads_swapped_columns_by_name(frame, tmp_path):
    """The silent wrong prediction: a loaded model scored reversed columns as they came."""
    X, y = frame
    model = RBFNetRegressor(max_nodes=15, threads=1).fit(X, y)
    model.save(tmp_path / "m.rbfn")
    loaded = rbfnet.load(tmp_path / "m.rbfn")
    assert list(loaded.feature_names_in_) == list(X.columns)
    expected = model.predict(X)
    reversed_columns = X[X.columns[::-1]]
    np.testing.assert_array_equal(loaded.predict(reversed_columns), expected)
    with pytest.raises(ValueError, match="feature names"):  # fitted here: scikit-learn's rule
        model.predict(reversed_columns)
    assert loaded.score(reversed_columns, y) == pytest.approx(model.score(X, y))
    # More columns than the model's: the extra ones are not read.
    wider = X.assign(extra=np.arange(len(X)))
    np.testing.assert_array_equal(loaded.predict(wider), expected)


def test_a_missing_column_is_named(frame, tmp_path):
    X, y = frame
    RBFNetRegressor(max_nodes=5, threads=1).fit(X, y).save(tmp_path / "m.rbfn")
    loaded = rbfnet.load(tmp_path / "m.rbfn")
    with pytest.raises(ValueError, match="lacks the column 'deck'"):
        loaded.predict(X.drop(columns=["deck"]))


def test_classifier_names_and_target(blobs, tmp_path):
    X, y = blobs
    Xf = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    clf = RBFNetClassifier(max_nodes=8, threads=1).fit(Xf, pd.Series(y, name="species"))
    assert clf.network_.target_names == ["species"]
    clf.save(tmp_path / "c.rbfn")
    loaded = rbfnet.load(tmp_path / "c.rbfn")
    np.testing.assert_array_equal(loaded.predict_proba(Xf[["d", "c", "b", "a"]]), clf.predict_proba(Xf))


def test_arrays_give_no_feature_names(friedman, tmp_path):
    X, y = friedman
    RBFNetRegressor(max_nodes=5, threads=1).fit(X, y).save(tmp_path / "m.rbfn")
    assert not hasattr(rbfnet.load(tmp_path / "m.rbfn"), "feature_names_in_")


def test_the_target_keeps_its_name_for_the_cli(rbfnet_cli, frame, tmp_path):
    X, y = frame
    RBFNetRegressor(max_nodes=10, threads=1).fit(X, y).save(tmp_path / "m.rbfn")
    data = X.assign(wage=y)[["wage"] + list(X.columns[::-1])]  # another column order, too
    data.to_csv(tmp_path / "d.csv", index=False)
    out = subprocess.run([rbfnet_cli, "evaluate", "--model", str(tmp_path / "m.rbfn"), "--data",
                          str(tmp_path / "d.csv"), "--target", "wage"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "wage" in out.stdout


def test_a_cli_model_has_the_csv_names(rbfnet_cli, repo, tmp_path):
    subprocess.run([rbfnet_cli, "train", "--data", str(repo / "data" / "diabetes.csv"), "--target", "progression",
                    "--nodes", "10", "--threads", "1", "--quiet", "--out", str(tmp_path / "d.rbfn")], check=True,
                   capture_output=True)
    loaded = rbfnet.load(tmp_path / "d.rbfn")
    data = pd.read_csv(repo / "data" / "diabetes.csv")
    X = data.drop(columns=["progression"])
    assert list(loaded.feature_names_in_) == list(X.columns)
    np.testing.assert_array_equal(loaded.predict(X[X.columns[::-1]]), loaded.predict(X))


def test_random_state_n_jobs_and_verbose_reach_the_trainer(friedman, capfd):
    X, y = friedman
    model = RBFNetRegressor(max_nodes=5, random_state=7, n_jobs=1, verbose=1).fit(X, y)
    recorded = native.config_values(model.network_.config_yaml)
    assert recorded["data.seed"] == "7" and recorded["trainer.threads"] == "1"
    assert "info" in capfd.readouterr().err  # verbose=1 logs the run's steps
    seeded = RBFNetRegressor(max_nodes=5, seed=7, threads=1).fit(X, y)
    np.testing.assert_array_equal(model.centers_, seeded.centers_)
    for bad in ({"n_jobs": 0}, {"verbose": -1}, {"random_state": "x"}):
        with pytest.raises(ValueError, match=list(bad)[0]):
            RBFNetRegressor(max_nodes=2, **bad).fit(X, y)


def _libgomp_spin_count(code, env):
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    spins = [line for line in out.stderr.splitlines() if "GOMP_SPINCOUNT" in line]
    return spins[0].split("=")[1].strip().strip("'") if spins else None, out.stdout.strip()


def test_openmp_waits_passively_without_an_environment_variable():
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env["OMP_DISPLAY_ENV"] = "VERBOSE"  # libgomp prints its settings when it loads
    code = "import os, rbfnet; print(os.environ.get('OMP_WAIT_POLICY'))"
    spins, leaked = _libgomp_spin_count(code, env)
    if spins is None:
        pytest.skip("the OpenMP runtime is not libgomp")
    assert spins == "0"  # passive: no spinning at barriers
    assert leaked == "None"  # put back for the libraries loaded later
    spins, _ = _libgomp_spin_count(code, dict(env, OMP_WAIT_POLICY="active"))
    assert spins != "0"  # the user's choice is kept
