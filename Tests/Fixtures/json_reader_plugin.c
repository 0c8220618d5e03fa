/*
 * json_reader_plugin.c — ABI 1.5: reads its config and its commands' arguments with
 * oton_host.read_json only (no JSON code of its own).
 *
 * Config (all optional): greeting (string), volume (number 0..1), port (integer 1..65535),
 * loud (bool), tags (a list: its length), station.name (a nested string).
 * A value read_json refuses makes create() fail with read_json's own error text.
 *
 * Commands:
 *   reader-config          the values create() read: "greeting=hi volume=0.5 port=8080 loud=1 tags=2 station=Jazz"
 *   reader-args A B …      how many arguments and each one: "2 args: [A] [B]"
 *   reader-small ARG       reads args[0] into a 4-byte buffer: "status=-4 length=N error=…" when it does not fit
 *   reader-as-int ARG      reads args[0] as an integer: the refusal names args[0]
 *   reader-quote ARG       (1.6) args[0] as a JSON string literal from write_json_string, in a
 *                          webhook-shaped object: {"title":"…"}; then into an 8-byte buffer:
 *                          "small=STATUS needed=N"
 *
 * Against a host table older than 1.5 (OTON_HAS_FIELD false), create() succeeds and
 * reader-config answers "no read_json".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oton_plugin.h"

typedef struct reader {
    const oton_host *host;
    int have_reader;
    char greeting[64];
    double volume;
    long long port;
    int loud;
    long long tags;
    char station[64];
} reader;

static int has_read_json(const oton_host *host) {
    return OTON_HAS_FIELD(host, oton_host, read_json) && host->read_json != NULL;
}

/* One read into `value` (type and range set by the caller). */
static oton_status read_value(const oton_host *host, const char *json, const char *path, oton_json_value *value,
                              char *error, size_t error_size) {
    value->struct_size = sizeof *value;
    return host->read_json(host, json, path, value, error, error_size);
}

static oton_instance *reader_create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    reader *self = calloc(1, sizeof *self);
    oton_json_value value;
    if (self == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    self->host = host;
    strcpy(self->greeting, "hello");
    self->volume = 1.0;
    self->port = 8000;
    strcpy(self->station, "-");
    self->have_reader = has_read_json(host);
    if (!self->have_reader) return self;

    memset(&value, 0, sizeof value);
    value.type = OTON_JSON_STRING;
    value.text = self->greeting;
    value.text_size = sizeof self->greeting;
    if (read_value(host, config_json, "config.greeting", &value, error, error_size) != OTON_OK) goto refused;
    if (!value.found) strcpy(self->greeting, "hello");

    memset(&value, 0, sizeof value);
    value.type = OTON_JSON_NUMBER;
    value.minimum = 0;
    value.maximum = 1;
    if (read_value(host, config_json, "config.volume", &value, error, error_size) != OTON_OK) goto refused;
    if (value.found) self->volume = value.number;

    memset(&value, 0, sizeof value);
    value.type = OTON_JSON_INTEGER;
    value.minimum = 1;
    value.maximum = 65535;
    if (read_value(host, config_json, "config.port", &value, error, error_size) != OTON_OK) goto refused;
    if (value.found) self->port = (long long)value.integer;

    memset(&value, 0, sizeof value);
    value.type = OTON_JSON_BOOL;
    if (read_value(host, config_json, "config.loud", &value, error, error_size) != OTON_OK) goto refused;
    self->loud = value.found && value.boolean;

    memset(&value, 0, sizeof value);
    value.type = OTON_JSON_ARRAY_LENGTH;
    if (read_value(host, config_json, "config.tags", &value, error, error_size) != OTON_OK) goto refused;
    self->tags = value.found ? (long long)value.integer : -1;

    memset(&value, 0, sizeof value);
    value.type = OTON_JSON_STRING;
    value.text = self->station;
    value.text_size = sizeof self->station;
    if (read_value(host, config_json, "config.station.name", &value, error, error_size) != OTON_OK) goto refused;
    if (!value.found) strcpy(self->station, "-");
    return self;

refused:
    free(self);
    return NULL;
}

static void reader_destroy(oton_instance *instance) {
    free(instance);
}

static oton_status reader_on_command(oton_instance *instance, const char *name, const char *args_json,
                                     oton_reply_fn reply, void *reply_context) {
    reader *self = instance;
    const oton_host *host = self->host;
    char text[1024 + 600];
    char error[256];
    oton_json_value value;
    if (strcmp(name, "reader-config") == 0) {
        if (!self->have_reader) {
            reply(reply_context, "no read_json");
            return OTON_OK;
        }
        snprintf(text, sizeof text, "greeting=%s volume=%g port=%lld loud=%d tags=%lld station=%s",
                 self->greeting, self->volume, self->port, self->loud, self->tags, self->station);
        reply(reply_context, text);
        return OTON_OK;
    }
    if (!self->have_reader) return OTON_ERR_UNSUPPORTED;
    if (strcmp(name, "reader-args") == 0) {
        long long count, index;
        memset(&value, 0, sizeof value);
        value.type = OTON_JSON_ARRAY_LENGTH;
        if (read_value(host, args_json, "args", &value, error, sizeof error) != OTON_OK) {
            reply(reply_context, error);
            return OTON_ERR_INVALID;
        }
        count = (long long)value.integer;
        snprintf(text, sizeof text, "%lld args:", count);
        reply(reply_context, text);
        for (index = 0; index < count; index++) {
            char path[32];
            char argument[256];
            snprintf(path, sizeof path, "args[%lld]", index);
            memset(&value, 0, sizeof value);
            value.type = OTON_JSON_STRING;
            value.text = argument;
            value.text_size = sizeof argument;
            if (read_value(host, args_json, path, &value, error, sizeof error) != OTON_OK) {
                reply(reply_context, error);
                return OTON_ERR_INVALID;
            }
            snprintf(text, sizeof text, " [%s]", argument);
            reply(reply_context, text);
        }
        return OTON_OK;
    }
    if (strcmp(name, "reader-small") == 0) {
        char small[4];
        oton_status status;
        memset(&value, 0, sizeof value);
        value.type = OTON_JSON_STRING;
        value.text = small;
        value.text_size = sizeof small;
        error[0] = '\0';
        status = read_value(host, args_json, "args[0]", &value, error, sizeof error);
        snprintf(text, sizeof text, "status=%d found=%u length=%lld text=%s error=%s", (int)status, (unsigned)value.found,
                 (long long)value.integer, status == OTON_OK ? small : (small[0] == '\0' ? "(empty)" : "(not cleared)"), error);
        reply(reply_context, text);
        return OTON_OK;
    }
    if (strcmp(name, "reader-as-int") == 0) {
        memset(&value, 0, sizeof value);
        value.type = OTON_JSON_INTEGER;
        if (read_value(host, args_json, "args[0]", &value, error, sizeof error) != OTON_OK) {
            reply(reply_context, error);
            return OTON_ERR_INVALID;
        }
        snprintf(text, sizeof text, "found=%u integer=%lld", (unsigned)value.found, (long long)value.integer);
        reply(reply_context, text);
        return OTON_OK;
    }
#if OTON_ABI_MINOR >= 6
    if (strcmp(name, "reader-quote") == 0) {
        char argument[512];
        char literal[600];
        char small[8];
        size_t length = 0, needed = 0;
        oton_status status;
        memset(&value, 0, sizeof value);
        value.type = OTON_JSON_STRING;
        value.text = argument;
        value.text_size = sizeof argument;
        if (read_value(host, args_json, "args[0]", &value, error, sizeof error) != OTON_OK) {
            reply(reply_context, error);
            return OTON_ERR_INVALID;
        }
        if (host->write_json_string(host, argument, literal, sizeof literal, &length) != OTON_OK) return OTON_ERR_FAILED;
        status = host->write_json_string(host, argument, small, sizeof small, &needed);
        snprintf(text, sizeof text, "{\"title\":%s} length=%zu small=%d needed=%zu cleared=%d", literal, length, (int)status, needed, small[0] == '\0');
        reply(reply_context, text);
        return OTON_OK;
    }
#endif
    return OTON_ERR_UNSUPPORTED;
}

static const oton_command_decl reader_commands[] = {
    {sizeof(oton_command_decl), 0, "reader-config", "reader-config", "the config values read with read_json"},
    {sizeof(oton_command_decl), 0, "reader-args", "reader-args ARG…", "the arguments read with read_json"},
    {sizeof(oton_command_decl), 0, "reader-small", "reader-small ARG", "args[0] into a 4-byte buffer"},
    {sizeof(oton_command_decl), 0, "reader-as-int", "reader-as-int ARG", "args[0] read as an integer"},
#if OTON_ABI_MINOR >= 6
    {sizeof(oton_command_decl), 0, "reader-quote", "reader-quote ARG", "args[0] as a JSON string literal"},
#endif
};

static const oton_plugin_descriptor reader_descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_NONE,
    "org.oton.test.json-reader", "JSON reader (test)", "1.0.0", "Reads its config and arguments with read_json",
    NULL, reader_commands, sizeof reader_commands / sizeof reader_commands[0], 0,
    reader_create, reader_destroy, NULL, NULL, reader_on_command,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
#endif
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &reader_descriptor;
}
