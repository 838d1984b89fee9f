# Compares the generated flags table of COMMAND in docs/USAGE.md (between its BEGIN and END
# markers) with `rbfnet help COMMAND --markdown`, so the documented flags cannot drift from the
# program's. With -DUPDATE=ON it writes the program's table there instead:
#   cmake -DRBFNET=build/release/app/rbfnet -DCOMMAND=train -DUSAGE=docs/USAGE.md -DUPDATE=ON \
#         -P tests/cli/usage_flags.cmake
cmake_minimum_required(VERSION 3.18)

execute_process(COMMAND ${RBFNET} help ${COMMAND} --markdown
  RESULT_VARIABLE status OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "rbfnet help ${COMMAND} --markdown failed (${status}): ${err}")
endif()

file(READ "${USAGE}" text)
set(begin_marker "<!-- BEGIN ${COMMAND} flags")
set(end_marker "<!-- END ${COMMAND} flags -->")
string(FIND "${text}" "${begin_marker}" begin_at)
string(FIND "${text}" "${end_marker}" end_at)
if(begin_at EQUAL -1 OR end_at EQUAL -1 OR end_at LESS begin_at)
  message(FATAL_ERROR "${USAGE} lacks the markers '${begin_marker} ... -->' and '${end_marker}'")
endif()
string(SUBSTRING "${text}" ${begin_at} -1 from_begin)
string(FIND "${from_begin}" "\n" begin_line_length)
math(EXPR body_at "${begin_at} + ${begin_line_length} + 1")
math(EXPR body_length "${end_at} - ${body_at}")
string(SUBSTRING "${text}" ${body_at} ${body_length} documented)

if(documented STREQUAL table)
  return()
endif()
if(UPDATE)
  string(SUBSTRING "${text}" 0 ${body_at} before)
  string(SUBSTRING "${text}" ${end_at} -1 after)
  file(WRITE "${USAGE}" "${before}${table}${after}")
  message(STATUS "updated the ${COMMAND} flags table in ${USAGE}")
  return()
endif()
message(FATAL_ERROR "the ${COMMAND} flags table in ${USAGE} differs from 'rbfnet help ${COMMAND} --markdown'; "
  "regenerate it with: cmake -DRBFNET=<rbfnet> -DCOMMAND=${COMMAND} -DUSAGE=${USAGE} -DUPDATE=ON -P ${CMAKE_CURRENT_LIST_FILE}\n"
  "--- documented ---\n${documented}--- rbfnet ---\n${table}")
