/*
 * oton_event_logger.c — a complete Oton plugin in plain C99.
 *
 * It writes one line per event it receives to the file named by its config
 * ({"file": "/path/to/log"}), answers the control command `logger-stats [reset]`,
 * and publishes "org.example.logger.line" after each track it logs. It reads its
 * config and the command's argument with the host's oton_host.read_json (ABI 1.5),
 * so it has no JSON code of its own.
 *
 * Build it outside the Oton tree with nothing but the header. With an
 * installed oton (scripts/install), pkg-config knows where the header is:
 *
 *   cc -std=c99 -O2 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags oton-plugin) \
 *      oton_event_logger.c -o liboton_event_logger.so
 *
 * or point -I at Sources/PluginAPI/include in a checkout of Oton.
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

/* Reads the string at `path` of `json` (the config or a command's arguments)
 * with the host's reader (ABI 1.5): no JSON code here. Returns a malloc'd copy,
 * or NULL with *found = 0 when the value is absent, or NULL with the host's
 * reason in `error` when it is not a string. The first call asks for the
 * length only (text_size 0); the second copies the string. */
static char *read_string(const oton_host *host, const char *json, const char *path, int *found,
                         char *error, size_t error_size) {
    oton_json_value value;
    char *text;
    memset(&value, 0, sizeof value);
    value.struct_size = sizeof value;
    value.type = OTON_JSON_STRING;
    *found = 0;
    if (host->read_json(host, json, path, &value, error, error_size) != OTON_OK) return NULL;
    if (!value.found) return NULL;
    text = malloc((size_t)value.integer + 1);
    if (text == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    value.text = text;
    value.text_size = (size_t)value.integer + 1;
    if (host->read_json(host, json, path, &value, error, error_size) != OTON_OK) {
        free(text);
        return NULL;
    }
    *found = 1;
    return text;
}

/* MAIN THREAD. config_json is borrowed; error is the host's buffer. */
static oton_instance *logger_create(const oton_host *host, const char *config_json,
                                    char *error, size_t error_size) {
    logger *self;
    char *path;
    int found;
    if (error_size > 0) error[0] = '\0';
    /* read_json came with ABI 1.5: an older host's table is shorter. */
    if (!OTON_HAS_FIELD(host, oton_host, read_json) || host->read_json == NULL) {
        snprintf(error, error_size, "this plugin needs oton with plugin ABI 1.5 or newer");
        return NULL;
    }
    path = read_string(host, config_json, "config.file", &found, error, error_size);
    if (path == NULL) {
        /* Absent: say what is needed. Refused: the host's reason is already in `error`,
         * e.g. "config.file must be a string, not 42". */
        if (error[0] == '\0') snprintf(error, error_size, "config needs \"file\": the path of the log to write");
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
    char error[256] = "";
    char *word;
    int found;
    if (strcmp(name, "logger-stats") != 0) return OTON_ERR_UNSUPPORTED;
    /* The arguments are a JSON array of strings: args[0] is the first word after the command. */
    word = read_string(self->host, args_json, "args[0]", &found, error, sizeof error);
    if (word == NULL && found == 0 && error[0] != '\0') {
        reply(reply_context, error);
        return OTON_ERR_INVALID;
    }
    snprintf(text, sizeof text, "%lu events, %lu tracks", self->events, self->tracks);
    if (word != NULL) {
        if (strcmp(word, "reset") != 0) {
            snprintf(text, sizeof text, "unknown argument \"%.60s\"; usage: logger-stats [reset]", word);
            free(word);
            reply(reply_context, text);
            return OTON_ERR_INVALID;
        }
        self->events = 0;
        self->tracks = 0;
        free(word);
    }
    reply(reply_context, text);
    return OTON_OK;
}

static const char *const logger_consumes[] = {"*", NULL};

static const oton_command_decl logger_commands[] = {
    {sizeof(oton_command_decl), 0, "logger-stats", "logger-stats [reset]", "how many events and tracks were logged (reset: then start again from 0)"},
};

/* ABI 1.6: the keys of "config". oton refuses a config with another key (a typo, with the
 * nearest declared one) or without "file" before create() is called; inspect lists them. */
static const oton_setting_decl logger_settings[] = {
    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "file", "the file to append one line per event to (created if missing)",
     NULL, NULL, 0, 0, OTON_SETTING_REQUIRED, 0},
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
    logger_settings, /* 1.6 */
    1,
    0,
    NULL, /* 1.6: filter (none: it only listens) */
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &logger_descriptor;
}
