/*
 * Scheduling trace rings (trace.h). Each CPU writes only its own ring,
 * so recording takes no lock: one slot, one index increment. A ring keeps
 * the latest N events; the dump says how many older ones were overwritten.
 * The rings are allocated once at boot, N bounded, so the dump is bounded
 * too (N lines per CPU) and no user action can grow them.
 */
#include "kernel.h"
#include "trace.h"

#define TRACE_DEFAULT 16384
#define TRACE_MAX     65536

struct trec {
	uint64_t ns;
	uint32_t arg;
	uint16_t vp, sp;        /* VP id and space id, truncated (0: none) */
	uint8_t type;
};

int trace_on;
static uint64_t want;           /* events per CPU asked for; 0: off */
static struct trec *ring[MAXCPU];
static uint64_t head[MAXCPU];   /* events ever recorded on each CPU */

void trace_setup(const char *word)
{
	uint64_t n = TRACE_DEFAULT;
	if (word[5] == '=') {
		n = 0;
		for (const char *s = word + 6; *s >= '0' && *s <= '9' && n <= TRACE_MAX; s++)
			n = n * 10 + (uint64_t)(*s - '0');
		if (n < 16 || n > TRACE_MAX) {
			kprintf("anima: bad trace size '%s' (want 16..%d events per CPU); using %d\n",
				word + 6, TRACE_MAX, TRACE_DEFAULT);
			n = TRACE_DEFAULT;
		}
	}
	want = n;
}

void trace_init(void)
{
	if (!want)
		return;
	size_t pages = (want * sizeof(struct trec) + PGSIZE - 1) / PGSIZE;
	for (int i = 0; i < ncpu; i++)
		if (!(ring[i] = pages_alloc(pages))) {
			kprintf("anima: no memory for the trace rings; tracing off\n");
			return;
		}
	__atomic_fetch_or(&trace_on, TRACE_REC, __ATOMIC_SEQ_CST);
}

static void trace_rec(int type, struct vp *vp, uint32_t arg)
{
	int id = mycpu()->id;
	struct trec *r = &ring[id][head[id] % want];
	r->ns = now_ns();
	r->type = (uint8_t)type;
	r->arg = arg;
	r->vp = vp ? (uint16_t)vp->id : 0;
	r->sp = vp ? (uint16_t)vp->space->id : 0;
	head[id]++;
}

/* A trace or shake point with the flag on: record, shake, or both. */
void trace_slow(int type, struct vp *vp, uint32_t arg)
{
	int on = READ_ONCE(trace_on);
	if (type && (on & TRACE_REC))
		trace_rec(type, vp, arg);
	if (on & TRACE_JITTER)
		jitter();
}

/* One line per event, oldest first per CPU: `%t CPU NS TYPE VP SP ARG`
   (NS in decimal ns since boot). `%trace` lines frame them. Other CPUs
   may still be running: recording stops first, and a record half
   written at that moment is at worst one odd line. */
void trace_dump(void)
{
	if (!(__atomic_fetch_and(&trace_on, ~TRACE_REC, __ATOMIC_SEQ_CST) & TRACE_REC))
		return;
	kprintf("%%trace begin %d %lu\n", ncpu, want);
	for (int c = 0; c < ncpu; c++) {
		uint64_t n = head[c], first = n > want ? n - want : 0;
		kprintf("%%trace cpu %d %lu %lu\n", c, n - first, first);
		for (uint64_t i = first; i < n; i++) {
			struct trec *r = &ring[c][i % want];
			kprintf("%%t %d %lu %u %u %u %u\n", c, r->ns, r->type, r->vp, r->sp, r->arg);
		}
	}
	kprintf("%%trace end\n");
}
