/* Inside the target: what the probe needs to know of the leveller's format. */
#ifndef OTON_LEVELLER_FORMAT_H
#define OTON_LEVELLER_FORMAT_H

#include "oton_leveller.h"

/* Channels of the configured format; 0 while none is usable (the audio then passes untouched). */
unsigned oton_leveller_channels(const oton_leveller *leveller);

#endif
