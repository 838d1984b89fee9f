# `cmake --install` rules: a relocatable tree (bin/rbfnet finds lib/ through $ORIGIN, never
# through an absolute path) and a CMake package, so that another project can
#   find_package(rbfnet 0.1 REQUIRED)  and  target_link_libraries(app PRIVATE rbfnet::rbfnet)
#
#   bin/rbfnet
#   lib/librbf_{data,model,cpu,gpu}.a, lib/cmake/rbfnet/rbfnet{Config,ConfigVersion,Targets}.cmake
#   include/rbfnet/{data,contracts,model,cpu,gpu}/*.hpp   (included as "model/network.hpp", as in the tree)
#   share/rbfnet/configs/*.yaml, share/doc/rbfnet/
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(RBF_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/rbfnet CACHE STRING
    "Where the rbfnet CMake package files are installed, relative to the prefix")
set(RBF_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/rbfnet)
set(RBF_INSTALL_CONFIGSDIR ${CMAKE_INSTALL_DATADIR}/rbfnet/configs)
set(_rbf_libraries rbf_data rbf_contracts rbf_model rbf_cpu rbf_gpu)

# The folder libraries publish their include views (cmake/RbfLayers.cmake); in the installed
# package the same headers live under include/rbfnet. Entries inside the source or build tree
# become build-only, so install(EXPORT) accepts them.
foreach(_rbf_target IN LISTS _rbf_libraries)
  get_target_property(_rbf_dirs ${_rbf_target} INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT _rbf_dirs)
    set(_rbf_dirs "")
  endif()
  set(_rbf_new_dirs "")
  foreach(_rbf_dir IN LISTS _rbf_dirs)
    string(FIND "${_rbf_dir}/" "${PROJECT_SOURCE_DIR}/" _rbf_in_source)
    string(FIND "${_rbf_dir}/" "${PROJECT_BINARY_DIR}/" _rbf_in_build)
    if(_rbf_in_source EQUAL 0 OR _rbf_in_build EQUAL 0)
      list(APPEND _rbf_new_dirs "$<BUILD_INTERFACE:${_rbf_dir}>")
    else()
      list(APPEND _rbf_new_dirs "${_rbf_dir}")
    endif()
  endforeach()
  list(APPEND _rbf_new_dirs "$<INSTALL_INTERFACE:${RBF_INSTALL_INCLUDEDIR}>")
  list(REMOVE_DUPLICATES _rbf_new_dirs)
  set_property(TARGET ${_rbf_target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${_rbf_new_dirs}")
endforeach()

# Exported names: rbfnet::data, rbfnet::contracts, rbfnet::model, rbfnet::cpu, rbfnet::gpu
# (rbfnet::rbfnet is all of them).
set_target_properties(rbf_data PROPERTIES EXPORT_NAME data)
set_target_properties(rbf_contracts PROPERTIES EXPORT_NAME contracts)
set_target_properties(rbf_cpu PROPERTIES EXPORT_NAME cpu)
set_target_properties(rbf_model PROPERTIES EXPORT_NAME model)
set_target_properties(rbf_gpu PROPERTIES EXPORT_NAME gpu)
set_target_properties(rbf_flags PROPERTIES EXPORT_NAME flags)

# Relative, so the tree can be moved or copied anywhere (a Jetson's /opt, a user's home).
file(RELATIVE_PATH _rbf_bin_to_lib
     ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR} ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR})
set_target_properties(rbfnet PROPERTIES INSTALL_RPATH "$ORIGIN/${_rbf_bin_to_lib}")

install(TARGETS rbfnet RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# rbf_flags carries only link options (sanitizers) to users of the static libraries.
install(TARGETS ${_rbf_libraries} rbf_flags EXPORT rbfnetTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Public headers: the data, contracts and model layers whole, and the GPU headers that include no CUDA
# header (the CUDA backend's internals stay private; the package works without a toolkit).
install(DIRECTORY data/ DESTINATION ${RBF_INSTALL_INCLUDEDIR}/data FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY contracts/ DESTINATION ${RBF_INSTALL_INCLUDEDIR}/contracts FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY model/ DESTINATION ${RBF_INSTALL_INCLUDEDIR}/model FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY cpu/ DESTINATION ${RBF_INSTALL_INCLUDEDIR}/cpu FILES_MATCHING PATTERN "*.hpp")
file(GLOB _rbf_gpu_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/gpu/*.hpp)
foreach(_rbf_header IN LISTS _rbf_gpu_headers)
  file(STRINGS ${_rbf_header} _rbf_cuda_includes REGEX "^#include [<\"](cuda|cublas|gpu/(cu|device_|[a-z_]*kernels))")
  if(NOT _rbf_cuda_includes)
    install(FILES ${_rbf_header} DESTINATION ${RBF_INSTALL_INCLUDEDIR}/gpu)
  endif()
endforeach()

install(DIRECTORY configs/ DESTINATION ${RBF_INSTALL_CONFIGSDIR} FILES_MATCHING PATTERN "*.yaml")
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")

install(EXPORT rbfnetTargets NAMESPACE rbfnet:: DESTINATION ${RBF_INSTALL_CMAKEDIR})
# What the package config must find again on the user's side (values of this build).
set(RBF_PACKAGE_HAVE_OPENMP OFF)
if(OpenMP_CXX_FOUND)
  set(RBF_PACKAGE_HAVE_OPENMP ON)
endif()
set(RBF_PACKAGE_HAVE_CUDA OFF)
if(RBF_HAVE_CUDA)
  set(RBF_PACKAGE_HAVE_CUDA ON)
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/rbfnetConfig.cmake.in
  ${PROJECT_BINARY_DIR}/rbfnetConfig.cmake
  INSTALL_DESTINATION ${RBF_INSTALL_CMAKEDIR}
  PATH_VARS RBF_INSTALL_INCLUDEDIR RBF_INSTALL_CONFIGSDIR)
# 0.x releases may change the interface between minor versions.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rbfnetConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rbfnetConfig.cmake ${PROJECT_BINARY_DIR}/rbfnetConfigVersion.cmake
  DESTINATION ${RBF_INSTALL_CMAKEDIR})
