/* GIO / GDBus for the plugins that speak D-Bus, plus thin inline shims for
 * the parts that are macros or varargs (which Swift cannot import). */
#ifndef OTON_CGIO_SHIM_H
#define OTON_CGIO_SHIM_H

#include <gio/gio.h>

/* G_VARIANT_TYPE is a macro cast of a string literal: one function per type used. */
static inline const GVariantType *oton_type_vardict(void) { return G_VARIANT_TYPE_VARDICT; }
static inline const GVariantType *oton_type_uint32_reply(void) { return G_VARIANT_TYPE("(u)"); }
static inline const GVariantType *oton_type_uint32(void) { return G_VARIANT_TYPE_UINT32; }
static inline const GVariantType *oton_type_string(void) { return G_VARIANT_TYPE_STRING; }

/* g_variant_new("(u)", …) and friends, one shape each. */
static inline GVariant *oton_variant_tuple2(GVariant *a, GVariant *b) {
    GVariant *items[2] = {a, b};
    return g_variant_new_tuple(items, 2);
}
static inline GVariant *oton_variant_tuple3(GVariant *a, GVariant *b, GVariant *c) {
    GVariant *items[3] = {a, b, c};
    return g_variant_new_tuple(items, 3);
}
static inline GVariant *oton_variant_tuple1(GVariant *a) { return g_variant_new_tuple(&a, 1); }

/* An empty "as" and an empty "a{sv}". */
static inline GVariant *oton_variant_empty_strv(void) { return g_variant_new_strv(NULL, 0); }
/* A notification's actions: one key and its label. */
static inline GVariant *oton_variant_strv2(const gchar *a, const gchar *b) {
    const gchar *items[2] = {a, b};
    return g_variant_new_strv(items, 2);
}

/* g_main_context_invoke_full with the default priority. */
static inline void oton_context_invoke(GMainContext *context, GSourceFunc function, gpointer data) {
    g_main_context_invoke_full(context, G_PRIORITY_DEFAULT, function, data, NULL);
}

static inline gboolean oton_source_remove(void) { return G_SOURCE_REMOVE; }

#endif
