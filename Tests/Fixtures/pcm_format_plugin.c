/*
 * A test plugin in C99 that chooses its PCM format with oton_host.select_pcm_format (ABI 1.3),
 * compiled by the tests with cc against Sources/PluginAPI/include alone. -DPCM_ID="…" gives
 * each copy its own id, so one oton can load several.
 *
 * Config (flat JSON): "log": a file to append lines to; "format": "f32" or "s16" (absent: do not
 * choose); "rate", "channels": numbers (0 or absent: the stream's).
 * In create() it logs the status of hostile choices first, then of its own:
 *   "null -1", "short -1", "rate-low -1", "rate-high -1", "channels -1", "sample -1", "chosen 0"
 * On the first PCM buffer of each connection: "media SAMPLE_FORMAT RATE CHANNELS"; after 2 s of
 * audio: "peak P frames N" (P the largest absolute sample, as a fraction of full scale, so F32 and
 * S16 compare) and "whole 1" when every buffer held whole frames.
 * On its first event: "late STATUS" for a choice after create() (expects -3, BUSY).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oton_plugin.h"

#ifndef PCM_ID
#define PCM_ID "org.oton.test.pcm-format"
#endif

typedef struct pcm_probe {
    const oton_host *host;
    FILE *log;
    uint64_t connection;
    uint64_t frames;
    double peak;
    int whole;
    int reported;
    int late_tried;
} pcm_probe;

static int json_text(const char *json, const char *key, char *out, size_t size) {
    char pattern[64];
    const char *at, *start, *end;
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    if ((at = strstr(json, pattern)) == NULL || (at = strchr(at + strlen(pattern), ':')) == NULL) return 0;
    if ((start = strchr(at, '"')) == NULL || (end = strchr(start + 1, '"')) == NULL || (size_t)(end - start) > size) return 0;
    memcpy(out, start + 1, (size_t)(end - start - 1));
    out[end - start - 1] = '\0';
    return 1;
}

static uint32_t json_number(const char *json, const char *key) {
    char pattern[64];
    const char *at;
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    if ((at = strstr(json, pattern)) == NULL || (at = strchr(at + strlen(pattern), ':')) == NULL) return 0;
    return (uint32_t)strtoul(at + 1, NULL, 10);
}

static oton_status choose(const oton_host *host, uint32_t size, oton_sample_format format, uint32_t rate, uint32_t channels) {
    oton_pcm_format_request request;
    request.struct_size = size;
    request.sample_format = format;
    request.rate = rate;
    request.channels = channels;
    return host->select_pcm_format(host, &request);
}

static oton_instance *pcm_create(const oton_host *host, const char *config, char *error, size_t error_size) {
    char path[1024], format[16];
    pcm_probe *p;
    if (!OTON_HAS_FIELD(host, oton_host, select_pcm_format) || host->select_pcm_format == NULL) {
        snprintf(error, error_size, "this host has no select_pcm_format (ABI 1.3)");
        return NULL;
    }
    if (!json_text(config, "log", path, sizeof path)) {
        snprintf(error, error_size, "config needs \"log\": a file path");
        return NULL;
    }
    p = calloc(1, sizeof *p);
    p->host = host;
    p->whole = 1;
    if ((p->log = fopen(path, "a")) == NULL) {
        snprintf(error, error_size, "cannot open %s", path);
        free(p);
        return NULL;
    }
    host->select_media_taps(host, OTON_TAP_PCM);
    fprintf(p->log, "null %d\n", (int)host->select_pcm_format(host, NULL));
    fprintf(p->log, "short %d\n", (int)choose(host, 8, OTON_SAMPLE_F32LE, 0, 0));
    fprintf(p->log, "rate-low %d\n", (int)choose(host, sizeof(oton_pcm_format_request), OTON_SAMPLE_F32LE, 7999, 0));
    fprintf(p->log, "rate-high %d\n", (int)choose(host, sizeof(oton_pcm_format_request), OTON_SAMPLE_F32LE, 192001, 0));
    fprintf(p->log, "channels %d\n", (int)choose(host, sizeof(oton_pcm_format_request), OTON_SAMPLE_F32LE, 0, 9));
    fprintf(p->log, "sample %d\n", (int)choose(host, sizeof(oton_pcm_format_request), 99u, 0, 0));
    if (json_text(config, "format", format, sizeof format)) {
        oton_sample_format sample = strcmp(format, "f32") == 0 ? OTON_SAMPLE_F32LE : OTON_SAMPLE_S16LE;
        fprintf(p->log, "chosen %d\n", (int)choose(host, sizeof(oton_pcm_format_request), sample,
                                                     json_number(config, "rate"), json_number(config, "channels")));
    }
    fflush(p->log);
    return p;
}

static void pcm_destroy(oton_instance *instance) {
    pcm_probe *p = instance;
    fclose(p->log);
    free(p);
}

static void pcm_event(oton_instance *instance, const oton_event *event) {
    pcm_probe *p = instance;
    (void)event;
    if (p->late_tried) return;
    p->late_tried = 1;
    fprintf(p->log, "late %d\n", (int)choose(p->host, sizeof(oton_pcm_format_request), OTON_SAMPLE_S16LE, 0, 0));
    fflush(p->log);
}

static void pcm_media(oton_instance *instance, const oton_media_buffer *buffer) {
    pcm_probe *p = instance;
    const oton_media_format *f = buffer->format;
    size_t sample_size = f->sample_format == OTON_SAMPLE_F32LE ? 4 : 2;
    size_t frame = sample_size * (f->channels ? f->channels : 1);
    size_t count, i;
    if (f->tap != OTON_TAP_PCM) return;
    if (buffer->connection != p->connection) {
        p->connection = buffer->connection;
        fprintf(p->log, "media %u %u %u\n", (unsigned)f->sample_format, (unsigned)f->rate, (unsigned)f->channels);
        fflush(p->log);
    }
    if (buffer->size % frame != 0) p->whole = 0;
    count = buffer->size / sample_size;
    for (i = 0; i < count; i++) {
        double value;
        if (f->sample_format == OTON_SAMPLE_F32LE) {
            float sample;
            memcpy(&sample, buffer->data + i * 4, 4);
            value = fabs((double)sample);
        } else {
            int16_t sample;
            memcpy(&sample, buffer->data + i * 2, 2);
            value = fabs((double)sample) / 32768.0;
        }
        if (value > p->peak) p->peak = value;
    }
    p->frames += buffer->size / frame;
    if (!p->reported && f->rate > 0 && p->frames >= 2u * f->rate) {
        p->reported = 1;
        fprintf(p->log, "peak %.4f frames %llu\nwhole %d\n", p->peak, (unsigned long long)p->frames, p->whole);
        fflush(p->log);
    }
}

static const char *const consumes[] = {"state", NULL};

static const oton_plugin_descriptor descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_PCM,
    PCM_ID, "PCM format probe (test)", "1.0.0", "chooses its PCM format and reports what it gets",
    consumes, NULL, 0, 0,
    pcm_create, pcm_destroy, pcm_event, pcm_media, NULL,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
#endif
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &descriptor;
}
