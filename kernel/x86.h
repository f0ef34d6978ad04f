/* Thin wrappers for x86-64 instructions the kernel needs. */
#ifndef X86_H
#define X86_H
#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}
static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}
#define DEFINE_CR(n) \
	static inline uint64_t rcr##n(void) { uint64_t v; __asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); return v; } \
	static inline void lcr##n(uint64_t v) { __asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
static inline uint64_t read_rflags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}
static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void pause(void) { __asm__ volatile("pause" ::: "memory"); }
static inline void invlpg(uint64_t va) { __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory"); }

#define MSR_EFER         0xc0000080
#define MSR_STAR         0xc0000081
#define MSR_LSTAR        0xc0000082
#define MSR_FMASK        0xc0000084
#define MSR_FS_BASE      0xc0000100
#define MSR_GS_BASE      0xc0000101
#define MSR_KERNEL_GS    0xc0000102
#define MSR_APIC_BASE    0x1b
#define EFER_SCE   (1u << 0)
#define EFER_LME   (1u << 8)
#define EFER_NXE   (1u << 11)

#define CR0_MP     (1u << 1)
#define CR0_EM     (1u << 2)
#define CR0_TS     (1u << 3)
#define CR0_NE     (1u << 5)
#define CR0_WP     (1u << 16)
#define CR4_OSFXSR (1u << 9)
#define CR4_OSXMMEXCPT (1u << 10)
#define CR4_FSGSBASE (1u << 16)
#define CR4_SMEP   (1u << 20)
#define CR4_SMAP   (1u << 21)

#define RFLAGS_IF  (1u << 9)
#define RFLAGS_TF  (1u << 8)
#define RFLAGS_DF  (1u << 10)
#define RFLAGS_AC  (1u << 18)
#define RFLAGS_NT  (1u << 14)

#endif
