/* The leveller: libebur128's momentary loudness every 100 ms feeds the gain logic; the gain is
 * ramped across each buffer (no step) and the limiter keeps the result under its ceiling. */
#include "oton_leveller.h"
#include "leveller_format.h"

#include <ebur128.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

/* How often the loudness is read and the gain moved: every 100 ms of audio (R128's block hop). */
#define STEP_DIVISOR 10
/* The momentary loudness covers 400 ms; it is read once that much audio was measured. */
#define MOMENTARY_DIVISOR 2.5

struct oton_leveller {
    atomic_int references;
    atomic_int enabled;
    _Atomic double gain_db;      /* the gain logic's, whether or not it is applied */
    _Atomic double loudness_lufs;
    _Atomic double measured_seconds;
    _Atomic double limiter_db;
    _Atomic uint64_t guarded;
    _Atomic int64_t processed_ns;   /* stream time up to which audio left the leveller (-1 unknown) */
    _Atomic int64_t fade_start_ns;  /* where the last fade-out began (-1 none) */
    /* The streaming thread's own. */
    oton_level_gain logic;
    ebur128_state *meter;
    oton_peak_limiter *limiter;
    unsigned rate, channels;
    size_t frames_since_step;
    size_t frames_measured;
    float applied;      /* the linear gain at the end of the last buffer */
    size_t faded_in;    /* frames of the fade-in done (OTON_LEVELLER_FADE_MS at the first sound) */
    size_t faded_out;   /* frames since the fade-out began */
    atomic_int fading_out;
    atomic_int silent;  /* the fade-out and the limiter's delay after it are done */
    atomic_int configured; /* a usable format was configured (audio may have passed) */
    atomic_int restart;    /* a fade-in was asked for after a fade-out (taken on the streaming thread) */
};

oton_leveller *oton_leveller_new(double target_lufs, double remembered_lufs, int enabled) {
    oton_leveller *leveller = calloc(1, sizeof *leveller);
    if (!leveller) return NULL;
    atomic_init(&leveller->references, 1);
    atomic_init(&leveller->enabled, enabled ? 1 : 0);
    oton_level_gain_init(&leveller->logic, target_lufs, remembered_lufs);
    atomic_init(&leveller->gain_db, leveller->logic.gain_db);
    atomic_init(&leveller->loudness_lufs, oton_level_gain_loudness(&leveller->logic));
    atomic_init(&leveller->measured_seconds, leveller->logic.gated_seconds);
    atomic_init(&leveller->limiter_db, 0.0);
    atomic_init(&leveller->guarded, 0);
    atomic_init(&leveller->processed_ns, -1);
    atomic_init(&leveller->fade_start_ns, -1);
    atomic_init(&leveller->fading_out, 0);
    atomic_init(&leveller->silent, 0);
    atomic_init(&leveller->configured, 0);
    atomic_init(&leveller->restart, 0);
    leveller->applied = enabled ? (float)pow(10.0, leveller->logic.gain_db / 20.0) : 1.0f;
    return leveller;
}

oton_leveller *oton_leveller_ref(oton_leveller *leveller) {
    atomic_fetch_add_explicit(&leveller->references, 1, memory_order_relaxed);
    return leveller;
}

static void release_format(oton_leveller *leveller) {
    if (leveller->meter) ebur128_destroy(&leveller->meter);
    oton_peak_limiter_free(leveller->limiter);
    leveller->meter = NULL;
    leveller->limiter = NULL;
}

void oton_leveller_unref(oton_leveller *leveller) {
    if (!leveller || atomic_fetch_sub_explicit(&leveller->references, 1, memory_order_acq_rel) != 1) return;
    release_format(leveller);
    free(leveller);
}

int oton_leveller_configure(oton_leveller *leveller, unsigned rate, unsigned channels) {
    if (leveller->meter && leveller->rate == rate && leveller->channels == channels) return 1;
    release_format(leveller);
    leveller->rate = rate;
    leveller->channels = channels;
    leveller->frames_since_step = 0;
    leveller->frames_measured = 0;
    leveller->limiter = oton_peak_limiter_new(rate, channels);
    if (!leveller->limiter) return 0;
    leveller->meter = ebur128_init(channels, rate, EBUR128_MODE_M);
    if (!leveller->meter) {
        release_format(leveller);
        return 0;
    }
    atomic_store_explicit(&leveller->configured, 1, memory_order_release);
    return 1;
}

void oton_leveller_fade_out(oton_leveller *leveller) {
    atomic_store_explicit(&leveller->fading_out, 1, memory_order_release);
}

void oton_leveller_fade_in(oton_leveller *leveller) {
    atomic_store_explicit(&leveller->restart, 1, memory_order_release);
}

int oton_leveller_faded_out(const oton_leveller *leveller) {
    oton_leveller *shared = (oton_leveller *)leveller;
    /* No usable format yet: nothing was ever heard through it. */
    if (!atomic_load_explicit(&shared->configured, memory_order_acquire)) return 1;
    return atomic_load_explicit(&shared->silent, memory_order_acquire);
}

/* Below this (−48 dBFS) a frame at a connection's start counts as silence (see fade). */
#define FADE_IN_THRESHOLD 0.004f

/* The ramps of a start and of a pause (see OTON_LEVELLER_FADE_MS), on the audio before the
 * limiter: its delay line then starts and ends in silence too. */
static void fade(oton_leveller *leveller, float *samples, size_t frames) {
    size_t ramp = (size_t)leveller->rate * OTON_LEVELLER_FADE_MS / 1000;
    if (ramp == 0) ramp = 1;
    unsigned channels = leveller->channels;
    if (atomic_exchange_explicit(&leveller->restart, 0, memory_order_acq_rel)) {
        leveller->faded_in = 0;
        leveller->faded_out = 0;
        atomic_store_explicit(&leveller->fading_out, 0, memory_order_relaxed);
        atomic_store_explicit(&leveller->silent, 0, memory_order_release);
    }
    int out = atomic_load_explicit(&leveller->fading_out, memory_order_acquire);
    if (!out && leveller->faded_in >= ramp) return;
    for (size_t i = 0; i < frames; i++) {
        float gain = 1.0f;
        float *frame = samples + i * channels;
        if (leveller->faded_in == 0) {
            /* The ramp starts at the first audible frame: a decoder's priming silence (an MP3
             * frame's worth at a connection's start) must not use it up before the sound. */
            float loudest = 0.0f;
            for (unsigned c = 0; c < channels; c++) loudest = fmaxf(loudest, fabsf(frame[c]));
            if (loudest < FADE_IN_THRESHOLD) gain = 0.0f;
            else leveller->faded_in = 1, gain = 1.0f / (float)ramp;
        } else if (leveller->faded_in < ramp) {
            gain = (float)(++leveller->faded_in) / (float)ramp;
        }
        if (out) {
            size_t done = leveller->faded_out++;
            float down = done >= ramp ? 0.0f : 1.0f - (float)(done + 1) / (float)ramp;
            if (down < gain) gain = down;
        }
        for (unsigned c = 0; c < channels; c++) frame[c] *= gain;
    }
}

unsigned oton_leveller_channels(const oton_leveller *leveller) { return leveller->meter ? leveller->channels : 0; }

void oton_leveller_set_enabled(oton_leveller *leveller, int enabled) {
    atomic_store_explicit(&leveller->enabled, enabled ? 1 : 0, memory_order_relaxed);
}

oton_leveller_reading oton_leveller_read(const oton_leveller *leveller) {
    oton_leveller *shared = (oton_leveller *)leveller;
    oton_leveller_reading reading;
    reading.enabled = atomic_load_explicit(&shared->enabled, memory_order_relaxed);
    reading.target_lufs = leveller->logic.target_lufs; /* set once, before any thread shares it */
    /* Off, the gain is 0 dB from the next buffer on (ramped over it). */
    reading.gain_db = reading.enabled ? atomic_load_explicit(&shared->gain_db, memory_order_relaxed) : 0.0;
    reading.loudness_lufs = atomic_load_explicit(&shared->loudness_lufs, memory_order_relaxed);
    reading.measured_seconds = atomic_load_explicit(&shared->measured_seconds, memory_order_relaxed);
    reading.limiter_db = atomic_load_explicit(&shared->limiter_db, memory_order_relaxed);
    reading.guarded_samples = atomic_load_explicit(&shared->guarded, memory_order_relaxed);
    return reading;
}

/* Measures the buffer and moves the gain every 100 ms of audio. */
static void measure(oton_leveller *leveller, const float *samples, size_t frames) {
    ebur128_add_frames_float(leveller->meter, samples, frames);
    leveller->frames_since_step += frames;
    leveller->frames_measured += frames;
    if (leveller->frames_since_step < leveller->rate / STEP_DIVISOR) return;
    if (leveller->frames_measured < leveller->rate / MOMENTARY_DIVISOR) return;
    double momentary = -HUGE_VAL;
    if (ebur128_loudness_momentary(leveller->meter, &momentary) != EBUR128_SUCCESS) momentary = -HUGE_VAL;
    oton_level_gain_step(&leveller->logic, momentary, (double)leveller->frames_since_step / leveller->rate);
    leveller->frames_since_step = 0;
    atomic_store_explicit(&leveller->gain_db, leveller->logic.gain_db, memory_order_relaxed);
    atomic_store_explicit(&leveller->loudness_lufs, oton_level_gain_loudness(&leveller->logic), memory_order_relaxed);
    atomic_store_explicit(&leveller->measured_seconds, leveller->logic.gated_seconds, memory_order_relaxed);
}

/* The guard at the entry (see OTON_LEVELLER_GUARD_LIMIT): returns how many samples it changed. */
static uint64_t guard_entry(float *samples, size_t count) {
    const float limit = OTON_LEVELLER_GUARD_LIMIT;
    uint64_t changed = 0;
    for (size_t i = 0; i < count; i++) {
        float value = samples[i];
        if (value >= -limit && value <= limit) continue;  /* NaN fails both */
        samples[i] = isfinite(value) ? (value > 0 ? limit : -limit) : 0.0f;
        changed++;
    }
    return changed;
}

/* The hard bound at the exit: the limiter's look-ahead keeps the sound under its ceiling; this makes
 * sure of it whatever came in. */
static void bound_exit(float *samples, size_t count) {
    const float ceiling = (float)pow(10.0, OTON_LIMITER_CEILING_DBFS / 20.0);
    for (size_t i = 0; i < count; i++) {
        if (samples[i] > ceiling) samples[i] = ceiling;
        else if (samples[i] < -ceiling) samples[i] = -ceiling;
    }
}

void oton_leveller_process(oton_leveller *leveller, float *samples, size_t frames) {
    if (!leveller->meter || frames == 0) return;
    uint64_t guarded = guard_entry(samples, frames * leveller->channels);
    if (guarded) atomic_fetch_add_explicit(&leveller->guarded, guarded, memory_order_relaxed);
    int enabled = atomic_load_explicit(&leveller->enabled, memory_order_relaxed);
    if (enabled) measure(leveller, samples, frames);
    double gain_db = enabled ? leveller->logic.gain_db : 0.0;
    float target = (float)pow(10.0, gain_db / 20.0);
    float from = leveller->applied;
    unsigned channels = leveller->channels;
    if (from != target || target != 1.0f) {
        /* A ramp from the last buffer's gain to this one's: a 100 ms step is never heard as a click. */
        float step = (target - from) / (float)frames;
        for (size_t i = 0; i < frames; i++) {
            float gain = from + step * (float)(i + 1);
            float *frame = samples + i * channels;
            for (unsigned c = 0; c < channels; c++) frame[c] *= gain;
        }
    }
    leveller->applied = target;
    fade(leveller, samples, frames);
    oton_peak_limiter_process(leveller->limiter, samples, frames, 1);
    bound_exit(samples, frames * leveller->channels);
    if (atomic_load_explicit(&leveller->fading_out, memory_order_relaxed)
        && leveller->faded_out >= (size_t)leveller->rate * OTON_LEVELLER_FADE_MS / 1000 + oton_peak_limiter_latency(leveller->limiter))
        atomic_store_explicit(&leveller->silent, 1, memory_order_release);
    atomic_store_explicit(&leveller->limiter_db, oton_peak_limiter_reduction_db(leveller->limiter), memory_order_relaxed);
}

void oton_leveller_process_at(oton_leveller *leveller, float *samples, size_t frames, int64_t pts_ns, int64_t duration_ns) {
    /* A fade-out that has not touched a frame yet begins in this buffer. */
    int fade_begins = atomic_load_explicit(&leveller->fading_out, memory_order_acquire) && leveller->faded_out == 0
        && !atomic_load_explicit(&leveller->restart, memory_order_acquire);
    oton_leveller_process(leveller, samples, frames);
    if (pts_ns < 0) return;
    if (fade_begins) atomic_store_explicit(&leveller->fade_start_ns, pts_ns, memory_order_release);
    if (duration_ns < 0 && leveller->rate > 0) duration_ns = (int64_t)frames * 1000000000 / leveller->rate;
    atomic_store_explicit(&leveller->processed_ns, pts_ns + (duration_ns > 0 ? duration_ns : 0), memory_order_release);
}

void oton_leveller_timing(const oton_leveller *leveller, int64_t *processed_ns, int64_t *fade_start_ns) {
    oton_leveller *shared = (oton_leveller *)leveller;
    if (processed_ns) *processed_ns = atomic_load_explicit(&shared->processed_ns, memory_order_acquire);
    if (fade_start_ns) *fade_start_ns = atomic_load_explicit(&shared->fade_start_ns, memory_order_acquire);
}
