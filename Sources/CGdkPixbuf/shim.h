/* gdk-pixbuf for decoding and checking untrusted images, plus GLib's checksums. */
#ifndef OTON_CGDKPIXBUF_SHIM_H
#define OTON_CGDKPIXBUF_SHIM_H

#include <gdk-pixbuf/gdk-pixbuf.h>

static inline void oton_object_unref(gpointer object) { if (object) g_object_unref(object); }

#endif
