# toolgate_add_plugin(NAME SOURCES src... [LINK lib...])
#
# Builds a toolgate plugin the way the ABI requires (the plugin author's
# guide, "Building": /usr/share/doc/toolgate-sdk/plugin-guide.md when
# installed, sdk/README.md in the source), so that it exports only its entry
# symbol and really unloads:
#   - a MODULE library named NAME.so (no "lib" prefix surprises);
#   - hidden visibility for C and C++, inline functions hidden too;
#   - -fno-gnu-unique (C++, GCC), so no STB_GNU_UNIQUE symbol pins the image
#     (clang emits none, and refuses the flag);
#   - -Wl,-z,defs, so an unresolved symbol is a link error, not a load error;
#   - a version script exporting toolgate_plugin_entry alone.
set(TOOLGATE_PLUGIN_VERSION_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/toolgate_plugin.map
    CACHE INTERNAL "toolgate plugin version script")

function(toolgate_add_plugin name)
  cmake_parse_arguments(TGP "" "" "SOURCES;LINK" ${ARGN})
  if(NOT TGP_SOURCES)
    message(FATAL_ERROR "toolgate_add_plugin(${name}): SOURCES is required")
  endif()
  add_library(${name} MODULE ${TGP_SOURCES})
  target_link_libraries(${name} PRIVATE toolgate::sdk ${TGP_LINK})
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    C_STANDARD 99
    CXX_STANDARD 17
    CXX_STANDARD_REQUIRED ON
    LINK_DEPENDS ${TOOLGATE_PLUGIN_VERSION_SCRIPT})
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-fno-gnu-unique>)
  target_link_options(${name} PRIVATE
    -Wl,-z,defs
    -Wl,--version-script=${TOOLGATE_PLUGIN_VERSION_SCRIPT})
endfunction()
