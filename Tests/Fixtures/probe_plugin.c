/*
 * A test plugin in C99 with knobs, compiled by the tests with cc against
 * Sources/PluginAPI/include alone. Compile-time knobs (-D):
 *   PROBE_ABI_MAJOR, PROBE_ABI_MINOR   declared ABI version
 *   PROBE_ID "…"                       declared id (default org.oton.test.probe)
 *   PROBE_NO_NAME                      leave the required name NULL
 *   PROBE_ENTRY_NAME                   export the entry under another name
 *   PROBE_TAPS                         media taps to ask for
 *   PROBE_OLD_DESCRIPTOR               declare the smallest (ABI 1.0) struct_size
 *   PROBE_CRASH_IN_CREATE              create() writes through a NULL pointer (SIGSEGV)
 *   PROBE_CRASH_ON_EVENT N             on_event writes through a NULL pointer on its Nth call;
 *                                      with config "crash_once": a path, only if that file does
 *                                      not exist yet (it is created first), so a restart lives on
 *   PROBE_CONSTRUCTOR_MARKER "…"       a file the library's ELF constructor creates when dlopen
 *                                      runs it (to prove a refused library never ran code)
 * Config (JSON, flat): "log": file to append one line per call to,
 *   "block_until": a path; on_event waits until it exists (max 20 s),
 *   "fail": make create() fail with this message,
 *   "created_marker": a file create() writes (to prove inspect never calls create),
 *   "pid_file": a file create() appends its process id to, one line per create (isolation),
 *   "config_copy": a file create() appends the config it got to, one line per create,
 *   "crash_in_create_if": a path; create() writes through NULL when that file exists (with
 *       crash_once: the restart after the first crash crashes in create),
 *   "select_taps": "0".."3", narrows the media taps with select_media_taps (ABI 1.1);
 *     the status it returned is logged, and a second call after create is logged too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "oton_plugin.h"

#ifndef PROBE_ABI_MAJOR
#define PROBE_ABI_MAJOR OTON_ABI_MAJOR
#endif
#ifndef PROBE_ABI_MINOR
#define PROBE_ABI_MINOR OTON_ABI_MINOR
#endif
#ifndef PROBE_ID
#define PROBE_ID "org.oton.test.probe"
#endif
#ifndef PROBE_ENTRY_NAME
#define PROBE_ENTRY_NAME oton_plugin_entry
#endif
#ifndef PROBE_TAPS
#define PROBE_TAPS OTON_TAP_NONE
#endif

typedef struct probe {
    const oton_host *host;
    FILE *log;
    char *block_until;
    char *crash_once;
    unsigned events_seen;
    oton_event_kind probe_kind;
} probe;

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
    memcpy(value, start, (size_t)(end - start));
    value[end - start] = '\0';
    return value;
}

static void wait_for(const char *path) {
    struct stat info;
    struct timespec pause = {0, 1000000};
    int i;
    for (i = 0; i < 20000 && stat(path, &info) != 0; i++) nanosleep(&pause, NULL);
}

#ifdef PROBE_CONSTRUCTOR_MARKER
__attribute__((constructor)) static void probe_constructor(void) {
    FILE *f = fopen(PROBE_CONSTRUCTOR_MARKER, "w");
    if (f) fclose(f);
}
#endif

static oton_instance *probe_create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    probe *self;
    char *fail = json_string(config_json, "fail");
    char *log = json_string(config_json, "log");
    char *marker = json_string(config_json, "created_marker");
    {
        char *crash_if = json_string(config_json, "crash_in_create_if");
        struct stat exists;
        if (crash_if != NULL && stat(crash_if, &exists) == 0) {
            volatile int *nowhere = NULL;
            *nowhere = 1;
        }
        free(crash_if);
    }
#ifdef PROBE_CRASH_IN_CREATE
    {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
#endif
    if (marker != NULL) {
        FILE *f = fopen(marker, "w");
        if (f) fclose(f);
        free(marker);
    }
    if (fail != NULL) {
        snprintf(error, error_size, "%s", fail);
        free(fail);
        free(log);
        return NULL;
    }
    self = calloc(1, sizeof *self);
    self->host = host;
    self->log = log ? fopen(log, "a") : NULL;
    free(log);
    self->block_until = json_string(config_json, "block_until");
    self->crash_once = json_string(config_json, "crash_once");
    {
        char *pid_file = json_string(config_json, "pid_file");
        FILE *f = pid_file ? fopen(pid_file, "a") : NULL;
        if (f) {
            fprintf(f, "%ld\n", (long)getpid());
            fclose(f);
        }
        free(pid_file);
    }
    {
        char *copy = json_string(config_json, "config_copy");
        FILE *f = copy ? fopen(copy, "a") : NULL;
        if (f) {
            fprintf(f, "%s\n", config_json);
            fclose(f);
        }
        free(copy);
    }
    self->probe_kind = host->event_kind(host, "org.oton.test.probe");
    if (self->log) {
        fprintf(self->log, "create %s abi=%u.%u host_size=%u data_dir=%s\n", PROBE_ID, host->abi_major, host->abi_minor,
                host->struct_size, host->data_dir ? host->data_dir : "(null)");
        fflush(self->log);
    }
    {
        char *select = json_string(config_json, "select_taps");
        if (select != NULL) {
            oton_status status = OTON_ERR_UNSUPPORTED;
            if (OTON_HAS_FIELD(host, oton_host, select_media_taps) && host->select_media_taps != NULL)
                status = host->select_media_taps(host, (oton_media_tap)strtoul(select, NULL, 10));
            if (self->log) {
                fprintf(self->log, "select_taps %s status=%d\n", select, (int)status);
                fflush(self->log);
            }
            free(select);
        }
    }
    return self;
}

static void probe_destroy(oton_instance *instance) {
    probe *self = instance;
    if (self->log) {
        fprintf(self->log, "destroy %s\n", PROBE_ID);
        fclose(self->log);
    }
    free(self->block_until);
    free(self->crash_once);
    free(self);
}

static const char *field(const oton_event *event, const char *key) {
    uint32_t i;
    for (i = 0; i < event->field_count; i++)
        if (strcmp(event->fields[i].key, key) == 0) return event->fields[i].value;
    return "";
}

static void probe_on_event(oton_instance *instance, const oton_event *event) {
    probe *self = instance;
    self->events_seen++;
#ifdef PROBE_CRASH_ON_EVENT
    if (self->events_seen == (PROBE_CRASH_ON_EVENT)) {
        struct stat info;
        if (self->crash_once == NULL || stat(self->crash_once, &info) != 0) {
            volatile int *nowhere = NULL;
            if (self->crash_once != NULL) {
                FILE *f = fopen(self->crash_once, "w");
                if (f) fclose(f);
            }
            if (self->log) {
                fprintf(self->log, "crashing on event %u\n", self->events_seen);
                fflush(self->log);
            }
            *nowhere = 1;
        }
    }
#endif
    if (self->block_until) wait_for(self->block_until);
    if (!self->log) return;
    if (event->kind == OTON_EVENT_TRACK) {
        const oton_track *track = event->payload;
        fprintf(self->log, "event track seq=%llu title=%s artist=%s flags=%u\n",
                (unsigned long long)track->sequence, track->title ? track->title : "",
                track->artist ? track->artist : "", event->flags);
    } else if (event->kind == OTON_EVENT_DROPPED) {
        const oton_drop_info *drop = event->payload;
        fprintf(self->log, "event dropped plugin=%s events=%llu bytes=%llu\n", drop->plugin_id,
                (unsigned long long)drop->dropped_events, (unsigned long long)drop->dropped_bytes);
    } else {
        fprintf(self->log, "event %s source=%s n=%s\n", event->kind_name, event->source, field(event, "n"));
    }
    fflush(self->log);
}

static void probe_on_media(oton_instance *instance, const oton_media_buffer *buffer) {
    probe *self = instance;
    if (self->block_until) wait_for(self->block_until);
    if (!self->log) return;
    fprintf(self->log, "media tap=%u size=%zu offset=%llu flags=%u first=%u caps=%s\n", buffer->format->tap, buffer->size,
            (unsigned long long)buffer->offset, buffer->flags, buffer->size ? buffer->data[0] : 0, buffer->format->caps);
    fflush(self->log);
}

static oton_status probe_on_command(oton_instance *instance, const char *name, const char *args_json,
                                    oton_reply_fn reply, void *reply_context) {
    probe *self = instance;
    if (strcmp(name, "probe-select-late") == 0) {
        char text[32];
        snprintf(text, sizeof text, "status=%d", (int)self->host->select_media_taps(self->host, OTON_TAP_NONE));
        reply(reply_context, text);
        return OTON_OK;
    }
    if (strcmp(name, "probe-switch") == 0) {
        /* ABI 1.2: ["NAME"] switches to that station, [] to the next one. The argument is the
         * first JSON string of args_json, taken as is (the test sends no escapes). */
        char station[256] = "";
        const char *open = strchr(args_json, '"');
        const char *close = open ? strchr(open + 1, '"') : NULL;
        if (open && close && (size_t)(close - open - 1) < sizeof station) {
            memcpy(station, open + 1, (size_t)(close - open - 1));
            station[close - open - 1] = 0;
        }
        oton_request request;
        memset(&request, 0, sizeof request);
        request.struct_size = sizeof request;
        request.kind = station[0] ? OTON_REQUEST_SWITCH_STATION : OTON_REQUEST_NEXT_STATION;
        request.station = station[0] ? station : NULL;
        char text[32];
        snprintf(text, sizeof text, "status=%d", (int)self->host->request(self->host, &request));
        reply(reply_context, text);
        return OTON_OK;
    }
    if (strcmp(name, "probe-echo") == 0) {
        reply(reply_context, "echo:");
        reply(reply_context, args_json);
        return OTON_OK;
    }
    if (strcmp(name, "probe-publish") == 0) {
        oton_field fields[1] = {{"n", "42"}};
        oton_event event;
        oton_request request;
        memset(&event, 0, sizeof event);
        event.struct_size = sizeof event;
        event.kind = self->probe_kind;
        event.field_count = 1;
        event.fields = fields;
        self->host->publish(self->host, &event);
        memset(&request, 0, sizeof request);
        request.struct_size = sizeof request;
        request.kind = OTON_REQUEST_FADE_VOLUME;
        request.volume = 0.25;
        request.duration_ms = 1500;
        self->host->request(self->host, &request);
        reply(reply_context, "published");
        return OTON_OK;
    }
    reply(reply_context, "unknown command");
    return OTON_ERR_UNSUPPORTED;
}

static const char *const probe_consumes[] = {"track", "state", "org.oton.test.probe", NULL};

static const oton_command_decl probe_commands[] = {
    {sizeof(oton_command_decl), 0, "probe-echo", "probe-echo ARGS…", "replies with its arguments"},
    {sizeof(oton_command_decl), 0, "probe-publish", "probe-publish", "publishes org.oton.test.probe and asks for a fade"},
    {sizeof(oton_command_decl), 0, "probe-select-late", "probe-select-late", "calls select_media_taps after create"},
    {sizeof(oton_command_decl), 0, "probe-switch", "probe-switch [STATION]", "asks the player to switch stations (ABI 1.2)"},
};

static const oton_plugin_descriptor probe_descriptor = {
#ifdef PROBE_OLD_DESCRIPTOR
    offsetof(oton_plugin_descriptor, on_command) + sizeof(void *),
#else
    sizeof(oton_plugin_descriptor),
#endif
    PROBE_ABI_MAJOR,
    PROBE_ABI_MINOR,
    PROBE_TAPS,
    PROBE_ID,
#ifdef PROBE_NO_NAME
    NULL,
#else
    "Probe",
#endif
    "0.0.1",
    "test plugin",
    probe_consumes,
    probe_commands,
    sizeof probe_commands / sizeof probe_commands[0],
    0,
    probe_create,
    probe_destroy,
    probe_on_event,
    probe_on_media,
    probe_on_command,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
#endif
};

OTON_EXPORT const oton_plugin_descriptor *PROBE_ENTRY_NAME(void) {
    return &probe_descriptor;
}
