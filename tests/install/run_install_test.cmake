# Installs the built tree into a scratch prefix, moves the prefix (the tree must not depend on
# where it was installed), checks its layout and RPATH, runs the installed rbfnet, and builds and
# runs tests/install/consumer against it with find_package(rbfnet). ctest runs it as
# install.consumer (see install_tests.cmake); every -D below comes from there.
cmake_minimum_required(VERSION 3.18)

string(REPLACE "@@" ";" emulator "${EMULATOR}")
set(staged ${WORK_DIR}/staged)
set(prefix ${WORK_DIR}/moved)

# run(<what> COMMAND...): runs a command, stops the test with its output when it fails.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    string(REPLACE ";" " " shown "${ARGN}")
    message(FATAL_ERROR "${what} failed (${status}): ${shown}\n--- stdout ---\n${out}--- stderr ---\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

set(config_args "")
if(BUILD_CONFIG)
  set(config_args --config ${BUILD_CONFIG})
endif()
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${staged} ${config_args})
file(RENAME ${staged} ${prefix})

# Layout.
foreach(path bin/rbfnet ${LIBDIR}/librbf_model.a ${LIBDIR}/librbf_data.a ${LIBDIR}/librbf_gpu.a ${LIBDIR}/librbf_cpu.a
             ${LIBDIR}/cmake/rbfnet/rbfnetConfig.cmake ${LIBDIR}/cmake/rbfnet/rbfnetConfigVersion.cmake
             ${LIBDIR}/cmake/rbfnet/rbfnetTargets.cmake include/rbfnet/model/network.hpp
             include/rbfnet/model/model_file.hpp include/rbfnet/data/dataset.hpp include/rbfnet/contracts/gpu_entry_points.hpp
             share/rbfnet/configs/default.yaml share/rbfnet/configs/tx2.yaml)
  if(NOT EXISTS ${prefix}/${path})
    message(FATAL_ERROR "the installed tree has no ${path}")
  endif()
endforeach()

# bin/rbfnet finds lib/ relative to itself, and names no directory of the build machine.
file(READ_ELF ${prefix}/bin/rbfnet RUNPATH runpath RPATH rpath CAPTURE_ERROR elf_error)
if(elf_error)
  message(FATAL_ERROR "cannot read bin/rbfnet: ${elf_error}")
endif()
file(RELATIVE_PATH bin_to_lib ${prefix}/bin ${prefix}/${LIBDIR})
if(NOT "${runpath}${rpath}" STREQUAL "$ORIGIN/${bin_to_lib}")
  message(FATAL_ERROR "bin/rbfnet has RUNPATH '${runpath}' RPATH '${rpath}', expected '$ORIGIN/${bin_to_lib}'")
endif()
file(GLOB_RECURSE cmake_files ${prefix}/${LIBDIR}/cmake/rbfnet/*.cmake)
foreach(file IN LISTS cmake_files)
  file(READ ${file} text)
  string(FIND "${text}" "${staged}" at_staged)
  string(FIND "${text}" "${SOURCE_DIR}" at_source)
  if(NOT at_staged EQUAL -1 OR NOT at_source EQUAL -1)
    message(FATAL_ERROR "${file} names the install or source directory; the package is not relocatable")
  endif()
endforeach()

# The installed program, with an installed config.
run("installed rbfnet --version" ${emulator} ${prefix}/bin/rbfnet --version)
if(NOT run_output MATCHES "^rbfnet ${VERSION}\n$")
  message(FATAL_ERROR "installed rbfnet --version printed '${run_output}'")
endif()
run("installed rbfnet train" ${emulator} ${prefix}/bin/rbfnet train --config ${prefix}/share/rbfnet/configs/default.yaml
    --data ${DATA_DIR}/iris.csv --target species --nodes 15 --validation 0 --quiet --log-level warn
    --out ${WORK_DIR}/iris.rbfn)

# A project of a user's own: find_package(rbfnet) in the moved tree, link, run.
set(consumer_args -G "${GENERATOR}" -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
if(BUILD_CONFIG)
  list(APPEND consumer_args -DCMAKE_BUILD_TYPE=${BUILD_CONFIG})
endif()
foreach(var CMAKE_TOOLCHAIN_FILE RBF_AARCH64_OVERLAY CMAKE_CXX_COMPILER CUDAToolkit_ROOT Eigen3_DIR)
  if(${var})
    list(APPEND consumer_args -D${var}=${${var}})
  endif()
endforeach()
run("configuring the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/consumer ${consumer_args})
string(FIND "${run_output}" "from ${prefix}/${LIBDIR}/cmake/rbfnet," found_in_prefix)
if(found_in_prefix EQUAL -1)
  message(FATAL_ERROR "the consumer did not find rbfnet in ${prefix}:\n${run_output}")
endif()
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer ${config_args})
find_program(consumer rbfnet_consumer PATHS ${WORK_DIR}/consumer PATH_SUFFIXES ${BUILD_CONFIG} NO_DEFAULT_PATH)
if(NOT consumer)
  message(FATAL_ERROR "the consumer build made no rbfnet_consumer in ${WORK_DIR}/consumer")
endif()
run("running the consumer" ${emulator} ${consumer} ${WORK_DIR}/iris.rbfn ${DATA_DIR}/iris.csv species 0.9)
message(STATUS "${run_output}")
