# End-to-end check of `rbfnet train --refit`: the node count kept on validation is grown again
# on every row. Trains DATA once without and once with the refit and compares the JSON summaries.
#   cmake -DCMD=prog -DDATA=file.csv -DTARGET=col -DWORK=dir -P refit_expect.cmake
cmake_minimum_required(VERSION 3.18)

foreach(var CMD DATA TARGET WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "refit_expect.cmake: pass -D${var}=...")
  endif()
endforeach()
string(REPLACE "@@" ";" rbfnet "${CMD}")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

set(problems "")
# Runs `rbfnet train` with the extra flags; its JSON summary goes to `json_var`.
function(train_run json_var name)
  execute_process(COMMAND ${rbfnet} train --data ${DATA} --target ${TARGET} --quiet --out ${WORK}/${name}.rbfn
                          --metrics-json ${WORK}/${name}.json ${ARGN}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status STREQUAL "0" OR NOT EXISTS ${WORK}/${name}.json)
    message(FATAL_ERROR "rbfnet train ${ARGN} failed (exit ${status}):\n${out}${err}")
  endif()
  file(READ ${WORK}/${name}.json json)
  set(${json_var} "${json}" PARENT_SCOPE)
  set(${json_var}_stdout "${out}" PARENT_SCOPE)
endfunction()

# The first match of `regex` in `text` (its group 1), or FAIL.
function(field out_var text regex)
  if(text MATCHES "${regex}")
    set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  else()
    set(${out_var} "FAIL(${regex})" PARENT_SCOPE)
  endif()
endfunction()

# Both with --folds 0: with data.folds auto, a refit run would choose its widths on the
# validation rows first (two growths in float64), and the early-stopping runs would differ.
train_run(early early --no-refit --folds 0)
train_run(refit refit --refit --folds 0)
train_run(chosen chosen --refit)

field(kept "${early}" "\"nodes\":([0-9]+),")
field(train_rows "${early}" "\"training\":{\"rows\":([0-9]+),")
field(validation_rows "${early}" "\"validation\":{\"rows\":([0-9]+),")
field(grown_early "${early}" "\"nodes_grown\":([0-9]+),")
field(no_refit "${early}" "\"refit\":(null),")
field(refit_nodes "${refit}" "\"refit\":{\"nodes\":([0-9]+),")
field(refit_rows "${refit}" "\"refit\":{\"nodes\":[0-9]+,\"rows\":([0-9]+),")
field(refit_stop "${refit}" "\"refit\":{[^}]*\"stop_reason\":\"([^\"]*)\"")
field(model_nodes "${refit}" "\"nodes\":([0-9]+),")
field(grown_refit "${refit}" "\"nodes_grown\":([0-9]+),")
field(all_rows "${refit}" "\"training\":{\"rows\":([0-9]+),")
field(validation_after "${refit}" "\"validation\":{\"rows\":([0-9]+),")

math(EXPR expected_rows "${train_rows} + ${validation_rows}")
if(NOT no_refit STREQUAL "null")
  string(APPEND problems "  without --refit the summary's refit is '${no_refit}', expected null\n")
endif()
if(NOT kept GREATER 0 OR NOT grown_early GREATER kept)
  string(APPEND problems "  early stopping kept ${kept} of ${grown_early} nodes: expected a count below the grown one\n")
endif()
if(NOT refit_nodes STREQUAL kept OR NOT model_nodes STREQUAL kept)
  string(APPEND problems "  the refit grew ${refit_nodes} nodes (model: ${model_nodes}), expected the ${kept} kept on validation\n")
endif()
if(NOT refit_rows STREQUAL expected_rows OR NOT all_rows STREQUAL expected_rows)
  string(APPEND problems "  the refit trained on ${refit_rows} rows (scored on ${all_rows}), expected all ${expected_rows}\n")
endif()
if(NOT refit_stop STREQUAL "reached max_nodes")
  string(APPEND problems "  the refit stopped with '${refit_stop}'\n")
endif()
if(NOT grown_refit STREQUAL grown_early OR NOT validation_after STREQUAL validation_rows)
  string(APPEND problems "  the early-stopping run differs with --refit: grew ${grown_refit} (was ${grown_early}), validation rows ${validation_after} (was ${validation_rows})\n")
endif()
if(NOT refit_stdout MATCHES "then grew them again on all ${expected_rows} rows")
  string(APPEND problems "  the text summary does not report the refit:\n${refit_stdout}\n")
endif()

# With data.folds auto the refit grows the widths chosen on the validation rows.
field(chosen_event "${chosen}" "\"(widths [0-9.,]+ chosen on the validation rows)")
field(chosen_refit "${chosen}" "\"refit\":{\"nodes\":([0-9]+),")
field(chosen_model "${chosen}" "\"nodes\":([0-9]+),")
if(chosen_event MATCHES "^FAIL" OR NOT chosen_refit STREQUAL chosen_model)
  string(APPEND problems "  --refit with folds auto: event '${chosen_event}', refit of ${chosen_refit} nodes (model: ${chosen_model})\n")
endif()

# The model file records the setting with the rest of its configuration.
execute_process(COMMAND ${rbfnet} inspect ${WORK}/refit.rbfn --json RESULT_VARIABLE status OUTPUT_VARIABLE inspected)
if(NOT status STREQUAL "0" OR NOT inspected MATCHES "refit: true")
  string(APPEND problems "  inspect does not show 'refit: true' in the model's recorded configuration\n")
endif()

if(problems)
  message(FATAL_ERROR "refit check failed:\n${problems}")
endif()
message(STATUS "refit: ${kept} of ${grown_early} nodes kept on ${train_rows} rows, grown again on ${refit_rows}")
