#!/bin/sh
# Usage: allocator.sh KSNAP_BINARY [jemalloc|system]
# Tells which allocator the program runs on: jemalloc (linked statically,
# cmake/KsnapAllocator.cmake) answers MALLOC_CONF=stats_print:true with its
# statistics on stderr at exit; glibc's malloc ignores the variable. Prints
# "jemalloc" or "system"; given the allocator the build chose, fails unless
# the program runs on it (ctest cli_allocator; tests/package/run.sh asks).
bin="$1"
want="${2:-}"
err=$(MALLOC_CONF=stats_print:true "$bin" --version 2>&1 >/dev/null)
case "$err" in
  *"jemalloc statistics"*) got=jemalloc ;;
  *) got=system ;;
esac
if [ -n "$want" ] && [ "$got" != "$want" ]; then
  echo "allocator: configured $want, the program runs on $got" >&2
  exit 1
fi
echo "$got"
