#!/usr/bin/env python3
"""rbfnet's estimators against scikit-learn's RBF-kernel SVR/SVC and KernelRidge on the same
train/test splits; prints the Markdown table of docs/USAGE.md ("Against scikit-learn").

rbfnet runs with its default configuration, untuned. scikit-learn's models are tuned by a
5-fold GridSearchCV on the training 75% (inputs standardized and, for the kernel regressors,
targets too, as rbfnet does itself). Each dataset is split 75/25 with every seed (stratified
for classes); reported: the mean held-out score (R^2 or accuracy) over the seeds with its
range, the most frequent tuned settings, and, on the first seed, the time of one fit of the
tuned settings on the training rows and of predicting the test rows (best of 3).

Usage: python bench/sklearn_comparison.py [--threads N] [--seeds 5]   (needs `pip install .` first)
"""
import argparse
import collections
import time

import numpy as np
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_wine, make_friedman1
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
        ("wine (178 x 13)", "classification", load_wine(return_X_y=True)),
    ]


def scaled_target(model):
    return TransformedTargetRegressor(regressor=model, transformer=StandardScaler())


# gamma for standardized inputs: "scale" is 1 / n_features there.
GAMMAS = ["scale", 0.003, 0.01, 0.03, 0.1]


def candidates(task, threads):
    """(name, estimator, grid) per model; an empty grid = the default configuration."""
    if task == "regression":
        return [
            ("rbfnet RBFNetRegressor", RBFNetRegressor(threads=threads), {}),
            ("sklearn SVR (rbf)", make_pipeline(StandardScaler(), scaled_target(SVR())),
             {"transformedtargetregressor__regressor__C": [0.1, 0.3, 1, 3, 10, 30],
              "transformedtargetregressor__regressor__gamma": GAMMAS}),
            ("sklearn KernelRidge (rbf)", make_pipeline(StandardScaler(), scaled_target(KernelRidge(kernel="rbf"))),
             {"transformedtargetregressor__regressor__alpha": [0.01, 0.03, 0.1, 0.3, 1.0],
              "transformedtargetregressor__regressor__gamma": GAMMAS[1:]}),
        ]
    return [
        ("rbfnet RBFNetClassifier", RBFNetClassifier(threads=threads), {}),
        ("sklearn SVC (rbf)", make_pipeline(StandardScaler(), SVC()),
         {"svc__C": [0.3, 1, 3, 10, 30, 100], "svc__gamma": GAMMAS}),
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
    parser.add_argument("--seeds", type=int, default=5, help="split seeds 0 .. N-1")
    args = parser.parse_args()
    print("| dataset | model | settings | held-out score, mean of %d splits (min .. max) | fit (s) | predict (ms) |"
          % args.seeds)
    print("|---|---|---|---|---|---|")
    for name, task, (X, y) in datasets():
        stratify = y if task == "classification" else None
        metric = "R²" if task == "regression" else "accuracy"
        for model_name, estimator, grid in candidates(task, args.threads):
            scores, settings, nodes = [], collections.Counter(), []
            fit_s = predict_ms = 0.0
            for seed in range(args.seeds):
                X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=seed,
                                                                    stratify=stratify)
                if grid:
                    search = GridSearchCV(estimator, grid, cv=5).fit(X_train, y_train)
                    tuned = search.best_estimator_
                    settings[", ".join("%s=%s" % (k.split("__")[-1], v)
                                       for k, v in sorted(search.best_params_.items()))] += 1
                else:
                    tuned = estimator.fit(X_train, y_train)
                if seed == 0:
                    fit_s = best_time(lambda: tuned.fit(X_train, y_train))
                    predict_ms = 1000 * best_time(lambda: tuned.predict(X_test))
                scores.append(tuned.score(X_test, y_test))
                if isinstance(tuned, (RBFNetRegressor, RBFNetClassifier)):
                    nodes.append(tuned.n_nodes_)
            if grid:
                text, count = settings.most_common(1)[0]
                shown = "%s (%d of %d splits)" % (text, count, args.seeds)
            else:
                shown = "default config (kept %d .. %d Gaussians)" % (min(nodes), max(nodes))
            print("| %s | %s | %s | %s %.3f (%.3f .. %.3f) | %.3f | %.2f |" % (
                name, model_name, shown, metric, np.mean(scores), min(scores), max(scores), fit_s, predict_ms),
                flush=True)


if __name__ == "__main__":
    main()
