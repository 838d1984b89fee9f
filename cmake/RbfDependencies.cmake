# Finds the Debian-packaged dependencies and normalizes their target names.
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(yaml-cpp REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenMP)
if(RBF_BUILD_TESTS)
  find_package(doctest REQUIRED)
endif()

# yaml-cpp 0.7 exports the plain target `yaml-cpp`; 0.8 and later `yaml-cpp::yaml-cpp`.
if(TARGET yaml-cpp::yaml-cpp)
  set(RBF_YAML_TARGET yaml-cpp::yaml-cpp)
elseif(TARGET yaml-cpp)
  set(RBF_YAML_TARGET yaml-cpp)
else()
  message(FATAL_ERROR "yaml-cpp was found but exports no known target")
endif()

# The GNU C++17 library before gcc 9 keeps std::filesystem in a separate archive.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 9)
  set(RBF_FS_LIB stdc++fs)
else()
  set(RBF_FS_LIB "")
endif()
