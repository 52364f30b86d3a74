"""A user module a kernel reads attributes of (recorded as a namespace)."""

OFFSET = 3
UNUSED = object()
