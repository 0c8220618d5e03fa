/* An effect on a pad: the caps event says the format, each buffer is processed in place. */
#include "effects_internal.h"

#include <gst/gst.h>
#include "shim.h"
#include <string.h>

static void configure_from(oton_effect *effect, GstEvent *event) {
    unsigned rate, channels;
    otgst_caps_event_f32_interleaved(event, &rate, &channels);
    oton_effect_configure(effect, rate, channels);
}

/* Says once, on the pipeline's bus, that a filter overran (the Player logs it). Allocates: it
 * happens once per filter and connection, after which the filter is no longer called. */
static void post_overrun(GstPad *pad, oton_effect *effect) {
    GstElement *element = gst_pad_get_parent_element(pad);
    if (!element) return;
    oton_effect_reading reading = oton_effect_read(effect);
    GstStructure *fields = gst_structure_new("oton-effect-overrun", "name", G_TYPE_STRING, oton_effect_name(effect),
                                             "ms", G_TYPE_DOUBLE, reading.overrun_ms, NULL);
    gst_element_post_message(element, gst_message_new_element(GST_OBJECT(element), fields));
    gst_object_unref(element);
}

static GstPadProbeReturn on_data(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    oton_effect *effect = data;
    if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
        GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
        if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) configure_from(effect, event);
        return GST_PAD_PROBE_OK;
    }
    oton_effect_reading state = oton_effect_read(effect);
    if (state.bypassed || state.unusable) return GST_PAD_PROBE_OK;
    GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_READWRITE)) return GST_PAD_PROBE_OK;
    unsigned channels = oton_effect_channels(effect);
    int overran = channels > 0 && oton_effect_run(effect, (float *)map.data, map.size / sizeof(float) / (size_t)channels);
    gst_buffer_unmap(buffer, &map);
    if (overran) post_overrun(pad, effect);
    return GST_PAD_PROBE_OK;
}

unsigned long oton_effect_attach(void *pad, oton_effect *effect) {
    return gst_pad_add_probe(GST_PAD(pad), GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_data,
                             oton_effect_ref(effect), (GDestroyNotify)oton_effect_unref);
}
