# SPDX-License-Identifier: MIT
# Builds and runs a consumer project against quadrant, the ways a user gets it:
#   MODE=find_package     a plain top-level configure and install (GoogleTest, CLI11 and nlohmann_json hidden, no
#                         QUADRANT_BUILD_* options: what a machine with only CMake and a compiler does), then
#                         find_package(quadrant) from the prefix
#   MODE=pkg_config       the same install, then the compiler with `pkg-config --cflags --libs quadrant`
#   MODE=add_subdirectory / fetch_content   the source tree inside the consumer's build
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
endfunction()

set(common -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release)
if(MODE STREQUAL "find_package" OR MODE STREQUAL "pkg_config")
  run(${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/lib ${common} -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
      -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
      -DCMAKE_INSTALL_PREFIX=${WORK}/prefix)
  run(${CMAKE_COMMAND} --install ${WORK}/lib)
endif()
if(MODE STREQUAL "pkg_config")
  find_program(PKG_CONFIG pkg-config)
  if(NOT PKG_CONFIG)
    message(FATAL_ERROR "pkg-config not found: skipped (scripts/deps installs it)")
  endif()
  set(ENV{PKG_CONFIG_PATH} ${WORK}/prefix/share/pkgconfig)
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs quadrant OUTPUT_VARIABLE flags RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config cannot find quadrant.pc")
  endif()
  if(flags MATCHES "-std=")
    message(FATAL_ERROR "quadrant.pc sets the language standard (${flags}): that is the consumer's choice")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  # The consumer picks its standard: C++20 or later.
  run(${CXX} -std=c++20 ${CONSUMER}/main.cpp ${flags} -o ${WORK}/consumer)
  run(${WORK}/consumer)
  return()
endif()
if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/app ${common} -DCMAKE_PREFIX_PATH=${WORK}/prefix)
else()
  run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/app ${common} -DQUADRANT_SOURCE=${SOURCE})
endif()
run(${CMAKE_COMMAND} --build ${WORK}/app)
run(${WORK}/app/consumer)
