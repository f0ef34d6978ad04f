# Per-program compiler flags (a make fragment; see docs/libc.md).
# The program's own headers sit on its include path, named as Anima's own
# runtime headers once were at the top of ours (clock.h, thread.h, sync.h).
CFLAGS += -Iprogs/ported/ownhdrs/include -std=gnu99
