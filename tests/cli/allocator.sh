#!/bin/sh
# Usage: allocator.sh KSNAP_BINARY jemalloc|system
# Checks that the program runs on the allocator the build chose: jemalloc
# (linked statically) answers MALLOC_CONF=stats_print:true with its statistics
# on stderr at exit; glibc's malloc ignores the variable.
bin="$1"
want="$2"
err=$(MALLOC_CONF=stats_print:true "$bin" --version 2>&1 >/dev/null)
case "$err" in
  *"jemalloc statistics"*) got=jemalloc ;;
  *) got=system ;;
esac
if [ "$got" != "$want" ]; then
  echo "allocator: configured $want, the program runs on $got" >&2
  exit 1
fi
echo "allocator: $got"
