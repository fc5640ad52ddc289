# toolgate_install_doc(SOURCE repo/path.md DESTINATION dir RENAME name.md COMPONENT c)
#
# Installs a Markdown document with its relative links rewritten for the
# installed tree, so that no installed page links to a file that is not
# installed (the install test resolves every link and fails on a dangling
# one).  A link whose target exists in the source tree is
#   - pointed at the installed copy (relative to the installed page) when
#     toolgate_doc_map() below says where that file or folder is installed,
#     and the package holding it is the page's own or one it depends on;
#   - pointed at the installed copy by absolute path when it is in a package
#     the page's package does not depend on (the runtime README naming the
#     guide in toolgate-sdk: on a machine without toolgate-sdk the path at
#     least says what is missing);
#   - turned into plain text naming the source file otherwise (a file that
#     is not installed, such as the audit record code).
# A link whose target does not exist (a C++ lambda's "](const X& x)" in a
# code sample) is left as it is.  Targets: TOOLGATE_DOC_MAP, set by the
# caller as a list of "repo-path|installed-path|component" (a repo path
# ending in / maps a folder and everything under it).
# Components' dependencies, as the packages declare them.
set(TOOLGATE_DOC_DEPS_runtime runtime)
set(TOOLGATE_DOC_DEPS_sdk sdk runtime)
set(TOOLGATE_DOC_DEPS_dev dev sdk runtime)

# Where repo file REL (normalized, relative to the source tree) is installed:
# OUT_PATH (relative to the prefix) and OUT_COMPONENT, or empty.
function(_toolgate_doc_lookup rel out_path out_component)
  set(${out_path} "" PARENT_SCOPE)
  set(${out_component} "" PARENT_SCOPE)
  foreach(entry IN LISTS TOOLGATE_DOC_MAP)
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 from)
    list(GET parts 1 to)
    list(GET parts 2 component)
    if(rel STREQUAL from OR rel STREQUAL "${from}/" OR "${rel}/" STREQUAL from)
      set(${out_path} "${to}" PARENT_SCOPE)
      set(${out_component} "${component}" PARENT_SCOPE)
      return()
    endif()
    if(from MATCHES "/$")
      string(LENGTH "${from}" n)
      string(SUBSTRING "${rel}" 0 ${n} head)
      if(head STREQUAL from)
        string(SUBSTRING "${rel}" ${n} -1 tail)
        set(${out_path} "${to}${tail}" PARENT_SCOPE)
        set(${out_component} "${component}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
endfunction()

function(toolgate_install_doc)
  cmake_parse_arguments(D "" "SOURCE;DESTINATION;RENAME;COMPONENT" "" ${ARGN})
  set(src ${PROJECT_SOURCE_DIR}/${D_SOURCE})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${src})
  file(READ ${src} text)
  get_filename_component(src_dir "${D_SOURCE}" DIRECTORY)
  set(out "")
  while(TRUE)
    string(FIND "${text}" "](" at)
    if(at EQUAL -1)
      break()
    endif()
    math(EXPR target_at "${at} + 2")
    string(SUBSTRING "${text}" 0 ${target_at} head)
    string(SUBSTRING "${text}" ${target_at} -1 text)
    string(FIND "${text}" ")" close)
    if(close EQUAL -1)
      string(APPEND out "${head}")
      break()
    endif()
    string(SUBSTRING "${text}" 0 ${close} target)
    string(SUBSTRING "${text}" ${close} -1 text)
    # The link's path and its #fragment.
    set(path "${target}")
    set(fragment "")
    string(FIND "${target}" "#" hash)
    if(NOT hash EQUAL -1)
      string(SUBSTRING "${target}" 0 ${hash} path)
      string(SUBSTRING "${target}" ${hash} -1 fragment)
    endif()
    set(rel "")
    if(path AND NOT path MATCHES "^[a-z]+:" AND NOT path MATCHES "^/" AND NOT path MATCHES "[ \n]")
      if(src_dir)
        cmake_path(SET rel NORMALIZE "${src_dir}/${path}")
      else()
        cmake_path(SET rel NORMALIZE "${path}")
      endif()
      if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${rel} OR rel MATCHES "^\\.\\./")
        set(rel "")
      endif()
    endif()
    if(NOT rel)
      string(APPEND out "${head}${target}")
      continue()
    endif()
    _toolgate_doc_lookup("${rel}" installed component)
    if(installed)
      if(component IN_LIST TOOLGATE_DOC_DEPS_${D_COMPONENT})
        file(RELATIVE_PATH link /${D_DESTINATION} /${installed})
        if(installed MATCHES "/$" AND NOT link MATCHES "/$")
          string(APPEND link "/")
        endif()
      else()
        set(link "${CMAKE_INSTALL_PREFIX}/${installed}")
      endif()
      # A label that spells the source path ("[`../samples/x/`](../samples/x/)")
      # spells the installed one: the link when it stays below the page's
      # folder, else the absolute path (/usr/include/toolgate/toolgate.h
      # rather than ../../../include/toolgate/toolgate.h).
      set(label_text "${link}")
      if(link MATCHES "^[.][.]/")
        set(label_text "${CMAKE_INSTALL_PREFIX}/${installed}")
      endif()
      string(FIND "${head}" "[`${path}`]" label_at REVERSE)
      string(LENGTH "${head}" head_len)
      string(LENGTH "[`${path}`](" label_len)
      math(EXPR label_end "${label_at} + ${label_len}")
      if(NOT label_at EQUAL -1 AND label_end EQUAL head_len)
        string(SUBSTRING "${head}" 0 ${label_at} head)
        string(APPEND head "[`${label_text}`](")
      endif()
      string(APPEND out "${head}${link}${fragment}")
    else()
      # Not installed: "[label](target)" becomes "label (source file `rel`)".
      string(FIND "${head}" "[" open REVERSE)
      string(SUBSTRING "${head}" 0 ${open} before)
      math(EXPR label_at "${open} + 1")
      math(EXPR label_len "${at} - ${label_at}")
      string(SUBSTRING "${head}" ${label_at} ${label_len} label)
      string(FIND "${label}" "${rel}" named)
      if(named EQUAL -1)
        string(APPEND out "${before}${label} (in toolgate's source tree: `${rel}`, not installed")
      else()
        string(APPEND out "${before}${label} (in toolgate's source tree, not installed")
      endif()
      # The closing ")" that follows stays and ends the parenthesis.
    endif()
  endwhile()
  string(APPEND out "${text}")
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/docs/${D_COMPONENT}/${D_RENAME})
  file(WRITE ${generated}.tmp "${out}")
  # Rewritten only when changed: installs and packages keep their timestamps.
  file(COPY_FILE ${generated}.tmp ${generated} ONLY_IF_DIFFERENT)
  file(REMOVE ${generated}.tmp)
  install(FILES ${generated} DESTINATION ${D_DESTINATION} COMPONENT ${D_COMPONENT})
endfunction()
