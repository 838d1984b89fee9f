# Decides whether the CUDA backend is built (RBF_CUDA=AUTO|ON|OFF|DEVICE) and picks CUDA architectures.
set(RBF_HAVE_CUDA OFF)
if(NOT RBF_CUDA MATCHES "^(AUTO|ON|OFF|DEVICE)$")
  message(FATAL_ERROR "RBF_CUDA must be AUTO, ON, OFF or DEVICE, not '${RBF_CUDA}'")
endif()

# DEVICE (the Python package's default): CUDA only when this machine has a CUDA device, and
# for that device's architecture only, unless CMAKE_CUDA_ARCHITECTURES or CUDAARCHS names others.
# A build for a device that is not there would compile every architecture for nothing.
set(_rbf_device_archs "")
if(RBF_CUDA STREQUAL "DEVICE")
  include(RbfCudaArchitectures)
  rbf_local_cuda_architectures(_rbf_device_archs)
  if(NOT _rbf_device_archs)
    message(STATUS "rbfnet: RBF_CUDA=DEVICE and no CUDA device found: building without CUDA")
  endif()
endif()

if(RBF_CUDA MATCHES "^(AUTO|ON)$" OR _rbf_device_archs)
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
      if(_rbf_device_archs AND NOT (DEFINED ENV{CUDAARCHS} AND NOT "$ENV{CUDAARCHS}" STREQUAL ""))
        set(_rbf_archs ${_rbf_device_archs})
        message(STATUS "rbfnet: CUDA architectures of this machine's devices: ${_rbf_archs}")
      else()
        rbf_default_cuda_architectures(_rbf_archs)
      endif()
      set(CMAKE_CUDA_ARCHITECTURES "${_rbf_archs}" CACHE STRING "CUDA architectures to build for")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(RBF_HAVE_CUDA ON)
  elseif(RBF_CUDA STREQUAL "ON")
    message(FATAL_ERROR "RBF_CUDA=ON but no CUDA compiler (nvcc) was found; install the CUDA toolkit, set CUDACXX, or configure with -DRBF_CUDA=OFF")
  endif()
endif()
