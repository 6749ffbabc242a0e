#ifndef AUTHFLOW_MALLOC_COUNTER_H
#define AUTHFLOW_MALLOC_COUNTER_H

#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc) made by this
/// process since it started; 0 where counting is not supported (not glibc).
uint64_t authflow_allocation_count(void);

/// 1 when allocations are being counted.
int authflow_allocation_counting_supported(void);

/// Bytes the allocator has handed out and not taken back (glibc mallinfo2); -1 elsewhere.
int64_t authflow_heap_in_use(void);

#endif
