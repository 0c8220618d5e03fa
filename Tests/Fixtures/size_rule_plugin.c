/*
 * A plugin that fills the structs it hands the host with other sizes than
 * today's sizeof, as plugins of other minors do: its command declarations
 * and descriptor are longer (a newer minor appended fields), and its
 * "sizes" command calls the host table with structs shorter than ABI 1.0.
 * Compiled by the tests with cc against Sources/PluginAPI/include.
 */
#include <stdio.h>
#include <string.h>

#include "oton_plugin.h"

/* What a later minor might have made of oton_command_decl and the descriptor. */
typedef struct future_command_decl {
    oton_command_decl base;
    const char *appended_text;
    uint64_t appended_number;
} future_command_decl;

typedef struct future_descriptor {
    oton_plugin_descriptor base;
    void (*appended_callback)(oton_instance *instance);
} future_descriptor;

static const oton_host *the_host;

static oton_instance *sized_create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    (void)config_json; (void)error; (void)error_size;
    the_host = host;
    return (oton_instance *)&the_host;
}

static void sized_destroy(oton_instance *instance) { (void)instance; }

static oton_status publish_sized(uint32_t size) {
    oton_field field = {"size", "x"};
    oton_event event;
    memset(&event, 0, sizeof event);
    event.struct_size = size;
    event.kind = the_host->event_kind(the_host, "org.oton.test.sized");
    event.field_count = 1;
    event.fields = &field;
    return the_host->publish(the_host, &event);
}

static oton_status request_sized(uint32_t size) {
    oton_request request;
    memset(&request, 0, sizeof request);
    request.struct_size = size;
    request.kind = OTON_REQUEST_STOP;
    return the_host->request(the_host, &request);
}

/* SWITCH_STATION (1.2) with `station` set, declaring `size`: a struct the size of 1.1's ends before
 * `station`, so the host must not read the pointer that happens to follow in memory. */
static oton_status switch_sized(uint32_t size) {
    oton_request request;
    memset(&request, 0, sizeof request);
    request.struct_size = size;
    request.kind = OTON_REQUEST_SWITCH_STATION;
    request.station = "Two FM";
    return the_host->request(the_host, &request);
}

static oton_status register_sized(uint32_t size, const char *name) {
    future_command_decl decl;
    memset(&decl, 0, sizeof decl);
    decl.base.struct_size = size;
    decl.base.name = name;
    decl.appended_text = "ignored by today's host";
    return the_host->register_command(the_host, &decl.base);
}

static oton_status sized_on_command(oton_instance *instance, const char *name, const char *args_json,
                                    oton_reply_fn reply, void *reply_context) {
    char text[512];
    size_t used;
    oton_status switch_1_1, switch_1_2;
    (void)instance; (void)args_json;
    if (strcmp(name, "sized-one") == 0 || strcmp(name, "sized-two") == 0 || strcmp(name, "sized-late") == 0) {
        reply(reply_context, name);
        return OTON_OK;
    }
    /* First, in this order: the requests a test expects are queued in a known order. */
    switch_1_1 = switch_sized(OTON_FIELD_END(oton_request, reserved));
    switch_1_2 = switch_sized(sizeof(oton_request));
    used = (size_t)snprintf(text, sizeof text,
             "register%u=%d register%u=%d publish%u=%d publish%u=%d request%u=%d request%u=%d",
             (unsigned)(OTON_COMMAND_DECL_SIZE_1_0 - 8), (int)register_sized(OTON_COMMAND_DECL_SIZE_1_0 - 8, "sized-short"),
             (unsigned)sizeof(future_command_decl), (int)register_sized(sizeof(future_command_decl), "sized-late"),
             (unsigned)(OTON_EVENT_SIZE_1_0 - 8), (int)publish_sized(OTON_EVENT_SIZE_1_0 - 8),
             (unsigned)OTON_EVENT_SIZE_1_0, (int)publish_sized(OTON_EVENT_SIZE_1_0),
             (unsigned)(OTON_REQUEST_SIZE_1_0 - 4), (int)request_sized(OTON_REQUEST_SIZE_1_0 - 4),
             (unsigned)OTON_REQUEST_SIZE_1_0, (int)request_sized(OTON_REQUEST_SIZE_1_0));
    if (used < sizeof text) {
        snprintf(text + used, sizeof text - used, " switch%u=%d switch%u=%d",
                 (unsigned)OTON_FIELD_END(oton_request, reserved), (int)switch_1_1, (unsigned)sizeof(oton_request), (int)switch_1_2);
    }
    reply(reply_context, text);
    return OTON_OK;
}

static const future_command_decl sized_commands[] = {
    {{sizeof(future_command_decl), 0, "sized-one", "sized-one", "first"}, "appended", 1},
    {{sizeof(future_command_decl), 0, "sized-two", "sized-two", "second"}, "appended", 2},
    {{sizeof(future_command_decl), 0, "sizes", "sizes", "calls the host with structs of other sizes"}, "appended", 3},
};

static const future_descriptor sized_descriptor = {
    {sizeof(future_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_NONE,
     "org.oton.test.sized", "Sized", "1.0.0", "structs of other minors",
     NULL, &sized_commands[0].base, 3, 0,
     sized_create, sized_destroy, NULL, NULL, sized_on_command,
#if OTON_ABI_MINOR >= 6
     NULL, 0, 0, /* settings, setting_count, reserved2 */
     NULL,       /* filter */
#endif
    },
    sized_destroy
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &sized_descriptor.base;
}
