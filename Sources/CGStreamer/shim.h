/* The GStreamer and GLib API the host uses, plus thin inline shims for the
 * parts that are macros (which Swift cannot import). Nothing else. The shims
 * are prefixed otgst_ so they never read as names of the plugin ABI (oton_). */
#ifndef OTON_CGSTREAMER_SHIM_H
#define OTON_CGSTREAMER_SHIM_H

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <malloc.h>

static inline GstMessageType otgst_message_type(GstMessage *message) { return GST_MESSAGE_TYPE(message); }
static inline GstObject *otgst_message_source(GstMessage *message) { return GST_MESSAGE_SRC(message); }
static inline const char *otgst_object_name(GstObject *object) { return object ? GST_OBJECT_NAME(object) : NULL; }
static inline GstClockTime otgst_buffer_pts(GstBuffer *buffer) { return GST_BUFFER_PTS(buffer); }
static inline gboolean otgst_clock_time_is_valid(GstClockTime time) { return GST_CLOCK_TIME_IS_VALID(time); }
static inline gboolean otgst_buffer_is_discont(GstBuffer *buffer) { return GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_DISCONT); }
static inline GstBuffer *otgst_probe_buffer(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_BUFFER(info); }
static inline GstEvent *otgst_probe_event(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_EVENT(info); }
/* Replaces the buffer a probe is looking at with a copy of `size` bytes at `data` (its timestamps and flags kept). */
static inline void otgst_probe_replace_buffer(GstPadProbeInfo *info, const void *data, gsize size) {
    GstBuffer *old = GST_PAD_PROBE_INFO_BUFFER(info);
    GstBuffer *buffer = gst_buffer_new_memdup(data, size);
    gst_buffer_copy_into(buffer, old, GST_BUFFER_COPY_METADATA, 0, -1);
    gst_buffer_unref(old);
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
}
static inline GstEventType otgst_event_type(GstEvent *event) { return GST_EVENT_TYPE(event); }
static inline GstBin *otgst_bin(GstElement *element) { return GST_BIN(element); }
static inline GstAppSink *otgst_app_sink(GstElement *element) { return GST_APP_SINK(element); }
static inline GstObject *otgst_object(gpointer object) { return GST_OBJECT(object); }
/* The element's state lock (recursive): a test holds it to stop a bin's state continuation at its start. */
static inline void otgst_state_lock(GstElement *element) { GST_STATE_LOCK(element); }
static inline void otgst_state_unlock(GstElement *element) { GST_STATE_UNLOCK(element); }
static inline void otgst_caps_unref(GstCaps *caps) { gst_caps_unref(caps); }
static inline void otgst_sample_unref(GstSample *sample) { gst_sample_unref(sample); }

/* glibc's mallopt(M_MMAP_THRESHOLD, …) (malloc.h is not in Swift's Glibc module): buffers of
 * `bytes` and more are mmapped, and the threshold stops adapting (LargeBufferMemoryPolicy.swift). */
static inline void otgst_fix_mmap_threshold(int bytes) { mallopt(M_MMAP_THRESHOLD, bytes); }

/* g_object_set with one property of each type (varargs are not callable from Swift). */
static inline void otgst_set_bool(gpointer object, const char *name, gboolean value) { g_object_set(object, name, value, NULL); }
/// Whether `object` has a property called `name` (an element the user named may lack one).
static inline gboolean otgst_has_property(gpointer object, const char *name) { return g_object_class_find_property(G_OBJECT_GET_CLASS(object), name) != NULL; }
static inline void otgst_set_uint(gpointer object, const char *name, guint value) { g_object_set(object, name, value, NULL); }
static inline void otgst_set_uint64(gpointer object, const char *name, guint64 value) { g_object_set(object, name, value, NULL); }
static inline void otgst_set_double(gpointer object, const char *name, gdouble value) { g_object_set(object, name, value, NULL); }
static inline void otgst_set_string(gpointer object, const char *name, const char *value) { g_object_set(object, name, value, NULL); }
static inline void otgst_set_caps(gpointer object, const char *name, GstCaps *value) { g_object_set(object, name, value, NULL); }

#endif
