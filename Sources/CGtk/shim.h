/* GTK 4.8 and libadwaita 1.2 (Debian 12) for the desktop window (`oton window`), plus thin inline
 * shims for what Swift cannot import: g_signal_connect (a macro), GObject casts, varargs
 * (accessible properties, accelerators). Every function here runs on the main thread, on GLib's
 * default main context, where GTK lives; the window's process has no other GLib loop. */
#ifndef OTON_CGTK_SHIM_H
#define OTON_CGTK_SHIM_H

#include <adwaita.h>
#include <gtk/gtk.h>

/* A signal handler with user data, released by `destroy` when the instance goes. */
static inline gulong oton_gtk_connect(void *instance, const char *signal, GCallback handler, void *data,
                                      GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, handler, data, destroy, 0);
}

/* The name a screen reader says for a control (GTK_ACCESSIBLE_PROPERTY_LABEL). */
static inline void oton_gtk_accessible_label(GtkWidget *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

/* What a control or label is, said after its name (GTK_ACCESSIBLE_PROPERTY_DESCRIPTION). */
static inline void oton_gtk_accessible_description(GtkWidget *widget, const char *description) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
}

/* One accelerator for a detailed action name ("app.quit", "<Control>q"). */
static inline void oton_gtk_accel(GtkApplication *app, const char *action, const char *accel) {
    const char *accels[] = {accel, NULL};
    gtk_application_set_accels_for_action(app, action, accels);
}

/* An action on a map (the application), its "activate" handler given the parameter (or NULL). */
typedef void (*oton_gtk_action_fn)(GSimpleAction *action, GVariant *parameter, void *data);
static inline GSimpleAction *oton_gtk_add_action(void *map, const char *name, const GVariantType *parameter,
                                                 oton_gtk_action_fn handler, void *data) {
    GSimpleAction *action = g_simple_action_new(name, parameter);
    g_signal_connect(action, "activate", G_CALLBACK(handler), data);
    g_action_map_add_action(G_ACTION_MAP(map), G_ACTION(action));
    g_object_unref(action);
    return action;
}

static inline const GVariantType *oton_gtk_int32_type(void) { return G_VARIANT_TYPE_INT32; }
static inline const GVariantType *oton_gtk_string_type(void) { return G_VARIANT_TYPE_STRING; }

/* A list item factory from a template: each row a GtkLabel bound to the GtkStringObject's
 * "string" property, never markup, ellipsized at the end. */
static inline GtkListItemFactory *oton_gtk_string_row_factory(void) {
    static const char *ui =
        "<?xml version='1.0' encoding='UTF-8'?>"
        "<interface><template class='GtkListItem'><property name='child'>"
        "<object class='GtkLabel'>"
        "<property name='xalign'>0</property><property name='ellipsize'>end</property>"
        "<property name='use-markup'>false</property><property name='margin-top'>8</property>"
        "<property name='margin-bottom'>8</property><property name='margin-start'>12</property>"
        "<property name='margin-end'>12</property>"
        "<binding name='label'><lookup name='string' type='GtkStringObject'>"
        "<lookup name='item'>GtkListItem</lookup></lookup></binding>"
        "</object></property></template></interface>";
    GBytes *bytes = g_bytes_new_static(ui, strlen(ui));
    GtkListItemFactory *factory = gtk_builder_list_item_factory_new_from_bytes(NULL, bytes);
    g_bytes_unref(bytes);
    return factory;
}

/* Space anywhere in `window` but in text being typed: `handler(data)`, and the key goes no further
 * (so a focused button is not clicked by it). A key controller in the capture phase: it sees the key
 * before the focused widget does. In an entry (a GtkEditable has the focus) the space is the entry's. */
typedef void (*oton_gtk_key_fn)(void *data);
static inline gboolean oton_gtk_space_pressed(GtkEventControllerKey *controller, guint keyval, guint keycode,
                                              GdkModifierType state, gpointer data) {
    (void)keycode;
    if (keyval != GDK_KEY_space || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK | GDK_SHIFT_MASK)) != 0) return FALSE;
    GtkWidget *widget = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(controller));
    GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(widget));
    if (focus != NULL && GTK_IS_EDITABLE(focus)) return FALSE;
    oton_gtk_key_fn *handler = g_object_get_data(G_OBJECT(controller), "oton-handler");
    (*handler)(data);
    return TRUE;
}

static inline void oton_gtk_on_space(GtkWidget *window, oton_gtk_key_fn handler, void *data) {
    GtkEventController *controller = gtk_event_controller_key_new();
    gtk_event_controller_set_propagation_phase(controller, GTK_PHASE_CAPTURE);
    oton_gtk_key_fn *stored = g_new(oton_gtk_key_fn, 1);
    *stored = handler;
    g_object_set_data_full(G_OBJECT(controller), "oton-handler", stored, g_free);
    g_signal_connect(controller, "key-pressed", G_CALLBACK(oton_gtk_space_pressed), data);
    gtk_widget_add_controller(window, controller);
}

/* Page colours from the artwork's average colour (a "#RRGGBB" the caller has checked). */
static inline void oton_gtk_load_css(GtkCssProvider *provider, const char *css) {
    gtk_css_provider_load_from_data(provider, css, -1);
}

#endif
