// Counts heap allocations by interposing the allocator's entry points in the executable that
// links this file (flowbench only). glibc exports its real implementations as __libc_*.
#include "MallocCounter.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdatomic.h>

static _Atomic uint64_t allocations = 0;

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

void *malloc(size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  return __libc_realloc(p, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  void *p = __libc_memalign(alignment, size);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  return __libc_memalign(alignment, size);
}

uint64_t authflow_allocation_count(void) {
  return atomic_load_explicit(&allocations, memory_order_relaxed);
}

int authflow_allocation_counting_supported(void) { return 1; }

int64_t authflow_heap_in_use(void) { return (int64_t)mallinfo2().uordblks; }

#else

uint64_t authflow_allocation_count(void) { return 0; }
int authflow_allocation_counting_supported(void) { return 0; }
int64_t authflow_heap_in_use(void) { return -1; }

#endif
