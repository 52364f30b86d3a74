# Install rules: every library ksnap_library() made (ksnap::<component>), the
# ksnap executable (ksnap::ksnap), their headers, ksnapConfig.cmake + version
# file, ksnap-tune.pc, and the Triton capture plugin.
#
#   cmake --install build --prefix /opt/ksnap
#   => bin/ksnap
#      include/ksnap/<component>/*.h
#      lib/libksnap_<component>.a                         (position-independent)
#      lib/libksnap_tune.so -> .so.0.1 -> .so.0.1.0        (support + capture + tune, ksnap::tune_shared)
#      lib/cmake/ksnap/ksnap{Config,ConfigVersion,Targets*}.cmake
#      lib/pkgconfig/ksnap-tune.pc, ksnap-tune-shared.pc
#      lib/python3/dist-packages/ksnap_triton/          (KSNAP_PYTHON_INSTALL_DIR)
#      share/ksnap/python/ksnap_triton -> ../../../lib/python3/dist-packages/ksnap_triton
#      share/ksnap/examples/corpus/                      (the bundled example)
#      share/man/man1/ksnap.1, share/bash-completion/completions/ksnap,
#      share/zsh/vendor-completions/_ksnap               (ksnap man / completion)
#      share/ksnap/wheels/ksnap_triton-<v>-py3-none-any.whl (the plugin, for pip)
#
# A consumer:  find_package(ksnap 0.1 REQUIRED COMPONENTS tune)
#              target_link_libraries(app PRIVATE ksnap::tune)   # or ksnap::tune_shared
# Components are found generically: a library added later with
# ksnap_library() is installed and exported like the others, and
# ksnapConfig.cmake looks up only the external libraries that the requested
# components link (KSNAP_COMPONENT_EXTERNALS below).
include(CMakePackageConfigHelpers)

set(KSNAP_PYTHON_INSTALL_DIR "lib/python3/dist-packages" CACHE STRING
    "Where the ksnap_triton package is installed, relative to the prefix (Debian's python3 looks in /usr/lib/python3/dist-packages)")
set(KSNAP_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/ksnap")

get_property(KSNAP_INSTALLED_LIBRARIES GLOBAL PROPERTY KSNAP_LIBRARIES)
get_property(KSNAP_INSTALLED_EXTERNALS GLOBAL PROPERTY KSNAP_EXTERNALS)
set(ksnap_install_targets "")
foreach(lib IN LISTS KSNAP_INSTALLED_LIBRARIES)
  list(APPEND ksnap_install_targets ksnap_${lib})
  if(IS_DIRECTORY "${PROJECT_SOURCE_DIR}/include/ksnap/${lib}")
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/ksnap/${lib}"
            DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/ksnap"
            FILES_MATCHING PATTERN "*.h")
  endif()
endforeach()
if(TARGET ksnap_tune_shared)
  list(APPEND ksnap_install_targets ksnap_tune_shared)
  list(APPEND KSNAP_INSTALLED_LIBRARIES tune_shared)
endif()
if(TARGET ksnap)
  list(APPEND ksnap_install_targets ksnap)
endif()

# The external libraries each component links, itself and through the ksnap
# libraries it uses: "set(_ksnap_externals_of_store xxhash zstd sqlite3)".
# The shared library carries its own (DT_NEEDED): it needs none found.
function(ksnap_externals_of lib out)
  set(found "")
  get_property(deps GLOBAL PROPERTY KSNAP_DEPS_${lib})
  foreach(dep IN LISTS deps)
    if(dep MATCHES "^ksnap_(.+)$")
      ksnap_externals_of(${CMAKE_MATCH_1} sub)
      list(APPEND found ${sub})
    elseif(dep MATCHES "^PkgConfig::(.+)$")
      string(TOLOWER "${CMAKE_MATCH_1}" name)
      list(APPEND found ${name})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES found)
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
set(KSNAP_COMPONENT_EXTERNALS "")
foreach(lib IN LISTS KSNAP_INSTALLED_LIBRARIES)
  ksnap_externals_of(${lib} externals)
  string(REPLACE ";" " " externals "${externals}")
  string(APPEND KSNAP_COMPONENT_EXTERNALS "set(_ksnap_externals_of_${lib} ${externals})\n")
endforeach()

install(TARGETS ${ksnap_install_targets} EXPORT ksnapTargets
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(EXPORT ksnapTargets NAMESPACE ksnap:: DESTINATION "${KSNAP_CMAKE_INSTALL_DIR}")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/ksnapConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/ksnapConfig.cmake"
  INSTALL_DESTINATION "${KSNAP_CMAKE_INSTALL_DIR}")
# 0.x: a minor version may break the API, so only the same minor matches.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/ksnapConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/ksnapConfig.cmake"
              "${PROJECT_BINARY_DIR}/ksnapConfigVersion.cmake"
        DESTINATION "${KSNAP_CMAKE_INSTALL_DIR}")

# pkg-config for the tune runtime: ksnap-tune.pc the static libraries (named
# by path, so the .so beside them is not picked), ksnap-tune-shared.pc the
# shared one. The prefix is relative to the .pc file, so the same file works
# in any prefix, a DESTDIR staging folder or the .deb.
if(TARGET ksnap_tune)
  file(RELATIVE_PATH KSNAP_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" KSNAP_PC_TO_PREFIX "${KSNAP_PC_TO_PREFIX}")
  set(KSNAP_PC_DL "")
  foreach(dl IN LISTS CMAKE_DL_LIBS)
    string(APPEND KSNAP_PC_DL " -l${dl}")
  endforeach()
  string(STRIP "${KSNAP_PC_DL}" KSNAP_PC_DL)
  foreach(pc ksnap-tune ksnap-tune-shared)
    configure_file("${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in" "${PROJECT_BINARY_DIR}/${pc}.pc" @ONLY)
    install(FILES "${PROJECT_BINARY_DIR}/${pc}.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  endforeach()
endif()

# The Triton capture plugin, beside the CLI that runs it. `ksnap capture`
# looks in <bindir>/../share/ksnap/python; the link there points at the
# package in KSNAP_PYTHON_INSTALL_DIR, so that folder holds nothing else and
# is safe to put on PYTHONPATH (dist-packages itself is not: it would shadow
# a virtualenv's own packages).
if(TARGET ksnap)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/python/ksnap_triton"
          DESTINATION "${KSNAP_PYTHON_INSTALL_DIR}"
          PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
  if(NOT KSNAP_PYTHON_INSTALL_DIR STREQUAL "share/ksnap/python")
    file(RELATIVE_PATH plugin_link_target "/prefix/share/ksnap/python"
         "/prefix/${KSNAP_PYTHON_INSTALL_DIR}/ksnap_triton")
    set(plugin_link "${PROJECT_BINARY_DIR}/install-links/ksnap_triton")
    file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/install-links")
    file(CREATE_LINK "${plugin_link_target}" "${plugin_link}" SYMBOLIC)
    install(FILES "${plugin_link}" DESTINATION "share/ksnap/python")
  endif()
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/examples/corpus"
          DESTINATION "share/ksnap/examples")
  # Written by the binary after it links (CMakeLists.txt, docs_command.cc).
  install(FILES "${PROJECT_BINARY_DIR}/ksnap.1" DESTINATION "share/man/man1")
  install(FILES "${PROJECT_BINARY_DIR}/ksnap.bash-completion"
          DESTINATION "share/bash-completion/completions" RENAME ksnap)
  install(FILES "${PROJECT_BINARY_DIR}/_ksnap" DESTINATION "share/zsh/vendor-completions")
  # For any other Python (pyenv, conda, a venv): pip install it offline.
  install(FILES "${KSNAP_WHEEL}" DESTINATION "share/ksnap/wheels")
  # jemalloc, linked into the program (cmake/KsnapAllocator.cmake): its
  # licence asks a binary to carry its copyright notice.
  if(KSNAP_ALLOCATOR_USED STREQUAL "jemalloc")
    find_file(KSNAP_JEMALLOC_COPYRIGHT copyright
              PATHS /usr/share/doc/libjemalloc2 /usr/share/doc/libjemalloc-dev NO_DEFAULT_PATH)
    if(KSNAP_JEMALLOC_COPYRIGHT)
      install(FILES "${KSNAP_JEMALLOC_COPYRIGHT}" DESTINATION "${CMAKE_INSTALL_DOCDIR}"
              RENAME copyright.jemalloc)
    else()
      message(WARNING "jemalloc is linked but its copyright file was not found: the package will not carry it")
    endif()
  endif()
endif()
