# Runs one command and checks its exit status and output; ctest calls it for every CLI test:
#   cmake -DCMD=prog@@arg1@@arg2 -DEXPECT_EXIT=2 [-DEXPECT_STDOUT=regex] [-DEXPECT_STDERR=regex]
#         [-DREJECT_STDOUT=regex] [-DREJECT_STDERR=regex] [-DINPUT=file] -P expect.cmake
# Arguments are joined with "@@" because ctest would split a ";"-separated list itself.
# A failing command must print exactly one line on stderr, "rbfnet: error: ...", and no command
# may die from an uncaught exception.
cmake_minimum_required(VERSION 3.18)

if(NOT DEFINED CMD)
  message(FATAL_ERROR "expect.cmake: pass -DCMD=program@@arg@@...")
endif()
if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 0)
endif()
string(REPLACE "@@" ";" command "${CMD}")

set(input_args "")
if(DEFINED INPUT AND NOT INPUT STREQUAL "")
  set(input_args INPUT_FILE "${INPUT}")  # the command's standard input
endif()
execute_process(COMMAND ${command}
  ${input_args}
  RESULT_VARIABLE status
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)

set(problems "")
if(NOT status STREQUAL "${EXPECT_EXIT}")
  string(APPEND problems "  exit status ${status}, expected ${EXPECT_EXIT}\n")
endif()
if(err MATCHES "terminate called|Aborted|core dumped|what\\(\\):|Segmentation fault")
  string(APPEND problems "  stderr shows a crash or an uncaught exception\n")
endif()
if(NOT EXPECT_EXIT STREQUAL "0")
  if(NOT err MATCHES "^rbfnet: error: [^\n]+\n$")
    string(APPEND problems "  stderr is not exactly one line 'rbfnet: error: ...'\n")
  endif()
endif()
if(DEFINED EXPECT_STDOUT AND NOT EXPECT_STDOUT STREQUAL "" AND NOT out MATCHES "${EXPECT_STDOUT}")
  string(APPEND problems "  stdout does not match: ${EXPECT_STDOUT}\n")
endif()
if(DEFINED REJECT_STDOUT AND NOT REJECT_STDOUT STREQUAL "" AND out MATCHES "${REJECT_STDOUT}")
  string(APPEND problems "  stdout matches what it must not: ${REJECT_STDOUT}\n")
endif()
if(DEFINED REJECT_STDERR AND NOT REJECT_STDERR STREQUAL "" AND err MATCHES "${REJECT_STDERR}")
  string(APPEND problems "  stderr matches what it must not: ${REJECT_STDERR}\n")
endif()
if(DEFINED EXPECT_STDERR AND NOT EXPECT_STDERR STREQUAL "" AND NOT err MATCHES "${EXPECT_STDERR}")
  string(APPEND problems "  stderr does not match: ${EXPECT_STDERR}\n")
endif()

if(NOT problems STREQUAL "")
  string(REPLACE ";" " " shown "${command}")
  message(FATAL_ERROR "command: ${shown}\n${problems}--- stdout ---\n${out}--- stderr ---\n${err}")
endif()
