# Finds the Debian-packaged dependencies and normalizes their target names.
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
# Eigen would parallelize its larger products over every core OpenMP offers, whatever
# trainer.threads says, waking threads for products of a few hundred microseconds; the CPU
# backends parallelize their own loops, with thread counts chosen from the work.
set_property(TARGET Eigen3::Eigen APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS EIGEN_DONT_PARALLELIZE)
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

# Number parsing for the CSV reader, fastest first: fast_float (header-only), then a
# floating-point std::from_chars (gcc >= 11), then strtod under the C locale (gcc 7, Jetson).
find_path(RBF_FAST_FLOAT_INCLUDE_DIR fast_float/fast_float.h)
if(RBF_FAST_FLOAT_INCLUDE_DIR)
  set(RBF_NUMBER_PARSER fast_float)
else()
  # try_compile follows CMAKE_CXX_STANDARD (policy CMP0067), so this checks C++17 as built.
  include(CheckCXXSourceCompiles)
  check_cxx_source_compiles("
    #include <charconv>
    int main() { double v = 0; const char s[] = \"1.5\"; return (int)std::from_chars(s, s + 3, v).ec; }"
    RBF_HAVE_FLOAT_FROM_CHARS)
  if(RBF_HAVE_FLOAT_FROM_CHARS)
    set(RBF_NUMBER_PARSER from_chars)
  else()
    set(RBF_NUMBER_PARSER strtod_l)
  endif()
endif()
message(STATUS "CSV number parser: ${RBF_NUMBER_PARSER}")
