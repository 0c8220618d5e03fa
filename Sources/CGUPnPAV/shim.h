/* GUPnP-AV for the UPnP casting plugin: the DIDL-Lite it hands a renderer and the protocolInfo
 * rules it checks a renderer's Sink list with. Pure functions of their arguments (any thread). */
#ifndef OTON_CGUPNPAV_SHIM_H
#define OTON_CGUPNPAV_SHIM_H

/* libxml2 (under GUPnP) would include the system ICU, whose declarations clash with the ICU that
 * Foundation brings into Swift; nothing here uses libxml2's ICU converters, so leave them out. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libgupnp-av/gupnp-av.h>

/* DIDL-Lite for one audio broadcast item, written by GUPnP-AV (escaping included); g_free it. */
static inline char *oton_upnp_didl(const char *title, const char *artist, const char *station,
                                   const char *artwork, const char *uri, const char *protocol_info) {
    GUPnPDIDLLiteWriter *writer = gupnp_didl_lite_writer_new(NULL);
    GUPnPDIDLLiteObject *item = GUPNP_DIDL_LITE_OBJECT(gupnp_didl_lite_writer_add_item(writer));
    gupnp_didl_lite_object_set_id(item, "oton-cast");
    gupnp_didl_lite_object_set_parent_id(item, "0");
    gupnp_didl_lite_object_set_restricted(item, TRUE);
    gupnp_didl_lite_object_set_title(item, title);
    gupnp_didl_lite_object_set_upnp_class(item, "object.item.audioItem.audioBroadcast");
    if (station != NULL) gupnp_didl_lite_object_set_album(item, station);
    if (artwork != NULL) gupnp_didl_lite_object_set_album_art(item, artwork);
    if (artist != NULL) {
        GUPnPDIDLLiteContributor *contributor = gupnp_didl_lite_object_add_artist(item);
        gupnp_didl_lite_contributor_set_name(contributor, artist);
        g_object_unref(contributor);
    }
    GUPnPDIDLLiteResource *resource = gupnp_didl_lite_object_add_resource(item);
    gupnp_didl_lite_resource_set_uri(resource, uri);
    GUPnPProtocolInfo *info = gupnp_protocol_info_new_from_string(protocol_info, NULL);
    if (info != NULL) {
        gupnp_didl_lite_resource_set_protocol_info(resource, info);
        g_object_unref(info);
    }
    g_object_unref(resource);
    char *xml = gupnp_didl_lite_writer_get_string(writer);
    g_object_unref(item);
    g_object_unref(writer);
    return xml;
}

/* Whether one protocolInfo of a renderer's Sink list accepts `wanted` ("http-get:*:audio/mpeg:*"),
 * by GUPnP-AV's rules (wildcards, DLNA profiles). A malformed entry accepts nothing. */
static inline gboolean oton_upnp_protocol_accepts(const char *sink_entry, const char *wanted) {
    GUPnPProtocolInfo *sink = gupnp_protocol_info_new_from_string(sink_entry, NULL);
    GUPnPProtocolInfo *want = gupnp_protocol_info_new_from_string(wanted, NULL);
    gboolean ok = sink != NULL && want != NULL && gupnp_protocol_info_is_compatible(sink, want);
    if (sink != NULL) g_object_unref(sink);
    if (want != NULL) g_object_unref(want);
    return ok;
}

#endif
