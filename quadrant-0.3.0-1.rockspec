-- SPDX-License-Identifier: MIT
-- The Lua module as a LuaRocks package, built from source in a checkout:
--   luarocks make quadrant-0.3.0-1.rockspec                      (the default Lua; --lua-version=5.1 for LuaJIT
--   luarocks --lua-version=5.1 make --tree /tmp/rocks quadrant-0.3.0-1.rockspec      or 5.1, --tree for a local tree)
-- It compiles bindings/lua/quadrant_lua.c against LuaRocks' own LUA_INCDIR and links the C API's C++20 sources into
-- quadrant.so (bindings/lua/Makefile: the builtin build type compiles C only). Needs a C++20 compiler (g++ 12+ or
-- clang 14+, the versions tested) and make.
-- `luarocks make` from the root of a checkout is the one supported way in: it builds what is in the checkout and
-- never reads source.url. The project has no public repository and is not on luarocks.org yet, so source.url below
-- names none (example.invalid is a reserved name that resolves nowhere): `luarocks install quadrant` and
-- `luarocks build quadrant-0.3.0-1.rockspec`, which fetch source.url, fail until it does.
-- Lua 5.1 (and LuaJIT, which LuaRocks sees as 5.1), 5.3 and 5.4 are tested; 5.2, whose C API is neither 5.1's nor
-- 5.3's, is refused (`~= 5.2`, which Debian's LuaRocks 3.8 reads; scripts/test_lua checks it).
rockspec_format = "3.0"
package = "quadrant"
version = "0.3.0-1"
source = {
  url = "git+https://example.invalid/quadrant.git",  -- no public repository yet: see above
  tag = "v0.3.0",
}
description = {
  summary = "Quadtrees, octrees and MMO area of interest for games, over a C++20 core",
  detailed = [[
quadrant: quadtrees and octrees of any Lua values (every query shape, pairs, ray casts, nearest, contacts), an MMO
area-of-interest world and a camera streamer, as a C module over quadrant's C API. Lua 5.1, 5.3, 5.4 and LuaJIT 2.1.
]],
  license = "MIT",
  labels = {"gamedev", "spatial", "quadtree", "octree", "aoi"},
}
dependencies = {
  "lua >= 5.1, < 5.5, ~= 5.2",
}
build = {
  type = "make",
  makefile = "bindings/lua/Makefile",
  build_variables = {
    CFLAGS = "$(CFLAGS)",
    LIBFLAG = "$(LIBFLAG)",
    LUA_INCDIR = "$(LUA_INCDIR)",
  },
  install_variables = {
    INST_LIBDIR = "$(LIBDIR)",  -- quadrant.so, and libquadrant_c.so for quadrant.ffi (LuaJIT)
    INST_LUADIR = "$(LUADIR)",  -- quadrant/ffi.lua
  },
}
