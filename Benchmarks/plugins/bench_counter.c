/*
 * A benchmark plugin in C99: counts the events it receives and, for track
 * events that carry the host's "tag_mono_ns" field, records how long after
 * the tag was read from the stream the event reached this callback.
 * Config: {"latency_file": "/path"} — written at destroy, one number (ns) a line.
 * Build: cc -std=c99 -O2 -shared -fPIC -I Sources/PluginAPI/include -DBENCH_ID='"org.oton.bench.N"'
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oton_plugin.h"

#ifndef BENCH_ID
#define BENCH_ID "org.oton.bench.counter"
#endif

#define MAX_SAMPLES 200000

typedef struct counter {
    unsigned long long events;
    unsigned long long tracks;
    char *latency_file;
    size_t samples;
    long long *latency_ns;
} counter;

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static oton_instance *bench_create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    counter *self = calloc(1, sizeof *self);
    const char *key = strstr(config_json, "\"latency_file\"");
    (void)host;
    if (self == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    if (key != NULL) {
        const char *start = strchr(key + 14, '"');
        const char *end = start ? strchr(start + 1, '"') : NULL;
        if (start && end) {
            self->latency_file = calloc((size_t)(end - start), 1);
            memcpy(self->latency_file, start + 1, (size_t)(end - start - 1));
            self->latency_ns = calloc(MAX_SAMPLES, sizeof(long long));
        }
    }
    return self;
}

static void bench_destroy(oton_instance *instance) {
    counter *self = instance;
    if (self->latency_file) {
        FILE *out = fopen(self->latency_file, "w");
        size_t i;
        if (out) {
            fprintf(out, "# events=%llu tracks=%llu\n", self->events, self->tracks);
            for (i = 0; i < self->samples; i++) fprintf(out, "%lld\n", self->latency_ns[i]);
            fclose(out);
        }
    }
    free(self->latency_file);
    free(self->latency_ns);
    free(self);
}

static void bench_on_event(oton_instance *instance, const oton_event *event) {
    counter *self = instance;
    uint32_t i;
    self->events++;
    if (event->kind != OTON_EVENT_TRACK) return;
    self->tracks++;
    if (!self->latency_ns || self->samples >= MAX_SAMPLES) return;
    for (i = 0; i < event->field_count; i++) {
        if (strcmp(event->fields[i].key, "tag_mono_ns") == 0) {
            self->latency_ns[self->samples++] = now_ns() - atoll(event->fields[i].value);
            return;
        }
    }
}

static oton_status bench_on_command(oton_instance *instance, const char *name, const char *args_json,
                                    oton_reply_fn reply, void *reply_context) {
    counter *self = instance;
    char text[64];
    (void)name;
    (void)args_json;
    snprintf(text, sizeof text, "%llu", self->events);
    reply(reply_context, text);
    return OTON_OK;
}

static const char *const bench_consumes[] = {"*", NULL};
/* -DBENCH_COMMAND="bench-count-3": the command that answers the count (its reply comes after every
 * event queued before it, so it also tells when an isolated plugin has handled them all). */
#ifdef BENCH_COMMAND
static const oton_command_decl bench_commands[] = {
    {sizeof(oton_command_decl), 0, BENCH_COMMAND, BENCH_COMMAND, "events received"},
};
#define BENCH_COMMANDS bench_commands, 1
#else
#define BENCH_COMMANDS NULL, 0
#endif

static const oton_plugin_descriptor bench_descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_NONE,
    BENCH_ID, "Benchmark counter", "1.0.0", "counts events, measures tag latency",
    bench_consumes, BENCH_COMMANDS, 0,
    bench_create, bench_destroy, bench_on_event, NULL, bench_on_command,
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &bench_descriptor;
}
