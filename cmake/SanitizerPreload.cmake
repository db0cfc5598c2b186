# SPDX-License-Identifier: MIT
# quadrant_sanitizer_preload(<var>): in a build under AddressSanitizer, the LD_PRELOAD value that lets an
# interpreter that is not instrumented (lua5.4, mono) load the instrumented C library: the sanitizers' runtimes,
# which must come first. clang's ASan runtime carries the UBSan handlers; g++ has one library for each. Empty
# otherwise.
function(quadrant_sanitizer_preload var)
  set(preload "")
  if(CMAKE_C_FLAGS MATCHES "sanitize=address")
    if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
      set(runtimes libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
    else()
      set(runtimes libasan.so libubsan.so)
    endif()
    foreach(runtime ${runtimes})
      execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${runtime} OUTPUT_VARIABLE path
                      OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(NOT IS_ABSOLUTE "${path}")
        message(FATAL_ERROR "quadrant: ${CMAKE_C_COMPILER} does not know where its ${runtime} is")
      endif()
      list(APPEND preload ${path})
    endforeach()
    list(JOIN preload ":" preload)
  endif()
  set(${var} "${preload}" PARENT_SCOPE)
endfunction()
