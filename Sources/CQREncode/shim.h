#ifndef OTON_CQRENCODE_SHIM_H
#define OTON_CQRENCODE_SHIM_H

/* libqrencode (Debian: libqrencode-dev) for the web remote's QR code of its URL. */
#include <qrencode.h>

#endif
