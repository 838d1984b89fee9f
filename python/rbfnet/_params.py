"""The estimators' training parameters: one for each config key that shapes a model, named
like the key, with the CLI's default, passed to the C++ config schema as text so that a
value is checked exactly as in a YAML file."""
from collections import namedtuple

import numpy as np

Param = namedtuple("Param", "name key default")

# In the order of configs/default.yaml. Not here: data.path, target, features, delimiter and
# skip_rows, validation_path and weight (the arrays and fit's sample_weight replace the CSV), data.task (the estimator's class decides it), and
# output.* and logging.iteration_log / progress (save() and history_ replace them).
PARAMS = (
    Param("validation", "data.validation", 0.2),
    Param("seed", "data.seed", 42),
    Param("stratify", "data.stratify", True),
    Param("folds", "data.folds", "auto"),
    Param("average_folds", "data.average_folds", True),
    Param("categorical", "data.categorical", "auto"),
    Param("missing", "data.missing", "auto"),
    Param("rare_level_rows", "data.rare_level_rows", 10),
    Param("max_levels", "data.max_levels", 30),
    Param("pool", "candidates.pool", 1000),
    Param("width_factors", "candidates.width_factors", (0.5, 1.0, 2.0)),
    Param("sigma0", "candidates.sigma0", 0.0),
    Param("sigma0_sample", "candidates.sigma0_sample", 1000),
    Param("memory_budget_mb", "candidates.memory_budget_mb", "auto"),
    Param("strategy", "trainer.strategy", "ols"),
    # `lambda` is a Python keyword, and a trailing underscore marks fitted attributes.
    Param("reg_lambda", "trainer.lambda", 0.0),
    Param("output_ridge", "trainer.output_ridge", "auto"),
    Param("linear_terms", "trainer.linear_terms", "auto"),
    Param("dependency_tol", "trainer.dependency_tol", "auto"),
    Param("precision", "trainer.precision", "auto"),
    Param("threads", "trainer.threads", 0),
    Param("partitions", "trainer.partitions", 1),
    Param("max_nodes", "stopping.max_nodes", 300),
    Param("goal", "stopping.goal", 0.0),
    Param("patience", "stopping.patience", 30),
    Param("refit", "stopping.refit", False),
    Param("max_seconds", "stopping.max_seconds", 0.0),
    Param("refine_every", "refine.every", 0),
    Param("refine_at_end", "refine.at_end", False),
    Param("refine_method", "refine.method", "auto"),
    Param("refine_epochs", "refine.epochs", 50),
    Param("refine_learning_rate", "refine.learning_rate", 0.01),
    Param("refine_damping", "refine.damping", 1e-3),
    Param("refine_ridge", "refine.ridge", 0.0),
    Param("refine_patience", "refine.patience", 10),
    Param("backend", "backend.kind", "auto"),
    Param("switch_at_nodes", "backend.switch_at_nodes", 0),
    Param("switch_confirm", "backend.confirm", 3),
    Param("gpu_device", "backend.gpu_device", 0),
    # None: the one gpu_device; a list of device indices: one row shard per entry.
    Param("gpu_devices", "backend.gpu_devices", None),
    Param("gpu_memory_budget_mb", "backend.gpu_memory_budget_mb", 0.0),
    Param("gpu_memory", "backend.gpu_memory", "auto"),
    Param("gpu_basis", "backend.gpu_basis", "auto"),
    Param("gpu_overhead_ms", "backend.gpu_overhead_ms", 0.0),
    Param("gpu_bandwidth_gbs", "backend.gpu_bandwidth_gbs", 0.0),
    Param("gpu_gflops", "backend.gpu_gflops", 0.0),
    Param("migration_fixed_ms", "backend.migration_fixed_ms", 0.0),
    Param("migration_gbs", "backend.migration_gbs", 0.0),
    # The CLI logs at info; a library inside a grid search should stay quiet unless asked.
    Param("log_level", "logging.level", "warn"),
)


# scikit-learn's names for settings the table above already has: None leaves them to the
# table's parameter; given, they win. random_state -> seed, n_jobs -> threads (None and -1:
# every core, -2: all but one, ...), verbose -> log_level (1: info, with a progress line every
# second of growth; 2: debug).
SKLEARN_PARAMS = (
    Param("random_state", "data.seed", None),
    Param("n_jobs", "trainer.threads", None),
    Param("verbose", "logging.level", 0),
    # No config key: fit() continues from the fitted network (as partial_fit always does).
    Param("warm_start", None, False),
    # No config key: the classifier multiplies each row's sample weight by its class's weight
    # ("balanced": rows / (classes x rows of the class), or a dict {class: weight}).
    Param("class_weight", None, None),
)


def _seed(random_state):
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    raise ValueError("random_state must be None, an integer or a numpy RandomState, got %r" % (random_state,))


def _threads(n_jobs):
    if not isinstance(n_jobs, (int, np.integer)) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise ValueError("n_jobs must be None or a non-zero integer (-1: every core), got %r" % (n_jobs,))
    if n_jobs > 0:
        return int(n_jobs)
    import os

    return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs)) if n_jobs < -1 else 0


def _log_level(verbose, log_level):
    if not isinstance(verbose, (int, np.integer)) or isinstance(verbose, bool) or verbose < 0:
        raise ValueError("verbose must be an integer >= 0, got %r" % (verbose,))
    if verbose >= 2:
        return "debug"
    return "info" if verbose == 1 else log_level


def _text(value):
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


def settings(estimator):
    """(config key, values as text, parameter name) for every parameter of `estimator`."""
    out = []
    for p in PARAMS:
        value = getattr(estimator, p.name)
        if p.name == "seed" and getattr(estimator, "random_state", None) is not None:
            value = _seed(estimator.random_state)
        elif p.name == "threads" and getattr(estimator, "n_jobs", None) is not None:
            value = _threads(estimator.n_jobs)
        elif p.name == "log_level":
            value = _log_level(getattr(estimator, "verbose", 0), value)
        if value is None:
            continue  # the key's default: no value
        if isinstance(value, (list, tuple, np.ndarray)):
            values = [_text(v) for v in value]
        else:
            values = [_text(value)]
        out.append((p.key, values, p.name))
    return out


def _from_text(text, default):
    """A config value's YAML text as a Python value of the default's type."""
    if default is None:  # gpu_devices: "~" (none) or a list of integers
        return None if text == "~" else tuple(int(v) for v in text.strip("[]").split(",") if v.strip())
    if isinstance(default, bool):
        return text == "true"
    if isinstance(default, tuple):
        return tuple(float(v) for v in text.strip("[]").split(",") if v.strip())
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    if text == "auto":
        return text
    try:
        return int(text)  # folds: "auto" or an integer
    except ValueError:
        pass
    try:
        return float(text)  # memory_budget_mb, dependency_tol: "auto" or a number
    except ValueError:
        return text


def params_from_values(values):
    """Estimator parameters from {config key: YAML text} (a model file's recorded config)."""
    return {p.name: _from_text(values[p.key], p.default) for p in PARAMS if p.key in values}
