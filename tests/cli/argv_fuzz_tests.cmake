# Seeded, time-bounded fuzzing of rbfnet's command line (tests/cli/argv_fuzz.py): random
# commands, flags and malformed values; about 45 s. Replay a finding with the command it prints.
# Run: ctest -L cli -R argv_fuzz
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME cli.argv_fuzz
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/argv_fuzz.py $<TARGET_FILE:rbfnet>
      ${CMAKE_CURRENT_LIST_DIR}/data ${CMAKE_CURRENT_BINARY_DIR}/argv-fuzz-work --seed 1 --seconds 45)
  # The longest entry: ctest starts it first (COST) so that it runs beside the others, not after.
  set_tests_properties(cli.argv_fuzz PROPERTIES LABELS cli TIMEOUT 120 COST 1000)
else()
  message(STATUS "cli.argv_fuzz: no Python 3 interpreter (or a cross build), so no command-line fuzzing test")
endif()
