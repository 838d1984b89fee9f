# Warning, optimization and sanitizer flags shared by every rbfnet target.
add_library(rbf_flags INTERFACE)
target_compile_options(rbf_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>)
if(RBF_NATIVE)
  target_compile_options(rbf_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
endif()
if(RBF_SANITIZE)
  target_compile_options(rbf_flags INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
  target_link_options(rbf_flags INTERFACE -fsanitize=address,undefined)
endif()
# Release builds get -O3 so Eigen vectorizes fully.
if(CMAKE_BUILD_TYPE STREQUAL "Release")
  string(REPLACE "-O2" "-O3" CMAKE_CXX_FLAGS_RELEASE "${CMAKE_CXX_FLAGS_RELEASE}")
endif()
