/* GUPnP 1.6 (the UPnP control point: SSDP through GSSDP, SOAP through libsoup 3) and
 * its helpers for the UPnP casting plugin (CGUPnPAV has DIDL-Lite and protocolInfo), plus thin inline shims for
 * what Swift cannot import: GObject cast macros, signals, and the varargs of actions.
 * Every function here runs on the plugin's own GLib thread (its GMainContext pushed as the
 * thread default), except oton_upnp_cancel, which GCancellable allows from any thread. */
#ifndef OTON_CGUPNP_SHIM_H
#define OTON_CGUPNP_SHIM_H

/* libxml2 (under GUPnP) would include the system ICU, whose declarations clash with the ICU that
 * Foundation brings into Swift; nothing here uses libxml2's ICU converters, so leave them out. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libgupnp/gupnp.h>
#include <libxml/xmlerror.h>
#include <libxml/globals.h>
#include <string.h>

#define OTON_UPNP_RENDERER_TYPE "urn:schemas-upnp-org:device:MediaRenderer:1"
#define OTON_UPNP_AVTRANSPORT "urn:schemas-upnp-org:service:AVTransport:1"
#define OTON_UPNP_CONNECTION_MANAGER "urn:schemas-upnp-org:service:ConnectionManager:1"

/* A control point's device-proxy-available / -unavailable handler. */
typedef void (*oton_upnp_device_fn)(void *control_point, void *device_proxy, void *user);

/* Starts browsing for renderers on a GUPnPContext: a control point, its signals, active. */
static inline void *oton_upnp_browse(GUPnPContext *context, oton_upnp_device_fn available,
                                     oton_upnp_device_fn unavailable, void *user) {
    GUPnPControlPoint *point = gupnp_control_point_new(context, OTON_UPNP_RENDERER_TYPE);
    g_signal_connect(point, "device-proxy-available", G_CALLBACK(available), user);
    g_signal_connect(point, "device-proxy-unavailable", G_CALLBACK(unavailable), user);
    gssdp_resource_browser_set_active(GSSDP_RESOURCE_BROWSER(point), TRUE);
    return point;
}

/* Sends a fresh M-SEARCH (a renderer switched on since may have announced itself unheard). */
static inline void oton_upnp_rescan(void *control_point) {
    gssdp_resource_browser_rescan(GSSDP_RESOURCE_BROWSER(control_point));
}

/* One context on a named interface ("lo", "eth0"); NULL with `error` set when it has no address. */
static inline GUPnPContext *oton_upnp_context_on(const char *interface, GError **error) {
    return gupnp_context_new_full(interface, NULL, 0, GSSDP_UDA_VERSION_1_0, error);
}

/* Every interface with an IPv4 address, as they come and go: `created` gets each new context
 * (the callback starts a control point on it and hands it back to be managed). */
typedef void (*oton_upnp_context_fn)(GUPnPContextManager *manager, GUPnPContext *context, void *user);
static inline GUPnPContextManager *oton_upnp_context_manager(oton_upnp_context_fn created, void *user) {
    GUPnPContextManager *manager = gupnp_context_manager_create_full(GSSDP_UDA_VERSION_1_0, G_SOCKET_FAMILY_IPV4, 0);
    g_signal_connect(manager, "context-available", G_CALLBACK(created), user);
    return manager;
}
static inline void oton_upnp_manage(GUPnPContextManager *manager, void *control_point) {
    gupnp_context_manager_manage_control_point(manager, GUPNP_CONTROL_POINT(control_point));
}

/* A device's description strings (newly allocated, g_free them) and its services. */
static inline char *oton_upnp_friendly_name(void *device) { return gupnp_device_info_get_friendly_name(GUPNP_DEVICE_INFO(device)); }
static inline char *oton_upnp_model_name(void *device) { return gupnp_device_info_get_model_name(GUPNP_DEVICE_INFO(device)); }
static inline const char *oton_upnp_location(void *device) { return gupnp_device_info_get_location(GUPNP_DEVICE_INFO(device)); }
static inline const char *oton_upnp_udn(void *device) { return gupnp_device_info_get_udn(GUPNP_DEVICE_INFO(device)); }
static inline void *oton_upnp_service(void *device, const char *type) {
    return gupnp_device_info_get_service(GUPNP_DEVICE_INFO(device), type);
}

/* The actions the plugin calls, one shape each (gupnp_service_proxy_action_new is varargs). */
static inline GUPnPServiceProxyAction *oton_upnp_action_set_uri(const char *uri, const char *metadata) {
    return gupnp_service_proxy_action_new("SetAVTransportURI", "InstanceID", G_TYPE_UINT, 0u,
                                          "CurrentURI", G_TYPE_STRING, uri,
                                          "CurrentURIMetaData", G_TYPE_STRING, metadata, NULL);
}
static inline GUPnPServiceProxyAction *oton_upnp_action_play(void) {
    return gupnp_service_proxy_action_new("Play", "InstanceID", G_TYPE_UINT, 0u, "Speed", G_TYPE_STRING, "1", NULL);
}
static inline GUPnPServiceProxyAction *oton_upnp_action_instance(const char *name) {
    return gupnp_service_proxy_action_new(name, "InstanceID", G_TYPE_UINT, 0u, NULL);
}
static inline GUPnPServiceProxyAction *oton_upnp_action_plain(const char *name) {
    return gupnp_service_proxy_action_new(name, NULL);
}

/* Sends `action` on `service`; `done` runs on the context's thread, cancelled or not. */
static inline void oton_upnp_call(void *service, GUPnPServiceProxyAction *action, GCancellable *cancellable,
                                  GAsyncReadyCallback done, void *user) {
    gupnp_service_proxy_call_action_async(GUPNP_SERVICE_PROXY(service), action, cancellable, done, user);
}
static inline gboolean oton_upnp_finish(void *service, GAsyncResult *result, GError **error) {
    return gupnp_service_proxy_call_action_finish(GUPNP_SERVICE_PROXY(service), result, error) != NULL;
}
/* One string out argument of a finished action (g_free it); NULL with `error` set when absent. */
static inline char *oton_upnp_result_string(GUPnPServiceProxyAction *action, const char *name, GError **error) {
    char *value = NULL;
    if (!gupnp_service_proxy_action_get_result(action, error, name, G_TYPE_STRING, &value, NULL)) return NULL;
    return value;
}
static inline gboolean oton_upnp_is_cancelled(const GError *error) {
    return error != NULL && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}
static inline gboolean oton_upnp_is_soap_fault(const GError *error) {
    return error != NULL && error->domain == GUPNP_CONTROL_ERROR;
}

static inline void oton_upnp_unref(void *object) { if (object != NULL) g_object_unref(object); }
static inline void *oton_upnp_ref(void *object) { return object != NULL ? g_object_ref(object) : NULL; }

/* g_main_context_invoke_full with the default priority. */
static inline void oton_upnp_invoke(GMainContext *context, GSourceFunc function, gpointer data) {
    g_main_context_invoke_full(context, G_PRIORITY_DEFAULT, function, data, NULL);
}
static inline gboolean oton_upnp_source_remove(void) { return G_SOURCE_REMOVE; }

/* libxml2 prints its parse errors to stderr by default, quoting the offending bytes: any device on
 * the LAN that announces itself by SSDP could write terminal escapes there through a malformed
 * description. `handler` gets each parse error instead (on the thread that parsed: the plugin's
 * GLib thread), for the plugin to clean, cap and log; other generic messages are dropped. Set for
 * the calling thread and as the default of threads started later. */
static inline void oton_upnp_xml_drop_generic(void *context, const char *message, ...) { (void)context; (void)message; }
static inline void oton_upnp_route_xml_errors(xmlStructuredErrorFunc handler, void *user) {
    xmlSetStructuredErrorFunc(user, handler);
    xmlSetGenericErrorFunc(NULL, oton_upnp_xml_drop_generic);
    xmlThrDefSetStructuredErrorFunc(user, handler);
    xmlThrDefSetGenericErrorFunc(NULL, oton_upnp_xml_drop_generic);
}
/* The message of one libxml2 error (its own text, which may quote the peer's bytes). */
static inline const char *oton_upnp_xml_error_message(const void *error) {
    return error != NULL ? ((const xmlError *)error)->message : NULL;
}

#endif
