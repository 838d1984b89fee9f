# Toolchain file: cross-compiles rbfnet for 64-bit ARM Linux (Jetson's CPU side) with the
# Debian/Ubuntu aarch64-linux-gnu cross compiler and multiarch arm64 libraries, and runs the
# target's programs (tests, test discovery) under qemu-aarch64.
#
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DRBF_CUDA=OFF
#
# Optional cache variables:
#   RBF_AARCH64_OVERLAY  a directory holding arm64 packages unpacked with `dpkg-deb -x` (for
#                        -dev packages that cannot be installed beside their amd64 twins,
#                        such as libyaml-cpp-dev); searched before the system's own paths.
#   RBF_QEMU_CPU         the CPU qemu emulates (default cortex-a57, the TX2's ARMv8.0 core,
#                        so that an instruction newer than the TX2's faults in the tests).
#   CMAKE_SYSROOT        a copy of a Jetson's root file system, to link against its libraries.
# scripts/ci-aarch64.sh sets all of this up and runs the tests.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(RBF_AARCH64_TRIPLE aarch64-linux-gnu)
if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER ${RBF_AARCH64_TRIPLE}-gcc)
endif()
if(NOT CMAKE_CXX_COMPILER)
  set(CMAKE_CXX_COMPILER ${RBF_AARCH64_TRIPLE}-g++)
endif()
# Multiarch: arm64 libraries and their CMake packages live under /usr/lib/aarch64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE ${RBF_AARCH64_TRIPLE})

# try_compile projects read this file again; hand them the same settings.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES RBF_AARCH64_OVERLAY RBF_QEMU_CPU)

# Libraries, headers and packages come from the target's roots only (the overlay first, then
# the system root, whose arm64 files sit in the multiarch directories); programs (qemu,
# pkg-config) come from the build machine.
if(RBF_AARCH64_OVERLAY)
  list(APPEND CMAKE_FIND_ROOT_PATH "${RBF_AARCH64_OVERLAY}")
endif()
if(NOT CMAKE_SYSROOT)
  list(APPEND CMAKE_FIND_ROOT_PATH /)
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Run target programs under user-mode qemu unless the caller chose an emulator.
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(RBF_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
  if(RBF_QEMU_AARCH64)
    if(NOT RBF_QEMU_CPU)
      set(RBF_QEMU_CPU cortex-a57)
    endif()
    set(_rbf_emulator "${RBF_QEMU_AARCH64}" -cpu "${RBF_QEMU_CPU}")
    if(CMAKE_SYSROOT)
      list(APPEND _rbf_emulator -L "${CMAKE_SYSROOT}")
    endif()
    set(CMAKE_CROSSCOMPILING_EMULATOR "${_rbf_emulator}" CACHE STRING
        "Runs aarch64 programs on the build machine (tests)")
  endif()
endif()
