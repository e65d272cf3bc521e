#include <stdio.h>
#include "cstdio_shim.h"

int rlskit_stdout_failed(void) {
    int flushed = fflush(stdout);
    return flushed != 0 || ferror(stdout) != 0;
}
