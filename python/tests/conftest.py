"""Shared fixtures: small data sets and the rbfnet command-line program."""
import os
import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def rbfnet_cli():
    """The rbfnet binary: $RBFNET_CLI (must exist when set), else build/release/app/rbfnet."""
    given = os.environ.get("RBFNET_CLI")
    path = pathlib.Path(given) if given else REPO / "build" / "release" / "app" / "rbfnet"
    if not path.is_file():
        if given:
            pytest.fail("RBFNET_CLI=%s does not exist" % given)
        pytest.skip("no rbfnet binary at %s: build it (README) or set RBFNET_CLI" % path)
    return str(path)


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def friedman():
    """Friedman #1 regression data, 400 rows x 10 features."""
    from sklearn.datasets import make_friedman1

    return make_friedman1(n_samples=400, n_features=10, noise=0.1, random_state=0)


@pytest.fixture(scope="session")
def blobs():
    """Three well-separated classes with string labels, 300 rows x 4 features."""
    from sklearn.datasets import make_blobs

    X, y = make_blobs(n_samples=300, n_features=4, centers=3, random_state=1)
    return X, np.array(["red", "green", "blue"])[y]
