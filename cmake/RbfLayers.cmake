# The dependency direction, enforced by include paths: data <- contracts <- cpu, gpu
# <- model <- app. Each library sees, as its include root, a folder of links to only the
# source folders it may include (build/layers/<layer>/), so an include against the direction
# ("gpu/..." from model/, "model/trainer.hpp" from cpu/) fails to compile. tests/ checks that
# such an include does fail (tests/layering/).
set(RBF_LAYERS_DIR ${PROJECT_BINARY_DIR}/layers)

# rbf_layer_view(NAME FOLDER...): build/layers/NAME/FOLDER links to the source FOLDER, for
# each FOLDER given (relative to the source root, e.g. "data" or "contracts").
function(rbf_layer_view name)
  foreach(folder IN LISTS ARGN)
    set(link ${RBF_LAYERS_DIR}/${name}/${folder})
    get_filename_component(parent ${link} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    if(NOT EXISTS ${link})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${link} SYMBOLIC)
    endif()
  endforeach()
endfunction()

rbf_layer_view(data data)
rbf_layer_view(contracts contracts)
rbf_layer_view(cpu cpu)
rbf_layer_view(gpu gpu)
rbf_layer_view(model model)
