# Tests of the build system's own promises: what `cmake --install` makes (cmake/RbfInstall.cmake:
# the relocatable tree and the CMake package, used by tests/install/consumer), and the Jetson
# detection behind the default CUDA architectures. Run: ctest -L install
include(GNUInstallDirs)
string(REPLACE ";" "@@" _rbf_install_emulator "${CMAKE_CROSSCOMPILING_EMULATOR}")
if(NOT CMAKE_CROSSCOMPILING)
  set(_rbf_install_emulator "")
endif()
# The consumer finds the CUDA toolkit this build used (the package needs CUDA::cudart).
set(_rbf_install_cuda_root "${CUDAToolkit_ROOT}")
if(RBF_HAVE_CUDA AND NOT _rbf_install_cuda_root AND CUDAToolkit_BIN_DIR)
  get_filename_component(_rbf_install_cuda_root "${CUDAToolkit_BIN_DIR}" DIRECTORY)
endif()
add_test(NAME install.consumer
  COMMAND ${CMAKE_COMMAND}
    -DBUILD_DIR=${PROJECT_BINARY_DIR}
    -DBUILD_CONFIG=$<CONFIG>
    -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install-test
    -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DCONSUMER_DIR=${CMAKE_CURRENT_LIST_DIR}/consumer
    -DDATA_DIR=${PROJECT_SOURCE_DIR}/data
    -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
    -DVERSION=${PROJECT_VERSION}
    -DGENERATOR=${CMAKE_GENERATOR}
    -DEMULATOR=${_rbf_install_emulator}
    -DCMAKE_TOOLCHAIN_FILE=${CMAKE_TOOLCHAIN_FILE}
    -DRBF_AARCH64_OVERLAY=${RBF_AARCH64_OVERLAY}
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DCUDAToolkit_ROOT=${_rbf_install_cuda_root}
    -DEigen3_DIR=${Eigen3_DIR}
    -P ${CMAKE_CURRENT_LIST_DIR}/run_install_test.cmake)
# It configures and builds a project of its own: give it time.
set_tests_properties(install.consumer PROPERTIES LABELS install TIMEOUT 600)

# The Jetson detection behind the default CMAKE_CUDA_ARCHITECTURES (cmake/RbfCudaArchitectures.cmake),
# on fake root file systems; it needs no CUDA and runs in every build.
add_test(NAME cmake.jetson_cuda_architectures
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/jetson-roots -P ${CMAKE_CURRENT_LIST_DIR}/jetson_cuda_arch_test.cmake)
set_tests_properties(cmake.jetson_cuda_architectures PROPERTIES LABELS install)
