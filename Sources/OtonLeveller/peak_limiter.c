/* A look-ahead peak limiter: the gain each frame needs (ceiling / peak) is held as the minimum over
 * the look-ahead window, released slowly, and averaged over the window, so it has fallen all the
 * way by the time the delayed peak leaves — no frame above the ceiling, no step in the gain. */
#include "oton_leveller.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct oton_peak_limiter {
    unsigned channels;
    size_t lookahead;      /* D: frames of delay */
    float ceiling;         /* linear */
    double release;        /* per-frame coefficient towards 1 */
    double smoothed;       /* the held gain after release smoothing */
    double window_sum;     /* sum of the last D smoothed gains */
    double last_gain;
    size_t position;       /* in the delay line and the window */
    uint64_t frame;        /* frames seen */
    /* The running minimum over D + 1 frames: a monotonic queue (values rising from head to tail). */
    size_t queue_head, queue_count, queue_capacity;
    float *queue_value;
    uint64_t *queue_frame;
    double *window;        /* D smoothed gains */
    float *delay;          /* D frames */
};

oton_peak_limiter *oton_peak_limiter_new(unsigned rate, unsigned channels) {
    if (channels < 1 || channels > 8 || rate < 8000 || rate > 384000) return NULL;
    oton_peak_limiter *limiter = calloc(1, sizeof *limiter);
    if (!limiter) return NULL;
    limiter->channels = channels;
    limiter->lookahead = (size_t)(rate * OTON_LIMITER_LOOKAHEAD_MS / 1000.0);
    if (limiter->lookahead < 1) limiter->lookahead = 1;
    limiter->ceiling = (float)pow(10.0, OTON_LIMITER_CEILING_DBFS / 20.0);
    limiter->release = 1.0 - exp(-1.0 / (OTON_LIMITER_RELEASE_MS / 1000.0 * rate));
    limiter->smoothed = 1.0;
    limiter->window_sum = (double)limiter->lookahead;
    limiter->last_gain = 1.0;
    limiter->queue_capacity = limiter->lookahead + 2;
    limiter->queue_value = calloc(limiter->queue_capacity, sizeof(float));
    limiter->queue_frame = calloc(limiter->queue_capacity, sizeof(uint64_t));
    limiter->window = malloc(limiter->lookahead * sizeof(double));
    limiter->delay = calloc(limiter->lookahead * channels, sizeof(float));
    if (!limiter->queue_value || !limiter->queue_frame || !limiter->window || !limiter->delay) {
        oton_peak_limiter_free(limiter);
        return NULL;
    }
    for (size_t i = 0; i < limiter->lookahead; i++) limiter->window[i] = 1.0;
    return limiter;
}

void oton_peak_limiter_free(oton_peak_limiter *limiter) {
    if (!limiter) return;
    free(limiter->queue_value);
    free(limiter->queue_frame);
    free(limiter->window);
    free(limiter->delay);
    free(limiter);
}

size_t oton_peak_limiter_latency(const oton_peak_limiter *limiter) { return limiter->lookahead; }

double oton_peak_limiter_reduction_db(const oton_peak_limiter *limiter) { return 20.0 * log10(limiter->last_gain); }

/* The gain the window's loudest frame allows, after taking in this frame's need. */
static float held_minimum(oton_peak_limiter *limiter, float need) {
    size_t capacity = limiter->queue_capacity;
    while (limiter->queue_count > 0) {
        size_t back = (limiter->queue_head + limiter->queue_count - 1) % capacity;
        if (limiter->queue_value[back] < need) break;
        limiter->queue_count--;
    }
    size_t slot = (limiter->queue_head + limiter->queue_count) % capacity;
    limiter->queue_value[slot] = need;
    limiter->queue_frame[slot] = limiter->frame;
    limiter->queue_count++;
    /* The window is D + 1 frames: the frame leaving the delay line now and the D after it. */
    while (limiter->queue_frame[limiter->queue_head] + limiter->lookahead < limiter->frame) {
        limiter->queue_head = (limiter->queue_head + 1) % capacity;
        limiter->queue_count--;
    }
    return limiter->queue_value[limiter->queue_head];
}

void oton_peak_limiter_process(oton_peak_limiter *limiter, float *samples, size_t frames, int active) {
    unsigned channels = limiter->channels;
    size_t lookahead = limiter->lookahead;
    float ceiling = limiter->ceiling;
    for (size_t i = 0; i < frames; i++) {
        float *frame = samples + i * channels;
        float *delayed = limiter->delay + limiter->position * channels;
        float gain = 1.0f;
        if (active) {
            float peak = 0;
            for (unsigned c = 0; c < channels; c++) {
                float magnitude = fabsf(frame[c]);
                if (magnitude > peak) peak = magnitude;
            }
            float need = peak > ceiling ? ceiling / peak : 1.0f;
            double held = held_minimum(limiter, need);
            limiter->smoothed = held < limiter->smoothed ? held : limiter->smoothed + (held - limiter->smoothed) * limiter->release;
            limiter->window_sum += limiter->smoothed - limiter->window[limiter->position];
            limiter->window[limiter->position] = limiter->smoothed;
            gain = (float)(limiter->window_sum / (double)lookahead);
            if (gain > 1.0f) gain = 1.0f;
        }
        for (unsigned c = 0; c < channels; c++) {
            float out = delayed[c] * gain;
            delayed[c] = frame[c];
            if (active) out = out > ceiling ? ceiling : (out < -ceiling ? -ceiling : out);
            frame[c] = out;
        }
        limiter->position = limiter->position + 1 == lookahead ? 0 : limiter->position + 1;
        limiter->frame++;
        limiter->last_gain = gain;
    }
    if (!active && limiter->smoothed != 1.0) {
        /* Off: the held gains are forgotten, so turning it on starts from unity. */
        limiter->smoothed = 1.0;
        limiter->window_sum = (double)lookahead;
        for (size_t i = 0; i < lookahead; i++) limiter->window[i] = 1.0;
        limiter->queue_count = 0;
    }
}
