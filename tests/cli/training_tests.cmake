# End-to-end tests of training features through the rbfnet binary: output ridge, linear terms,
# refinement, candidate storage, cross-validation, refit, predict, inspect and evaluate. Uses
# rbf_cli_test and the folders set in cli_tests.cmake, included before this file.

# --- output ridge ------------------------------------------------------------------------------
# A training without linear terms chooses a penalty on the output weights by validation (bundled
# diabetes: noisy enough that one beats least squares), and the model it saves evaluates and predicts.
rbf_cli_test(output_ridge_default_train
  STDOUT "event: output ridge [0-9.e+-]+ \\(chosen on validation\\): validation RMSE [0-9.]+ -> [0-9.]+\n"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target progression --backend cpu --quiet
    --log-level warn --linear-terms off --folds 0 --out ridge.rbfn)
set_tests_properties(cli.output_ridge_default_train PROPERTIES FIXTURES_SETUP ridge_model)
rbf_cli_test(output_ridge_evaluate STDOUT "progression +RMSE [0-9.]+ +MAE [0-9.]+ +R2 0\\.[45]"
  ARGS evaluate --model ridge.rbfn --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target progression)
set_tests_properties(cli.output_ridge_evaluate PROPERTIES FIXTURES_REQUIRED ridge_model)
rbf_cli_test(output_ridge_predict STDOUT "^progression\n([0-9][0-9.e+-]*\n)+$" NOT_STDOUT "nan|inf"
  ARGS predict --model ridge.rbfn --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv)
set_tests_properties(cli.output_ridge_predict PROPERTIES FIXTURES_REQUIRED ridge_model)
# A fixed penalty applies as given: a huge one leaves the mean of the training targets.
# (Cross-validation keeps 8 nodes on diabetes; --nodes 20 spares it growing up to 300 per fold, a
# cost that grows tenfold under the sanitizers and qemu.)
rbf_cli_test(output_ridge_fixed STDOUT "event: output ridge 1e\\+09\n.*all rows: +RMSE [0-9.]+ \\(target units\\), R2 0\\.0000"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target progression --backend cpu --quiet
    --log-level warn --linear-terms off --output-ridge 1e9 --nodes 20 --out ridge_fixed.rbfn)
rbf_cli_test(output_ridge_negative EXIT 2 STDERR "--output-ridge must be 'auto' or a number >= 0, got '-1'"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --output-ridge -1)
rbf_cli_test(output_ridge_default_auto STDOUT "\n  output_ridge: auto\n" ARGS train --print-config)

# --- linear terms -----------------------------------------------------------------------------
# Diabetes with linear terms: the summary reports them, inspect lists them (text and JSON), and
# the model evaluates and predicts with them. Cross-validation keeps 0 nodes here and under 10
# with linear terms off; --nodes 20 only spares it growing up to 300 per fold.
rbf_cli_test(linear_terms_train
  STDOUT "\n  linear terms: 10 features, ridge [0-9.e+-]+ \\(chosen by generalized cross-validation\\)\n"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target progression --backend cpu --quiet
    --log-level warn --linear-terms on --nodes 20 --out linear.rbfn)
set_tests_properties(cli.linear_terms_train PROPERTIES FIXTURES_SETUP linear_model)
rbf_cli_test(linear_terms_inspect
  STDOUT "\n  linear terms \\(standardized inputs and outputs\\):\n    progression: age -?[0-9.e+-]+, sex -?[0-9.e+-]+, bmi "
  ARGS inspect linear.rbfn)
rbf_cli_test(linear_terms_inspect_json
  STDOUT "\"linear_terms\": ?.\"outputs\": ?.\"progression\"., ?\"weights\": ?..-?[0-9]"
  ARGS inspect linear.rbfn --json)
rbf_cli_test(linear_terms_evaluate STDOUT "progression +RMSE [0-9.]+ +MAE [0-9.]+ +R2 0\\.[45]"
  ARGS evaluate --model linear.rbfn --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target progression)
rbf_cli_test(linear_terms_predict STDOUT "^progression\n([0-9][0-9.e+-]*\n)+$" NOT_STDOUT "nan|inf"
  ARGS predict --model linear.rbfn --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv)
set_tests_properties(cli.linear_terms_inspect cli.linear_terms_inspect_json cli.linear_terms_evaluate
  cli.linear_terms_predict PROPERTIES FIXTURES_REQUIRED linear_model)
# Off: no linear terms in the model.
rbf_cli_test(linear_terms_off STDOUT "\"linear_ridge\": ?null"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target progression --backend cpu --quiet
    --log-level warn --linear-terms off --nodes 20 --out linear_off.rbfn --metrics-json /dev/stdout)
rbf_cli_test(linear_terms_bad_value EXIT 2 STDERR "--linear-terms must be "
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --linear-terms sometimes)
rbf_cli_test(linear_terms_default_auto STDOUT "\n  linear_terms: auto\n" ARGS train --print-config)

# --- candidate storage -------------------------------------------------------------------------
# The summary and the JSON say whether Phi_C was stored and why (contracts/candidate_storage.hpp).
rbf_cli_test(storage_stored_and_why STDOUT "Phi_C stored: it fits in 0\\.2 MiB"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species --nodes 5 --folds 0
    --out storage_stored.rbfn)
rbf_cli_test(storage_computed_and_why
  STDOUT "Phi_C computed on every pass: its 0\\.2 MiB exceed the budget of 0\\.1 MiB \\(candidates\\.memory_budget_mb\\)"
  ARGS train --config ${RBF_CLI_DATA}/tiny_candidate_budget.yaml --data ${PROJECT_SOURCE_DIR}/data/iris.csv
    --target species --nodes 5 --folds 0 --out storage_computed.rbfn)
rbf_cli_test(storage_computed_and_why_json
  STDOUT "\"candidates_stored\":false,\"candidate_storage_reason\":\"its 0\\.2 MiB exceed the budget"
  ARGS train --config ${RBF_CLI_DATA}/tiny_candidate_budget.yaml --data ${PROJECT_SOURCE_DIR}/data/iris.csv
    --target species --nodes 5 --folds 0 --quiet --out storage_computed_json.rbfn --metrics-json /dev/stdout)

# --- refinement -------------------------------------------------------------------------------
# Iris with refinement every 10 nodes and at the end (Levenberg-Marquardt): the refinements are
# reported, the refined model predicts every row, and it evaluates as well as a grown one does.
rbf_cli_test(refine_train
  STDOUT "event: refine 10 nodes on the cpu \\(lm.*event: at the end: refine.*validation: +accuracy (0\\.9[0-9]*|1\\.0000)"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species --nodes 20 --backend cpu
    --refine-every 10 --refine-at-end --refine-method lm --refine-epochs 5 --quiet --log-level warn
    --out refined.rbfn --log-iter refined_iterations.csv)
set_tests_properties(cli.refine_train PROPERTIES FIXTURES_SETUP refined_model)
rbf_cli_test(refine_evaluate STDOUT "accuracy (0\\.9[5-9][0-9]*|1\\.0000)"
  ARGS evaluate --model refined.rbfn --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species)
set_tests_properties(cli.refine_evaluate PROPERTIES FIXTURES_REQUIRED refined_model)
rbf_cli_test(refine_bad_method EXIT 2 STDERR "--refine-method must be one of adam, lm, auto, got 'sgd'"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --refine-method sgd)
rbf_cli_test(refine_bad_rate EXIT 2 STDERR "--refine-lr must be a number in .0, 10., got 0"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --refine-lr 0)
rbf_cli_test(refine_yaml_typo EXIT 2 STDERR "unknown key 'refine.evrey' \\(did you mean 'refine.every'\\?\\)"
  ARGS train --config ${RBF_CLI_DATA}/refine_typo.yaml --print-config)

# --- list flags and generated data are checked before any work ------------------------------
rbf_cli_test(target_only_commas EXIT 2 STDERR "--target needs at least one column name or index, got ','"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target , --nodes 2)
rbf_cli_test(features_empty_equals EXIT 2 STDERR "--features needs at least one column name or index, got ''"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --features=)
rbf_cli_test(bench_one_synthetic_row EXIT 2 STDERR "--synthetic needs ROWS >= 2 .*got '1,5'"
  ARGS bench --synthetic 1,5 --backends cpu --out never-made)
# Found by the argv fuzzer (tests/cli/argv_fuzz.py, rows A1-A6 of docs/RELIABILITY.md): a switch
# given a value ended in CLI11's "Could not convert: --json = x"; a value in brackets was read
# as a list ("--data [good.csv]" read good.csv); blanks around a path were dropped, so another
# file than the one named was read.
rbf_cli_test(switch_with_value EXIT 2 STDERR "^rbfnet: error: --json is a switch and takes no value, got '--json=x'\n$"
  ARGS inspect model.rbfn --json=x)
rbf_cli_test(train_switch_with_value EXIT 2 STDERR "--print-config is a switch and takes no value, got '--print-config=yes'"
  ARGS train --print-config=yes)
rbf_cli_test(value_in_brackets_is_not_a_list EXIT 2 STDERR "data file '\\[${RBF_CLI_DATA}/good\\.csv\\]' does not exist"
  ARGS train --data [${RBF_CLI_DATA}/good.csv] --target y --nodes 2 --out never.rbfn)
rbf_cli_test(target_in_brackets_is_not_a_list EXIT 2 STDERR "'\\[y\\]'"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target [y] --nodes 2 --out never.rbfn)
# Also found by it: CLI11's own wording for a flag without its value ("--data: 1 required FILE
# missing"), for a repeated --data ("At Most 1 required but received 2", while a repeated --nodes
# took the last value) and for words after "--" (listed in a scrambled order).
rbf_cli_test(flag_without_value EXIT 2 STDERR "^rbfnet: error: --data needs a value \\(FILE\\) \\(see 'rbfnet predict --help'\\)\n$"
  ARGS predict --model model.rbfn --data)
rbf_cli_test(repeated_flag_takes_the_last EXIT 2 STDERR "data file 'second\\.csv' does not exist"
  ARGS predict --model ${RBF_CLI_DATA}/not_a_model.rbfn --data first.csv --data second.csv)
rbf_cli_test(double_dash_refused EXIT 2
  STDERR "^rbfnet: error: '--' is not used by 'rbfnet evaluate': give every value after its flag \\(a file whose name starts with '-' as \\./NAME\\)\n$"
  ARGS evaluate --model m.rbfn --data d.csv --target y -- --delimiter auto)
rbf_cli_test(blank_around_path_kept EXIT 2 STDERR "data file ' ${RBF_CLI_DATA}/good\\.csv' does not exist"
  ARGS train "--data= ${RBF_CLI_DATA}/good.csv" --target y --nodes 2 --out never.rbfn)

# --- what ML users expect: label hints, probabilities, inspection, JSON, quiet runs ---------------
# Integer class labels read as a regression target are trained as asked, with a warning naming
# the flag; --task regression says it is meant and silences it.
rbf_cli_test(integer_labels_warn
  STDERR "warn.*target column 'label' holds only 3 distinct integer values \\(0, 1, 2\\).*--task classification"
  ARGS train --data ${RBF_CLI_DATA}/int_labels.csv --target label --nodes 3 --quiet --out int_labels.rbfn)
rbf_cli_test(integer_labels_regression_meant NOT_STDERR "distinct integer"
  ARGS train --data ${RBF_CLI_DATA}/int_labels.csv --target label --task regression --nodes 3 --quiet
    --out int_labels.rbfn)
rbf_cli_test(integer_labels_classification STDOUT "training: +accuracy"
  ARGS train --data ${RBF_CLI_DATA}/int_labels.csv --target label --task classification --nodes 3 --quiet
    --out int_labels.rbfn)

# A quiet run off a terminal prints the summary only: nothing on stderr. Both errors of the
# summary are in target units, with R2; the JSON summary goes through the output policy.
rbf_cli_test(quiet_train_summary_only
  STDOUT "training: +RMSE [0-9.e+-]+ \\(target units\\), R2 [0-9.-]+, [0-9]+ rows\n  validation: +RMSE [0-9.e+-]+ \\(target units\\), R2"
  NOT_STDERR "." NOT_STDOUT "no usable GPU|standardized"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target -1 --nodes 8 --folds 0 --quiet --out quiet.rbfn)
# Small data are cross-validated by default (data.folds auto): the summary says what the folds
# chose, in target units, and the JSON summary has it too.
rbf_cli_test(cross_validation_summary
  STDOUT "stopped: 5-fold cross-validation chose [0-9]+ nodes\n  training took [0-9.]+ s in all: the folds, the model on every row and its scoring\n  kept ([0-9]+ nodes with widths [0-9., ]+ x sigma0|0 nodes \\(linear terms and bias only\\)), chosen by 5-fold cross-validation in [0-9.]+ s \\(mean validation RMSE [0-9.]+\\), then grown on all 442 rows\n.*all rows: +RMSE [0-9.e+-]+ \\(target units\\), R2 0\\.[0-9]+, 442 rows\n"
  NOT_STDOUT "validation: " NOT_STDERR "."
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target -1 --nodes 20 --quiet --out cv.rbfn)
rbf_cli_test(cross_validation_json
  STDOUT "\"validation\":null,\"refit\":null,\"cross_validation\":\\{\"folds\":3,\"nodes\":[0-9]+,\"widths\":.[0-9.,]+.,\"rmse\":[0-9.e-]+,\"lowest_nodes\":[0-9]+,\"lowest_rmse\":[0-9.e-]+,\"accuracy\":[0-9.e-]+,"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species --nodes 12 --folds 3 --quiet
    --out cv_iris.rbfn --metrics-json /dev/stdout)
# A linear target with noise: a few Gaussians score lowest on the folds, but within one
# standard error of none, so the model keeps the linear terms only, and it predicts.
rbf_cli_test(cross_validation_keeps_the_linear_model
  STDOUT "chose 0 nodes\n  training took [0-9.]+ s in all: the folds, the model on every row and its scoring\n  kept 0 nodes \\(linear terms and bias only\\), chosen by 5-fold cross-validation in [0-9.]+ s \\(mean validation RMSE 0\\.2[0-9]+\\), then grown on all 120 rows\n  [1-9][0-9]* nodes? scored lowest \\(mean validation RMSE 0\\.2[0-9]+\\), within one standard error of no Gaussians: kept the simpler model\n.*linear terms: 3 features"
  ARGS train --data ${RBF_CLI_DATA}/linear_noise.csv --target y --nodes 10 --quiet --out linear_cv.rbfn)
set_tests_properties(cli.cross_validation_keeps_the_linear_model PROPERTIES FIXTURES_SETUP linear_cv_model)
rbf_cli_test(cross_validation_linear_model_predicts STDOUT "^y\n[0-9.-]+\n"
  ARGS predict --model linear_cv.rbfn --data ${RBF_CLI_DATA}/linear_noise.csv)
set_tests_properties(cli.cross_validation_linear_model_predicts PROPERTIES FIXTURES_REQUIRED linear_cv_model)
rbf_cli_test(cross_validation_linear_model_inspect
  STDOUT "regression, 0 nodes\n.*  no Gaussian nodes: the model is its linear terms and bias\n  linear terms" NOT_STDOUT "widths"
  ARGS inspect linear_cv.rbfn)
rbf_cli_test(cross_validation_linear_model_inspect_json STDOUT "\"widths\":null,"
  ARGS inspect linear_cv.rbfn --json)
set_tests_properties(cli.cross_validation_linear_model_inspect cli.cross_validation_linear_model_inspect_json
  PROPERTIES FIXTURES_REQUIRED linear_cv_model)
# The default averages the model on every row with the 3 folds' models (4 x the chosen count,
# which inspect shows); --no-average-folds keeps the one model.
rbf_cli_test(cross_validation_averaged
  STDOUT "\"averaged_models\":4,.*chose [0-9]+ nodes\n.*\n  averaged with 3 models grown on the folds' training rows: [0-9]+ Gaussians in the model \\([0-9.]+ s. --no-average-folds keeps one\\)\n"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species --nodes 12 --folds 3 --quiet
    --out cv_iris_avg.rbfn --metrics-json /dev/stdout)
rbf_cli_test(cross_validation_not_averaged
  STDOUT "\"averaged_models\":0," NOT_STDOUT "averaged with"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species --nodes 12 --folds 3 --quiet
    --no-average-folds --out cv_iris_one.rbfn --metrics-json /dev/stdout)
rbf_cli_test(cross_validation_average_flags_exclude EXIT 2 STDERR "--average-folds excludes --no-average-folds"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species --average-folds --no-average-folds)
rbf_cli_test(cross_validation_average_default STDOUT "\n  average_folds: true\n" ARGS train --print-config)
rbf_cli_test(cross_validation_folds_one EXIT 2 STDERR "--folds must be 'auto', 0 or an integer from 2 to 20, got 1"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --folds 1)
rbf_cli_test(cross_validation_with_checkpoints EXIT 2
  STDERR "data.folds 5: checkpoints save one growth, and cross-validation runs several; set data.folds to 0 \\(--folds 0\\)"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species --folds 5 --checkpoint-every 10
    --out cv_ckpt.rbfn)
rbf_cli_test(metrics_json
  STDOUT "\\{\"task\":\"classification\",\"nodes\":[0-9]+,.*\"training\":\\{\"rows\":[0-9]+,\"rmse\":[0-9.e-]+,\"accuracy\":[0-9.]+\\},\"validation\":\\{.*\"model\":\"iris\\.rbfn\""
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species --nodes 12 --folds 0 --quiet --out iris.rbfn
    --metrics-json /dev/stdout)
set_tests_properties(cli.metrics_json PROPERTIES FIXTURES_SETUP iris_model)
# --refit: the node count kept on validation, grown again on every row (tests/test_refit.cpp
# has the trainer's side: the same network as a run to that count without validation).
add_test(NAME cli.refit_grows_the_kept_count_on_all_rows
  COMMAND ${CMAKE_COMMAND}
    "-DCMD=${RBF_CLI_LAUNCHER}$<TARGET_FILE:rbfnet>"
    "-DDATA=${PROJECT_SOURCE_DIR}/data/diabetes.csv" -DTARGET=progression
    "-DWORK=${RBF_CLI_WORK_DIR}/refit"
    -P ${RBF_CLI_TEST_DIR}/refit_expect.cmake
  WORKING_DIRECTORY ${RBF_CLI_WORK_DIR})
set_tests_properties(cli.refit_grows_the_kept_count_on_all_rows PROPERTIES LABELS cli)
rbf_cli_test(refit_and_no_refit EXIT 2 STDERR "--refit excludes --no-refit"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --refit --no-refit)
rbf_cli_test(metrics_json_is_input EXIT 2 STDERR "--metrics-json .* is the same file as --data"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --metrics-json ${RBF_CLI_DATA}/good.csv)

# predict: probabilities per class, passthrough columns, standard input.
rbf_cli_test(predict_proba_keep
  STDOUT "^petal_width,species,proba_setosa,proba_versicolor,proba_virginica\n0\\.2,setosa,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+\n"
  ARGS predict --model iris.rbfn --data ${PROJECT_SOURCE_DIR}/data/iris.csv --proba --keep -2)
# Fitted probabilities (softmax of the scaled scores): no field is exactly 0 or 1.
rbf_cli_test(predict_proba_never_certain NOT_STDOUT ",[01](,|\n)"
  ARGS predict --model iris.rbfn --data ${PROJECT_SOURCE_DIR}/data/iris.csv --proba)
rbf_cli_test(inspect_probability_scale STDOUT "probabilities: softmax of [0-9.e+]+ x the class scores"
  ARGS inspect iris.rbfn)
rbf_cli_test(predict_stdin STDOUT "^sepal_length,species\n5\\.1,setosa\n" INPUT ${PROJECT_SOURCE_DIR}/data/iris.csv
  ARGS predict --model iris.rbfn --data - --out - --id sepal_length)
rbf_cli_test(predict_keep_unknown EXIT 2 STDERR "unknown feature column 'speces' \\(did you mean 'species'\\?\\)"
  ARGS predict --model iris.rbfn --data ${PROJECT_SOURCE_DIR}/data/iris.csv --keep speces)
rbf_cli_test(predict_proba_regression EXIT 2 STDERR "--proba needs a classification model"
  ARGS predict --model quiet.rbfn --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --proba)
set_tests_properties(cli.predict_proba_keep cli.predict_stdin cli.predict_keep_unknown cli.predict_proba_never_certain
  cli.inspect_probability_scale PROPERTIES FIXTURES_REQUIRED iris_model)
set_tests_properties(cli.quiet_train_summary_only PROPERTIES FIXTURES_SETUP quiet_model)
set_tests_properties(cli.predict_proba_regression PROPERTIES FIXTURES_REQUIRED quiet_model)

# --init-model: continued training from quiet.rbfn's nodes (its features read by name), to 12 in all.
rbf_cli_test(init_model_continues STDOUT "continued: the first [0-9]+ nodes? came from --init-model"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target -1 --nodes 12 --folds 0 --patience 0
       --init-model quiet.rbfn --out continued.rbfn)
rbf_cli_test(init_model_is_not_an_output EXIT 2 STDERR "--out .*quiet\\.rbfn.* --init-model"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target -1 --init-model quiet.rbfn --out quiet.rbfn)
rbf_cli_test(init_model_and_resume EXIT 2 STDERR "--init-model excludes --resume|--resume excludes --init-model"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target -1 --init-model quiet.rbfn --resume quiet.rbfn)
rbf_cli_test(init_model_other_data EXIT 2 STDERR "unknown feature column 'age'"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species --init-model quiet.rbfn --out other.rbfn)
set_tests_properties(cli.init_model_continues cli.init_model_is_not_an_output cli.init_model_other_data
  PROPERTIES FIXTURES_REQUIRED quiet_model)

# inspect and evaluate --json (the regexes match '[' and ']' with '.': an unbalanced bracket
# would hide the ';' between the arguments of the test from CMake).
rbf_cli_test(inspect_text
  STDOUT "^model iris\\.rbfn: classification, [0-9]+ nodes\n  features \\(4\\): sepal_length, .*classes \\(3\\): setosa, versicolor, virginica\n  widths \\(standardized inputs\\): min .*trained by rbfnet .*training config:\n    data:"
  ARGS inspect iris.rbfn)
rbf_cli_test(inspect_json
  STDOUT "^\\{\"model\":\"iris\\.rbfn\",\"task\":\"classification\",\"nodes\":[0-9]+,\"features\":.\"sepal_length\",.*\"widths\":\\{\"min\":.*\"provenance\":\\{\"rbfnet_version\":.*\"config_yaml\":\"data:\\\\n"
  ARGS inspect iris.rbfn --json)
rbf_cli_test(evaluate_json
  STDOUT "^\\{\"model\":\"iris\\.rbfn\",.*\"accuracy\":0\\.9[0-9]*,\"macro_f1\":.*\"confusion\":..[0-9]+,[0-9]+,[0-9]+.,"
  ARGS evaluate --model iris.rbfn --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species --json)
rbf_cli_test(evaluate_stdin_error EXIT 2 STDERR "standard input:2:1: .*'oops'" INPUT ${RBF_CLI_DATA}/bad_iris_row.csv
  ARGS evaluate --model iris.rbfn --data - --target species)
set_tests_properties(cli.inspect_text cli.inspect_json cli.evaluate_json cli.evaluate_stdin_error
  PROPERTIES FIXTURES_REQUIRED iris_model)
rbf_cli_test(inspect_missing EXIT 2 STDERR "model file 'missing\\.rbfn' does not exist" ARGS inspect missing.rbfn)

# Width flags, column names: "did you mean", counting from the end, commas, repeated flags.
rbf_cli_test(width_flags STDOUT "width_factors: \\[1, 2\\.5\\]\n  sigma0: 0\\.7\n"
  ARGS train --sigma 0.7 --widths 1,2.5 --print-config)
rbf_cli_test(target_did_you_mean EXIT 2
  STDERR "unknown target column 'yy' \\(did you mean 'y'\\?\\): the header has no such name \\(columns: 'x1', 'x2', 'y'\\)"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target yy)
rbf_cli_test(target_repeated_replaces STDOUT "model: repeated\\.rbfn"
  ARGS train --data ${RBF_CLI_DATA}/comma_name.csv --target nope --target "price\\,usd" --nodes 2 --validation 0
    --quiet --out repeated.rbfn)
rbf_cli_test(target_index_out_of_range EXIT 2 STDERR "index -4 is out of range.*or -1 to -3 from the end"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target -4)

# A separate validation file: its rows are the validation rows, its classes matched by name.
rbf_cli_test(validation_data STDOUT "validation: +RMSE [0-9.e+-]+ \\(target units\\), R2 [0-9.e+-]+, 2 rows"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --validation-data ${RBF_CLI_DATA}/good_validation.csv
    --nodes 2 --quiet --out validation_data.rbfn)
rbf_cli_test(validation_data_unknown_class EXIT 2
  STDERR "bad_iris_row\\.csv:2:1: "
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species
    --validation-data ${RBF_CLI_DATA}/bad_iris_row.csv --nodes 2 --quiet --out never.rbfn)
rbf_cli_test(validation_data_new_class EXIT 2
  STDERR "int_labels\\.csv: class '2' in target column 'label' \\(data row 3\\) does not occur in the training data"
  ARGS train --data ${RBF_CLI_DATA}/two_classes.csv --target label --task classification
    --validation-data ${RBF_CLI_DATA}/int_labels.csv --nodes 2 --quiet --out never.rbfn)
rbf_cli_test(validation_data_is_output EXIT 2 STDERR "--out .* is the same file as --validation-data"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --validation-data ${RBF_CLI_DATA}/good_validation.csv
    --out ${RBF_CLI_DATA}/good_validation.csv)

# --- raw tabular data: categories and missing values ---------------------------------------------
# passengers.csv: a text column (Belfast, in 6 rows, is a rare level) and an age column with gaps
# (empty and NA). The model keeps the encoding: inspect lists it, and predict takes raw rows
# with the columns in another order, a gap and a level training never saw.
rbf_cli_test(raw_table_train STDOUT "model: passengers\\.rbfn"
  ARGS train --data ${RBF_CLI_DATA}/passengers.csv --target survived --backend cpu --quiet --log-level warn
    --nodes 5 --out passengers.rbfn)
set_tests_properties(cli.raw_table_train PROPERTIES FIXTURES_SETUP passengers_model)
rbf_cli_test(raw_table_inspect
  STDOUT "columns \\(3\\), encoded as the features:\n    port: categories, one-hot: Cherbourg, Queenstown, Southampton, and \\(other\\) for rare and unseen levels\n    age: numbers; a missing value reads as [0-9.]+ \\(the training median\\), flagged by 'age=\\(missing\\)'"
  ARGS inspect passengers.rbfn)
rbf_cli_test(raw_table_inspect_json STDOUT "\"columns\": ?.{\"name\": ?\"port\", ?\"kind\": ?\"categorical\""
  ARGS inspect passengers.rbfn --json)
rbf_cli_test(raw_table_predict STDOUT "^survived\n(no|yes)\n(no|yes)\n(no|yes)\n$"
  STDERR "note: 1 cell\\(s\\) of 'port' had levels without a feature of their own \\(rare or unseen in training; the first 'Atlantis'\\)"
  ARGS predict --model passengers.rbfn --data ${RBF_CLI_DATA}/passengers_new.csv)
rbf_cli_test(raw_table_evaluate STDOUT "60 rows\n  accuracy 0\\.[5-9]"
  ARGS evaluate --model passengers.rbfn --data ${RBF_CLI_DATA}/passengers.csv --target survived)
# A model's numeric column still refuses text.
rbf_cli_test(raw_table_predict_text_in_numbers EXIT 2
  STDERR "passengers_text_fare\\.csv:2:1: 'cheap' is not a number in column 1 \\('fare'\\); the model reads this column as numbers"
  ARGS predict --model passengers.rbfn --data ${RBF_CLI_DATA}/passengers_text_fare.csv)
set_tests_properties(cli.raw_table_inspect cli.raw_table_inspect_json cli.raw_table_predict cli.raw_table_evaluate
  cli.raw_table_predict_text_in_numbers PROPERTIES FIXTURES_REQUIRED passengers_model)
# Each turned off: the cell that needs it, and the key that turns it on.
rbf_cli_test(raw_table_categorical_off EXIT 2
  STDERR "passengers\\.csv:2:1: 'Queenstown' is not a number in column 1 \\('port'\\); data\\.categorical is off: set --categorical auto"
  ARGS train --data ${RBF_CLI_DATA}/passengers.csv --target survived --categorical off --out never.rbfn)
rbf_cli_test(raw_table_missing_off EXIT 2
  STDERR "passengers\\.csv:[0-9]+:2: missing value in column 2 \\('age'\\); data\\.missing is off"
  ARGS train --data ${RBF_CLI_DATA}/passengers.csv --target survived --missing off --out never.rbfn)
rbf_cli_test(raw_table_keys_default STDOUT "\n  categorical: auto\n  missing: auto\n  rare_level_rows: 10\n  max_levels: 30\n"
  ARGS train --print-config)

# Off a terminal, a cross-validated run logs one line per fold growth (not one per iteration).
rbf_cli_test(cross_validation_fold_lines
  STDERR "info: cross-validation: 5 folds x 2 width sets, each grown until 30 nodes, or as many as it had at its lowest validation error, bring no improvement \\(at most 20 nodes\\)\n.*info: cross-validation fold 1 of 5, widths 0\\.5,1,2: grew [0-9]+ nodes, lowest validation RMSE [0-9.]+ at [0-9]+ nodes\n"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target -1 --nodes 20 --out cv_lines.rbfn)

# Finite inputs the model cannot compute: an error naming the row and the feature, never inf or NaN.
rbf_cli_test(predict_row_beyond_the_model EXIT 2
  STDERR "huge_row\\.csv: data row 1: the model's output is not a finite number: feature '[a-z0-9_]+' is -?1e\\+308, more standard deviations"
  ARGS predict --model linear.rbfn --data ${RBF_CLI_DATA}/huge_row.csv)
set_tests_properties(cli.predict_row_beyond_the_model PROPERTIES FIXTURES_REQUIRED linear_model)

# --- outputs people read -------------------------------------------------------------------------
# A model is binary: '-' is refused as --out instead of creating a file named '-'.
rbf_cli_test(train_out_dash EXIT 2 STDERR "--out '-' would create a file named '-': a model is binary"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --out -)
# --keep of the target's own column: the prediction column is renamed, never a repeated header name.
rbf_cli_test(predict_keep_target_column STDOUT "^survived,survived_predicted\n"
  ARGS predict --model passengers.rbfn --data ${RBF_CLI_DATA}/passengers.csv --keep survived)
set_tests_properties(cli.predict_keep_target_column PROPERTIES FIXTURES_REQUIRED passengers_model)
# Class names with terminal escapes are shown as text, not sent to the terminal.
rbf_cli_test(escape_labels_train STDOUT "model: escape\\.rbfn"
  ARGS train --data ${RBF_CLI_DATA}/escape_labels.csv --target label --nodes 2 --folds 0 --quiet --out escape.rbfn)
set_tests_properties(cli.escape_labels_train PROPERTIES FIXTURES_SETUP escape_model)
string(ASCII 27 _rbf_escape)
rbf_cli_test(escape_labels_inspect STDOUT "classes \\(2\\): .*x1B.31mred" NOT_STDOUT "${_rbf_escape}"
  ARGS inspect escape.rbfn)
set_tests_properties(cli.escape_labels_inspect PROPERTIES FIXTURES_REQUIRED escape_model)
# A subnormal number is a number.
rbf_cli_test(subnormal_lambda STDOUT "\n  lambda: 5e-324\n" ARGS train --lambda 5e-324 --print-config)

# --- sample weights -----------------------------------------------------------------------------
# weighted.csv: a quarter of the rows weigh 0 and hold the target 50, the rest a smooth surface.
# With --weight those rows drop out of the fit and of every score: the weighted error is the
# surface's noise, where an unweighted fit misses by tens.
rbf_cli_test(weights_train
  STDOUT "\n  training: +RMSE 0\\.0[0-9]+ \\(target units\\), R2 0\\.99[0-9]+, [0-9]+ rows, weighted by column 'w'\n"
  ARGS train --data ${RBF_CLI_DATA}/weighted.csv --target y --weight w --backend cpu --quiet --log-level warn
    --folds 0 --out weighted.rbfn)
set_tests_properties(cli.weights_train PROPERTIES FIXTURES_SETUP weighted_model)
rbf_cli_test(weights_evaluate
  STDOUT "120 rows, weighted by column 'w'\n  y +RMSE 0\\.0[0-9]+ +MAE 0\\.0[0-9]+ +R2 0\\.99"
  ARGS evaluate --model weighted.rbfn --data ${RBF_CLI_DATA}/weighted.csv --target y --weight w)
rbf_cli_test(weights_evaluate_unweighted STDOUT "120 rows\n  y +RMSE [1-9][0-9.]+ "
  ARGS evaluate --model weighted.rbfn --data ${RBF_CLI_DATA}/weighted.csv --target y)
set_tests_properties(cli.weights_evaluate cli.weights_evaluate_unweighted PROPERTIES FIXTURES_REQUIRED weighted_model)
rbf_cli_test(weights_negative EXIT 2
  STDERR "weighted_negative.csv:5:3: the sample weight -1 in column 'w' is negative; weights must be 0 or more"
  ARGS train --data ${RBF_CLI_DATA}/weighted_negative.csv --target y --weight w --out never.rbfn)
rbf_cli_test(weights_all_zero EXIT 2 STDERR "weighted_zero.csv: the sample weights in column 'w' are all zero"
  ARGS train --data ${RBF_CLI_DATA}/weighted_zero.csv --target y --weight w --out never.rbfn)
rbf_cli_test(weights_unknown_column EXIT 2 STDERR "unknown weight column 'wt' \\(did you mean 'w'\\?\\)"
  ARGS train --data ${RBF_CLI_DATA}/weighted.csv --target y --weight wt --out never.rbfn)
rbf_cli_test(weights_column_twice EXIT 2 STDERR "'w'.* is given both as a weight and as a feature column"
  ARGS train --data ${RBF_CLI_DATA}/weighted.csv --target y --weight w --features x1,w --out never.rbfn)
rbf_cli_test(weights_with_refinement EXIT 2 STDERR "refinement does not weigh rows"
  ARGS train --data ${RBF_CLI_DATA}/weighted.csv --target y --weight w --refine-at-end --out never.rbfn)

# --- partitioned models -------------------------------------------------------------------------
# bumps.csv (bench/make_bumps.py 3000 2 30 --seed 5): local structure. Four parts train, the
# summary lists them, inspect counts them, and the model predicts and evaluates.
rbf_cli_test(partitions_train
  STDOUT "grew [2-4] parts, [0-9]+ nodes in all, in [0-9]+ iterations, [0-9.]+ s on cpu\n  part 1: [0-9]+ rows, [0-9]+ nodes"
  ARGS train --data ${RBF_CLI_DATA}/bumps.csv --target y --partitions 4 --backend cpu --quiet --log-level warn
    --folds 0 --out parts.rbfn)
set_tests_properties(cli.partitions_train PROPERTIES FIXTURES_SETUP parts_model)
rbf_cli_test(partitions_inspect STDOUT "[2-4] parts \\(sub-models over regions of the inputs, blended\\), nodes per part: [0-9]+ [0-9]+"
  ARGS inspect parts.rbfn)
rbf_cli_test(partitions_evaluate STDOUT "  y +RMSE 0\\.[0-9]+ +MAE 0\\.[0-9]+ +R2 0\\.[6-9]"
  ARGS evaluate --model parts.rbfn --data ${RBF_CLI_DATA}/bumps.csv --target y)
rbf_cli_test(partitions_predict STDOUT "^y\n(-?[0-9][0-9.e+-]*\n)+$" NOT_STDOUT "nan|inf"
  ARGS predict --model parts.rbfn --data ${RBF_CLI_DATA}/bumps.csv)
rbf_cli_test(partitions_log_has_parts STDOUT "^iteration,nodes,[a-z_,]+,refine_ms,event,part\n1,1,cpu,[^\n]*,[12]\n"
  ARGS train --data ${RBF_CLI_DATA}/bumps.csv --target y --partitions 2 --backend cpu --quiet --log-level warn
    --folds 0 --nodes 10 --out parts_logged.rbfn --log-iter /dev/stdout)
set_tests_properties(cli.partitions_inspect cli.partitions_evaluate cli.partitions_predict
  PROPERTIES FIXTURES_REQUIRED parts_model)
rbf_cli_test(partitions_with_checkpoints EXIT 2 STDERR "--partitions 4: --resume, --init-model and --checkpoint-every work on one network only"
  ARGS train --data ${RBF_CLI_DATA}/bumps.csv --target y --partitions 4 --checkpoint-every 5 --out never.rbfn)
rbf_cli_test(partitions_zero EXIT 2 STDERR "partitions"
  ARGS train --data ${RBF_CLI_DATA}/bumps.csv --target y --partitions 0 --out never.rbfn)
