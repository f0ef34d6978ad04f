# Per-program compiler flags (a make fragment; see docs/libc.md).
CFLAGS += -D_GNU_SOURCE -std=gnu99
