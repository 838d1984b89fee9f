# rbf_doctest_groups(TARGET PREFIX): one ctest entry per test source file and doctest suite of a
# doctest program, rather than one per test case.
#
# Why: every ctest entry is a process that loads the program and its libraries (cuBLAS in a
# CUDA build, everything through the emulator in the aarch64 build); with one entry per case
# that start-up was paid about 600 times per tree. A file's cases share one process now, and a
# failing entry still prints only that file's cases.
#
# Entries are named PREFIX.<file stem> for the cases outside any suite and
# PREFIX.<file stem>.<suite> for a suite's cases. Cases that need a GPU are in the suite "gpu"
# (two GPUs: "two_gpus"); without the device they print "SKIPPED: ..." and ctest counts their
# entry as skipped. A "SKIPPED: ..." from an entry of no GPU suite fails it, so that a GPU case
# left outside the suites cannot hide its skip among passing cases.
#
# The list is made after each build of TARGET by running it with --list-test-cases (through the
# cross-compiling emulator where there is one), like doctest_discover_tests.
set(_rbf_doctest_groups_script ${CMAKE_CURRENT_LIST_DIR}/RbfDoctestGroupsAdd.cmake)

function(rbf_doctest_groups target prefix)
  set(ctest_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_groups.cmake)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND}
      -DTEST_EXECUTABLE=$<TARGET_FILE:${target}>
      "-DTEST_EXECUTOR=${CMAKE_CROSSCOMPILING_EMULATOR}"
      -DTEST_PREFIX=${prefix}
      -DTEST_WORKING_DIR=${CMAKE_CURRENT_BINARY_DIR}
      -DCTEST_FILE=${ctest_file}
      -P ${_rbf_doctest_groups_script}
    BYPRODUCTS ${ctest_file}
    VERBATIM)
  # Before the first build there is no list: ctest then shows one entry that fails, saying so.
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake)
  file(WRITE ${include_file}
    "if(EXISTS \"${ctest_file}\")\n"
    "  include(\"${ctest_file}\")\n"
    "else()\n"
    "  add_test([==[${prefix}.NOT_BUILT]==] [==[${prefix}.NOT_BUILT]==])\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()
