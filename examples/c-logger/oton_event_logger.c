/*
 * oton_event_logger.c — a complete Oton plugin in plain C99.
 *
 * It writes one line per event it receives to the file named by its config
 * ({"file": "/path/to/log"}), answers the control command `logger-stats`,
 * and publishes "org.example.logger.line" after each track it logs.
 *
 * Build it outside the Oton tree with nothing but the header:
 *
 *   cc -std=c99 -O2 -shared -fPIC -fvisibility=hidden \
 *      -I /path/to/oton/Sources/PluginAPI/include \
 *      oton_event_logger.c -o liboton_event_logger.so
 *
 * and add it to plugins.json:
 *
 *   {"id": "org.example.event-logger", "path": "/abs/path/liboton_event_logger.so",
 *    "enabled": true, "config": {"file": "/tmp/oton-events.log"}}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oton_plugin.h"

typedef struct logger {
    const oton_host *host;   /* valid until destroy() returns */
    oton_event_kind  line_kind;
    FILE            *out;
    unsigned long    events;
    unsigned long    tracks;
} logger;

/* Finds "key": "value" in a flat JSON object. Enough for this example's
 * config; a real plugin would use a JSON library. Returns a malloc'd copy. */
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

/* MAIN THREAD. config_json is borrowed; error is the host's buffer. */
static oton_instance *logger_create(const oton_host *host, const char *config_json,
                                    char *error, size_t error_size) {
    logger *self;
    char *path = json_string(config_json, "file");
    if (path == NULL) {
        snprintf(error, error_size, "config needs \"file\": the path of the log to write");
        return NULL;
    }
    self = calloc(1, sizeof *self);
    if (self == NULL) {
        free(path);
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    self->out = fopen(path, "a");
    if (self->out == NULL) {
        snprintf(error, error_size, "cannot open %s for appending", path);
        free(path);
        free(self);
        return NULL;
    }
    free(path);
    self->host = host;
    self->line_kind = host->event_kind(host, "org.example.logger.line");
    host->log(host, OTON_LOG_INFO, "event logger ready");
    return self;
}

/* PLUGIN MAILBOX, last call. */
static void logger_destroy(oton_instance *instance) {
    logger *self = instance;
    fclose(self->out);
    free(self);
}

/* PLUGIN MAILBOX. The event and everything it points to are borrowed. */
static void logger_on_event(oton_instance *instance, const oton_event *event) {
    logger *self = instance;
    uint32_t i;
    self->events++;
    fprintf(self->out, "%s from=%s", event->kind_name, event->source);
    for (i = 0; i < event->field_count; i++)
        fprintf(self->out, " %s=%s", event->fields[i].key, event->fields[i].value);
    fputc('\n', self->out);
    fflush(self->out);

    if (event->kind == OTON_EVENT_TRACK && event->payload != NULL) {
        const oton_track *track = event->payload;
        /* Read a field only if the host's struct is large enough to hold it. */
        if (OTON_HAS_FIELD(track, oton_track, title) && track->title != NULL && self->line_kind != 0) {
            oton_field field = {"title", track->title};
            oton_event out;
            memset(&out, 0, sizeof out);
            out.struct_size = sizeof out;
            out.kind = self->line_kind;
            out.field_count = 1;
            out.fields = &field;
            self->host->publish(self->host, &out); /* the host copies it */
        }
        self->tracks++;
    }
}

/* PLUGIN MAILBOX. */
static oton_status logger_on_command(oton_instance *instance, const char *name, const char *args_json,
                                     oton_reply_fn reply, void *reply_context) {
    logger *self = instance;
    char text[128];
    (void)args_json;
    if (strcmp(name, "logger-stats") != 0) return OTON_ERR_UNSUPPORTED;
    snprintf(text, sizeof text, "%lu events, %lu tracks", self->events, self->tracks);
    reply(reply_context, text);
    return OTON_OK;
}

static const char *const logger_consumes[] = {"*", NULL};

static const oton_command_decl logger_commands[] = {
    {sizeof(oton_command_decl), 0, "logger-stats", "logger-stats", "how many events and tracks were logged"},
};

static const oton_plugin_descriptor logger_descriptor = {
    sizeof(oton_plugin_descriptor),
    OTON_ABI_MAJOR,
    OTON_ABI_MINOR,
    OTON_TAP_NONE,
    "org.example.event-logger",
    "Event logger (C example)",
    "1.0.0",
    "Writes every bus event to a file",
    logger_consumes,
    logger_commands,
    1,
    0,
    logger_create,
    logger_destroy,
    logger_on_event,
    NULL, /* on_media: no taps */
    logger_on_command,
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &logger_descriptor;
}
