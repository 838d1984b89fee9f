#!/usr/bin/env python3
"""Held-out scores of `rbfnet train` settings over several random splits: whether a setting
(such as --refit) helps on data the model never saw.

Each dataset is split 75/25 (stratified for classes) with each seed; every variant trains
on the same 75% through the CLI and `rbfnet evaluate` scores the 25% (R^2 or accuracy).
Prints one Markdown row per dataset and variant: the mean, the spread over the seeds, and
the mean difference from the first variant with its wins/losses.

Usage: python bench/refit_benefit.py --rbfnet build/cpu/app/rbfnet [--seeds 5]
           [--variant NAME="FLAGS"]...   (default: default="" refit="--refit")
"""
import argparse
import json
import os
import shlex
import subprocess
import tempfile

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_wine, make_friedman1
from sklearn.model_selection import train_test_split

HERE = os.path.dirname(os.path.abspath(__file__))


def bundled(name, target):
    """A CSV under data/ as (X, y) with y as text, so that class names stay names."""
    path = os.path.join(HERE, "..", "data", name)
    header = open(path).readline().strip().split(",")
    raw = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=str)
    col = header.index(target)
    X = np.delete(raw, col, axis=1).astype(float)
    return X, raw[:, col]


def datasets():
    friedman = make_friedman1(n_samples=2000, n_features=10, noise=1.0, random_state=0)
    iris = bundled("iris.csv", "species")
    return [
        ("diabetes", "regression", load_diabetes(return_X_y=True)),
        ("Friedman #1", "regression", friedman),
        ("breast_cancer", "classification", load_breast_cancer(return_X_y=True)),
        ("digits", "classification", load_digits(return_X_y=True)),
        ("wine", "classification", load_wine(return_X_y=True)),
        ("iris (data/iris.csv)", "classification", iris),
    ]


def write_csv(path, X, y):
    with open(path, "w") as f:
        f.write(",".join("x%d" % j for j in range(X.shape[1])) + ",y\n")
        for row, target in zip(X, y):
            f.write(",".join(repr(float(v)) for v in row) + "," + str(target) + "\n")


def score(rbfnet, flags, task, train_csv, test_csv, work):
    model = os.path.join(work, "m.rbfn")
    if os.path.exists(model):
        os.remove(model)
    subprocess.run([rbfnet, "train", "--data", train_csv, "--target", "y", "--task", task, "--out", model,
                    "--quiet", "--log-level", "warn"] + shlex.split(flags),
                   check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([rbfnet, "evaluate", "--model", model, "--data", test_csv, "--target", "y", "--json"],
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    return result["accuracy"] if task == "classification" else result["targets"][0]["r2"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rbfnet", required=True, help="the rbfnet binary")
    parser.add_argument("--seeds", type=int, default=5, help="split seeds 0 .. N-1")
    parser.add_argument("--variant", action="append", default=[], help='NAME="FLAGS"; the first is the baseline')
    parser.add_argument("--only", default="", help="datasets whose name contains this")
    args = parser.parse_args()
    variants = [v.split("=", 1) for v in args.variant] or [["default", ""], ["refit", "--refit"]]
    print("| dataset | variant | held-out mean | min .. max | vs %s (wins/losses) |" % variants[0][0])
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for name, task, (X, y) in datasets():
            if args.only and args.only not in name:
                continue
            scores = np.zeros((len(variants), args.seeds))
            for seed in range(args.seeds):
                strat = y if task == "classification" else None
                X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=seed, stratify=strat)
                train_csv, test_csv = os.path.join(work, "train.csv"), os.path.join(work, "test.csv")
                write_csv(train_csv, X_tr, y_tr)
                write_csv(test_csv, X_te, y_te)
                for v, (_, flags) in enumerate(variants):
                    scores[v, seed] = score(args.rbfnet, flags, task, train_csv, test_csv, work)
            metric = "accuracy" if task == "classification" else "R²"
            for v, (vname, flags) in enumerate(variants):
                diff = scores[v] - scores[0]
                versus = "" if v == 0 else "%+.4f (%d/%d)" % (diff.mean(), (diff > 1e-12).sum(), (diff < -1e-12).sum())
                print("| %s | %s `%s` | %s %.4f | %.3f .. %.3f | %s |" % (name, vname, flags, metric, scores[v].mean(),
                                                                        scores[v].min(), scores[v].max(), versus),
                      flush=True)


if __name__ == "__main__":
    main()
