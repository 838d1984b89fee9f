"""A fitted estimator predicts, and an estimator fits, in a fork() child (multiprocessing's
default start method on Linux), where GNU OpenMP's thread pool once made them wait forever."""
import multiprocessing
import sys

import numpy as np
import pytest

import rbfnet

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="fork() is the Linux default")


def _child(model, X, queue):
    queue.put(model.predict(X[:3]).tolist())
    refit = rbfnet.RBFNetRegressor(folds=0, max_nodes=5).fit(X, X[:, 0])
    queue.put(refit.n_nodes_)


def test_predict_and_fit_in_a_forked_child():
    X = np.random.default_rng(0).normal(size=(3000, 5))
    model = rbfnet.RBFNetRegressor(folds=0, max_nodes=20).fit(X, X[:, 0])
    expected = model.predict(X[:3]).tolist()
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(model, X, queue))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child still runs after 60 s")
    assert child.exitcode == 0
    assert queue.get(timeout=5) == expected
    assert queue.get(timeout=5) > 0
