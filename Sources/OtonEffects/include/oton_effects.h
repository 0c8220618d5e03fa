/* The effect chain's own processors (docs/effects.md): LV2 plugins hosted with lilv, and the
 * in-place filters of oton plugins (ABI 1.6, oton_plugin_descriptor.filter), each run in place on
 * interleaved 32-bit float audio by a pad probe on a GStreamer streaming thread.
 *
 * Threads: the catalogue (oton_lv2_*) is read from any thread once loaded (it is loaded once, on
 * the first call, and never freed). `oton_effect_set_*` and `oton_effect_read` run on any thread
 * (atomics); the probe is the streaming thread's. Memory: an effect allocates when the format is
 * known (a caps event: the LV2 instances and their scratch buffers) and never per buffer. */
#ifndef OTON_EFFECTS_H
#define OTON_EFFECTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the LV2 catalogue: what is installed (LV2_PATH, else the system's folders) ---- */

typedef struct oton_lv2_plugin_info {
    const char *uri;
    const char *name;
    unsigned audio_inputs, audio_outputs;
    unsigned controls;        /* control inputs (the parameters) */
    /* NULL when oton can host it; else a required LV2 feature oton does not offer. */
    const char *unsupported;
} oton_lv2_plugin_info;

typedef struct oton_lv2_control_info {
    const char *symbol;       /* the parameter's name in plugins.json and `ctl effect` */
    const char *name;         /* for people */
    float minimum, maximum, default_value;
    int integer, toggled;     /* lv2:integer, lv2:toggled */
    /* lv2:sampleRate: minimum, maximum and default are fractions of the sample rate, and the value
     * an effect takes (oton_effect_set_control) is in Hz: the plugin's port gets it as it is. */
    int sample_rate;
} oton_lv2_control_info;

/* How many LV2 plugins are installed: the full listing, every plugin's data read on the first call
 * (seconds with a large collection installed: for `oton effects list`, not for a start). */
unsigned oton_lv2_count(void);
/* 1 and `*out` filled, or 0 when `index` is out of range. Strings live as long as the process. */
int oton_lv2_plugin(unsigned index, oton_lv2_plugin_info *out);
/* The index of the plugin with this URI, or -1 (the full listing: see oton_lv2_count). */
int oton_lv2_find(const char *uri);
/* The index of the plugin with this URI read from the bundle folder `bundle_path` alone (loaded once,
 * no other bundle read), or -1 when that bundle does not hold it. For a start: LV2BundleIndex says
 * which bundle holds a URI. */
int oton_lv2_find_in_bundle(const char *uri, const char *bundle_path);
/* Calls `each` with the URI and bundle folder (strings valid during the call) of every plugin in the
 * bundles of `search_path` (folders joined by ':', as LV2_PATH), from the bundles' manifests alone (no
 * plugin's data read). Returns how many. Any thread; a world of its own, freed before it returns. */
typedef void (*oton_lv2_bundle_fn)(void *context, const char *uri, const char *bundle_path);
unsigned oton_lv2_each_bundle(const char *search_path, oton_lv2_bundle_fn each, void *context);
/* The bundle folders oton_lv2_find_in_bundle loaded in this process, in order (for tests). */
unsigned oton_lv2_loaded_bundle_count(void);
const char *oton_lv2_loaded_bundle(unsigned index);
int oton_lv2_control(unsigned plugin, unsigned control, oton_lv2_control_info *out);

/* ---- one effect of the chain ---- */

typedef struct oton_effect oton_effect;

/* A plugin filter (ABI 1.6): changes `frames` interleaved frames of `channels` floats in place. */
typedef void (*oton_effect_filter_fn)(void *context, float *samples, size_t frames, uint32_t channels, uint32_t rate);

/* An LV2 plugin of the catalogue; its controls start at their defaults. NULL: no such plugin, or
 * out of memory. A plugin with as many audio inputs as outputs runs one instance when the stream
 * has that many channels, or one per channel when it has one; any other shape passes the sound
 * through untouched (oton_effect_read says so). */
oton_effect *oton_effect_new_lv2(unsigned plugin);
/* A plugin filter: `filter(context, …)` is called with each buffer; `name` (copied) names it in
 * the overrun message. A call longer than the budget (oton_effect_budget_ns) bypasses it for good. */
oton_effect *oton_effect_new_filter(oton_effect_filter_fn filter, void *context, const char *name);
oton_effect *oton_effect_ref(oton_effect *effect);
void oton_effect_unref(oton_effect *effect);

/* ANY THREAD. Takes effect at the next buffer: no gap, no allocation. */
void oton_effect_set_bypass(oton_effect *effect, int bypass);
/* ANY THREAD. An LV2 control by its index (oton_lv2_control), clamped to its range. 0 when out of range.
 * A sample-rate control (oton_lv2_control_info.sample_rate) takes Hz, clamped to its range times the
 * stream's rate when a buffer runs. */
int oton_effect_set_control(oton_effect *effect, unsigned control, float value);
/* ANY THREAD. Back to its default; a sample-rate control's is its default fraction times the stream's rate. */
int oton_effect_reset_control(oton_effect *effect, unsigned control);
/* The value set; NaN for a sample-rate control at its default (the rate decides it). */
float oton_effect_control(const oton_effect *effect, unsigned control);

typedef struct oton_effect_reading {
    int bypassed;
    int overran;        /* a filter that overran its budget (then bypassed for good) */
    int unusable;       /* the stream's format does not fit the effect: the sound passes untouched */
    double overrun_ms;  /* how long the call that overran took */
    uint64_t buffers;   /* buffers processed (bypassed ones not counted) */
    uint64_t busy_ns;   /* time spent in them */
    uint64_t guarded;   /* samples it made that were not finite (made 0) or beyond OTON_EFFECT_GUARD_LIMIT (clamped) */
    uint64_t budget_ns; /* a filter's time budget for the last buffer it got (0 before one) */
} oton_effect_reading;

/* What an effect may hand on, as a sample's magnitude: +18 dBFS, far above any sound (an equalizer's
 * boost, a gain) and far below what a broken effect makes (1e30, infinity). Beyond it a sample is
 * clamped, and a non-finite one made 0, right after the effect that made it: the leveller never
 * learns it and the speakers never get it. */
#define OTON_EFFECT_GUARD_LIMIT 8.0f

/* In place: non-finite samples become 0 and magnitudes beyond `limit` are clamped to it. Returns how
 * many samples were changed. No allocation; any thread. */
uint64_t oton_guard_samples(float *samples, size_t count, float limit);

oton_effect_reading oton_effect_read(const oton_effect *effect);

/* A filter's time budget for a buffer of `frames` at `rate` (ns): half the buffer's duration,
 * at least OTON_FILTER_MIN_BUDGET_MS. */
#define OTON_FILTER_MIN_BUDGET_MS 2.0
uint64_t oton_effect_budget_ns(size_t frames, unsigned rate);

/* Runs the effect on `pad`'s buffers (the pad's format must be F32LE interleaved). The probe holds
 * a reference. When a filter overruns, an element message "oton-effect-overrun" (field "name", the
 * filter's name; "ms", a double) is posted on the bus of the pad's element, once. */
unsigned long oton_effect_attach(void *pad, oton_effect *effect);

/* For tests and benchmarks: configure and run one buffer as the probe would. */
int oton_effect_configure(oton_effect *effect, unsigned rate, unsigned channels);
void oton_effect_process(oton_effect *effect, float *samples, size_t frames);

#ifdef __cplusplus
}
#endif

#endif /* OTON_EFFECTS_H */
