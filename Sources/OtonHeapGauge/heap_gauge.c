#include "oton_heap_gauge.h"

#include <malloc.h>

size_t oton_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
