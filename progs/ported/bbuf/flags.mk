# Per-program compiler flags (a make fragment; see docs/libc.md).
CFLAGS += -std=gnu99
