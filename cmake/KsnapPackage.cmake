# The Debian package, made by CPack from the install rules (KsnapInstall.cmake):
#
#   cmake --build build && (cd build && cpack -G DEB)
#   => build/ksnap_0.1.0_amd64.deb: /usr/bin/ksnap, /usr/lib/libksnap_*.a
#      (position-independent), /usr/lib/libksnap_tune.so{,.0.1,.0.1.0},
#      /usr/include/ksnap, /usr/lib/cmake/ksnap,
#      /usr/lib/pkgconfig/ksnap-tune{,-shared}.pc,
#      /usr/lib/python3/dist-packages/ksnap_triton (Debian's python3 finds it),
#      /usr/share/ksnap/{python,examples}
#
# Depends are computed by dpkg-shlibdeps from the binary and the shared
# library (libc6, libstdc++6, libsqlite3-0, libzstd1, libxxhash0, ...) plus
# python3 for the plugin. The package declares its shared library (shlibs:
# libksnap_tune 0.1 ksnap (>= 0.1.0)) and runs ldconfig on install. The -dev
# packages are needed only to link the static libraries into a program of
# your own (tune: libxxhash-dev alone), hence Suggests.
if(KSNAP_TUNE_ONLY OR NOT TARGET ksnap)
  return()  # the package is the whole toolkit
endif()

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "ksnap")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "ksnap")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Snapshot, diff and autotune GPU microkernels across compiler builds")
set(CPACK_PACKAGE_DESCRIPTION
    "ksnap captures the IR of every compiler stage of every Triton kernel variant a suite compiles, diffs a pull request's build against main's ignoring cosmetic renumbering, and keeps a history store for CI. It also ships ksnap::tune, a runtime library that picks the fastest compiled variant of a kernel per workload.")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME "DEB-DEFAULT")  # ksnap_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "ksnap maintainers <ksnap@users.noreply.github.com>")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= 3.9)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "libxxhash-dev, libzstd-dev, libsqlite3-dev, pkg-config, cmake, git")
include(CPack)
