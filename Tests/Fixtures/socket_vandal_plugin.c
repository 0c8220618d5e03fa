/*
 * A hostile plugin for "isolation": "process": on its first event it writes bytes that are not a
 * frame into file descriptor 3, which in `oton plugin-host` is the socket to oton. Compiled by the
 * tests with cc against Sources/PluginAPI/include alone.
 */
#include <string.h>
#include <unistd.h>

#include "oton_plugin.h"

static int instance_storage;

static oton_instance *vandal_create(const oton_host *host, const char *config, char *error, size_t error_size) {
    (void)host;
    (void)config;
    (void)error;
    (void)error_size;
    return &instance_storage;
}

static void vandal_destroy(oton_instance *instance) { (void)instance; }

static void vandal_event(oton_instance *instance, const oton_event *event) {
    static const unsigned char junk[] = {0x20, 0x00, 0x00, 0x00, 0x63, 0xff, 0xff, 0xff, 0xff, 'n', 'o', 't', ' ', 'a', ' ',
                                         'f', 'r', 'a', 'm', 'e', '!', '!', '!', '!', '!', '!', '!', '!', '!', '!', '!', '!', '!', '!', '!', '!'};
    (void)instance;
    (void)event;
    if (write(3, junk, sizeof junk) < 0) { /* nothing to do: this plugin is hostile on purpose */ }
}

static const char *const consumes[] = {"*", NULL};

static const oton_plugin_descriptor descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_NONE,
    "org.oton.test.vandal", "Socket vandal (test)", "1.0.0", "writes junk into the isolation socket",
    consumes, NULL, 0, 0,
    vandal_create, vandal_destroy, vandal_event, NULL, NULL,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
#endif
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &descriptor;
}
