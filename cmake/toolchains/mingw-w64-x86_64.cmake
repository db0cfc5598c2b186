# SPDX-License-Identifier: MIT
# Windows x86-64 from Linux with Debian's mingw-w64 (g++-mingw-w64-x86-64-posix: the POSIX thread model, which
# std::thread needs), tests run under wine. Everything is linked statically (libstdc++, libgcc, winpthread), so
# quadrant_c.dll and the test programs need no MinGW runtime DLL beside them.
#
#   cmake --preset windows        (CMakePresets.json), or
#   cmake -S . -B build/windows -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64-x86_64.cmake
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")
# A release DLL without its symbol table: a third smaller, as the plugin users ship.
set(CMAKE_SHARED_LINKER_FLAGS_RELEASE_INIT "-s")
# ctest (and GoogleTest's discovery) run the programs through wine.
find_program(QUADRANT_WINE NAMES wine wine64 wine-stable)
if(QUADRANT_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${QUADRANT_WINE})
endif()
