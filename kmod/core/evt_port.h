/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few primitives the portable ring core needs, for the kernel and for
 * userspace (unit tests, native benchmark). CPU-local operations follow the
 * kernel's local_t: atomic against interrupts (signals) on the same CPU
 * (thread), not against other CPUs.
 */
#ifndef EVT_PORT_H
#define EVT_PORT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/compiler.h>
#include <linux/atomic.h>
#include <asm/local.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/spinlock.h>

typedef local_t evt_local_t;
#define evt_local_read(l)		local_read(l)
#define evt_local_set(l, v)		local_set(l, v)
#define evt_local_inc(l)		local_inc(l)
#define evt_local_add_return(v, l)	local_add_return(v, l)
#define evt_local_cmpxchg(l, o, n)	local_cmpxchg(l, o, n)
typedef atomic_long_t evt_atomic_t;
#define evt_atomic_read(a)		atomic_long_read(a)
#define evt_atomic_set(a, v)		atomic_long_set(a, v)
#define evt_atomic_cmpxchg(a, o, n)	atomic_long_cmpxchg(a, o, n)
#define evt_smp_wmb()			smp_wmb()
#define evt_smp_rmb()			smp_rmb()
#define evt_smp_mb()			smp_mb()
#define evt_barrier()			barrier()
#define evt_likely(x)			likely(x)
#define evt_unlikely(x)			unlikely(x)
#define EVT_READ_ONCE(x)		READ_ONCE(x)
#define EVT_WRITE_ONCE(x, v)		WRITE_ONCE(x, v)
static __always_inline u64 evt_clock(void)
{
	return ktime_get_mono_fast_ns();
}
#define EVT_INLINE static __always_inline

/*
 * Serialises remote flushers of one ring (evt_ring_flush_remote()): process
 * context only, never an interrupt, so preemption off is enough; raw, so
 * that it spins on PREEMPT_RT too (the section is short and bounded).
 */
typedef raw_spinlock_t evt_lock_t;
#define evt_lock_init(l)		raw_spin_lock_init(l)
#define evt_lock(l)			raw_spin_lock(l)
#define evt_unlock(l)			raw_spin_unlock(l)

#else /* userspace */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

typedef struct { long v; } evt_local_t;
#if defined(__x86_64__)
/* Unlocked x86 instructions, exactly what the kernel's local_t compiles to. */
static inline long evt_local_add_return(long i, evt_local_t *l)
{
	long old = i;

	__asm__ __volatile__("xaddq %0, %1" : "+r"(old), "+m"(l->v) : : "memory");
	return old + i;
}

static inline long evt_local_cmpxchg(evt_local_t *l, long o, long n)
{
	long prev;

	__asm__ __volatile__("cmpxchgq %2, %1"
			     : "=a"(prev), "+m"(l->v) : "r"(n), "0"(o) : "memory");
	return prev;
}
#else
static inline long evt_local_add_return(long i, evt_local_t *l)
{
	return __atomic_add_fetch(&l->v, i, __ATOMIC_RELAXED);
}

static inline long evt_local_cmpxchg(evt_local_t *l, long o, long n)
{
	__atomic_compare_exchange_n(&l->v, &o, n, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return o;
}
#endif
#define evt_local_read(l)		__atomic_load_n(&(l)->v, __ATOMIC_RELAXED)
#define evt_local_set(l, x)		__atomic_store_n(&(l)->v, (x), __ATOMIC_RELAXED)
#define evt_local_inc(l)		((void)evt_local_add_return(1, l))

typedef struct { long v; } evt_atomic_t;
#define evt_atomic_read(a)		__atomic_load_n(&(a)->v, __ATOMIC_RELAXED)
#define evt_atomic_set(a, x)		__atomic_store_n(&(a)->v, (x), __ATOMIC_RELAXED)
static inline long evt_atomic_cmpxchg(evt_atomic_t *a, long o, long n)
{
	__atomic_compare_exchange_n(&a->v, &o, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return o;
}
#define evt_smp_wmb()			__atomic_thread_fence(__ATOMIC_RELEASE)
#define evt_smp_rmb()			__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define evt_smp_mb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define evt_barrier()			__asm__ __volatile__("" ::: "memory")
#define evt_likely(x)			__builtin_expect(!!(x), 1)
#define evt_unlikely(x)			__builtin_expect(!!(x), 0)
#define EVT_READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define EVT_WRITE_ONCE(x, v)		(*(volatile __typeof__(x) *)&(x) = (v))

/* Tests swap the clock to drive timestamps (wrap-around, ordering): evt_port.c. */
extern u64 (*evt_clock_fn)(void);
static inline u64 evt_clock(void)
{
	return evt_clock_fn();
}
#define EVT_INLINE static inline __attribute__((always_inline))

static inline void evt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* A tiny spinlock: the kernel's raw_spinlock_t for evt_ring_flush_remote(). */
typedef struct { int v; } evt_lock_t;
static inline void evt_lock_init(evt_lock_t *l)
{
	__atomic_store_n(&l->v, 0, __ATOMIC_RELAXED);
}

static inline void evt_lock(evt_lock_t *l)
{
	while (__atomic_exchange_n(&l->v, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->v, __ATOMIC_RELAXED))
			evt_cpu_relax();
}

static inline void evt_unlock(evt_lock_t *l)
{
	__atomic_store_n(&l->v, 0, __ATOMIC_RELEASE);
}

#endif

#endif /* EVT_PORT_H */
