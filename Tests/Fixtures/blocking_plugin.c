/*
 * A test plugin in C99 that holds the host up, for the shutdown deadline.
 * Compile-time knobs (-D):
 *   BLOCK_ID "…"            declared id (default org.oton.test.blocking)
 *   BLOCK_IN_EVENT          on_event sleeps BLOCK_MS for every event
 *   BLOCK_IN_DESTROY        destroy sleeps BLOCK_MS before it returns
 *   BLOCK_MS                how long a blocking call sleeps, in ms (default 5000)
 * Without BLOCK_IN_* it blocks nowhere and only logs.
 * Config (JSON, flat): "log": a file to append one line per call to, written
 * (and flushed) when the call begins: "create", "event state=N", "event KIND",
 * "destroy begins", and "destroy ends" when destroy is about to return.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oton_plugin.h"

#ifndef BLOCK_ID
#define BLOCK_ID "org.oton.test.blocking"
#endif
#ifndef BLOCK_MS
#define BLOCK_MS 5000
#endif

typedef struct blocking {
    FILE *log;
} blocking;

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

static void note(blocking *self, const char *text) {
    if (self->log == NULL) return;
    fprintf(self->log, "%s\n", text);
    fflush(self->log);
}

#if defined(BLOCK_IN_EVENT) || defined(BLOCK_IN_DESTROY)
static void block(void) {
    struct timespec pause = {BLOCK_MS / 1000, (BLOCK_MS % 1000) * 1000000L};
    while (nanosleep(&pause, &pause) != 0) {
    }
}
#endif

static oton_instance *blocking_create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    blocking *self = calloc(1, sizeof *self);
    char *log = json_string(config_json, "log");
    (void)host;
    (void)error;
    (void)error_size;
    self->log = log ? fopen(log, "a") : NULL;
    free(log);
    note(self, "create");
    return self;
}

static void blocking_destroy(oton_instance *instance) {
    blocking *self = instance;
    note(self, "destroy begins");
#ifdef BLOCK_IN_DESTROY
    block();
#endif
    note(self, "destroy ends");
    if (self->log) fclose(self->log);
    free(self);
}

static void blocking_on_event(oton_instance *instance, const oton_event *event) {
    blocking *self = instance;
    char line[160];
    if (event->kind == OTON_EVENT_STATE) {
        const oton_state_info *state = event->payload;
        snprintf(line, sizeof line, "event state=%u", (unsigned)state->state);
    } else {
        snprintf(line, sizeof line, "event %s", event->kind_name);
    }
    note(self, line);
#ifdef BLOCK_IN_EVENT
    block();
#endif
}

static const char *const blocking_consumes[] = {"state", "track", "volume", NULL};

static const oton_plugin_descriptor blocking_descriptor = {
    sizeof(oton_plugin_descriptor),
    OTON_ABI_MAJOR,
    OTON_ABI_MINOR,
    OTON_TAP_NONE,
    BLOCK_ID,
    "Blocking",
    "0.0.1",
    "test plugin that blocks in a callback",
    blocking_consumes,
    NULL,
    0,
    0,
    blocking_create,
    blocking_destroy,
    blocking_on_event,
    NULL,
    NULL,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
#endif
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &blocking_descriptor;
}
