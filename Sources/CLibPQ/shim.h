#ifndef RLSKIT_CLIBPQ_SHIM_H
#define RLSKIT_CLIBPQ_SHIM_H
// pkg-config adds /usr/include/postgresql to the search path; without it,
// Debian's header is still reachable under its directory name.
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif
#endif
