/*
 * A hostile plugin for "isolation": "process": on its first event it writes one frame into file
 * descriptor 3 (in `oton plugin-host`, the socket to oton) whose JSON header is as large as a
 * frame may be, 64 MiB, valid JSON throughout. oton must refuse it from its length prefix (the
 * header cap is 64 KiB) instead of reading and parsing it. Compiled by the tests with cc against
 * Sources/PluginAPI/include alone.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oton_plugin.h"

static int instance_storage;

static oton_instance *bomb_create(const oton_host *host, const char *config, char *error, size_t error_size) {
    (void)host;
    (void)config;
    (void)error;
    (void)error_size;
    return &instance_storage;
}

static void bomb_destroy(oton_instance *instance) { (void)instance; }

static void put32(unsigned char *at, uint32_t value) {
    for (int index = 0; index < 4; index++) at[index] = (unsigned char)(value >> (8 * index));
}

static int write_all(const void *bytes, size_t count) {
    const char *at = bytes;
    while (count > 0) {
        ssize_t written = write(3, at, count);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        at += written;
        count -= (size_t)written;
    }
    return 0;
}

static void bomb_event(oton_instance *instance, const oton_event *event) {
    static int sent;
    (void)instance;
    (void)event;
    if (sent) return;
    sent = 1;
    const uint32_t header = (64u << 20) - 5; /* a frame is at most 64 MiB: kind, header length, header */
    unsigned char prefix[9];
    put32(prefix, 5 + header);
    prefix[4] = 23; /* a player request */
    put32(prefix + 5, header);
    char *json = malloc(header);
    if (!json) return;
    memset(json, 'x', header);
    memcpy(json, "{\"r\":\"", 6);
    memcpy(json + header - 2, "\"}", 2);
    /* oton kills this process before it reads the header: the write blocks until then. */
    if (write_all(prefix, sizeof prefix) == 0) write_all(json, header);
    free(json);
}

static const char *const consumes[] = {"*", NULL};

static const oton_plugin_descriptor descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_NONE,
    "org.oton.test.headerbomb", "Header bomb (test)", "1.0.0", "sends a 64 MiB frame header",
    consumes, NULL, 0, 0,
    bomb_create, bomb_destroy, bomb_event, NULL, NULL,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
#endif
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &descriptor;
}
