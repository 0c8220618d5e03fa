#include "oton_http_source.h"

#include <gio/gio.h>
#include <gst/base/gstbasesrc.h>
#include <gst/base/gstpushsrc.h>
#include <string.h>

/* The GType name otonhttpsrc is registered under (register_once) and recognised by (preload). */
#define OTON_HTTP_SOURCE_TYPE_NAME "OtonHTTPSource"

/* The parent's start and create, read once in class_init (the class of souphttpsrc lives as long as the process). */
static GstBaseSrcClass *parent_base_src_class;
static GstPushSrcClass *parent_push_src_class;

/* The XML rewriter (oton_http_source_set_xml_rewriter), read with g_atomic_pointer_get. */
static gpointer xml_rewriter;
/* The playlist observer (oton_http_source_set_playlist_observer), read with g_atomic_pointer_get. */
static gpointer playlist_observer;

/* What a source does with the body of its current response: undecided until its first non-blank
 * byte; collecting (held back whole for the rewriter) when that byte is '<'; passing otherwise, or
 * past OTON_HTTP_SOURCE_XML_LIMIT; sent once the held body went out (the next create is EOS). */
typedef enum { BODY_UNDECIDED, BODY_COLLECTING, BODY_PASSING, BODY_SENT } BodyMode;

/* One source's body state, as qdata. Touched by start (before the streaming thread runs) and by
 * create (on the streaming thread), never at the same time. */
typedef struct {
    BodyMode mode;
    GByteArray *held;
    /* A copy of a response that starts with "#EXTM3U" (an HLS playlist), for the observer; the
     * response itself passes unchanged. 0: undecided, 1: copying, 2: not a playlist (or too large). */
    int playlist_mode;
    GByteArray *playlist;
    /* oton_http_source_preload's body: the next response is these bytes, once (NULL: none). */
    GBytes *preloaded;
    /* This start's response is the preloaded body: while `preloaded` is set it goes out, then EOS. */
    gboolean serving_preloaded;
} BodyState;

static GQuark body_state_quark(void) {
    static gsize quark = 0;
    if (g_once_init_enter(&quark)) g_once_init_leave(&quark, (gsize)g_quark_from_static_string("oton-http-source-body"));
    return (GQuark)quark;
}

static void body_state_free(gpointer data) {
    BodyState *state = data;
    g_byte_array_unref(state->held);
    g_byte_array_unref(state->playlist);
    if (state->preloaded) g_bytes_unref(state->preloaded);
    g_free(state);
}

static BodyState *body_state(GstElement *element) {
    BodyState *state = g_object_get_qdata(G_OBJECT(element), body_state_quark());
    if (!state) {
        state = g_new0(BodyState, 1);
        state->held = g_byte_array_new();
        state->playlist = g_byte_array_new();
        g_object_set_qdata_full(G_OBJECT(element), body_state_quark(), state, body_state_free);
    }
    return state;
}

static void body_state_reset(BodyState *state) {
    state->mode = BODY_UNDECIDED;
    g_byte_array_set_size(state->held, 0);
    state->playlist_mode = 0;
    g_byte_array_set_size(state->playlist, 0);
}

/* The first byte that is not blank (nor a UTF-8 byte-order mark) in `data`, or 0 when all are. */
static guint8 first_meaningful_byte(const guint8 *data, gsize size) {
    gsize i = 0;
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) i = 3;
    for (; i < size; i++) {
        guint8 c = data[i];
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c;
    }
    return 0;
}

/* The held body as one buffer: rewritten when the rewriter asks, else as received. */
static GstBuffer *take_held_body(GstPushSrc *source, BodyState *state) {
    OtonXMLBodyRewriter rewriter = (OtonXMLBodyRewriter)g_atomic_pointer_get(&xml_rewriter);
    guint8 *rewritten = NULL;
    gsize rewritten_size = 0;
    gchar *location = NULL;
    if (rewriter) g_object_get(source, "location", &location, NULL);
    gboolean replaced = rewriter && rewriter(location, state->held->data, state->held->len, &rewritten, &rewritten_size) && rewritten;
    g_free(location);
    if (replaced) {
        g_byte_array_set_size(state->held, 0);
        return gst_buffer_new_wrapped(rewritten, rewritten_size);
    }
    GstBuffer *buffer = gst_buffer_new_memdup(state->held->data, state->held->len);
    g_byte_array_set_size(state->held, 0);
    return buffer;
}

/* souphttpsrc's create, holding back a response that starts like XML until its end, so that the
 * rewriter sees it whole (a manifest is small: at most OTON_HTTP_SOURCE_XML_LIMIT is held). Audio
 * and segments never start with '<': their buffers pass as they come. */
static GstFlowReturn create_body(GstPushSrc *source, GstBuffer **out) {
    BodyState *state = body_state(GST_ELEMENT(source));
    if (state->mode == BODY_PASSING || !g_atomic_pointer_get(&xml_rewriter)) return parent_push_src_class->create(source, out);
    if (state->mode == BODY_SENT) return GST_FLOW_EOS;
    for (;;) {
        GstBuffer *buffer = NULL;
        GstFlowReturn result = parent_push_src_class->create(source, &buffer);
        if (result == GST_FLOW_EOS && state->held->len > 0) {
            *out = take_held_body(source, state);
            state->mode = BODY_SENT;
            return GST_FLOW_OK;
        }
        if (result != GST_FLOW_OK) {
            /* Flushing (a stop or a seek): what was held belongs to a response that is gone. */
            body_state_reset(state);
            return result;
        }
        GstMapInfo map;
        if (!gst_buffer_map(buffer, &map, GST_MAP_READ)) {
            state->mode = BODY_PASSING;
            *out = buffer;
            return GST_FLOW_OK;
        }
        if (state->mode == BODY_UNDECIDED) {
            guint8 first = first_meaningful_byte(map.data, map.size);
            if (first != 0) state->mode = first == '<' ? BODY_COLLECTING : BODY_PASSING;
            if (state->mode == BODY_PASSING && state->held->len == 0) {
                gst_buffer_unmap(buffer, &map);
                *out = buffer;
                return GST_FLOW_OK;
            }
        }
        g_byte_array_append(state->held, map.data, (guint)map.size);
        gst_buffer_unmap(buffer, &map);
        gst_buffer_unref(buffer);
        if (state->mode == BODY_PASSING || state->held->len > OTON_HTTP_SOURCE_XML_LIMIT) {
            /* Blank bytes before audio, or XML too large to be a manifest: what was held goes on as it came. */
            GstBuffer *held = gst_buffer_new_memdup(state->held->data, state->held->len);
            g_byte_array_set_size(state->held, 0);
            state->mode = BODY_PASSING;
            *out = held;
            return GST_FLOW_OK;
        }
    }
}

/* Copies a playlist response for the observer as it passes, and hands it over at its end. */
static void observe_playlist(GstPushSrc *source, GstFlowReturn result, GstBuffer *buffer) {
    OtonPlaylistObserver observer = (OtonPlaylistObserver)g_atomic_pointer_get(&playlist_observer);
    BodyState *state = body_state(GST_ELEMENT(source));
    if (!observer || state->playlist_mode == 2) return;
    if (result == GST_FLOW_EOS && state->playlist_mode == 1) {
        gchar *location = NULL;
        g_object_get(source, "location", &location, NULL);
        if (location) observer(location, state->playlist->data, state->playlist->len);
        g_free(location);
        g_byte_array_set_size(state->playlist, 0);
        state->playlist_mode = 2;
        return;
    }
    if (result != GST_FLOW_OK || !buffer) return;
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_READ)) return;
    if (state->playlist_mode == 0) {
        gsize skip = map.size >= 3 && map.data[0] == 0xEF && map.data[1] == 0xBB && map.data[2] == 0xBF ? 3 : 0;
        state->playlist_mode = map.size >= skip + 7 && memcmp(map.data + skip, "#EXTM3U", 7) == 0 ? 1 : 2;
    }
    if (state->playlist_mode == 1) {
        if (state->playlist->len + map.size > OTON_HTTP_SOURCE_PLAYLIST_LIMIT) {
            state->playlist_mode = 2;
            g_byte_array_set_size(state->playlist, 0);
        } else {
            g_byte_array_append(state->playlist, map.data, (guint)map.size);
        }
    }
    gst_buffer_unmap(buffer, &map);
}

/* The preloaded body as this start's whole response: one buffer, then EOS. */
static GstFlowReturn create_preloaded(BodyState *state, GstBuffer **out) {
    if (!state->preloaded) return GST_FLOW_EOS;
    *out = gst_buffer_new_wrapped_bytes(state->preloaded);
    g_bytes_unref(state->preloaded);
    state->preloaded = NULL;
    return GST_FLOW_OK;
}

static GstFlowReturn oton_http_source_create(GstPushSrc *source, GstBuffer **out) {
    BodyState *state = body_state(GST_ELEMENT(source));
    GstFlowReturn result = state->serving_preloaded ? create_preloaded(state, out) : create_body(source, out);
    observe_playlist(source, result, result == GST_FLOW_OK ? *out : NULL);
    return result;
}

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
    BodyState *state = body_state(element);
    body_state_reset(state); /* a new response (a demuxer's downloader reuses its source) */
    state->serving_preloaded = state->preloaded != NULL;
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
    parent_push_src_class = GST_PUSH_SRC_CLASS(g_type_class_peek_parent(klass));
    GST_BASE_SRC_CLASS(klass)->start = oton_http_source_start;
    GST_PUSH_SRC_CLASS(klass)->create = oton_http_source_create;
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
    GType type = g_type_register_static(parent, OTON_HTTP_SOURCE_TYPE_NAME, &info, 0);
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

void oton_http_source_set_playlist_observer(OtonPlaylistObserver observer) {
    g_atomic_pointer_set(&playlist_observer, (gpointer)observer);
}

void oton_http_source_set_xml_rewriter(OtonXMLBodyRewriter rewriter) {
    g_atomic_pointer_set(&xml_rewriter, (gpointer)rewriter);
}

gboolean oton_http_source_preload(GstElement *source, const guint8 *body, gsize size) {
    GType type = g_type_from_name(OTON_HTTP_SOURCE_TYPE_NAME);
    if (type == 0 || !g_type_is_a(G_OBJECT_TYPE(source), type) || size > OTON_HTTP_SOURCE_PLAYLIST_LIMIT) return FALSE;
    BodyState *state = body_state(source);
    if (state->preloaded) g_bytes_unref(state->preloaded);
    state->preloaded = g_bytes_new(body, size);
    return TRUE;
}

void oton_http_source_warm_up(void) {
    oton_http_source_register();
    GTlsBackend *backend = g_tls_backend_get_default();
    if (backend && g_tls_backend_supports_tls(backend)) {
        GTlsDatabase *database = g_tls_backend_get_default_database(backend);
        if (database) g_object_unref(database);
    }
    (void)g_proxy_resolver_get_default();
}
