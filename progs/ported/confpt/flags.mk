# Per-program compiler flags (a make fragment; see docs/libc.md).
# Built as a third-party program is: standard headers only, glibc's
# feature macro for pthread_timedjoin_np (the checks' safety net).
CFLAGS += -D_GNU_SOURCE -std=gnu99
