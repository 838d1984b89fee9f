"""What the regressor and the classifier share: the parameters, training through the C++
trainer, the fitted attributes and model files."""
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ._compat import FINITE_KEYWORD, validate_data
from ._native import native
from ._params import params_from_values, settings
from ._table import is_table, split_columns

# Accepted as they are (read in place when C-contiguous); anything else is converted to float64.
FLOAT_DTYPES = (np.float64, np.float32)


def _columns_by_name(estimator, X):
    """For a model loaded from a file: X's columns in the order the model was trained on, when
    both have names. A DataFrame whose columns are the training features in another order, or
    with more columns, is reordered (extra columns are left out), and one that lacks a feature
    is an error. Files travel to code whose column order differs; without this a loaded model
    read swapped columns as they came and predicted wrong values silently. A model fitted in
    this session follows scikit-learn, whose validation refuses another order."""
    names = getattr(estimator, "feature_names_in_", None)
    columns = getattr(X, "columns", None)
    if not getattr(estimator, "_loaded_from_file", False) or names is None or columns is None:
        return X
    if not all(isinstance(c, str) for c in columns):
        return X
    names = [str(n) for n in names]
    if list(columns) == names:
        return X
    present = set(columns)
    missing = [n for n in names if n not in present]
    if missing:
        raise ValueError(
            "X lacks the column%s %s that the model was trained on (it has %s)"
            % ("s" if len(missing) > 1 else "", ", ".join(repr(n) for n in missing[:10]),
               ", ".join(repr(c) for c in list(columns)[:10]) + (" ..." if len(columns) > 10 else ""))
        )
    return X[names]


def target_names(y, default):
    """y's column names: a Series' name, a DataFrame's columns, else `default`."""
    name = getattr(y, "name", None)
    if name is not None and getattr(y, "ndim", 1) == 1:
        return [str(name)]
    columns = getattr(y, "columns", None)
    if columns is not None and len(columns) == len(default):
        return [str(c) for c in columns]
    return default


def row_weights(sample_weight, X):
    """fit's sample_weight as a float64 array of one weight per row of X (a scalar weighs every
    row alike), or None; the trainer refuses negative, non-finite and all-zero weights."""
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim == 0:
        weights = np.full(X.shape[0], float(weights))
    if weights.ndim != 1 or weights.shape[0] != X.shape[0]:
        raise ValueError("sample_weight must have one value per row of X (%d), got shape %r" % (X.shape[0], weights.shape))
    return np.ascontiguousarray(weights)


class RBFNetBase(BaseEstimator):
    """Parameters: see docs/PYTHON.md; each mirrors the config key of configs/default.yaml."""

    _task = ""  # the model files' task: "regression" or "classification"

    def __init__(
        self,
        max_nodes=300,
        validation=0.2,
        seed=42,
        stratify=True,
        folds="auto",
        average_folds=True,
        categorical="auto",
        missing="auto",
        rare_level_rows=10,
        max_levels=30,
        pool=1000,
        width_factors=(0.5, 1.0, 2.0),
        sigma0=0.0,
        sigma0_sample=1000,
        memory_budget_mb="auto",
        strategy="ols",
        reg_lambda=0.0,
        output_ridge="auto",
        linear_terms="auto",
        dependency_tol="auto",
        precision="auto",
        threads=0,
        partitions=1,
        goal=0.0,
        patience=30,
        refit=False,
        max_seconds=0.0,
        refine_every=0,
        refine_at_end=False,
        refine_method="auto",
        refine_epochs=50,
        refine_learning_rate=0.01,
        refine_damping=1e-3,
        refine_ridge=0.0,
        refine_patience=10,
        backend="auto",
        switch_at_nodes=0,
        switch_confirm=3,
        gpu_device=0,
        gpu_devices=None,
        gpu_memory_budget_mb=0.0,
        gpu_memory="auto",
        gpu_basis="auto",
        gpu_overhead_ms=0.0,
        gpu_bandwidth_gbs=0.0,
        gpu_gflops=0.0,
        migration_fixed_ms=0.0,
        migration_gbs=0.0,
        log_level="warn",
        random_state=None,
        n_jobs=None,
        verbose=0,
        warm_start=False,
        class_weight=None,
    ):
        self.max_nodes = max_nodes
        self.validation = validation
        self.seed = seed
        self.stratify = stratify
        self.folds = folds
        self.average_folds = average_folds
        self.categorical = categorical
        self.missing = missing
        self.rare_level_rows = rare_level_rows
        self.max_levels = max_levels
        self.pool = pool
        self.width_factors = width_factors
        self.sigma0 = sigma0
        self.sigma0_sample = sigma0_sample
        self.memory_budget_mb = memory_budget_mb
        self.strategy = strategy
        self.reg_lambda = reg_lambda
        self.output_ridge = output_ridge
        self.linear_terms = linear_terms
        self.dependency_tol = dependency_tol
        self.precision = precision
        self.threads = threads
        self.partitions = partitions
        self.goal = goal
        self.patience = patience
        self.refit = refit
        self.max_seconds = max_seconds
        self.refine_every = refine_every
        self.refine_at_end = refine_at_end
        self.refine_method = refine_method
        self.refine_epochs = refine_epochs
        self.refine_learning_rate = refine_learning_rate
        self.refine_damping = refine_damping
        self.refine_ridge = refine_ridge
        self.refine_patience = refine_patience
        self.backend = backend
        self.switch_at_nodes = switch_at_nodes
        self.switch_confirm = switch_confirm
        self.gpu_device = gpu_device
        self.gpu_devices = gpu_devices
        self.gpu_memory_budget_mb = gpu_memory_budget_mb
        self.gpu_memory = gpu_memory
        self.gpu_basis = gpu_basis
        self.gpu_overhead_ms = gpu_overhead_ms
        self.gpu_bandwidth_gbs = gpu_bandwidth_gbs
        self.gpu_gflops = gpu_gflops
        self.migration_fixed_ms = migration_fixed_ms
        self.migration_gbs = migration_gbs
        self.log_level = log_level
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.warm_start = warm_start
        self.class_weight = class_weight

    # ---- training ----

    def _continued(self, warm):
        """The fitted network to continue from (warm_start, partial_fit), or None."""
        return getattr(self, "network_", None) if warm else None

    def _keeping_state_on_failure(self, fit, *args):
        """Runs `fit`; if it raises (bad input, an interrupt, a device error), every attribute is
        put back as it was, so the estimator never answers with one fit's network under another
        fit's classes, feature names or shapes."""
        saved = dict(self.__dict__)
        try:
            return fit(*args)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    def _validate_fit(self, X, y, init, **kwargs):
        """(numbers, text columns, y) of fit's X and y. X may be raw tabular data: text and
        category columns, missing values (NaN, None) where `missing` is auto; rbfnet's encoding
        (one-hot levels, filled values, docs/PYTHON.md) turns it into features and goes into the
        model. Continuing, the model's category columns stay categories."""
        table = is_table(X)
        finite = {FINITE_KEYWORD: "allow-nan" if self.missing == "auto" else True}
        X, y = validate_data(self, X, y, dtype=None if table else FLOAT_DTYPES, order="C", ensure_min_samples=2,
                             reset=init is None, **finite, **kwargs)
        numbers, text = split_columns(X, self._text_indices() if init is not None else ())
        return numbers, text, y

    def _text_indices(self):
        """The fitted model's category columns, by index among its columns."""
        columns = list(self.network_.columns)
        return [columns.index(name) for name in self.network_.text_columns]

    def _train(self, X, y, classes, target_names, init=None, text=(), sample_weight=None):
        """Trains on validated arrays: X (n, d) float64/float32 C-contiguous, y (n, targets),
        `text` the text columns of raw tabular X, `sample_weight` (n,) or None; with `init`,
        continues from that network's nodes (docs/PYTHON.md, continued training)."""
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            names = ["x%d" % j for j in range(X.shape[1])]
        y = np.ascontiguousarray(y, dtype=np.float64)
        self._loaded_from_file = False  # trained here now: scikit-learn's column rule
        network, history, summary = native.train(X, y, classes, [str(n) for n in names], target_names, settings(self),
                                                 init, list(text), sample_weight)
        self._set_network(network)
        self.history_ = {k: (np.array(v, dtype=str) if isinstance(v, list) else v) for k, v in history.items()}
        self.fit_summary_ = summary
        return self

    def _set_network(self, network):
        self.network_ = network
        self.n_nodes_ = network.nodes
        self.centers_ = network.centers
        self.widths_ = network.widths
        self.weights_ = network.weights
        self.bias_ = network.bias
        self.linear_coef_ = network.linear
        self.x_mean_ = network.x_mean
        self.x_scale_ = network.x_scale

    def _checked(self, X):
        """(numbers, text columns) of X validated for prediction, its columns by name for a
        loaded model; raw tabular X for a model trained on it (missing values allowed)."""
        check_is_fitted(self, "network_")
        X = _columns_by_name(self, X)
        table = is_table(X)
        encoded = bool(self.network_.encoding)
        finite = {FINITE_KEYWORD: "allow-nan" if encoded else True}
        X = validate_data(self, X, dtype=None if table else FLOAT_DTYPES, order="C", reset=False, **finite)
        if not table and not encoded:
            return X, []
        return split_columns(X, self._text_indices())

    def _scores(self, X):
        """Raw network outputs (n, k)."""
        X, text = self._checked(X)  # first: it raises NotFittedError before network_ is read
        return self.network_.predict(X, text)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing == "auto"  # filled in, with an indicator
        return tags

    def _more_tags(self):  # scikit-learn < 1.6
        return {"allow_nan": self.missing == "auto"}

    # ---- model files ----

    def save(self, path):
        """Writes the fitted model in rbfnet's model format (`rbfnet predict --model PATH` reads it)."""
        check_is_fitted(self, "network_")
        self.network_.save(str(path))

    @classmethod
    def load(cls, path):
        """A fitted estimator from a model file written by save() or by `rbfnet train`."""
        network = native.Model.load(str(path))
        if network.task != cls._task:
            raise ValueError("%s holds a %s model; rbfnet.load() picks the estimator for it" % (path, network.task))
        return cls._from_network(network)

    @classmethod
    def _from_network(cls, network):
        """A fitted estimator around `network`, with the settings the model was trained with."""
        params = {}
        if network.config_yaml:
            params = params_from_values(native.config_values(network.config_yaml))
        estimator = cls(**params)
        estimator._set_network(network)
        names = [str(n) for n in network.columns]
        estimator.n_features_in_ = len(names)
        # Arrays without names were trained as x0, x1, ...: such a model has no feature names.
        if names and names != ["x%d" % j for j in range(len(names))]:
            estimator.feature_names_in_ = np.array(names, dtype=object)
        estimator._loaded_from_file = True
        estimator.history_ = None
        estimator.fit_summary_ = None
        return estimator
