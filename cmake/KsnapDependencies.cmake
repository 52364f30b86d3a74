# External libraries found with pkg-config, and how a ksnap library links a
# dependency so that the installed export stays usable elsewhere.
#
#   ksnap_external(XXHASH libxxhash xxhash)
#   => PkgConfig::XXHASH (pkg_check_modules), which ksnap_library() links as
#        $<BUILD_INTERFACE:PkgConfig::XXHASH>   in this build tree,
#        $<INSTALL_INTERFACE:ksnap::xxhash>     in the installed export,
#      where ksnapConfig.cmake defines ksnap::xxhash by finding library
#      `xxhash` (with libxxhash.pc as a hint when pkg-config is there).
#
# The global property KSNAP_EXTERNALS collects "name|pc-module|library" for
# ksnapConfig.cmake.
find_package(PkgConfig REQUIRED)

function(ksnap_external var pc_module library)
  pkg_check_modules(${var} REQUIRED IMPORTED_TARGET ${pc_module})
  string(TOLOWER "${var}" name)
  set_property(GLOBAL APPEND PROPERTY KSNAP_EXTERNALS "${name}|${pc_module}|${library}")
endfunction()

# Links `dep` to `target` PUBLIC: another ksnap library or a CMake target as
# it is; PkgConfig::<VAR> of ksnap_external() as above; nlohmann_json (header
# only, included by sources only) for this build tree only.
function(ksnap_link_dependency target dep)
  if(dep STREQUAL "nlohmann_json::nlohmann_json")
    target_link_libraries(${target} PUBLIC $<BUILD_INTERFACE:${dep}>)
  elseif(dep MATCHES "^PkgConfig::(.+)$")
    string(TOLOWER "${CMAKE_MATCH_1}" name)
    get_property(externals GLOBAL PROPERTY KSNAP_EXTERNALS)
    if(NOT externals MATCHES "(^|;)${name}\\|")
      message(FATAL_ERROR "${target} links ${dep}: find it with ksnap_external() so that "
                          "the installed ksnapConfig.cmake can find it again")
    endif()
    target_link_libraries(${target}
      PUBLIC $<BUILD_INTERFACE:${dep}> $<INSTALL_INTERFACE:ksnap::${name}>)
  else()
    target_link_libraries(${target} PUBLIC ${dep})
  endif()
endfunction()
