/* libmpg123 for the file sink's air watch: decodes a sampled second of an MP3 stream to float
 * samples, to measure its level. */
#ifndef OTON_CMPG123_SHIM_H
#define OTON_CMPG123_SHIM_H

#include <mpg123.h>

/* mpg123_param is a macro in libmpg123 1.31 (to mpg123_param2): Swift sees this function. */
static inline int oton_mpg123_set_flags(mpg123_handle *handle, long flags) { return mpg123_param(handle, MPG123_FLAGS, flags, 0); }

#endif
