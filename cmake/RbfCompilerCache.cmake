# ccache as the compiler launcher when it is installed (RBF_CCACHE, default ON): a rebuild of
# the same sources with the same flags, in any build tree of this clone or a later one, is then
# a cache lookup. The cache lives where ccache keeps it (CCACHE_DIR, by default
# ~/.cache/ccache), outside the source tree. A launcher the user chose is kept.
option(RBF_CCACHE "Use ccache as the compiler launcher when it is installed" ON)
set(RBF_CCACHE_PROGRAM "")
if(RBF_CCACHE)
  find_program(RBF_CCACHE_EXECUTABLE ccache)
  mark_as_advanced(RBF_CCACHE_EXECUTABLE)
  if(RBF_CCACHE_EXECUTABLE)
    set(RBF_CCACHE_PROGRAM ${RBF_CCACHE_EXECUTABLE})
    foreach(lang C CXX CUDA)
      if(NOT DEFINED CMAKE_${lang}_COMPILER_LAUNCHER)
        set(CMAKE_${lang}_COMPILER_LAUNCHER ${RBF_CCACHE_EXECUTABLE})
      endif()
    endforeach()
  endif()
endif()
