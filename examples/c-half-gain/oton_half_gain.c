/*
 * oton_half_gain.c — an Oton plugin that filters the sound heard (ABI 1.6 `filter`): it halves
 * the level (a gain of 0.5, −6.02 dB). The smallest filter there is, to start from.
 *
 * What a filter has to get right (the rules are beside `filter` in oton_plugin.h):
 *   - it runs on the audio thread: no allocation, no locks, no I/O, no host calls in it;
 *   - it works in place on interleaved 32-bit floats, whatever the channels and rate;
 *   - it must take less than half the buffer's duration, or the host bypasses it;
 *   - it is heard only: plugins' PCM taps and WAV recordings get the stream's own sound.
 *
 * Build it outside the Oton tree with nothing but the header:
 *
 *   cc -std=c99 -O2 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags oton-plugin) \
 *      oton_half_gain.c -o liboton_half_gain.so
 *
 * and add it to plugins.json (in process: an isolated plugin cannot filter):
 *
 *   {"id": "org.example.half-gain", "path": "liboton_half_gain.so", "enabled": true}
 */
#include <stddef.h>
#include <stdlib.h>

#include "oton_plugin.h"

typedef struct half_gain {
    float gain;
} half_gain;

/* MAIN THREAD. Everything the filter needs is made here. */
static oton_instance *half_gain_create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    (void)host;
    (void)config_json;
    (void)error;
    (void)error_size;
    half_gain *self = malloc(sizeof *self);
    if (self) self->gain = 0.5f;
    return self;
}

static void half_gain_destroy(oton_instance *instance) { free(instance); }

/* AUDIO THREAD. In place, allocation-free. */
static void half_gain_filter(oton_instance *instance, float *samples, size_t frames, uint32_t channels, uint32_t rate) {
    (void)rate;
    const half_gain *self = instance;
    size_t count = frames * channels;
    for (size_t index = 0; index < count; index++) samples[index] *= self->gain;
}

static const oton_plugin_descriptor half_gain_descriptor = {
    sizeof(oton_plugin_descriptor),
    OTON_ABI_MAJOR,
    OTON_ABI_MINOR,
    0, /* no media taps: a filter sees the sound through `filter` */
    "org.example.half-gain",
    "Half gain (C example filter)",
    "1.0.0",
    "Halves the level of the sound heard (-6.02 dB)",
    NULL,
    NULL,
    0,
    0,
    half_gain_create,
    half_gain_destroy,
    NULL,
    NULL,
    NULL,
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    half_gain_filter, /* 1.6: filter */
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &half_gain_descriptor;
}
