/*
 * How many bytes of the C heap this process has in use, for the leak check of
 * `oton plugins validate`: glibc's mallinfo2() (every arena), small chunks in
 * use plus mmap()ed ones. Free memory malloc keeps for later does not count, so
 * fragmentation is not mistaken for growth.
 */
#ifndef OTON_HEAP_GAUGE_H
#define OTON_HEAP_GAUGE_H

#include <stddef.h>

/* Bytes allocated with malloc and not yet freed, in every thread. Thread: any. */
size_t oton_heap_in_use(void);

#endif
