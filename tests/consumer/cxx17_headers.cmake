# The autotune runtime's public headers compile as C++17: every header under
# ksnap/tune/ and every header they include from ksnap/ (followed
# transitively: today support/status.h), each alone in a translation unit, with
# -std=c++17 -Wall -Wextra -Wpedantic -Werror. Also checked: the headers
# reached are tune's, capture's and support's only (tune depends on those alone), and,
# so that a pass means something, that these flags do reject a C++20-only
# header (<span>).
#
#   cmake -DCXX=g++ -DINCLUDE_DIR=include -P tests/consumer/cxx17_headers.cmake
#   => "cxx17_headers: 14 headers compile alone as C++17: support/status.h tune/args.h ..."
#
# ctest runs it on the source tree (tune_headers_cxx17); tests/consumer/run.sh
# runs it on the installed headers of a tune-only prefix.
cmake_minimum_required(VERSION 3.22)
if(NOT CXX OR NOT INCLUDE_DIR)
  message(FATAL_ERROR "usage: cmake -DCXX=<compiler> -DINCLUDE_DIR=<dir> -P cxx17_headers.cmake")
endif()
set(flags -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only)
if(NOT WORK_DIR)
  set(WORK_DIR "${CMAKE_CURRENT_BINARY_DIR}/cxx17_headers")
endif()
file(MAKE_DIRECTORY "${WORK_DIR}")

# The headers: tune/*.h, then whatever they include as "ksnap/...", until no
# new one appears.
file(GLOB todo RELATIVE "${INCLUDE_DIR}/ksnap" "${INCLUDE_DIR}/ksnap/tune/*.h")
if(NOT todo)
  message(FATAL_ERROR "cxx17_headers: no headers in ${INCLUDE_DIR}/ksnap/tune")
endif()
set(headers "")
while(todo)
  list(POP_FRONT todo h)
  if(h IN_LIST headers)
    continue()
  endif()
  if(NOT h MATCHES "^(tune|capture|support)/")
    message(FATAL_ERROR "cxx17_headers: the tune headers include ksnap/${h}: "
                        "tune may depend on capture and support only")
  endif()
  if(NOT EXISTS "${INCLUDE_DIR}/ksnap/${h}")
    message(FATAL_ERROR "cxx17_headers: ksnap/${h} is included but not in ${INCLUDE_DIR}")
  endif()
  list(APPEND headers ${h})
  file(STRINGS "${INCLUDE_DIR}/ksnap/${h}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]ksnap/")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]ksnap/([^\">]+)[\">].*" "\\1" inc "${line}")
    list(APPEND todo ${inc})
  endforeach()
endwhile()
list(SORT headers)

# Control: the flags reject what C++17 lacks.
file(WRITE "${WORK_DIR}/control.cc" "#include <span>\nstd::span<const int> s;\n")
execute_process(COMMAND ${CXX} ${flags} "${WORK_DIR}/control.cc"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "cxx17_headers: '${CXX} ${flags}' accepts std::span: the check would prove nothing")
endif()

# Each header alone, included twice (it must guard itself).
set(failed "")
foreach(h IN LISTS headers)
  string(MAKE_C_IDENTIFIER "${h}" id)
  set(tu "${WORK_DIR}/${id}.cc")
  file(WRITE "${tu}" "#include \"ksnap/${h}\"\n#include \"ksnap/${h}\"\n")
  execute_process(COMMAND ${CXX} ${flags} -I "${INCLUDE_DIR}" "${tu}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    list(APPEND failed ${h})
    message("cxx17_headers: ksnap/${h} does not compile as C++17:\n${out}")
  endif()
endforeach()
list(LENGTH headers n)
if(failed)
  string(REPLACE ";" " " failed "${failed}")
  message(FATAL_ERROR "cxx17_headers: FAIL: ${failed}")
endif()
string(REPLACE ";" " " shown "${headers}")
message("cxx17_headers: ${n} headers compile alone as C++17: ${shown}")
