/*
 * A plugin as a third party built it against ABI 1.0: compiled by the tests
 * with cc against the 1.0 header beside this file (a copy of
 * Sources/PluginAPI/include/oton_plugin.h as ABI 1.0 published it) and
 * loaded into today's host. Every struct it fills carries its 1.0 size.
 *
 * Config (JSON, flat): "log": file to append one line per call to.
 * Commands: legacy-echo ARGS… (replies with the arguments JSON),
 *   legacy-publish (publishes org.oton.test.legacy with a field),
 *   legacy-stop (sends OTON_REQUEST_STOP),
 *   legacy-late (registered at run time with register_command).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oton_plugin.h"

typedef struct legacy {
    const oton_host *host;
    FILE *log;
    oton_event_kind own_kind;
} legacy;

static char *json_string(const char *json, const char *key) {
    char pattern[128];
    const char *at, *start, *end;
    char *value;
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    at = strstr(json, pattern);
    if (at == NULL) return NULL;
    at = strchr(at + strlen(pattern), ':');
    if (at == NULL) return NULL;
    start = strchr(at, '"');
    if (start == NULL) return NULL;
    start++;
    end = strchr(start, '"');
    if (end == NULL) return NULL;
    value = malloc((size_t)(end - start) + 1);
    if (value == NULL) return NULL;
    memcpy(value, start, (size_t)(end - start));
    value[end - start] = '\0';
    return value;
}

static void say(legacy *self, const char *line) {
    if (self->log == NULL) return;
    fprintf(self->log, "%s\n", line);
    fflush(self->log);
}

static const oton_command_decl late_command = {
    sizeof(oton_command_decl), 0, "legacy-late", "legacy-late", "registered by a 1.0 plugin at run time"
};

static oton_instance *legacy_create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    legacy *self;
    char *path;
    char line[256];
    oton_status registered;
    if (host == NULL || host->struct_size < sizeof(oton_host)) {
        snprintf(error, error_size, "host table too small for ABI 1.0");
        return NULL;
    }
    self = calloc(1, sizeof *self);
    if (self == NULL) return NULL;
    self->host = host;
    path = json_string(config_json, "log");
    if (path != NULL) {
        self->log = fopen(path, "a");
        free(path);
    }
    self->own_kind = host->event_kind(host, "org.oton.test.legacy");
    registered = host->register_command(host, &late_command);
    snprintf(line, sizeof line, "create host_abi=%u.%u host_size_covers_1_0=%d register=%d",
             (unsigned)host->abi_major, (unsigned)host->abi_minor,
             host->struct_size >= sizeof(oton_host), (int)registered);
    say(self, line);
    host->log(host, OTON_LOG_INFO, "legacy plugin created");
    return self;
}

static void legacy_destroy(oton_instance *instance) {
    legacy *self = instance;
    say(self, "destroy");
    if (self->log != NULL) fclose(self->log);
    free(self);
}

static const char *field(const oton_event *event, const char *key) {
    uint32_t i;
    for (i = 0; i < event->field_count; i++) {
        if (strcmp(event->fields[i].key, key) == 0) return event->fields[i].value;
    }
    return "";
}

static void legacy_on_event(oton_instance *instance, const oton_event *event) {
    legacy *self = instance;
    char line[512];
    const char *title = "";
    if (event->struct_size < sizeof(oton_event)) return;
    if (event->kind == OTON_EVENT_TRACK && event->payload != NULL) {
        const oton_track *track = event->payload;
        if (track->struct_size >= sizeof(oton_track) && track->title != NULL) title = track->title;
    }
    snprintf(line, sizeof line, "event %s title=%s field_title=%s", event->kind_name, title, field(event, "title"));
    say(self, line);
}

static void legacy_on_media(oton_instance *instance, const oton_media_buffer *buffer) {
    legacy *self = instance;
    char line[256];
    if (buffer->struct_size < sizeof(oton_media_buffer) || buffer->format == NULL) return;
    snprintf(line, sizeof line, "media tap=%u size=%lu first=%u caps=%s",
             (unsigned)buffer->format->tap, (unsigned long)buffer->size,
             buffer->size > 0 ? (unsigned)buffer->data[0] : 0u,
             buffer->format->caps != NULL ? buffer->format->caps : "");
    say(self, line);
}

static oton_status legacy_on_command(oton_instance *instance, const char *name, const char *args_json,
                                     oton_reply_fn reply, void *reply_context) {
    legacy *self = instance;
    if (strcmp(name, "legacy-echo") == 0) {
        reply(reply_context, "echo ");
        reply(reply_context, args_json);
        return OTON_OK;
    }
    if (strcmp(name, "legacy-publish") == 0) {
        oton_field fields[1];
        oton_event event;
        memset(&event, 0, sizeof event);
        fields[0].key = "from";
        fields[0].value = "abi-1.0";
        event.struct_size = sizeof(oton_event);
        event.kind = self->own_kind;
        event.field_count = 1;
        event.fields = fields;
        return self->host->publish(self->host, &event) == OTON_OK ? OTON_OK : OTON_ERR_FAILED;
    }
    if (strcmp(name, "legacy-stop") == 0) {
        oton_request request;
        memset(&request, 0, sizeof request);
        request.struct_size = sizeof(oton_request);
        request.kind = OTON_REQUEST_STOP;
        return self->host->request(self->host, &request);
    }
    if (strcmp(name, "legacy-late") == 0) {
        reply(reply_context, "late");
        return OTON_OK;
    }
    reply(reply_context, "unknown command");
    return OTON_ERR_UNSUPPORTED;
}

static const char *const legacy_consumes[] = {"track", NULL};

static const oton_command_decl legacy_commands[] = {
    {sizeof(oton_command_decl), 0, "legacy-echo", "legacy-echo ARGS...", "replies with its arguments"},
    {sizeof(oton_command_decl), 0, "legacy-publish", "legacy-publish", "publishes org.oton.test.legacy"},
    {sizeof(oton_command_decl), 0, "legacy-stop", "legacy-stop", "asks the player to stop"},
};

static const oton_plugin_descriptor legacy_descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_STREAM,
    "org.oton.test.legacy", "Legacy 1.0", "1.0.0", "a plugin built against ABI 1.0",
    legacy_consumes,
    legacy_commands, 3, 0,
    legacy_create, legacy_destroy, legacy_on_event, legacy_on_media, legacy_on_command
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &legacy_descriptor;
}
