#include "oton_http_source.h"

#include <gst/base/gstbasesrc.h>

/* The parent's start, read once in class_init (the class of souphttpsrc lives as long as the process). */
static GstBaseSrcClass *parent_base_src_class;

static void apply_identity(GstElement *element, GstContext *context) {
    const GstStructure *structure = gst_context_get_structure(context);
    const gchar *user_agent = gst_structure_get_string(structure, "user-agent");
    const gchar *ca_file = gst_structure_get_string(structure, "ssl-ca-file");
    if (user_agent) g_object_set(element, "user-agent", user_agent, NULL);
    if (ca_file) g_object_set(element, "ssl-ca-file", ca_file, NULL);
}

/* The thread changing the source's state, before its first request is built. The identity is
 * applied here and not in set_context: a bin sets contexts while holding its own lock, and
 * g_object_set's notification walks up the parents, taking theirs (a deadlock).
 * A source in a bin got the context when it was added; one that did not (a demuxer's downloader
 * source) asks for it, and its downloader sets it on the source before the post returns. */
static gboolean oton_http_source_start(GstBaseSrc *source) {
    GstElement *element = GST_ELEMENT(source);
    GstContext *context = gst_element_get_context(element, OTON_REQUEST_IDENTITY_CONTEXT);
    if (!context) {
        gst_element_post_message(element, gst_message_new_need_context(GST_OBJECT(source), OTON_REQUEST_IDENTITY_CONTEXT));
        context = gst_element_get_context(element, OTON_REQUEST_IDENTITY_CONTEXT);
    }
    if (context) {
        apply_identity(element, context);
        gst_context_unref(context);
    }
    return parent_base_src_class->start(source);
}

static void oton_http_source_class_init(gpointer klass, gpointer data) {
    (void)data;
    parent_base_src_class = GST_BASE_SRC_CLASS(g_type_class_peek_parent(klass));
    GST_BASE_SRC_CLASS(klass)->start = oton_http_source_start;
    gst_element_class_set_metadata(GST_ELEMENT_CLASS(klass), "oton HTTP source", "Source/Network",
                                   "souphttpsrc with the User-Agent and certificate authorities of oton's pipeline",
                                   "oton");
}

static gboolean register_once(void) {
    GstElementFactory *factory = gst_element_factory_find("souphttpsrc");
    if (!factory) return FALSE;
    GstPluginFeature *loaded = gst_plugin_feature_load(GST_PLUGIN_FEATURE(factory));
    gst_object_unref(factory);
    if (!loaded) return FALSE;
    GType parent = gst_element_factory_get_element_type(GST_ELEMENT_FACTORY(loaded));
    gst_object_unref(loaded);
    if (parent == G_TYPE_INVALID) return FALSE;

    GTypeQuery query;
    g_type_query(parent, &query);
    if (query.type == G_TYPE_INVALID || query.class_size > G_MAXUINT16 || query.instance_size > G_MAXUINT16) return FALSE;
    GTypeInfo info = {
        .class_size = (guint16)query.class_size,
        .class_init = oton_http_source_class_init,
        .instance_size = (guint16)query.instance_size,
    };
    GType type = g_type_register_static(parent, "OtonHTTPSource", &info, 0);
    return gst_element_register(NULL, OTON_HTTP_SOURCE_FACTORY, GST_RANK_PRIMARY + 1, type);
}

gboolean oton_http_source_register(void) {
    static gsize done = 0;
    static gboolean registered = FALSE;
    if (g_once_init_enter(&done)) {
        registered = register_once();
        g_once_init_leave(&done, 1);
    }
    return registered;
}

gboolean oton_is_http_source(GstElement *element) {
    GType soup = g_type_from_name("GstSoupHTTPSrc");
    return soup != 0 && g_type_is_a(G_OBJECT_TYPE(element), soup);
}

void oton_request_identity_set(GstElement *pipeline, const char *user_agent, const char *ca_file) {
    GstContext *context = gst_context_new(OTON_REQUEST_IDENTITY_CONTEXT, TRUE);
    GstStructure *structure = gst_context_writable_structure(context);
    gst_structure_set(structure, "user-agent", G_TYPE_STRING, user_agent, NULL);
    if (ca_file) gst_structure_set(structure, "ssl-ca-file", G_TYPE_STRING, ca_file, NULL);
    gst_element_set_context(pipeline, context);
    gst_context_unref(context);
}
