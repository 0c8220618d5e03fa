/*
 * A hostile plugin that registers too many and malformed control commands. In create(), through
 * oton_host.register_command (in-process and in the isolated child alike): 70 valid commands
 * (64 is the cap), a name with ESC, a help with ESC and a help of 2 KiB. With RAW_FLOOD defined
 * (for "isolation": "process"), it also writes `registered` frames straight into file
 * descriptor 3, the socket to oton: 30,000 with names and help of 2 KiB holding NUL and ESC,
 * and 10 valid names past the cap; then it creates DONE_FILE. It writes them 500 at a time, one
 * batch per stream buffer it gets: between its callbacks the child answers oton's pings (a
 * callback that took longer than 10 s would be killed as stuck, ending the flood early). Compiled by the tests with
 * cc against Sources/PluginAPI/include alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oton_plugin.h"

static int instance_storage;

static void add(const oton_host *host, const char *name, const char *help) {
    oton_command_decl decl = {sizeof(oton_command_decl), 0, name, name, help};
    host->register_command(host, &decl);
}

static oton_instance *flood_create(const oton_host *host, const char *config, char *error, size_t error_size) {
    char name[32];
    static char long_help[2049];
    (void)config;
    (void)error;
    (void)error_size;
    for (int index = 0; index < 70; index++) {
        snprintf(name, sizeof name, "flood-%d", index);
        add(host, name, "a command of a plugin that floods");
    }
    add(host, "esc\x1b[31mname", "a name with ESC");
    add(host, "help-esc", "red \x1b[31m help");
    memset(long_help, 'h', 2048);
    add(host, "help-long", long_help);
    return &instance_storage;
}

static void flood_destroy(oton_instance *instance) { (void)instance; }

#ifdef RAW_FLOOD
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

/* One `registered` frame (kind 27) with `json` as its header. */
static int send_registered(const char *json, size_t length) {
    unsigned char prefix[9];
    uint32_t total = (uint32_t)(5 + length);
    for (int index = 0; index < 4; index++) prefix[index] = (unsigned char)(total >> (8 * index));
    prefix[4] = 27;
    for (int index = 0; index < 4; index++) prefix[5 + index] = (unsigned char)((uint32_t)length >> (8 * index));
    return write_all(prefix, sizeof prefix) == 0 && write_all(json, length) == 0 ? 0 : -1;
}

/* The next batch; 1 when everything was sent. */
static int flood_batch(void) {
    static char json[5000];
    static int next;
    char filler[2049];
    memset(filler, 'n', 2048);
    filler[2048] = 0;
    for (int count = 0; count < 500 && next < 30000; count++, next++) {
        /* NUL and ESC inside the name, as JSON escapes; a different name every time. */
        int length = snprintf(json, sizeof json, "{\"name\":\"x\\u0000\\u001b[2J%d%s\",\"usage\":\"u\",\"help\":\"%s\"}", next, filler, filler);
        if (send_registered(json, (size_t)length) != 0) return 1;
    }
    if (next < 30000) return 0;
    for (int index = 0; index < 10; index++) {
        int length = snprintf(json, sizeof json, "{\"name\":\"raw-%d\",\"usage\":\"raw\",\"help\":\"past the cap\"}", index);
        if (send_registered(json, (size_t)length) != 0) return 1;
    }
    int done = open(DONE_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (done >= 0) close(done);
    return 1;
}
#endif

static void flood_event(oton_instance *instance, const oton_event *event) {
    (void)instance;
    (void)event;
}

static void flood_media(oton_instance *instance, const oton_media_buffer *buffer) {
    (void)instance;
    (void)buffer;
#ifdef RAW_FLOOD
    static int finished;
    if (!finished) finished = flood_batch();
#endif
}

static oton_status flood_command(oton_instance *instance, const char *name, const char *args, oton_reply_fn reply, void *context) {
    (void)instance;
    (void)args;
    reply(context, name);
    return OTON_OK;
}

static const char *const consumes[] = {"*", NULL};

static const oton_plugin_descriptor descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_STREAM,
    "org.oton.test.flood", "Command flood (test)", "1.0.0", "registers too many and malformed commands",
    consumes, NULL, 0, 0,
    flood_create, flood_destroy, flood_event, flood_media, flood_command,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
#endif
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &descriptor;
}
