# End-to-end tests of the rbfnet binary: help, version, info, bench, configs, and every usage or
# input error that must stop rbfnet before training (exit 2, one line on stderr). Each test runs
# tests/cli/expect.cmake; the tiny bad inputs live in tests/cli/data/. Run: ctest -L cli. The
# training features end to end are in training_tests.cmake, which uses rbf_cli_test from here.
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
rbf_cli_test(non_numeric_csv EXIT 2 STDERR "nonnumeric\\.csv:3:2: 'abc' is not a number .*data\\.categorical is off"
  ARGS train --data ${RBF_CLI_DATA}/nonnumeric.csv --target y --categorical off)
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
