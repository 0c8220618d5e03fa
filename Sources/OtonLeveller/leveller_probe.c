/* The leveller on a pad: the caps event says the format, each buffer is levelled in place. */
#include "oton_leveller.h"
#include "leveller_format.h"

#include <gst/gst.h>
#include <string.h>

static void configure_from(oton_leveller *leveller, GstEvent *event) {
    GstCaps *caps = NULL;
    gst_event_parse_caps(event, &caps);
    const GstStructure *structure = caps ? gst_caps_get_structure(caps, 0) : NULL;
    const gchar *format = structure ? gst_structure_get_string(structure, "format") : NULL;
    const gchar *layout = structure ? gst_structure_get_string(structure, "layout") : NULL;
    gint rate = 0, channels = 0;
    if (structure) {
        gst_structure_get_int(structure, "rate", &rate);
        gst_structure_get_int(structure, "channels", &channels);
    }
    int usable = format && strcmp(format, "F32LE") == 0 && (!layout || strcmp(layout, "interleaved") == 0) && rate > 0 && channels > 0;
    /* An unusable format leaves the audio untouched (rate 0 makes configure fail). */
    oton_leveller_configure(leveller, usable ? (unsigned)rate : 0, usable ? (unsigned)channels : 0);
}

static GstPadProbeReturn on_data(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    oton_leveller *leveller = data;
    if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
        GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
        if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) configure_from(leveller, event);
        return GST_PAD_PROBE_OK;
    }
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    buffer = gst_buffer_make_writable(buffer); /* the tee's branches share a buffer: then this one is a copy */
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_READWRITE)) return GST_PAD_PROBE_OK;
    unsigned channels = oton_leveller_channels(leveller);
    if (channels > 0) oton_leveller_process(leveller, (float *)map.data, map.size / sizeof(float) / channels);
    gst_buffer_unmap(buffer, &map);
    return GST_PAD_PROBE_OK;
}

unsigned long oton_leveller_attach(void *pad, oton_leveller *leveller) {
    return gst_pad_add_probe(GST_PAD(pad), GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_data,
                             oton_leveller_ref(leveller), (GDestroyNotify)oton_leveller_unref);
}
