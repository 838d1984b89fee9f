"""The parameters mirror the config schema: one per training key, with its default, checked by
the same C++ validation as YAML files and command-line flags."""
import inspect

import numpy as np
import pytest

from rbfnet import RBFNetClassifier, RBFNetRegressor
from rbfnet._native import native
from rbfnet._params import PARAMS, SKLEARN_PARAMS, params_from_values

# Keys with no parameter, and why: the arrays replace the CSV files and their reading options, the
# estimator's class is the task, save() replaces output.*, history_ the iteration log.
NOT_PARAMETERS = {
    "data.path", "data.target", "data.features", "data.delimiter", "data.skip_rows", "data.task",
    "data.validation_path", "data.weight",  # fit(sample_weight=...) replaces the weight column
    "logging.iteration_log", "logging.progress",
    "output.model", "output.checkpoint_every", "output.checkpoint",
}


def test_every_training_key_has_a_parameter():
    keys = set(native.config_keys())
    covered = {p.key for p in PARAMS}
    assert covered <= keys
    assert keys - covered == NOT_PARAMETERS


@pytest.mark.parametrize("cls", [RBFNetRegressor, RBFNetClassifier])
def test_init_signature_matches_the_table(cls):
    signature = inspect.signature(cls.__init__).parameters
    defaults = {name: p.default for name, p in signature.items() if name != "self"}
    assert defaults == {p.name: p.default for p in PARAMS + SKLEARN_PARAMS}
    assert cls().get_params() == defaults


def test_defaults_are_the_cli_defaults():
    cli = params_from_values(native.config_defaults())
    ours = {p.name: p.default for p in PARAMS}
    assert cli.pop("log_level") == "info"  # a library logs warnings only, by choice
    ours.pop("log_level")
    assert cli == ours


@pytest.mark.parametrize(
    "param, value, message",
    [
        ("max_nodes", 0, "max_nodes must be an integer >= 1"),
        ("reg_lambda", -1.0, "reg_lambda must be a number >= 0"),
        ("backend", "tpu", "backend must be"),
        ("width_factors", (), "width_factors must be a non-empty list"),
        ("validation", 0.95, "validation must be a number in [0, 0.9]"),
        ("refine_method", "sgd", "refine_method must be"),
        ("log_level", "loud", "log_level must be"),
        ("gpu_devices", [], "gpu_devices must be a non-empty list of CUDA device indices >= 0, got an empty list"),
        ("gpu_devices", [0, -1], "gpu_devices must be a non-empty list of CUDA device indices >= 0, got -1"),
    ],
)
def test_bad_values_name_the_parameter(friedman, param, value, message):
    X, y = friedman
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        RBFNetRegressor(**{param: value}).fit(X, y)


def test_parameters_reach_the_trainer(friedman):
    X, y = friedman
    model = RBFNetRegressor(max_nodes=7, validation=0.0, patience=0, width_factors=(1.0,), threads=1).fit(X, y)
    assert model.n_nodes_ == 7
    assert model.fit_summary_["validation_rows"] == 0
    assert model.fit_summary_["candidates"] == len(X)  # every row, one width
    recorded = params_from_values(native.config_values(model.network_.config_yaml))
    assert recorded == {p.name: v for p, v in ((p, model.get_params()[p.name]) for p in PARAMS)}


def test_refit_grows_the_kept_node_count_on_every_row(friedman):
    X, y = friedman
    common = dict(validation=0.25, folds=0, patience=5, max_nodes=150, threads=1)
    early = RBFNetRegressor(**common).fit(X, y)
    refit = RBFNetRegressor(refit=True, **common).fit(X, y)
    assert early.fit_summary_["refit"] is None
    assert refit.fit_summary_["refit"]["nodes"] == early.n_nodes_ == refit.n_nodes_
    assert refit.fit_summary_["refit"]["rows"] == len(X)
    # The refit model is the one grown to that count on every row without validation, with the
    # output ridge penalty that validation chose.
    assert refit.fit_summary_["output_ridge"] == early.fit_summary_["output_ridge"]
    direct = RBFNetRegressor(validation=0.0, patience=0, max_nodes=early.n_nodes_, threads=1,
                             output_ridge=early.fit_summary_["output_ridge"]).fit(X, y)
    assert np.array_equal(refit.centers_, direct.centers_)
    assert np.array_equal(refit.weights_, direct.weights_)
    assert params_from_values(native.config_values(refit.network_.config_yaml))["refit"] is True


def test_gpu_devices_are_recorded_as_given(friedman):
    # On the CPU backend the device list is not used, but it is part of the recorded config.
    X, y = friedman
    for devices in [(0, 0), None]:
        model = RBFNetRegressor(max_nodes=3, backend="cpu", gpu_devices=devices, threads=1).fit(X, y)
        recorded = params_from_values(native.config_values(model.network_.config_yaml))
        assert recorded["gpu_devices"] == devices


def test_small_data_are_cross_validated_by_default(friedman):
    X, y = friedman
    model = RBFNetRegressor(max_nodes=60, threads=1).fit(X, y)
    cv = model.fit_summary_["cross_validation"]
    assert cv["folds"] == 5
    assert cv["nodes"] > 5
    # The model on every row averaged with the 5 folds' models of as many nodes.
    assert cv["averaged_models"] == 6
    assert model.n_nodes_ == 6 * cv["nodes"]
    assert cv["widths"] in ([0.5, 1.0, 2.0], [1.0, 2.0])
    assert cv["rmse"] > 0 and cv["accuracy"] is None
    # Friedman's target needs its Gaussians: the lowest mean error is the choice.
    assert cv["lowest_nodes"] == cv["nodes"] and cv["lowest_rmse"] == cv["rmse"]
    assert model.fit_summary_["validation_rows"] == 0  # the chosen model is grown on every row
    assert model.fit_summary_["train_rows"] == len(X)
    held_out = RBFNetRegressor(max_nodes=60, threads=1, folds=0).fit(X, y)
    assert held_out.fit_summary_["cross_validation"] is None
    assert held_out.fit_summary_["validation_rows"] == 80


def test_average_folds_false_keeps_the_model_on_every_row(friedman):
    X, y = friedman
    averaged = RBFNetRegressor(max_nodes=60, threads=1).fit(X, y)
    one = RBFNetRegressor(max_nodes=60, threads=1, average_folds=False).fit(X, y)
    cv = one.fit_summary_["cross_validation"]
    assert cv["averaged_models"] == 0
    assert one.n_nodes_ == cv["nodes"] == averaged.fit_summary_["cross_validation"]["nodes"]
    # The averaged model's first nodes are the one model's.
    assert np.array_equal(averaged.centers_[: one.n_nodes_], one.centers_)
    recorded = params_from_values(native.config_values(one.network_.config_yaml))
    assert recorded["average_folds"] is False


def test_folds_are_checked_like_the_config_key(friedman):
    X, y = friedman
    with pytest.raises(ValueError, match="folds.*must be 'auto', 0 or an integer from 2 to 20, got 1"):
        RBFNetRegressor(folds=1).fit(X, y)
    with pytest.raises(ValueError, match="data.folds 3: stopping.refit grows again after a hold-out"):
        RBFNetRegressor(folds=3, refit=True).fit(X, y)


def _shape(value):
    """The keys of nested dicts, with their leaves' kinds: what two summaries must share."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    return None if value is None else "value"


def test_fit_summary_has_the_cli_json_summarys_fields(rbfnet_cli, repo, tmp_path):
    import json
    import subprocess

    import pandas as pd

    iris = pd.read_csv(repo / "data" / "iris.csv")
    X, y = iris.drop(columns="species"), iris["species"]
    model = RBFNetClassifier(max_nodes=5, folds=0, threads=1).fit(X, y)
    summary_path = tmp_path / "summary.json"
    subprocess.run([rbfnet_cli, "train", "--data", str(repo / "data" / "iris.csv"), "--target", "species",
                    "--nodes", "5", "--folds", "0", "--threads", "1", "--quiet", "--out", str(tmp_path / "i.rbfn"),
                    "--metrics-json", str(summary_path)], check=True, capture_output=True)
    cli = json.loads(summary_path.read_text())
    for only_the_cli_has in ("model", "iteration_log"):  # file names: the CLI's own
        del cli[only_the_cli_has]
    assert _shape(model.fit_summary_) == _shape(cli)
    assert model.fit_summary_["candidates_stored"] is True
    assert model.fit_summary_["candidate_storage_reason"].startswith("it fits")
