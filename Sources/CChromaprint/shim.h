/* Chromaprint (libchromaprint) for the song recognition plugin: the raw fingerprint of what is
 * heard, one 32-bit value per 0.124 s of sound at its 11025 Hz. */
#ifndef OTON_CCHROMAPRINT_SHIM_H
#define OTON_CCHROMAPRINT_SHIM_H

#include <chromaprint.h>

#endif
