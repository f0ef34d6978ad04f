# Per-program compiler flags (a make fragment; see docs/libc.md).
CFLAGS += -DTABLE_SIZE=64 -DWF_VERSION='"1.2"' -std=gnu99
