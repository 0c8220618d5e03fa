/*
 * oton_level_meter.c — an Oton plugin that reads decoded audio (the PCM tap).
 *
 * Every `window_ms` of audio (config, default 1000) it publishes
 * "org.example.level-meter.level" with the window's peak and RMS level in dBFS.
 * It shows what a media plugin has to get right:
 *   - read the sample format, rate and channels from each buffer, never assume them;
 *   - start a new window on DISCONT, NEW_CONNECTION or a format change, so that
 *     audio from before a gap is never mixed with audio after it;
 *   - count what the host dropped (its own `dropped` event) and say so;
 *   - refuse a bad config in create() with a reason (read by the host: read_json, ABI 1.5).
 * The command `level-meter-stats` prints the counts.
 *
 * Build it outside the Oton tree with nothing but the header:
 *
 *   cc -std=c99 -O2 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags oton-plugin) \
 *      oton_level_meter.c -o liboton_level_meter.so -lm
 *
 * and add it to plugins.json:
 *
 *   {"id": "org.example.level-meter", "path": "liboton_level_meter.so",
 *    "enabled": true, "config": {"window_ms": 500}}
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oton_plugin.h"

typedef struct meter {
    const oton_host *host;         /* valid until destroy() returns */
    oton_event_kind  level_kind;
    unsigned long    window_ms;
    /* The window being measured; all of it has one format. */
    oton_sample_format format;
    uint32_t         rate, channels;
    uint64_t         frames;       /* frames in the window so far */
    double           peak;         /* 0 … 1 */
    double           sum_squares;
    /* Totals for level-meter-stats. */
    unsigned long    windows, gaps, format_changes;
    uint64_t         dropped_bytes;
} meter;

/* Starts an empty window for the format of `buffer`. */
static void meter_reset(meter *self, const oton_media_format *format) {
    self->format = format->sample_format;
    self->rate = format->rate;
    self->channels = format->channels;
    self->frames = 0;
    self->peak = 0;
    self->sum_squares = 0;
}

static double to_dbfs(double level) { return level > 0 ? 20.0 * log10(level) : -120.0; }

/* Publishes the finished window. The strings may live on the stack: the host copies them. */
static void meter_publish(meter *self) {
    char peak[32], rms[32], samples[32];
    oton_field fields[3];
    oton_event out;
    double count = (double)self->frames * (double)self->channels;
    snprintf(peak, sizeof peak, "%.1f", to_dbfs(self->peak));
    snprintf(rms, sizeof rms, "%.1f", to_dbfs(count > 0 ? sqrt(self->sum_squares / count) : 0));
    snprintf(samples, sizeof samples, "%llu", (unsigned long long)self->frames);
    fields[0].key = "peak_dbfs"; fields[0].value = peak;
    fields[1].key = "rms_dbfs";  fields[1].value = rms;
    fields[2].key = "frames";    fields[2].value = samples;
    memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    out.kind = self->level_kind;
    out.field_count = 3;
    out.fields = fields;
    self->host->publish(self->host, &out);
    self->windows++;
}

/* MAIN THREAD. config_json is borrowed; error is the host's buffer. */
static oton_instance *meter_create(const oton_host *host, const char *config_json,
                                   char *error, size_t error_size) {
    meter *self;
    unsigned long window_ms = 1000;
    oton_json_value value;
    /* The host reads the setting (ABI 1.5, oton_host.read_json): no JSON code here, and a bad
     * value is refused in the words of oton's own config reader, e.g.
     * "config.window_ms must be a whole number from 10 to 60000, not "soon"". */
    if (!OTON_HAS_FIELD(host, oton_host, read_json) || host->read_json == NULL) {
        snprintf(error, error_size, "this plugin needs oton with plugin ABI 1.5 or newer");
        return NULL;
    }
    memset(&value, 0, sizeof value);
    value.struct_size = sizeof value;
    value.type = OTON_JSON_INTEGER;
    value.minimum = 10;
    value.maximum = 60000;
    if (host->read_json(host, config_json, "config.window_ms", &value, error, error_size) != OTON_OK) return NULL;
    if (value.found) window_ms = (unsigned long)value.integer;
    self = calloc(1, sizeof *self);
    if (self == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    self->host = host;
    self->window_ms = window_ms;
    self->level_kind = host->event_kind(host, "org.example.level-meter.level");
    /* The descriptor declares the PCM tap only, so there is nothing to narrow;
     * select_media_taps (ABI 1.1) would go here. */
    return self;
}

/* PLUGIN MAILBOX, last call. No threads of our own to stop. */
static void meter_destroy(oton_instance *instance) {
    free(instance);
}

/* PLUGIN MAILBOX. The buffer is borrowed for this call only. */
static void meter_on_media(oton_instance *instance, const oton_media_buffer *buffer) {
    meter *self = instance;
    const oton_media_format *format = buffer->format;
    size_t sample_size, count, i;
    if (format == NULL || format->tap != OTON_TAP_PCM || format->channels == 0 || format->rate == 0) return;
    if (format->sample_format == OTON_SAMPLE_S16LE) sample_size = 2;
    else if (format->sample_format == OTON_SAMPLE_F32LE) sample_size = 4;
    else return; /* a format this plugin does not know: skip it */

    if (buffer->flags & (OTON_MEDIA_FLAG_DISCONT | OTON_MEDIA_FLAG_NEW_CONNECTION)) {
        /* Audio is missing before this buffer: the window must not span the gap. */
        if (buffer->flags & OTON_MEDIA_FLAG_DISCONT) self->gaps++;
        meter_reset(self, format);
    }
    if (format->sample_format != self->format || format->rate != self->rate || format->channels != self->channels) {
        if (self->frames > 0) self->format_changes++;
        meter_reset(self, format);
    }

    count = buffer->size / sample_size;
    for (i = 0; i < count; i++) {
        const uint8_t *at = buffer->data + i * sample_size;
        double sample;
        if (sample_size == 2) {
            int16_t s = (int16_t)(uint16_t)(at[0] | (at[1] << 8));
            sample = s / 32768.0;
        } else {
            uint32_t bits = (uint32_t)at[0] | ((uint32_t)at[1] << 8) | ((uint32_t)at[2] << 16) | ((uint32_t)at[3] << 24);
            float f;
            memcpy(&f, &bits, sizeof f);
            sample = f;
        }
        if (fabs(sample) > self->peak) self->peak = fabs(sample);
        self->sum_squares += sample * sample;
        if ((i + 1) % self->channels == 0) {
            self->frames++;
            if (self->frames * 1000 >= (uint64_t)self->window_ms * self->rate) {
                meter_publish(self);
                meter_reset(self, format);
            }
        }
    }
}

/* PLUGIN MAILBOX. Only `dropped` arrives (this plugin consumes nothing else):
 * the host tells us our own losses as soon as we are free again. */
static void meter_on_event(oton_instance *instance, const oton_event *event) {
    meter *self = instance;
    const oton_drop_info *drop = event->payload;
    if (event->kind != OTON_EVENT_DROPPED || !OTON_HAS_FIELD(drop, oton_drop_info, dropped_bytes)) return;
    if (drop->plugin_id == NULL || strcmp(drop->plugin_id, "org.example.level-meter") != 0) return;
    if (drop->dropped_bytes > self->dropped_bytes) {
        char line[160];
        snprintf(line, sizeof line, "fell behind: %llu bytes of audio dropped so far; levels skip that audio",
                 (unsigned long long)drop->dropped_bytes);
        self->host->log(self->host, OTON_LOG_WARNING, line);
        self->dropped_bytes = drop->dropped_bytes;
    }
}

/* PLUGIN MAILBOX. args_json is borrowed; reply copies its text. */
static oton_status meter_on_command(oton_instance *instance, const char *name, const char *args_json,
                                    oton_reply_fn reply, void *reply_context) {
    meter *self = instance;
    char text[256];
    (void)args_json;
    if (strcmp(name, "level-meter-stats") != 0) return OTON_ERR_UNSUPPORTED;
    snprintf(text, sizeof text, "%lu windows, %lu gaps, %lu format changes, %llu bytes dropped",
             self->windows, self->gaps, self->format_changes, (unsigned long long)self->dropped_bytes);
    reply(reply_context, text);
    return OTON_OK;
}

static const oton_command_decl meter_commands[] = {
    {sizeof(oton_command_decl), 0, "level-meter-stats", "level-meter-stats",
     "how many windows were measured and how much audio was lost"},
};

static const oton_plugin_descriptor meter_descriptor = {
    sizeof(oton_plugin_descriptor),
    OTON_ABI_MAJOR,
    OTON_ABI_MINOR,
    OTON_TAP_PCM,
    "org.example.level-meter",
    "Level meter (C example)",
    "1.0.0",
    "Publishes the peak and RMS level of the decoded audio",
    NULL, /* consumes nothing; `dropped` arrives anyway because on_event is set */
    meter_commands,
    1,
    0,
    meter_create,
    meter_destroy,
    meter_on_event,
    meter_on_media,
    meter_on_command,
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &meter_descriptor;
}
