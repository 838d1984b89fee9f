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
  # -O1 keeps Eigen-heavy tests fast enough under the sanitizers; -g comes from Debug.
  target_compile_options(rbf_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-O1>)
  target_link_options(rbf_flags INTERFACE -fsanitize=address,undefined)
endif()
if(RBF_FUZZ)
  # Coverage instrumentation for libFuzzer in every library, with ASan and UBSan; the fuzz
  # targets themselves add -fsanitize=fuzzer (fuzz/CMakeLists.txt).
  target_compile_options(rbf_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1>)
  target_link_options(rbf_flags INTERFACE -fsanitize=address,undefined)
endif()
# Release builds get -O3 so Eigen vectorizes fully.
if(CMAKE_BUILD_TYPE STREQUAL "Release")
  string(REPLACE "-O2" "-O3" CMAKE_CXX_FLAGS_RELEASE "${CMAKE_CXX_FLAGS_RELEASE}")
endif()
