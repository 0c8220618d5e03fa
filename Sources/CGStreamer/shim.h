/* The GStreamer and GLib API the host uses, plus thin inline shims for the
 * parts that are macros (which Swift cannot import). Nothing else. The shims
 * are prefixed otgst_ so they never read as names of the plugin ABI (oton_). */
#ifndef OTON_CGSTREAMER_SHIM_H
#define OTON_CGSTREAMER_SHIM_H

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/tag/tag.h>
#include <malloc.h>
#include <string.h>

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
/* The rate and channels of the audio a caps event describes when it is interleaved F32LE (what the
 * leveller and the effect chain process in place); 0 and 0 for any other format. */
static inline void otgst_caps_event_f32_interleaved(GstEvent *event, unsigned *rate, unsigned *channels) {
    GstCaps *caps = NULL;
    gst_event_parse_caps(event, &caps);
    const GstStructure *structure = caps ? gst_caps_get_structure(caps, 0) : NULL;
    const gchar *format = structure ? gst_structure_get_string(structure, "format") : NULL;
    const gchar *layout = structure ? gst_structure_get_string(structure, "layout") : NULL;
    gint r = 0, c = 0;
    if (structure) {
        gst_structure_get_int(structure, "rate", &r);
        gst_structure_get_int(structure, "channels", &c);
    }
    int usable = format && g_str_equal(format, "F32LE") && (!layout || g_str_equal(layout, "interleaved")) && r > 0 && c > 0;
    *rate = usable ? (unsigned)r : 0;
    *channels = usable ? (unsigned)c : 0;
}
static inline GstBin *otgst_bin(GstElement *element) { return GST_BIN(element); }
static inline GstAppSink *otgst_app_sink(GstElement *element) { return GST_APP_SINK(element); }
static inline GstObject *otgst_object(gpointer object) { return GST_OBJECT(object); }
/* The element's state lock (recursive): a test holds it to stop a bin's state continuation at its start. */
static inline void otgst_state_lock(GstElement *element) { GST_STATE_LOCK(element); }
static inline void otgst_state_unlock(GstElement *element) { GST_STATE_UNLOCK(element); }
static inline void otgst_caps_unref(GstCaps *caps) { gst_caps_unref(caps); }
static inline void otgst_sample_unref(GstSample *sample) { gst_sample_unref(sample); }
/* The tags libgsttag reads from the ID3v2 tag in the `size` bytes at `data`, or NULL when they are
 * not one (the caller owns the list: otgst_tag_list_unref). */
static inline GstTagList *otgst_tag_list_from_id3(const void *data, gsize size) {
    GstBuffer *buffer = gst_buffer_new_memdup(data, size);
    GstTagList *list = gst_tag_list_from_id3v2_tag(buffer);
    gst_buffer_unref(buffer);
    return list;
}
static inline void otgst_tag_list_unref(GstTagList *list) { gst_tag_list_unref(list); }
/* The output pad of the adaptive demuxer (GStreamer 1.22's hlsdemux/dashdemux) that `source_pad`'s
 * segment source feeds: the source sits in a bin "srcbin-<pad name>" inside the demuxer, and its
 * streaming thread pushes that pad's buffers. NULL when it is not so (a new reference otherwise). */
static inline GstPad *otgst_adaptive_demux_output(GstPad *source_pad) {
    GstElement *source = gst_pad_get_parent_element(source_pad);
    if (!source) return NULL;
    GstObject *bin = gst_object_get_parent(GST_OBJECT(source));
    gst_object_unref(source);
    if (!bin) return NULL;
    GstObject *demux = gst_object_get_parent(bin);
    GstPad *pad = NULL;
    const char *name = GST_OBJECT_NAME(bin);
    if (demux && GST_IS_ELEMENT(demux) && name && g_str_has_prefix(name, "srcbin-"))
        pad = gst_element_get_static_pad(GST_ELEMENT(demux), name + strlen("srcbin-"));
    if (demux) gst_object_unref(demux);
    gst_object_unref(bin);
    return pad;
}
/* Sends a tag event carrying `list` (a new reference) downstream from `pad`. */
static inline gboolean otgst_push_tag_event(GstPad *pad, GstTagList *list) {
    return gst_pad_push_event(pad, gst_event_new_tag(gst_tag_list_ref(list)));
}

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
/* A string property's value, g_free'd by the caller (NULL when unset). */
static inline gchar *otgst_dup_string(gpointer object, const char *name) { gchar *value = NULL; g_object_get(object, name, &value, NULL); return value; }
static inline void otgst_set_caps(gpointer object, const char *name, GstCaps *value) { g_object_set(object, name, value, NULL); }

/* Timeshift playback (Sources/OtonMedia/Timeshift/TimeshiftFeeder.swift): an appsrc fed from the
 * ring in its need-data callback (on the appsrc's streaming thread), and a mark event that travels
 * downstream in order with the bytes, so the host learns which ring offset is being heard. */
typedef void (*otgst_need_data_fn)(GstAppSrc *src, guint length, gpointer user_data);
static inline void otgst_app_src_connect(GstElement *element, otgst_need_data_fn need_data, gpointer user_data, GDestroyNotify notify) {
    GstAppSrcCallbacks callbacks = {0};
    callbacks.need_data = need_data;
    gst_app_src_set_callbacks(GST_APP_SRC(element), &callbacks, user_data, notify);
}
/* Copies `size` bytes into a new buffer and queues it on the appsrc (DISCONT when asked). */
static inline GstFlowReturn otgst_app_src_push(GstAppSrc *src, const void *data, gsize size, gboolean discont) {
    GstBuffer *buffer = gst_buffer_new_allocate(NULL, size, NULL);
    gst_buffer_fill(buffer, 0, data, size);
    if (discont) GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DISCONT);
    return gst_app_src_push_buffer(src, buffer);
}
#define OTGST_RING_MARK "oton-ring-mark"
/* Pushes a serialized custom event "every byte before `offset` has gone downstream" on the appsrc's
 * pad; call only from its streaming thread (need-data), after its first buffer. */
static inline gboolean otgst_app_src_push_mark(GstAppSrc *src, guint64 offset) {
    GstPad *pad = gst_element_get_static_pad(GST_ELEMENT(src), "src");
    if (!pad) return FALSE;
    GstEvent *event = gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM,
        gst_structure_new(OTGST_RING_MARK, "offset", G_TYPE_UINT64, offset, NULL));
    gboolean pushed = gst_pad_push_event(pad, event);
    gst_object_unref(pad);
    return pushed;
}
/* The offset of a ring mark event seen by a pad probe; FALSE for any other event. */
static inline gboolean otgst_read_ring_mark(GstPadProbeInfo *info, guint64 *offset) {
    if (!(GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM)) return FALSE;
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    if (!event || GST_EVENT_TYPE(event) != GST_EVENT_CUSTOM_DOWNSTREAM) return FALSE;
    const GstStructure *structure = gst_event_get_structure(event);
    if (!structure || !gst_structure_has_name(structure, OTGST_RING_MARK)) return FALSE;
    return gst_structure_get_uint64(structure, "offset", offset);
}
typedef gboolean (*otgst_ring_mark_fn)(guint64 offset, gpointer user_data);
typedef struct { otgst_ring_mark_fn heard; gpointer user_data; GDestroyNotify notify; } otgst_ring_mark_probe;
static inline GstPadProbeReturn otgst_ring_mark_probe_call(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    guint64 offset;
    if (otgst_read_ring_mark(info, &offset)) {
        otgst_ring_mark_probe *probe = (otgst_ring_mark_probe *)data;
        probe->heard(offset, probe->user_data);
        return GST_PAD_PROBE_DROP; /* it ends here: the sink need not see it */
    }
    return GST_PAD_PROBE_OK;
}
static inline void otgst_ring_mark_probe_free(gpointer data) {
    otgst_ring_mark_probe *probe = (otgst_ring_mark_probe *)data;
    if (probe->notify) probe->notify(probe->user_data);
    g_free(probe);
}
/* Calls `heard` (on the streaming thread) for each ring mark reaching `element`'s sink pad. */
static inline void otgst_watch_ring_marks(GstElement *element, otgst_ring_mark_fn heard, gpointer user_data, GDestroyNotify notify) {
    GstPad *pad = gst_element_get_static_pad(element, "sink");
    if (!pad) { if (notify) notify(user_data); return; }
    otgst_ring_mark_probe *probe = g_new0(otgst_ring_mark_probe, 1);
    probe->heard = heard; probe->user_data = user_data; probe->notify = notify;
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, otgst_ring_mark_probe_call, probe, otgst_ring_mark_probe_free);
    gst_object_unref(pad);
}
static inline GstAppSrc *otgst_app_src(GstElement *element) { return GST_APP_SRC(element); }

/* Sound at once: a stream whose first audio is dated after its segment's start (an MPEG-TS from
 * ffmpeg starts its audio 0.7 s after the PCR; fMP4 HLS joined mid-window dates it at the
 * fragment's time) would hold the sink silent that long after PLAYING, since a sink plays each
 * buffer at its running time. The first buffer after the start or a flush moves the pad's offset
 * back by its running time, so it is played as it arrives (as mpv does); what follows keeps its
 * spacing. Per pad, on its streaming thread; the flush re-arms it. */
typedef struct { gint armed; } otgst_start_gap_probe;
static inline GstPadProbeReturn otgst_start_gap_probe_call(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    otgst_start_gap_probe *probe = (otgst_start_gap_probe *)data;
    if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
        GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
        if (event && GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) {
            gst_pad_set_offset(pad, 0);
            g_atomic_int_set(&probe->armed, 1);
        }
        return GST_PAD_PROBE_OK;
    }
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    if (!buffer || !g_atomic_int_compare_and_exchange(&probe->armed, 1, 0)) return GST_PAD_PROBE_OK;
    GstEvent *segmentEvent = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
    if (!segmentEvent) return GST_PAD_PROBE_OK;
    const GstSegment *segment = NULL;
    gst_event_parse_segment(segmentEvent, &segment);
    GstClockTime pts = GST_BUFFER_PTS(buffer);
    if (segment && segment->format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID(pts)) {
        guint64 running = gst_segment_to_running_time(segment, GST_FORMAT_TIME, pts);
        /* The offset is applied to the segment resent before this buffer goes on. */
        if (GST_CLOCK_TIME_IS_VALID(running) && running > 20 * GST_MSECOND) gst_pad_set_offset(pad, -(gint64)running);
    }
    gst_event_unref(segmentEvent);
    return GST_PAD_PROBE_OK;
}
/* Plays the first audio of `element`'s output at once (see otgst_start_gap_probe). */
static inline void otgst_play_first_buffer_at_once(GstElement *element) {
    GstPad *pad = gst_element_get_static_pad(element, "src");
    if (!pad) return;
    otgst_start_gap_probe *probe = g_new0(otgst_start_gap_probe, 1);
    probe->armed = 1;
    gst_pad_add_probe(pad, (GstPadProbeType)(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
                      otgst_start_gap_probe_call, probe, g_free);
    gst_object_unref(pad);
}

/* Titles bounded before any sink sees them: a tag event whose string values are longer than
 * OTGST_TAG_STRING_MAX bytes goes on with them cut (at a UTF-8 character's start). An audio sink puts
 * stream tags into its sound server's properties: a 68 KB Ogg title made PulseAudio drop pulsesink's
 * connection ("no audio output", exit 3). A sink also posts what it receives as a tag message, so
 * the bus watch reads the bounded titles too. On the streaming thread; allocates only for a long tag. */
#define OTGST_TAG_STRING_MAX 4096
static inline void otgst_bound_tag_string(const GstTagList *list, const gchar *tag, gpointer data) {
    GstTagList *bounded = (GstTagList *)data;
    if (gst_tag_get_type(tag) != G_TYPE_STRING) return;
    guint count = gst_tag_list_get_tag_size(list, tag);
    for (guint index = 0; index < count; index++) {
        const gchar *value = NULL;
        if (!gst_tag_list_peek_string_index(list, tag, index, &value) || !value) continue;
        gsize length = strlen(value);
        if (length <= OTGST_TAG_STRING_MAX) continue;
        gsize cut = OTGST_TAG_STRING_MAX;
        while (cut > 0 && ((guchar)value[cut] & 0xC0) == 0x80) cut--;
        gchar *shorter = g_strndup(value, cut);
        gst_tag_list_remove_tag(bounded, tag);
        gst_tag_list_add(bounded, GST_TAG_MERGE_APPEND, tag, shorter, NULL);
        g_free(shorter);
        return;  /* one value of a tag is enough for a title; the others went with the removal */
    }
}
static inline gboolean otgst_tag_list_is_oversized(const GstTagList *list) {
    gint tags = gst_tag_list_n_tags(list);
    for (gint i = 0; i < tags; i++) {
        const gchar *tag = gst_tag_list_nth_tag_name(list, (guint)i);
        if (gst_tag_get_type(tag) != G_TYPE_STRING) continue;
        guint count = gst_tag_list_get_tag_size(list, tag);
        for (guint index = 0; index < count; index++) {
            const gchar *value = NULL;
            if (gst_tag_list_peek_string_index(list, tag, index, &value) && value && strlen(value) > OTGST_TAG_STRING_MAX) return TRUE;
        }
    }
    return FALSE;
}
static inline GstPadProbeReturn otgst_bound_tags_probe_call(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad; (void)data;
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    if (!event || GST_EVENT_TYPE(event) != GST_EVENT_TAG) return GST_PAD_PROBE_OK;
    GstTagList *list = NULL;
    gst_event_parse_tag(event, &list);
    if (!list || !otgst_tag_list_is_oversized(list)) return GST_PAD_PROBE_OK;
    GstTagList *bounded = gst_tag_list_copy(list);
    gst_tag_list_foreach(list, otgst_bound_tag_string, bounded);
    gst_tag_list_set_scope(bounded, gst_tag_list_get_scope(list));
    GST_PAD_PROBE_INFO_DATA(info) = gst_event_new_tag(bounded);
    gst_event_unref(event);
    return GST_PAD_PROBE_OK;
}
/* Bounds the tag events reaching `element`'s sink pad (see OTGST_TAG_STRING_MAX). */
static inline void otgst_bound_tags_into(GstElement *element) {
    GstPad *pad = gst_element_get_static_pad(element, "sink");
    if (!pad) return;
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, otgst_bound_tags_probe_call, NULL, NULL);
    gst_object_unref(pad);
}

#endif
