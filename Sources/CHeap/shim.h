// glibc's malloc_trim, which Swift's Glibc module does not import (malloc.h is not in it). Header only.
#pragma once
#include <malloc.h>

/// Gives the heap's free pages back to the system, in every arena; 1 when some memory was released.
static inline int heap_give_back(void) {
#ifdef __GLIBC__
    return malloc_trim(0);
#else
    return 0;
#endif
}
