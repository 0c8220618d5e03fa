/* The leveller on a pad: the caps event says the format, each buffer is levelled in place. */
#include "oton_leveller.h"
#include "leveller_format.h"

#include <gst/gst.h>
#include "shim.h"
#include <string.h>

static void configure_from(oton_leveller *leveller, GstEvent *event) {
    unsigned rate, channels;
    otgst_caps_event_f32_interleaved(event, &rate, &channels);
    /* An unusable format leaves the audio untouched (rate 0 makes configure fail). */
    oton_leveller_configure(leveller, rate, channels);
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
    GstClockTime pts = GST_BUFFER_PTS(buffer), duration = GST_BUFFER_DURATION(buffer);
    if (channels > 0)
        oton_leveller_process_at(leveller, (float *)map.data, map.size / sizeof(float) / channels,
                                 GST_CLOCK_TIME_IS_VALID(pts) ? (int64_t)pts : -1,
                                 GST_CLOCK_TIME_IS_VALID(duration) ? (int64_t)duration : -1);
    gst_buffer_unmap(buffer, &map);
    return GST_PAD_PROBE_OK;
}

unsigned long oton_leveller_attach(void *pad, oton_leveller *leveller) {
    return gst_pad_add_probe(GST_PAD(pad), GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_data,
                             oton_leveller_ref(leveller), (GDestroyNotify)oton_leveller_unref);
}
