# External libraries found with pkg-config, wrapped so that the installed
# package can find them again.
#
#   ksnap_external(xxhash libxxhash xxhash)
#   => PkgConfig::XXHASH, and the target ksnap_external_xxhash that
#      ksnap_library() links as
#        $<BUILD_INTERFACE:ksnap_external_xxhash>  in this build tree,
#        $<INSTALL_INTERFACE:ksnap::xxhash>        in the installed export,
#      where ksnapConfig.cmake defines ksnap::xxhash by finding library
#      `xxhash` (with libxxhash.pc as a hint when pkg-config is there).
#
# The global property KSNAP_EXTERNALS collects "name|pc-module|library" for
# ksnapConfig.cmake.
find_package(PkgConfig REQUIRED)

function(ksnap_external name pc_module library)
  string(TOUPPER "${name}" var)
  pkg_check_modules(${var} REQUIRED IMPORTED_TARGET ${pc_module})
  add_library(ksnap_external_${name} INTERFACE)
  target_link_libraries(ksnap_external_${name} INTERFACE PkgConfig::${var})
  set_property(GLOBAL APPEND PROPERTY KSNAP_EXTERNALS "${name}|${pc_module}|${library}")
endfunction()
