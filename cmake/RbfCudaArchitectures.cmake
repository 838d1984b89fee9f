# Default CUDA architectures: a Jetson builds for its own GPU only; elsewhere real code for each
# architecture the toolkit supports and PTX for the highest. Only used when the user set none.

# rbf_jetson_cuda_architecture(<out_var> [ROOT <dir>]): the compute capability of the Jetson
# this runs on (62 TX2, 72 Xavier, 87 Orin, 53 TX1/Nano), or "" when this is no Jetson or its
# module is unknown. A Jetson runs L4T (/etc/nv_tegra_release); the module is told by the SoC
# in the device tree, by its model name, or by the fuse's chip id. ROOT prefixes every path
# (tests pass a fake file system).
function(rbf_jetson_cuda_architecture out_var)
  cmake_parse_arguments(ARG "" "ROOT" "" ${ARGN})
  set(root "${ARG_ROOT}")
  set(arch "")
  if(EXISTS "${root}/etc/nv_tegra_release")
    set(compatible "")
    if(EXISTS "${root}/proc/device-tree/compatible")
      # NUL-separated strings, such as "nvidia,p3310-1000+p2597-0000", "nvidia,tegra186".
      file(STRINGS "${root}/proc/device-tree/compatible" compatible)
    endif()
    set(model "")
    if(EXISTS "${root}/proc/device-tree/model")
      file(STRINGS "${root}/proc/device-tree/model" model)
    endif()
    set(chip "")
    if(EXISTS "${root}/sys/module/tegra_fuse/parameters/tegra_chip_id")
      file(STRINGS "${root}/sys/module/tegra_fuse/parameters/tegra_chip_id" chip LIMIT_COUNT 1
           LENGTH_MINIMUM 1)
      string(STRIP "${chip}" chip)
    endif()
    # The SoC first (exact), then the model name, then the chip id.
    set(socs "tegra186" "tegra194" "tegra234" "tegra210")
    set(models "TX2" "Xavier" "Orin" "TX1|Nano")
    set(chips "24" "25" "35" "33")
    set(archs 62 72 87 53)  # TX2 family (Parker), Xavier, Orin, TX1/Nano
    foreach(source soc model chip)
      foreach(i RANGE 3)
        list(GET socs ${i} soc_name)
        list(GET models ${i} model_pattern)
        list(GET chips ${i} chip_id)
        if((source STREQUAL "soc" AND compatible MATCHES "nvidia,${soc_name}(;|$)")
           OR (source STREQUAL "model" AND model MATCHES "${model_pattern}")
           OR (source STREQUAL "chip" AND chip STREQUAL "${chip_id}"))
          list(GET archs ${i} arch)
          break()
        endif()
      endforeach()
      if(arch)
        break()
      endif()
    endforeach()
    if(NOT arch)
      file(STRINGS "${root}/etc/nv_tegra_release" release LIMIT_COUNT 1)
      message(WARNING "rbfnet: this looks like a Jetson (${release}) but its module is not one "
                      "rbfnet knows (model '${model}'); set CMAKE_CUDA_ARCHITECTURES to its "
                      "compute capability, e.g. -DCMAKE_CUDA_ARCHITECTURES=62 on a TX2")
    endif()
  endif()
  set(${out_var} "${arch}" PARENT_SCOPE)
endfunction()

# rbf_default_cuda_architectures(<out_var>): what CMAKE_CUDA_ARCHITECTURES defaults to.
function(rbf_default_cuda_architectures out_var)
  # CUDAARCHS is the environment's way to set CMAKE_CUDA_ARCHITECTURES: a user's choice too.
  if(DEFINED ENV{CUDAARCHS} AND NOT "$ENV{CUDAARCHS}" STREQUAL "")
    message(STATUS "rbfnet: CUDA architectures from CUDAARCHS: $ENV{CUDAARCHS}")
    set(${out_var} "$ENV{CUDAARCHS}" PARENT_SCOPE)
    return()
  endif()
  set(_ver "")
  execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --version
                  OUTPUT_VARIABLE _out ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _out MATCHES "release ([0-9]+)\\.([0-9]+)")
    set(_ver "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
  endif()
  # A native build on a Jetson: its one GPU (a cross build cannot look at the target).
  set(_jetson "")
  if(NOT CMAKE_CROSSCOMPILING AND CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
    rbf_jetson_cuda_architecture(_jetson)
  endif()
  if(_jetson)
    set(_archs ${_jetson})
    message(STATUS "rbfnet: Jetson with compute capability ${_jetson}")
  elseif(_ver VERSION_GREATER_EQUAL 13.0)
    set(_archs 75-real 80-real 86-real 89-real 90)      # CUDA 13 dropped sm_5x-7.0
  elseif(_ver VERSION_GREATER_EQUAL 11.8)
    set(_archs 62-real 70-real 75-real 80-real 86-real 90)
  elseif(_ver VERSION_GREATER_EQUAL 11.0)
    set(_archs 62-real 70-real 75-real 80)
  else()
    set(_archs 62-real 70-real 72)                       # CUDA 10.2 (JetPack 4.6)
  endif()
  message(STATUS "rbfnet: nvcc ${_ver}: default CUDA architectures ${_archs}")
  set(${out_var} "${_archs}" PARENT_SCOPE)
endfunction()

# rbf_local_cuda_architectures(<out_var>): the compute capabilities of this machine's CUDA
# devices (e.g. "90", or "80;86"), or "" when it has none: a Jetson's own GPU, else what
# nvidia-smi reports (a working driver and a device). Nothing is asked of a cross build.
function(rbf_local_cuda_architectures out_var)
  set(archs "")
  if(NOT CMAKE_CROSSCOMPILING)
    if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
      rbf_jetson_cuda_architecture(archs)
    endif()
    if(NOT archs)
      find_program(RBF_NVIDIA_SMI nvidia-smi)
      mark_as_advanced(RBF_NVIDIA_SMI)
      if(RBF_NVIDIA_SMI)
        execute_process(COMMAND "${RBF_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                        OUTPUT_VARIABLE caps ERROR_QUIET RESULT_VARIABLE rc TIMEOUT 30)
        if(rc EQUAL 0)
          string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${caps}")
          foreach(cap IN LISTS caps)
            string(REPLACE "." "" arch "${cap}")
            list(APPEND archs ${arch})
          endforeach()
          list(REMOVE_DUPLICATES archs)
        endif()
      endif()
    endif()
  endif()
  set(${out_var} "${archs}" PARENT_SCOPE)
endfunction()
