# The dependency direction (cmake/RbfLayers.cmake) is enforced by include views; these tests
# check that it is: each probe is compiled with exactly the include directories one layer's
# own sources get, and must fail (an include against the direction) or, for the controls,
# succeed (the same probe mechanism with an allowed include).

# rbf_layering_probe(NAME LAYER_TARGET HEADER EXPECT) - EXPECT is "fails" or "compiles".
function(rbf_layering_probe name layer_target header expect)
  set(source ${CMAKE_CURRENT_BINARY_DIR}/layering/${name}.cpp)
  file(WRITE ${source} "// ${layer_target} including ${header}\n#include \"${header}\"\n")
  add_library(layering_${name} OBJECT EXCLUDE_FROM_ALL ${source})
  target_include_directories(layering_${name} PRIVATE $<TARGET_PROPERTY:${layer_target},INCLUDE_DIRECTORIES>)
  target_compile_definitions(layering_${name} PRIVATE $<TARGET_PROPERTY:${layer_target},COMPILE_DEFINITIONS>)
  add_test(NAME layering.${name}
    COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target layering_${name})
  # One build of the tree at a time: the probes share its build system.
  set_tests_properties(layering.${name} PROPERTIES RESOURCE_LOCK rbf_build_tree)
  if(expect STREQUAL "fails")
    set_tests_properties(layering.${name} PROPERTIES WILL_FAIL TRUE)
  endif()
endfunction()

rbf_layering_probe(model_includes_gpu rbf_model gpu/cuda_context.hpp fails)
rbf_layering_probe(model_includes_cpu rbf_model cpu/eigen_backend.hpp fails)
rbf_layering_probe(model_includes_app rbf_model app/commands.hpp fails)
rbf_layering_probe(cpu_includes_trainer rbf_cpu model/trainer.hpp fails)
rbf_layering_probe(cpu_includes_gpu rbf_cpu gpu/cuda_context.hpp fails)
rbf_layering_probe(gpu_includes_cpu rbf_gpu cpu/eigen_backend.hpp fails)
rbf_layering_probe(gpu_includes_config rbf_gpu model/config.hpp fails)
rbf_layering_probe(data_includes_contracts rbf_data contracts/backend.hpp fails)
# Controls: the same probes compile where the direction allows the include.
rbf_layering_probe(model_includes_contracts rbf_model contracts/gpu_entry_points.hpp compiles)
rbf_layering_probe(cpu_includes_contracts rbf_cpu contracts/backend.hpp compiles)
rbf_layering_probe(cpu_includes_itself rbf_cpu cpu/eigen_backend.hpp compiles)
