# End-to-end tests of the rbfnet binary: help, version, info, and every usage or input error
# that must stop rbfnet before training (exit 2, one line on stderr). Each test runs
# tests/cli/expect.cmake; the tiny bad inputs live in tests/cli/data/. Run: ctest -L cli
set(RBF_CLI_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RBF_CLI_DATA ${RBF_CLI_TEST_DIR}/data)
set(RBF_CLI_WORK_DIR ${CMAKE_CURRENT_BINARY_DIR}/cli-work)
file(MAKE_DIRECTORY ${RBF_CLI_WORK_DIR})
# A cross build (cmake/aarch64-linux-gnu.cmake) runs rbfnet through its emulator (qemu).
string(REPLACE ";" "@@" RBF_CLI_LAUNCHER "${CMAKE_CROSSCOMPILING_EMULATOR}@@")
if(NOT CMAKE_CROSSCOMPILING OR NOT CMAKE_CROSSCOMPILING_EMULATOR)
  set(RBF_CLI_LAUNCHER "")
endif()

# rbf_cli_test(NAME [EXIT code] [STDOUT regex] [STDERR regex] [NOT_STDOUT regex] [NOT_STDERR regex]
#              [INPUT file] ARGS arg...)
function(rbf_cli_test name)
  cmake_parse_arguments(T "" "EXIT;STDOUT;STDERR;NOT_STDOUT;NOT_STDERR;INPUT" "ARGS" ${ARGN})
  if(NOT DEFINED T_EXIT)
    set(T_EXIT 0)
  endif()
  string(REPLACE ";" "@@" joined "${T_ARGS}")
  add_test(NAME cli.${name}
    COMMAND ${CMAKE_COMMAND}
      "-DCMD=${RBF_CLI_LAUNCHER}$<TARGET_FILE:rbfnet>@@${joined}"
      "-DEXPECT_EXIT=${T_EXIT}"
      "-DEXPECT_STDOUT=${T_STDOUT}"
      "-DEXPECT_STDERR=${T_STDERR}"
      "-DREJECT_STDOUT=${T_NOT_STDOUT}"
      "-DREJECT_STDERR=${T_NOT_STDERR}"
      "-DINPUT=${T_INPUT}"
      -P ${RBF_CLI_TEST_DIR}/expect.cmake
    WORKING_DIRECTORY ${RBF_CLI_WORK_DIR})
  set_tests_properties(cli.${name} PROPERTIES LABELS cli)
endfunction()

# --- help, version, info --------------------------------------------------------------------
rbf_cli_test(help STDOUT "Usage: rbfnet.*train.*predict.*evaluate.*bench.*info.*Exit status"
  ARGS --help)
rbf_cli_test(help_short STDOUT "Usage: rbfnet" ARGS -h)
rbf_cli_test(train_help STDOUT "Usage: rbfnet train.*--data FILE.*--target COL.*--config.*--nodes M.*--quiet"
  ARGS train --help)
rbf_cli_test(predict_help STDOUT "Usage: rbfnet predict.*--model.*--data.*--out" ARGS predict --help)
rbf_cli_test(evaluate_help STDOUT "Usage: rbfnet evaluate.*--model.*--data.*--target" ARGS evaluate --help)
rbf_cli_test(bench_help STDOUT "Usage: rbfnet bench.*--synthetic.*--backends" ARGS bench --help)
rbf_cli_test(train_help_gpu_devices STDOUT "--gpu-devices I,\\.\\.\\. .*\\[backend\\.gpu_devices\\]" ARGS train --help)
rbf_cli_test(bench_help_gpu_devices STDOUT "--gpu-devices I,\\.\\.\\." ARGS bench --help)
rbf_cli_test(info_help STDOUT "Usage: rbfnet info" ARGS info --help)
rbf_cli_test(inspect_help STDOUT "Usage: rbfnet inspect.*MODEL.*--json" ARGS inspect --help)
rbf_cli_test(help_command STDOUT "Usage: rbfnet.*train.*inspect" ARGS help)
rbf_cli_test(help_command_train STDOUT "Usage: rbfnet train.*--sigma.*--widths" ARGS help train)
rbf_cli_test(version STDOUT "^rbfnet ${PROJECT_VERSION}\n$" ARGS --version)
rbf_cli_test(info
  STDOUT "^rbfnet ${PROJECT_VERSION}.*compiler.*CPU kernels +(portable|avx2|avx512) \\(chosen at run time.*Eigen.*yaml-cpp.*spdlog.*fmt.*CLI11.*CUDA devices\n(.*\n)?  (\\[0\\] .*compute capability [0-9]+\\.[0-9]+|none: [a-z])"
  ARGS info)
# OpenMP's idle threads sleep rather than spin unless the environment says otherwise: libgomp
# prints the spin count it read when it started (before main) under OMP_DISPLAY_ENV=verbose.
# Its default is 300000 (printed once more by the restarted program), passive waiting 0.
if(OpenMP_CXX_FOUND AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT CMAKE_CROSSCOMPILING)
  rbf_cli_test(omp_wait_policy_passive STDOUT "^rbfnet ${PROJECT_VERSION}\n$"
    STDERR "GOMP_SPINCOUNT = '0'" ARGS --version)
  set_tests_properties(cli.omp_wait_policy_passive PROPERTIES ENVIRONMENT "OMP_DISPLAY_ENV=verbose")
  rbf_cli_test(omp_wait_policy_from_environment STDERR "OMP_WAIT_POLICY = 'ACTIVE'"
    NOT_STDERR "GOMP_SPINCOUNT = '0'" ARGS --version)
  set_tests_properties(cli.omp_wait_policy_from_environment PROPERTIES
    ENVIRONMENT "OMP_DISPLAY_ENV=verbose;OMP_WAIT_POLICY=active")
  rbf_cli_test(omp_spincount_from_environment STDERR "GOMP_SPINCOUNT = '1234'"
    NOT_STDERR "GOMP_SPINCOUNT = '0'" ARGS --version)
  set_tests_properties(cli.omp_spincount_from_environment PROPERTIES
    ENVIRONMENT "OMP_DISPLAY_ENV=verbose;GOMP_SPINCOUNT=1234")
endif()

# --- command-line errors ---------------------------------------------------------------------
rbf_cli_test(no_command EXIT 2 STDERR "a command is required" ARGS)
rbf_cli_test(unknown_command EXIT 2 STDERR "unknown command 'trian' \\(did you mean 'train'\\?\\)"
  ARGS trian)
rbf_cli_test(unknown_top_flag EXIT 2 STDERR "unknown option '--frobnicate'" ARGS --frobnicate)
rbf_cli_test(unknown_flag EXIT 2
  STDERR "unknown option '--nodse' for 'rbfnet train' \\(did you mean '--nodes'\\?\\)"
  ARGS train --nodse 5)
rbf_cli_test(unknown_flag_no_suggestion EXIT 2 STDERR "unknown option '--colour' for 'rbfnet predict'"
  ARGS predict --colour blue)
rbf_cli_test(stray_argument EXIT 2 STDERR "unexpected argument 'extra' for 'rbfnet info'"
  ARGS info extra)
rbf_cli_test(missing_flag_value EXIT 2 STDERR "--nodes" ARGS train --nodes)
rbf_cli_test(missing_required_model EXIT 2 STDERR "--model is required" ARGS predict --data x.csv)
rbf_cli_test(missing_required_target EXIT 2 STDERR "--target is required"
  ARGS evaluate --model m.rbfn --data x.csv)
rbf_cli_test(train_without_data EXIT 2 STDERR "no training data: give --data" ARGS train --target y)
rbf_cli_test(train_without_target EXIT 2 STDERR "no target column: give --target"
  ARGS train --data ${RBF_CLI_DATA}/good.csv)
rbf_cli_test(bad_integer_flag EXIT 2 STDERR "--nodes must be an integer >= 1, got 'abc'"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --nodes abc)
rbf_cli_test(zero_nodes_flag EXIT 2 STDERR "--nodes must be an integer >= 1, got 0"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --nodes 0)
rbf_cli_test(bad_enum_flag EXIT 2 STDERR "--backend must be one of cpu, gpu, auto, got 'tpu'"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --backend tpu)
rbf_cli_test(out_of_range_flag EXIT 2 STDERR "--validation must be a number in \\[0, 0.9\\], got 2"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --validation 2)
rbf_cli_test(negative_lambda_flag EXIT 2 STDERR "--lambda must be a number >= 0, got -1"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --lambda -1)
rbf_cli_test(bad_delimiter_flag EXIT 2 STDERR "--delimiter must be auto, tab or a single character"
  ARGS predict --model m.rbfn --data x.csv --delimiter ab)
rbf_cli_test(bench_without_data EXIT 2 STDERR "needs --data FILE --target COL or --synthetic" ARGS bench)
rbf_cli_test(bench_bad_synthetic EXIT 2 STDERR "--synthetic must be ROWS,DIMS" ARGS bench --synthetic 1000)
rbf_cli_test(bench_bad_backend EXIT 2 STDERR "got 'tpu'"
  ARGS bench --synthetic 100,2 --backends cpu,tpu)
# 8e11 doubles: refused at once (exit 1) with the size, not "out of memory" after a long wait.
rbf_cli_test(bench_synthetic_beyond_memory EXIT 1
  STDERR "--synthetic 100000000000,8: the generated data needs [0-9.]+ GiB of memory, but only [0-9.]+ [GM]iB is available"
  ARGS bench --synthetic 100000000000,8 --backends cpu --out synthetic-beyond-memory)

# --- missing and bad files -------------------------------------------------------------------
rbf_cli_test(missing_data_file EXIT 2 STDERR "data file 'missing\\.csv' does not exist"
  ARGS train --data missing.csv --target y)
rbf_cli_test(data_file_is_directory EXIT 2 STDERR "is a directory"
  ARGS train --data ${RBF_CLI_DATA} --target y)
rbf_cli_test(missing_model_file EXIT 2 STDERR "model file 'missing\\.rbfn' does not exist"
  ARGS predict --model missing.rbfn --data ${RBF_CLI_DATA}/good.csv)
rbf_cli_test(not_a_model_file EXIT 2 STDERR "not_a_model\\.rbfn"
  ARGS predict --model ${RBF_CLI_DATA}/not_a_model.rbfn --data ${RBF_CLI_DATA}/good.csv)
rbf_cli_test(malformed_csv EXIT 2 STDERR "malformed\\.csv:3:"
  ARGS train --data ${RBF_CLI_DATA}/malformed.csv --target y)
rbf_cli_test(non_numeric_csv EXIT 2 STDERR "nonnumeric\\.csv:3:2: .*abc"
  ARGS train --data ${RBF_CLI_DATA}/nonnumeric.csv --target y)
rbf_cli_test(wrong_delimiter_hint EXIT 2
  STDERR "semicolon\\.csv:1: unknown target column 'y'.*the delimiter may be wrong: try --delimiter ';'"
  ARGS train --data ${RBF_CLI_DATA}/semicolon.csv --target y --delimiter ,)
rbf_cli_test(unknown_target_column EXIT 2 STDERR "good\\.csv.*nope"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target nope)

# --- configs ---------------------------------------------------------------------------------
rbf_cli_test(missing_config EXIT 2 STDERR "cannot open config file 'missing\\.yaml'"
  ARGS train --config missing.yaml --data ${RBF_CLI_DATA}/good.csv --target y)
rbf_cli_test(config_unknown_key EXIT 2
  STDERR "unknown_key\\.yaml:3:3: unknown key 'trainer\\.lamda' \\(did you mean 'trainer\\.lambda'\\?\\)"
  ARGS train --config ${RBF_CLI_DATA}/unknown_key.yaml --data ${RBF_CLI_DATA}/good.csv --target y)
rbf_cli_test(config_out_of_range EXIT 2
  STDERR "out_of_range\\.yaml:3:14: 'stopping\\.max_nodes' must be an integer >= 1, got 0"
  ARGS train --config ${RBF_CLI_DATA}/out_of_range.yaml --data ${RBF_CLI_DATA}/good.csv --target y)
rbf_cli_test(config_syntax_error EXIT 2 STDERR "syntax_error\\.yaml:[0-9]+:[0-9]+: YAML syntax error"
  ARGS train --config ${RBF_CLI_DATA}/syntax_error.yaml --data ${RBF_CLI_DATA}/good.csv --target y)
rbf_cli_test(config_wrong_type EXIT 2 STDERR "wrong_type\\.yaml:3:9: 'candidates\\.pool' must be an integer >= 1, got a list"
  ARGS train --config ${RBF_CLI_DATA}/wrong_type.yaml --data ${RBF_CLI_DATA}/good.csv --target y)
rbf_cli_test(config_bad_enum EXIT 2 STDERR "'backend\\.kind' must be one of cpu, gpu, auto, got 'tpu'"
  ARGS train --config ${RBF_CLI_DATA}/bad_enum.yaml --data ${RBF_CLI_DATA}/good.csv --target y)

# --- flags override the config (checked through --print-config, which trains nothing) --------
rbf_cli_test(flags_override_config
  STDOUT "lambda: 0\\.5\n.*max_nodes: 5\n.*progress: false\n"
  ARGS train --config ${RBF_CLI_DATA}/small.yaml --nodes 5 --quiet --print-config)
rbf_cli_test(print_config_defaults STDOUT "^data:\n  path: \"\"\n.*output:\n  model: \"model\\.rbfn\"\n  checkpoint_every: 0\n  checkpoint: \"\"\n$"
  ARGS train --print-config)
foreach(shipped default large-data tx2)
  rbf_cli_test(shipped_config_${shipped} STDOUT "^data:\n"
    ARGS train --config ${PROJECT_SOURCE_DIR}/configs/${shipped}.yaml --print-config)
endforeach()

# --- bench and calibrate ---------------------------------------------------------------------
# The whole bench on generated data: costs.csv, summary.md (the gpu skipped in a CPU build), the
# gnuplot script, and a non-empty cost_curves.png when gnuplot is installed.
if(RBF_HAVE_CUDA)
  set(_rbf_cuda_built ON)
else()
  set(_rbf_cuda_built OFF)
endif()
add_test(NAME cli.bench_synthetic_end_to_end
  COMMAND ${CMAKE_COMMAND}
    "-DCMD=${RBF_CLI_LAUNCHER}$<TARGET_FILE:rbfnet>@@bench@@--synthetic@@2000,5@@--backends@@cpu,gpu@@--nodes@@30@@--out@@${RBF_CLI_WORK_DIR}/bench-synthetic@@--quiet"
    "-DOUT=${RBF_CLI_WORK_DIR}/bench-synthetic"
    -DNODES=30
    -DCUDA_BUILT=${_rbf_cuda_built}
    -P ${RBF_CLI_TEST_DIR}/bench_expect.cmake
  WORKING_DIRECTORY ${RBF_CLI_WORK_DIR})
set_tests_properties(cli.bench_synthetic_end_to_end PROPERTIES LABELS cli)
# --repeat: every repeat's rows in costs.csv, the spread in summary.md, and with one backend the
# time axes stay linear (one curve has nothing to differ from).
add_test(NAME cli.bench_repeat
  COMMAND ${CMAKE_COMMAND}
    "-DCMD=${RBF_CLI_LAUNCHER}$<TARGET_FILE:rbfnet>@@bench@@--synthetic@@1000,5@@--backends@@cpu@@--nodes@@12@@--repeat@@3@@--out@@${RBF_CLI_WORK_DIR}/bench-repeat@@--quiet"
    "-DOUT=${RBF_CLI_WORK_DIR}/bench-repeat"
    -DNODES=12
    -DREPEAT=3
    -DCPU_ONLY=ON
    -DCUDA_BUILT=${_rbf_cuda_built}
    -P ${RBF_CLI_TEST_DIR}/bench_expect.cmake
  WORKING_DIRECTORY ${RBF_CLI_WORK_DIR})
set_tests_properties(cli.bench_repeat PROPERTIES LABELS cli)
rbf_cli_test(bench_repeat_zero EXIT 2 STDERR "--repeat must be an integer from 1 to 1000, got '0'"
  ARGS bench --synthetic 100,5 --backends cpu --repeat 0 --out never-made)
rbf_cli_test(bench_repeat_not_a_number EXIT 2 STDERR "--repeat must be an integer from 1 to 1000, got '3x'"
  ARGS bench --synthetic 100,5 --backends cpu --repeat 3x --out never-made)
rbf_cli_test(bench_too_few_dims EXIT 2 STDERR "--synthetic needs DIMS >= 5" ARGS bench --synthetic 100,3)
# docs/USAGE.md's flags tables are the program's own (rbfnet help COMMAND --markdown).
if(NOT CMAKE_CROSSCOMPILING)
  foreach(command train)
    add_test(NAME cli.usage_flags_${command}
      COMMAND ${CMAKE_COMMAND} -DRBFNET=$<TARGET_FILE:rbfnet> -DCOMMAND=${command}
        -DUSAGE=${PROJECT_SOURCE_DIR}/docs/USAGE.md -P ${RBF_CLI_TEST_DIR}/usage_flags.cmake)
    set_tests_properties(cli.usage_flags_${command} PROPERTIES LABELS cli)
  endforeach()
endif()
rbf_cli_test(markdown_unknown_command EXIT 2
  STDERR "'rbfnet help COMMAND --markdown' needs one of the commands train, .*got 'trian'"
  ARGS help trian --markdown)
rbf_cli_test(calibrate_help STDOUT "Usage: rbfnet calibrate.*--gpu-device" ARGS calibrate --help)
if(RBF_HAVE_CUDA AND NOT CMAKE_CROSSCOMPILING)
  # cuBLAS is opened by the first GPU context only (gpu/cublas_library.cpp): a run that never
  # trains on a GPU must not load it. The loader's own trace (LD_DEBUG) shows what was loaded;
  # libstdc++ in it shows that the trace worked.
  add_test(NAME cli.cpu_run_loads_no_cublas
    COMMAND ${CMAKE_COMMAND}
      "-DCMD=${CMAKE_COMMAND}@@-E@@env@@LD_DEBUG=files@@$<TARGET_FILE:rbfnet>@@train@@--data@@${RBF_CLI_DATA}/good.csv@@--target@@y@@--nodes@@2@@--backend@@cpu@@--quiet@@--out@@${RBF_CLI_WORK_DIR}/no-cublas.rbfn"
      "-DEXPECT_STDERR=file=libstdc"
      "-DREJECT_STDERR=libcublas"
      -P ${RBF_CLI_TEST_DIR}/expect.cmake
    WORKING_DIRECTORY ${RBF_CLI_WORK_DIR})
  set_tests_properties(cli.cpu_run_loads_no_cublas PROPERTIES LABELS cli)
endif()
if(NOT RBF_HAVE_CUDA)
  rbf_cli_test(calibrate_without_cuda EXIT 2 STDERR "no GPU to calibrate: this rbfnet was built without CUDA"
    ARGS calibrate)
  # Found by the argv fuzzer: the message named neither the flag nor the key.
  rbf_cli_test(gpu_backend_without_cuda EXIT 2
    STDERR "backend gpu \\(backend\\.kind, --backend\\) is not available: this rbfnet was built without CUDA; use cpu or auto"
    ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --nodes 2 --backend gpu --out never.rbfn)
  # Several GPUs, distinct or one repeated (a local group), are no more available.
  rbf_cli_test(gpu_devices_without_cuda EXIT 2 STDERR "is not available: this rbfnet was built without CUDA"
    ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --nodes 2 --backend gpu --gpu-devices 0,1 --out never.rbfn)
  rbf_cli_test(gpu_devices_repeated_without_cuda EXIT 2 STDERR "is not available: this rbfnet was built without CUDA"
    ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --nodes 2 --backend gpu --gpu-devices 0,0 --out never.rbfn)
endif()
rbf_cli_test(gpu_devices_empty EXIT 2
  STDERR "--gpu-devices must be a non-empty list of CUDA device indices >= 0, got an empty list"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --nodes 2 --gpu-devices , --out never.rbfn)
rbf_cli_test(gpu_devices_negative EXIT 2
  STDERR "--gpu-devices must be a non-empty list of CUDA device indices >= 0, got -1"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --nodes 2 --gpu-devices 0,-1 --out never.rbfn)

# --- degenerate data and hostile values (tests/test_degenerate_data.cpp has every data case) --
# degenerate.csv: 6 rows (2 duplicated), a constant column, columns near 1e-30 and 1e30; asked
# for 50 nodes, training stops when the candidates run out, and every prediction is finite.
rbf_cli_test(degenerate_train STDOUT "stopped: no admissible candidate left"
  ARGS train --data ${RBF_CLI_DATA}/degenerate.csv --target y --nodes 50 --validation 0 --backend cpu
    --quiet --log-level warn --out degenerate.rbfn)
set_tests_properties(cli.degenerate_train PROPERTIES FIXTURES_SETUP degenerate_model)
rbf_cli_test(degenerate_predict STDOUT "^y\n(-?[0-9][0-9.e+-]*\n)+$" NOT_STDOUT "nan|inf"
  ARGS predict --model degenerate.rbfn --data ${RBF_CLI_DATA}/degenerate.csv)
set_tests_properties(cli.degenerate_predict PROPERTIES FIXTURES_REQUIRED degenerate_model)
rbf_cli_test(degenerate_one_class EXIT 2
  STDERR "one_class\\.csv: classification needs at least 2 classes, found 1"
  ARGS train --data ${RBF_CLI_DATA}/one_class.csv --target label --quiet --log-level warn)
rbf_cli_test(degenerate_double_limits EXIT 2
  STDERR "double_limits\\.csv: target column 'y' cannot be standardized: its values are too close to the limits of a double"
  ARGS train --data ${RBF_CLI_DATA}/double_limits.csv --target y --quiet --log-level warn)
# A thread count that crashed training (OpenMP started every thread asked for) is refused.
rbf_cli_test(too_many_threads EXIT 2 STDERR "--threads must be an integer in \\[0, 1024\\], got 100000"
  ARGS train --data ${RBF_CLI_DATA}/good.csv --target y --threads 100000)

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
  STDOUT "stopped: 5-fold cross-validation chose [0-9]+ nodes\n  kept ([0-9]+ nodes with widths [0-9., ]+ x sigma0|0 nodes \\(linear terms and bias only\\)), chosen by 5-fold cross-validation in [0-9.]+ s \\(mean validation RMSE [0-9.]+\\), then grown on all 442 rows\n.*all rows: +RMSE [0-9.e+-]+ \\(target units\\), R2 0\\.[0-9]+, 442 rows\n"
  NOT_STDOUT "validation: " NOT_STDERR "."
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --target -1 --nodes 20 --quiet --out cv.rbfn)
rbf_cli_test(cross_validation_json
  STDOUT "\"validation\":null,\"refit\":null,\"cross_validation\":\\{\"folds\":3,\"nodes\":[0-9]+,\"widths\":.[0-9.,]+.,\"rmse\":[0-9.e-]+,\"lowest_nodes\":[0-9]+,\"lowest_rmse\":[0-9.e-]+,\"accuracy\":[0-9.e-]+,"
  ARGS train --data ${PROJECT_SOURCE_DIR}/data/iris.csv --target species --nodes 12 --folds 3 --quiet
    --out cv_iris.rbfn --metrics-json /dev/stdout)
# A linear target with noise: a few Gaussians score lowest on the folds, but within one
# standard error of none, so the model keeps the linear terms only, and it predicts.
rbf_cli_test(cross_validation_keeps_the_linear_model
  STDOUT "chose 0 nodes\n  kept 0 nodes \\(linear terms and bias only\\), chosen by 5-fold cross-validation in [0-9.]+ s \\(mean validation RMSE 0\\.2[0-9]+\\), then grown on all 120 rows\n  [1-9][0-9]* nodes? scored lowest \\(mean validation RMSE 0\\.2[0-9]+\\), within one standard error of no Gaussians: kept the simpler model\n.*linear terms: 3 features"
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
rbf_cli_test(predict_stdin STDOUT "^sepal_length,species\n5\\.1,setosa\n" INPUT ${PROJECT_SOURCE_DIR}/data/iris.csv
  ARGS predict --model iris.rbfn --data - --out - --id sepal_length)
rbf_cli_test(predict_keep_unknown EXIT 2 STDERR "unknown feature column 'speces' \\(did you mean 'species'\\?\\)"
  ARGS predict --model iris.rbfn --data ${PROJECT_SOURCE_DIR}/data/iris.csv --keep speces)
rbf_cli_test(predict_proba_regression EXIT 2 STDERR "--proba needs a classification model"
  ARGS predict --model quiet.rbfn --data ${PROJECT_SOURCE_DIR}/data/diabetes.csv --proba)
set_tests_properties(cli.predict_proba_keep cli.predict_stdin cli.predict_keep_unknown
  PROPERTIES FIXTURES_REQUIRED iris_model)
set_tests_properties(cli.quiet_train_summary_only PROPERTIES FIXTURES_SETUP quiet_model)
set_tests_properties(cli.predict_proba_regression PROPERTIES FIXTURES_REQUIRED quiet_model)

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
