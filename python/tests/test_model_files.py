"""Model files and pickles: save/load, and the round trip with the rbfnet command line."""
import csv
import pickle
import subprocess

import numpy as np

import rbfnet
from rbfnet import RBFNetClassifier, RBFNetRegressor


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for row in rows:
            writer.writerow([repr(float(v)) if isinstance(v, (float, np.floating)) else v for v in row])


def cli_predict(cli, model, data, tmp_path):
    out = tmp_path / "predictions.csv"
    subprocess.run([cli, "predict", "--model", str(model), "--data", str(data), "--out", str(out)], check=True,
                   capture_output=True)
    with open(out) as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def assert_cli_prints(rows, values):
    """`rbfnet predict` printed exactly `values`: as the same double (shortest round-trip text),
    or, from builds that print 9 significant digits, as the same text."""
    printed = [r[0] for r in rows]
    assert len(printed) == len(values)
    differ = [(t, v) for t, v in zip(printed, values) if float(t) != v and t != "%.9g" % v]
    assert not differ, differ[:5]


def cli_train(cli, data, target, out, *flags):
    subprocess.run([cli, "train", "--data", str(data), "--target", target, "--threads", "1", "--quiet",
                    "--out", str(out)] + list(flags), check=True, capture_output=True)


def test_save_load_and_pickle(friedman, blobs, tmp_path):
    X, y = friedman
    reg = RBFNetRegressor(max_nodes=20, reg_lambda=1e-3, threads=1).fit(X, y)
    reg.save(tmp_path / "reg.rbfn")
    loaded = RBFNetRegressor.load(tmp_path / "reg.rbfn")
    np.testing.assert_array_equal(loaded.predict(X), reg.predict(X))
    assert loaded.get_params() == reg.get_params()
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(reg)).predict(X), reg.predict(X))

    Xc, yc = blobs
    clf = RBFNetClassifier(max_nodes=10, threads=1).fit(Xc, yc)
    clf.save(tmp_path / "clf.rbfn")
    again = rbfnet.load(tmp_path / "clf.rbfn")
    assert isinstance(again, RBFNetClassifier)
    np.testing.assert_array_equal(again.predict_proba(Xc), clf.predict_proba(Xc))
    np.testing.assert_array_equal(again.predict(Xc), clf.predict(Xc))


def test_python_model_predicts_identically_with_the_cli(rbfnet_cli, friedman, blobs, tmp_path):
    X, y = friedman
    reg = RBFNetRegressor(max_nodes=25, threads=1).fit(X, y)
    reg.save(tmp_path / "reg.rbfn")
    write_csv(tmp_path / "x.csv", ["x%d" % j for j in range(X.shape[1])], X)
    header, rows = cli_predict(rbfnet_cli, tmp_path / "reg.rbfn", tmp_path / "x.csv", tmp_path)
    assert header == ["y"]
    assert_cli_prints(rows, reg.predict(X))

    Xc, yc = blobs
    clf = RBFNetClassifier(max_nodes=10, threads=1).fit(Xc, yc)
    clf.save(tmp_path / "clf.rbfn")
    write_csv(tmp_path / "xc.csv", ["x%d" % j for j in range(Xc.shape[1])], Xc)
    _, rows = cli_predict(rbfnet_cli, tmp_path / "clf.rbfn", tmp_path / "xc.csv", tmp_path)
    assert [r[0] for r in rows] == list(clf.predict(Xc))


def read_diabetes(repo):
    with open(repo / "data" / "diabetes.csv") as f:
        rows = list(csv.reader(f))
    header, values = rows[0], np.array(rows[1:], dtype=float)
    target = header.index("progression")
    return np.delete(values, target, axis=1), values[:, target]


def test_cli_model_predicts_identically_in_python(rbfnet_cli, repo, tmp_path):
    model = tmp_path / "diabetes.rbfn"
    cli_train(rbfnet_cli, repo / "data" / "diabetes.csv", "progression", model, "--nodes", "30")
    loaded = rbfnet.load(model)
    assert isinstance(loaded, RBFNetRegressor)
    assert loaded.max_nodes == 30 and loaded.threads == 1
    X, _ = read_diabetes(repo)
    _, rows = cli_predict(rbfnet_cli, model, repo / "data" / "diabetes.csv", tmp_path)
    assert_cli_prints(rows, loaded.predict(X))


def test_cli_and_python_grow_the_same_model(rbfnet_cli, repo, tmp_path):
    """One trainer: the same data and settings give the same network from either side."""
    model = tmp_path / "cli.rbfn"
    cli_train(rbfnet_cli, repo / "data" / "diabetes.csv", "progression", model, "--nodes", "20")
    cli = rbfnet.load(model)
    X, y = read_diabetes(repo)
    ours = RBFNetRegressor(max_nodes=20, threads=1).fit(X, y)
    assert ours.n_nodes_ == cli.n_nodes_
    np.testing.assert_array_equal(ours.centers_, cli.centers_)
    np.testing.assert_array_equal(ours.widths_, cli.widths_)
    np.testing.assert_allclose(ours.predict(X), cli.predict(X), rtol=1e-12)


def test_cli_classifier_in_python(rbfnet_cli, repo, tmp_path):
    model = tmp_path / "iris.rbfn"
    cli_train(rbfnet_cli, repo / "data" / "iris.csv", "species", model)
    loaded = rbfnet.load(model)
    assert isinstance(loaded, RBFNetClassifier)
    with open(repo / "data" / "iris.csv") as f:
        rows = list(csv.reader(f))
    species = rows[0].index("species")
    X = np.array([[v for j, v in enumerate(r) if j != species] for r in rows[1:]], dtype=float)
    _, predicted = cli_predict(rbfnet_cli, model, repo / "data" / "iris.csv", tmp_path)
    assert list(loaded.predict(X)) == [r[0] for r in predicted]
    assert set(loaded.classes_) == {r[species] for r in rows[1:]}
