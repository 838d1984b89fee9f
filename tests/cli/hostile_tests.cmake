# End-to-end cases that need a shell (symlinks, FIFOs, devices, signals, a full standard
# output): each runs one case of tests/cli/hostile.sh against the real rbfnet. Run: ctest -L cli
set(RBF_HOSTILE_CASES
  out_is_data checkpoint_is_data log_is_data_through_link log_is_out predict_out_is_model
  predict_out_is_data missing_out_folder_first missing_checkpoint_folder_first name_too_long_with_suffix
  symlink_kept log_through_output_policy fifo_out_written_in_place stream_out_written_in_place mode_kept
  stale_temporary_removed
  fifo_data_read_once dev_zero_data dev_zero_config stdout_full resume_other_problem resume_cuts_the_log_back log_on_a_full_disk
  threads_within_ulimit_v
  resume_changed_validation_data
  sigint_during_refinement sigterm_during_refinement sighup_during_refinement sigint_during_setup sigint_during_cross_validation
  predictions_exact evaluate_targets_by_name
  evaluate_many_classes na_in_numeric_target file_name_in_plot_script
  bench_auto_on_the_cpu descriptor_outputs)
# AddressSanitizer maps terabytes of shadow memory: under it no address-space limit can be set.
if(RBF_SANITIZE)
  list(REMOVE_ITEM RBF_HOSTILE_CASES threads_within_ulimit_v)
endif()
if(NOT CMAKE_CROSSCOMPILING)
  foreach(case ${RBF_HOSTILE_CASES})
    add_test(NAME cli.hostile.${case}
      COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/hostile.sh $<TARGET_FILE:rbfnet> ${CMAKE_CURRENT_LIST_DIR}/data
        ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/hostile-work ${case})
    set_tests_properties(cli.hostile.${case} PROPERTIES LABELS cli TIMEOUT 120)
  endforeach()
endif()
