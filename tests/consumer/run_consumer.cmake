# SPDX-License-Identifier: MIT
# Builds and runs a consumer project against quadrant. -DMODE=find_package installs quadrant into a prefix first,
# then also checks the installed pkg-config file compiles the same program.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
endfunction()

set(common -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release)
if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/lib ${common} -DQUADRANT_BUILD_TESTS=OFF -DQUADRANT_BUILD_TOOLS=OFF
      -DQUADRANT_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX=${WORK}/prefix)
  run(${CMAKE_COMMAND} --install ${WORK}/lib)
  run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/app ${common} -DCMAKE_PREFIX_PATH=${WORK}/prefix)
  # pkg-config consumers: the .pc file must give the include path.
  find_program(PKG_CONFIG pkg-config)
  if(PKG_CONFIG)
    set(ENV{PKG_CONFIG_PATH} ${WORK}/prefix/share/pkgconfig)
    execute_process(COMMAND ${PKG_CONFIG} --cflags quadrant OUTPUT_VARIABLE cflags RESULT_VARIABLE rc
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "pkg-config cannot find quadrant.pc")
    endif()
    separate_arguments(cflags UNIX_COMMAND "${cflags}")
    run(${CXX} ${cflags} ${CONSUMER}/../main.cpp -o ${WORK}/pkgconfig_consumer)
    run(${WORK}/pkgconfig_consumer)
  endif()
else()
  run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/app ${common} -DQUADRANT_SOURCE=${SOURCE})
endif()
run(${CMAKE_COMMAND} --build ${WORK}/app)
run(${WORK}/app/consumer)
