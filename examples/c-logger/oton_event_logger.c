/*
 * oton_event_logger.c — a complete Oton plugin in plain C99.
 *
 * It writes one line per event it receives to the file named by its config
 * ({"file": "/path/to/log"}), answers the control command `logger-stats`,
 * and publishes "org.example.logger.line" after each track it logs.
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

/* A small reader for the flat config object the host passes to create().
 * The host hands over compact JSON (no spaces between tokens), but this reader
 * skips white space anyway and decodes every string escape JSON has:
 * \" \\ \/ \b \f \n \r \t and \uXXXX, surrogate pairs included, to UTF-8.
 * A real plugin may prefer a JSON library; this is enough for a flat object. */
static const char *json_skip_space(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

static int json_hex4(const char *p, unsigned *out) {
    unsigned value = 0;
    int i;
    for (i = 0; i < 4; i++) {
        char c = p[i];
        value <<= 4;
        if (c >= '0' && c <= '9') value |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') value |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') value |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = value;
    return 1;
}

/* Decodes the JSON string that starts at *p (on its opening quote). Returns a
 * malloc'd UTF-8 copy, or NULL when it is not a well-formed string (or a \u0000
 * would cut it short). On success *p is just past the closing quote. */
static char *json_read_string(const char **p) {
    const char *s = *p;
    char *out, *o;
    if (*s != '"') return NULL;
    s++;
    out = malloc(strlen(s) + 1); /* decoding never makes a string longer */
    if (out == NULL) return NULL;
    o = out;
    while (*s != '"') {
        unsigned c;
        if (*s == '\0' || (unsigned char)*s < 0x20) { free(out); return NULL; }
        if (*s != '\\') { *o++ = *s++; continue; }
        s++;
        switch (*s) {
        case '"': case '\\': case '/': *o++ = *s++; continue;
        case 'b': *o++ = '\b'; s++; continue;
        case 'f': *o++ = '\f'; s++; continue;
        case 'n': *o++ = '\n'; s++; continue;
        case 'r': *o++ = '\r'; s++; continue;
        case 't': *o++ = '\t'; s++; continue;
        case 'u': break;
        default: free(out); return NULL;
        }
        if (!json_hex4(s + 1, &c)) { free(out); return NULL; }
        s += 5;
        if (c >= 0xD800 && c <= 0xDBFF) { /* a high surrogate needs its low half */
            unsigned low;
            if (s[0] != '\\' || s[1] != 'u' || !json_hex4(s + 2, &low) || low < 0xDC00 || low > 0xDFFF) {
                free(out);
                return NULL;
            }
            c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
            s += 6;
        } else if ((c >= 0xDC00 && c <= 0xDFFF) || c == 0) {
            free(out);
            return NULL;
        }
        if (c < 0x80) *o++ = (char)c;
        else if (c < 0x800) { *o++ = (char)(0xC0 | (c >> 6)); *o++ = (char)(0x80 | (c & 0x3F)); }
        else if (c < 0x10000) {
            *o++ = (char)(0xE0 | (c >> 12)); *o++ = (char)(0x80 | ((c >> 6) & 0x3F)); *o++ = (char)(0x80 | (c & 0x3F));
        } else {
            *o++ = (char)(0xF0 | (c >> 18)); *o++ = (char)(0x80 | ((c >> 12) & 0x3F));
            *o++ = (char)(0x80 | ((c >> 6) & 0x3F)); *o++ = (char)(0x80 | (c & 0x3F));
        }
    }
    *o = '\0';
    *p = s + 1;
    return out;
}

/* Skips one JSON value (string, number, literal, or a nested object or array). */
static const char *json_skip_value(const char *p) {
    int depth = 0;
    do {
        p = json_skip_space(p);
        if (*p == '"') {
            char *ignored = json_read_string(&p);
            if (ignored == NULL) return NULL;
            free(ignored);
        } else if (*p == '{' || *p == '[') {
            depth++;
            p++;
        } else if (*p == '}' || *p == ']') {
            if (depth == 0) return p;
            depth--;
            p++;
        } else if (*p == '\0') {
            return NULL;
        } else {
            p++;
        }
    } while (depth > 0 || (*p != ',' && *p != '}' && *p != '\0'));
    return p;
}

/* Where the value of a top-level member named `key` starts, or NULL. */
static const char *json_member(const char *json, const char *key) {
    const char *p = json_skip_space(json);
    if (*p != '{') return NULL;
    p = json_skip_space(p + 1);
    while (*p == '"') {
        char *name = json_read_string(&p);
        int match;
        if (name == NULL) return NULL;
        match = strcmp(name, key) == 0;
        free(name);
        p = json_skip_space(p);
        if (*p != ':') return NULL;
        p = json_skip_space(p + 1);
        if (match) return p;
        p = json_skip_value(p);
        if (p == NULL) return NULL;
        p = json_skip_space(p);
        if (*p != ',') return NULL;
        p = json_skip_space(p + 1);
    }
    return NULL;
}

/* The string value of `key` as a malloc'd copy, or NULL when absent or not a string. */
static char *json_string(const char *json, const char *key) {
    const char *value = json_member(json, key);
    return value != NULL && *value == '"' ? json_read_string(&value) : NULL;
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
