# The allocator of the programs ksnap ships (the `ksnap` CLI) and of the
# benches that time the same code in-process (issue 20).
#
#   -DKSNAP_ALLOCATOR=auto      jemalloc when its static archive is found and
#                               the build has no sanitizer, else glibc's
#   -DKSNAP_ALLOCATOR=jemalloc  jemalloc, or a configure error naming the
#                               missing package (libjemalloc-dev)
#   -DKSNAP_ALLOCATOR=system    glibc's malloc
#
# Why: `perf record` of `ksnap diff <recorded commit> head` on the
# 10,000-variant pair put a quarter of all samples under glibc's malloc
# (_int_malloc, malloc_consolidate, sysmalloc's page faults): the engine's
# threads allocate and free many small nodes and one large read buffer per
# file. docs/benchmarks.md, "The allocator", has the A/B figures.
#
# jemalloc is linked statically (Debian's libjemalloc_pic.a, whole archive:
# its malloc, free and operator new replace glibc's and libstdc++'s for the
# whole process, shared libraries included), so the program and the .deb
# need no jemalloc at run time. The ksnap libraries never link an allocator:
# a program that links them keeps its own.
set(KSNAP_ALLOCATOR "auto" CACHE STRING "malloc of the ksnap program and benches: auto, jemalloc or system")
set_property(CACHE KSNAP_ALLOCATOR PROPERTY STRINGS auto jemalloc system)

set(KSNAP_ALLOCATOR_USED "system")
if(NOT KSNAP_ALLOCATOR MATCHES "^(auto|jemalloc|system)$")
  message(FATAL_ERROR "KSNAP_ALLOCATOR=${KSNAP_ALLOCATOR}: use auto, jemalloc or system")
endif()
if(NOT KSNAP_ALLOCATOR STREQUAL "system")
  find_library(KSNAP_JEMALLOC_ARCHIVE NAMES libjemalloc_pic.a libjemalloc.a)
  string(FIND "${CMAKE_CXX_FLAGS} ${CMAKE_EXE_LINKER_FLAGS}" "-fsanitize" sanitizer_flag)
  set(sanitized OFF)
  if(KSNAP_SANITIZE OR NOT sanitizer_flag EQUAL -1)
    set(sanitized ON)
  endif()
  if(KSNAP_ALLOCATOR STREQUAL "jemalloc")
    if(NOT KSNAP_JEMALLOC_ARCHIVE)
      message(FATAL_ERROR "KSNAP_ALLOCATOR=jemalloc: no libjemalloc_pic.a (apt-get install libjemalloc-dev)")
    endif()
    if(sanitized)
      message(FATAL_ERROR "KSNAP_ALLOCATOR=jemalloc: a sanitizer replaces malloc itself; use auto or system")
    endif()
    set(KSNAP_ALLOCATOR_USED "jemalloc")
  elseif(KSNAP_JEMALLOC_ARCHIVE AND NOT sanitized)
    set(KSNAP_ALLOCATOR_USED "jemalloc")
  elseif(sanitized)
    message(STATUS "ksnap allocator: system (a sanitizer build)")
  else()
    message(STATUS "ksnap allocator: system (no libjemalloc_pic.a; apt-get install libjemalloc-dev "
                   "for the speed of docs/benchmarks.md)")
  endif()
endif()
if(KSNAP_ALLOCATOR_USED STREQUAL "jemalloc")
  message(STATUS "ksnap allocator: jemalloc (${KSNAP_JEMALLOC_ARCHIVE}, static)")
endif()

# Links the chosen allocator into the program `target` (tests/CMakeLists.txt
# checks that the built `ksnap` runs on it).
function(ksnap_use_allocator target)
  if(KSNAP_ALLOCATOR_USED STREQUAL "jemalloc")
    target_link_libraries(${target} PRIVATE
      "-Wl,--whole-archive" ${KSNAP_JEMALLOC_ARCHIVE} "-Wl,--no-whole-archive"
      Threads::Threads ${CMAKE_DL_LIBS})
  endif()
endfunction()
