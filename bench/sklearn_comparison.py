#!/usr/bin/env python3
"""rbfnet's estimators against scikit-learn's RBF-kernel SVR/SVC and KernelRidge on the same
train/test splits; prints the Markdown table of README.md ("Python").

Every model is tuned the same way: a small grid, 3-fold GridSearchCV on the training 75%,
inputs standardized (and, for the kernel regressors, targets too, as rbfnet does itself).
Reported: the held-out score of the tuned model (R^2 or accuracy), the time of one fit of the
tuned settings on the training rows, and of predicting the test rows (best of 3).

Usage: python bench/sklearn_comparison.py [--threads N]   (needs `pip install .` first)
"""
import argparse
import time

import numpy as np
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, make_friedman1
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR

from rbfnet import RBFNetClassifier, RBFNetRegressor


def datasets():
    friedman = make_friedman1(n_samples=2000, n_features=10, noise=1.0, random_state=0)
    return [
        ("diabetes (442 x 10)", "regression", load_diabetes(return_X_y=True)),
        ("Friedman #1 (2000 x 10)", "regression", friedman),
        ("breast_cancer (569 x 30)", "classification", load_breast_cancer(return_X_y=True)),
        ("digits (1797 x 64)", "classification", load_digits(return_X_y=True)),
    ]


def scaled_target(model):
    return TransformedTargetRegressor(regressor=model, transformer=StandardScaler())


def candidates(task, threads):
    """(name, estimator, grid) per model; rbfnet standardizes inputs and targets itself."""
    if task == "regression":
        return [
            ("rbfnet RBFNetRegressor", RBFNetRegressor(threads=threads),
             {"max_nodes": [50, 200, 500], "reg_lambda": [0.0, 1e-2]}),
            ("sklearn SVR (rbf)", make_pipeline(StandardScaler(), scaled_target(SVR())),
             {"transformedtargetregressor__regressor__C": [0.3, 1, 3, 10]}),
            ("sklearn KernelRidge (rbf)", make_pipeline(StandardScaler(), scaled_target(KernelRidge(kernel="rbf"))),
             {"transformedtargetregressor__regressor__alpha": [0.1, 1.0],
              "transformedtargetregressor__regressor__gamma": [0.01, 0.1]}),
        ]
    return [
        ("rbfnet RBFNetClassifier", RBFNetClassifier(threads=threads),
         {"max_nodes": [50, 200, 500], "reg_lambda": [0.0, 1e-2]}),
        ("sklearn SVC (rbf)", make_pipeline(StandardScaler(), SVC()), {"svc__C": [0.3, 1, 3, 10]}),
    ]


def best_time(fn, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=0, help="rbfnet's CPU threads (0 = all)")
    args = parser.parse_args()
    print("| dataset | model | tuned settings | held-out score | fit (s) | predict (ms) |")
    print("|---|---|---|---|---|---|")
    for name, task, (X, y) in datasets():
        stratify = y if task == "classification" else None
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=stratify)
        metric = "R²" if task == "regression" else "accuracy"
        for model_name, estimator, grid in candidates(task, args.threads):
            search = GridSearchCV(estimator, grid, cv=3).fit(X_train, y_train)
            tuned = search.best_estimator_
            fit_s = best_time(lambda: tuned.fit(X_train, y_train))
            predict_ms = 1000 * best_time(lambda: tuned.predict(X_test))
            score = tuned.score(X_test, y_test)
            settings = ", ".join("%s=%s" % (k.split("__")[-1], v) for k, v in sorted(search.best_params_.items()))
            if isinstance(tuned, (RBFNetRegressor, RBFNetClassifier)):
                settings += " (kept %d nodes)" % tuned.n_nodes_
            print("| %s | %s | %s | %s %.3f | %.3f | %.2f |" % (name, model_name, settings, metric, score, fit_s,
                                                                 predict_ms), flush=True)


if __name__ == "__main__":
    main()
