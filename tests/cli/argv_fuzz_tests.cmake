# Seeded fuzzing of rbfnet's command line (tests/cli/argv_fuzz.py): random commands, flags and
# malformed values. Replay a finding with the command it prints. Run: ctest -L cli -R argv_fuzz
# An optimized build runs the first 400 cases of the seed (22-30 s; when every start loaded
# cuBLAS, 45 s ran about 180); under the sanitizers, where a case is slower and finds more,
# as many as 45 s allow (about 580).
if(RBF_SANITIZE OR RBF_FUZZ)
  set(_rbf_argv_fuzz_budget --seconds 45)
else()
  set(_rbf_argv_fuzz_budget --cases 400 --seconds 90)
endif()
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME cli.argv_fuzz
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/argv_fuzz.py $<TARGET_FILE:rbfnet>
      ${CMAKE_CURRENT_LIST_DIR}/data ${CMAKE_CURRENT_BINARY_DIR}/argv-fuzz-work --seed 1 ${_rbf_argv_fuzz_budget})
  # The longest entry: ctest starts it first (COST) so that it runs beside the others, not after.
  set_tests_properties(cli.argv_fuzz PROPERTIES LABELS cli TIMEOUT 120 COST 1000)
else()
  message(STATUS "cli.argv_fuzz: no Python 3 interpreter (or a cross build), so no command-line fuzzing test")
endif()
