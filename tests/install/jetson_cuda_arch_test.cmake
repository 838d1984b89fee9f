# Checks cmake/RbfCudaArchitectures.cmake's Jetson detection on fake root file systems: each
# Jetson module gets its own compute capability, an unknown module none (with a warning), and a
# machine without L4T is no Jetson.
#   cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -P jetson_cuda_arch_test.cmake
cmake_minimum_required(VERSION 3.18)
include(${SOURCE_DIR}/cmake/RbfCudaArchitectures.cmake)

# fake_root(<name> <release> <compatible> <model> <chip id>): "-" leaves a file out. The device
# tree's compatible holds NUL-separated strings, written here with "|".
function(fake_root name release compatible model chip)
  set(root ${WORK_DIR}/${name})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root}/etc ${root}/proc/device-tree ${root}/sys/module/tegra_fuse/parameters)
  if(NOT release STREQUAL "-")
    file(WRITE ${root}/etc/nv_tegra_release "${release}\n")
  endif()
  if(NOT compatible STREQUAL "-")
    # printf writes the NUL bytes that CMake strings cannot hold.
    string(REPLACE "|" "\\0" format "${compatible}\\0")
    execute_process(COMMAND printf "${format}" OUTPUT_FILE ${root}/proc/device-tree/compatible)
  endif()
  if(NOT model STREQUAL "-")
    execute_process(COMMAND printf "%s\\0" "${model}" OUTPUT_FILE ${root}/proc/device-tree/model)
  endif()
  if(NOT chip STREQUAL "-")
    file(WRITE ${root}/sys/module/tegra_fuse/parameters/tegra_chip_id "${chip}\n")
  endif()
endfunction()

set(failures "")
function(expect name wanted)
  rbf_jetson_cuda_architecture(got ROOT ${WORK_DIR}/${name})
  if(NOT "${got}" STREQUAL "${wanted}")
    set(failures "${failures}  ${name}: got '${got}', expected '${wanted}'\n" PARENT_SCOPE)
  endif()
endfunction()

set(r32 "# R32 (release), REVISION: 7.4, GCID: 33514132, BOARD: t186ref, EABI: aarch64, DATE: Fri Jun  9 04:25:08 UTC 2023")
set(r35 "# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64, DATE: Tue Aug  1 19:57:35 UTC 2023")

fake_root(tx2 "${r32}" "nvidia,p2771-0000+p3310-1000|nvidia,quill|nvidia,tegra186" "quill" "24")
fake_root(tx2_model_only "${r32}" "-" "NVIDIA Jetson TX2 Developer Kit" "-")
fake_root(tx2_chip_only "${r32}" "-" "-" "24")
fake_root(xavier_nx "${r32}" "nvidia,p3449-0000+p3668-0001|nvidia,tegra194" "NVIDIA Jetson Xavier NX Developer Kit" "25")
fake_root(agx_orin "${r35}" "nvidia,p3737-0000+p3701-0000|nvidia,tegra234" "Jetson AGX Orin" "35")
fake_root(orin_nano_model "${r35}" "-" "NVIDIA Jetson Orin Nano Developer Kit" "-")
fake_root(nano "${r32}" "nvidia,p3449-0000-b00+p3448-0002-b00|nvidia,jetson-nano|nvidia,tegra210" "NVIDIA Jetson Nano Developer Kit" "33")
fake_root(unknown_module "${r35}" "nvidia,p3834-0000|nvidia,tegra999" "Jetson Future" "99")
fake_root(no_l4t "-" "nvidia,p2771-0000+p3310-1000|nvidia,tegra186" "quill" "24")
fake_root(arm_server "-" "-" "-" "-")

expect(tx2 62)
expect(tx2_model_only 62)
expect(tx2_chip_only 62)
expect(xavier_nx 72)
expect(agx_orin 87)
expect(orin_nano_model 87)
expect(nano 53)
expect(unknown_module "")  # and a warning that asks for CMAKE_CUDA_ARCHITECTURES
expect(no_l4t "")
expect(arm_server "")

if(NOT failures STREQUAL "")
  message(FATAL_ERROR "Jetson CUDA architecture detection:\n${failures}")
endif()
message(STATUS "Jetson CUDA architecture detection: 10 cases pass")
