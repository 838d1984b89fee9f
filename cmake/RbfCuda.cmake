# Decides whether the CUDA backend is built (RBF_CUDA=AUTO|ON|OFF) and picks CUDA architectures.
set(RBF_HAVE_CUDA OFF)
if(NOT RBF_CUDA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "RBF_CUDA must be AUTO, ON or OFF, not '${RBF_CUDA}'")
endif()

if(NOT RBF_CUDA STREQUAL "OFF")
  # nvcc is often installed off PATH; look in the usual place before giving up.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Default architectures by toolkit version, set before enable_language so that a
    # user's CMAKE_CUDA_ARCHITECTURES (cache or command line) always wins.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      include(RbfCudaArchitectures)
      rbf_default_cuda_architectures(_rbf_archs)
      set(CMAKE_CUDA_ARCHITECTURES "${_rbf_archs}" CACHE STRING "CUDA architectures to build for")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(RBF_HAVE_CUDA ON)
  elseif(RBF_CUDA STREQUAL "ON")
    message(FATAL_ERROR "RBF_CUDA=ON but no CUDA compiler (nvcc) was found; install the CUDA toolkit, set CUDACXX, or configure with -DRBF_CUDA=OFF")
  endif()
endif()
