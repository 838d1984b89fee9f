"""Training releases the GIL, and Ctrl-C (SIGINT) stops it between two iterations."""
import os
import signal
import threading
import time

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from rbfnet import RBFNetRegressor


def long_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 6))
    y = np.sin(X).sum(axis=1) + 0.1 * rng.normal(size=3000)
    # Thousands of iterations unless stopped; max_seconds bounds the test if stopping failed.
    return X, y, RBFNetRegressor(max_nodes=2500, validation=0.0, patience=0, threads=1, max_seconds=60)


def test_training_releases_the_gil():
    X, y, model = long_problem()
    model.set_params(max_nodes=150)
    ticks = [0]
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    start = time.perf_counter()
    try:
        model.fit(X, y)
    finally:
        done.set()
        counter.join()
    elapsed = time.perf_counter() - start
    # A Python loop counts millions per second; holding the GIL through training would starve it
    # (the interpreter's 5 ms switch interval gives it a turn only at our per-iteration check).
    assert elapsed > 0.2, "the problem trained too fast to tell"
    assert ticks[0] > 100000 * elapsed


def check_ctrl_c_stops(model, X, y):
    """SIGINT half a second into fit() raises KeyboardInterrupt soon and leaves no model."""
    # The handler an interactive Python has. A process that a shell without job control starts
    # in the background inherits SIGINT ignored, and Python then installs none: SIGINT would
    # be ignored whatever rbfnet does.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            model.fit(X, y)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.perf_counter() - start < 30
    with pytest.raises(NotFittedError):
        model.predict(X)


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT to itself")
def test_ctrl_c_stops_training_with_keyboard_interrupt():
    X, y, model = long_problem()
    check_ctrl_c_stops(model, X, y)


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT to itself")
def test_ctrl_c_stops_cross_validation_with_keyboard_interrupt():
    X, y, model = long_problem()
    # 3,000 rows: small enough for auto's folds, each of which grows for seconds on one thread.
    model.set_params(max_nodes=300, validation=0.2, max_seconds=0.0)
    check_ctrl_c_stops(model, X, y)
