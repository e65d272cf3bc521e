#ifndef RLSKIT_CSTDIO_SHIM_H
#define RLSKIT_CSTDIO_SHIM_H
/// Flushes standard output and reports whether anything written to it was lost (disk full,
/// closed pipe): glibc clears the buffer on a failed flush, so only the error flag remembers.
int rlskit_stdout_failed(void);
#endif
