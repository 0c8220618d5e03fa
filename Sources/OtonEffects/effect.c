/* One effect of the chain: an LV2 plugin (one instance for the stream's channels, or one per
 * channel for a mono plugin) or a plugin filter, run in place with a bypass that takes effect at
 * the next buffer. */
#include "effects_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { KIND_LV2, KIND_FILTER };

struct oton_effect {
    atomic_int references;
    atomic_int bypass;
    atomic_int overran;
    atomic_int unusable;
    _Atomic double overrun_ms;
    _Atomic uint64_t buffers;
    _Atomic uint64_t busy_ns;
    _Atomic uint64_t guarded;
    _Atomic uint64_t budget_ns;
    int kind;
    /* LV2: the catalogue entry and the controls' values, set from any thread (a sample-rate
     * control's in Hz, NaN at its default). */
    const oton_lv2_entry *entry;
    _Atomic float *values;
    /* Filter. */
    oton_effect_filter_fn filter;
    void *context;
    char name[128];
    /* The streaming thread's own, made at a caps event. */
    unsigned rate, channels;
    LilvInstance **instances;
    unsigned instance_count;
    unsigned channels_per_instance;
    float *input, *output;   /* channels × OTON_LV2_BLOCK each, deinterleaved */
    float *ports;            /* instance_count × port_count: every control port's memory */
};

static uint64_t now_ns(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (uint64_t)time.tv_sec * 1000000000u + (uint64_t)time.tv_nsec;
}

uint64_t oton_guard_samples(float *samples, size_t count, float limit) {
    uint64_t changed = 0;
    for (size_t i = 0; i < count; i++) {
        float value = samples[i];
        /* One test for the common case: a finite sample within the limit (NaN fails every comparison). */
        if (value >= -limit && value <= limit) continue;
        samples[i] = isfinite(value) ? (value > 0 ? limit : -limit) : 0.0f;
        changed++;
    }
    return changed;
}

uint64_t oton_effect_budget_ns(size_t frames, unsigned rate) {
    double half = rate ? (double)frames / rate * 0.5e9 : 0;
    double minimum = OTON_FILTER_MIN_BUDGET_MS * 1e6;
    return (uint64_t)(half > minimum ? half : minimum);
}

static oton_effect *allocate(int kind) {
    oton_effect *effect = calloc(1, sizeof *effect);
    if (!effect) return NULL;
    atomic_init(&effect->references, 1);
    effect->kind = kind;
    return effect;
}

oton_effect *oton_effect_new_lv2(unsigned plugin) {
    const oton_lv2_entry *entry = oton_lv2_entry_at(plugin);
    if (!entry) return NULL;
    oton_effect *effect = allocate(KIND_LV2);
    if (!effect) return NULL;
    effect->entry = entry;
    effect->values = calloc(entry->info.controls ? entry->info.controls : 1, sizeof *effect->values);
    if (!effect->values) {
        free(effect);
        return NULL;
    }
    for (unsigned control = 0; control < entry->info.controls; control++)
        atomic_init(&effect->values[control], entry->controls[control].sample_rate ? NAN : entry->controls[control].default_value);
    return effect;
}

oton_effect *oton_effect_new_filter(oton_effect_filter_fn filter, void *context, const char *name) {
    if (!filter) return NULL;
    oton_effect *effect = allocate(KIND_FILTER);
    if (!effect) return NULL;
    effect->filter = filter;
    effect->context = context;
    strncpy(effect->name, name ? name : "filter", sizeof effect->name - 1);
    return effect;
}

oton_effect *oton_effect_ref(oton_effect *effect) {
    atomic_fetch_add_explicit(&effect->references, 1, memory_order_relaxed);
    return effect;
}

static void release_format(oton_effect *effect) {
    for (unsigned index = 0; effect->instances && index < effect->instance_count; index++) {
        if (!effect->instances[index]) continue;
        lilv_instance_deactivate(effect->instances[index]);
        lilv_instance_free(effect->instances[index]);
    }
    free(effect->instances);
    free(effect->input);
    free(effect->output);
    free(effect->ports);
    effect->instances = NULL;
    effect->input = effect->output = effect->ports = NULL;
    effect->instance_count = 0;
    effect->rate = effect->channels = 0;
}

void oton_effect_unref(oton_effect *effect) {
    if (!effect || atomic_fetch_sub_explicit(&effect->references, 1, memory_order_acq_rel) != 1) return;
    release_format(effect);
    free(effect->values);
    free(effect);
}

void oton_effect_set_bypass(oton_effect *effect, int bypass) {
    /* A filter that overran stays bypassed: it would overrun again. */
    if (!bypass && atomic_load(&effect->overran)) return;
    atomic_store(&effect->bypass, bypass ? 1 : 0);
}

int oton_effect_set_control(oton_effect *effect, unsigned control, float value) {
    if (effect->kind != KIND_LV2 || control >= effect->entry->info.controls || isnan(value)) return 0;
    const oton_lv2_control_info *info = &effect->entry->controls[control];
    /* a sample-rate control's range is known when a buffer runs (run_lv2) */
    if (!info->sample_rate && value < info->minimum) value = info->minimum;
    if (!info->sample_rate && value > info->maximum) value = info->maximum;
    atomic_store(&effect->values[control], value);
    return 1;
}

int oton_effect_reset_control(oton_effect *effect, unsigned control) {
    if (effect->kind != KIND_LV2 || control >= effect->entry->info.controls) return 0;
    const oton_lv2_control_info *info = &effect->entry->controls[control];
    atomic_store(&effect->values[control], info->sample_rate ? NAN : info->default_value);
    return 1;
}

/* What the port gets: a sample-rate control's Hz clamped to its range times the rate (its default
 * fraction times the rate when NaN); any other control's value as set. */
static float port_value(const oton_lv2_control_info *info, float value, unsigned rate) {
    if (!info->sample_rate) return value;
    if (isnan(value)) return info->default_value * (float)rate;
    float low = info->minimum * (float)rate, high = info->maximum * (float)rate;
    return value < low ? low : value > high ? high : value;
}

float oton_effect_control(const oton_effect *effect, unsigned control) {
    if (effect->kind != KIND_LV2 || control >= effect->entry->info.controls) return NAN;
    return atomic_load(&((oton_effect *)effect)->values[control]);
}

oton_effect_reading oton_effect_read(const oton_effect *effect) {
    oton_effect *e = (oton_effect *)effect;
    return (oton_effect_reading){
        .bypassed = atomic_load(&e->bypass), .overran = atomic_load(&e->overran), .unusable = atomic_load(&e->unusable),
        .overrun_ms = atomic_load(&e->overrun_ms), .buffers = atomic_load(&e->buffers), .busy_ns = atomic_load(&e->busy_ns),
        .guarded = atomic_load(&e->guarded), .budget_ns = atomic_load(&e->budget_ns),
    };
}

int oton_effect_configure(oton_effect *effect, unsigned rate, unsigned channels) {
    if (effect->kind == KIND_FILTER) {
        effect->rate = rate;
        effect->channels = channels;
        atomic_store(&effect->unusable, rate == 0 || channels == 0);
        return rate > 0 && channels > 0;
    }
    if (effect->instances && effect->rate == rate && effect->channels == channels) return 1;
    release_format(effect);
    const oton_lv2_entry *entry = effect->entry;
    unsigned width = entry->info.audio_inputs;
    int usable = rate > 0 && channels > 0 && !entry->info.unsupported && (width == channels || width == 1);
    atomic_store(&effect->unusable, !usable);
    if (!usable) return 0;
    effect->rate = rate;
    effect->channels = channels;
    effect->channels_per_instance = width;
    effect->instance_count = channels / width;
    effect->instances = calloc(effect->instance_count, sizeof *effect->instances);
    effect->input = calloc((size_t)channels * OTON_LV2_BLOCK, sizeof(float));
    effect->output = calloc((size_t)channels * OTON_LV2_BLOCK, sizeof(float));
    effect->ports = calloc((size_t)effect->instance_count * (entry->port_count ? entry->port_count : 1), sizeof(float));
    if (!effect->instances || !effect->input || !effect->output || !effect->ports) goto failed;
    for (unsigned index = 0; index < effect->instance_count; index++) {
        LilvInstance *instance = oton_lv2_instantiate(entry, rate);
        if (!instance) goto failed;
        effect->instances[index] = instance;
        float *ports = effect->ports + (size_t)index * entry->port_count;
        for (unsigned port = 0; port < entry->port_count; port++) {
            if (entry->is_control[port]) lilv_instance_connect_port(instance, port, &ports[port]);
            else lilv_instance_connect_port(instance, port, NULL); /* optional ports */
        }
        for (unsigned channel = 0; channel < width; channel++) {
            unsigned stream_channel = index * width + channel;
            lilv_instance_connect_port(instance, entry->audio_in[channel], effect->input + (size_t)stream_channel * OTON_LV2_BLOCK);
            lilv_instance_connect_port(instance, entry->audio_out[channel], effect->output + (size_t)stream_channel * OTON_LV2_BLOCK);
        }
        lilv_instance_activate(instance);
    }
    return 1;
failed:
    /* the instances made so far are freed with the rest; the sound passes untouched */
    release_format(effect);
    atomic_store(&effect->unusable, 1);
    return 0;
}

static void run_lv2(oton_effect *effect, float *samples, size_t frames) {
    const oton_lv2_entry *entry = effect->entry;
    unsigned channels = effect->channels;
    for (unsigned index = 0; index < effect->instance_count; index++) {
        float *ports = effect->ports + (size_t)index * entry->port_count;
        for (unsigned control = 0; control < entry->info.controls; control++)
            ports[entry->control_ports[control]] =
                port_value(&entry->controls[control], atomic_load_explicit(&effect->values[control], memory_order_relaxed), effect->rate);
    }
    for (size_t done = 0; done < frames;) {
        size_t block = frames - done < OTON_LV2_BLOCK ? frames - done : OTON_LV2_BLOCK;
        float *chunk = samples + done * channels;
        for (unsigned channel = 0; channel < channels; channel++) {
            float *in = effect->input + (size_t)channel * OTON_LV2_BLOCK;
            for (size_t frame = 0; frame < block; frame++) in[frame] = chunk[frame * channels + channel];
        }
        for (unsigned index = 0; index < effect->instance_count; index++) lilv_instance_run(effect->instances[index], (uint32_t)block);
        for (unsigned channel = 0; channel < channels; channel++) {
            const float *out = effect->output + (size_t)channel * OTON_LV2_BLOCK;
            for (size_t frame = 0; frame < block; frame++) chunk[frame * channels + channel] = out[frame];
        }
        done += block;
    }
}

/* Returns 1 when a filter overran with this buffer (the caller posts the message). */
int oton_effect_run(oton_effect *effect, float *samples, size_t frames) {
    if (atomic_load_explicit(&effect->bypass, memory_order_relaxed) || atomic_load_explicit(&effect->unusable, memory_order_relaxed))
        return 0;
    uint64_t start = now_ns();
    if (effect->kind == KIND_LV2) {
        if (!effect->instances) return 0;
        run_lv2(effect, samples, frames);
    } else {
        effect->filter(effect->context, samples, frames, effect->channels, effect->rate);
    }
    uint64_t spent = now_ns() - start;
    uint64_t guarded = oton_guard_samples(samples, frames * effect->channels, OTON_EFFECT_GUARD_LIMIT);
    if (guarded) atomic_fetch_add_explicit(&effect->guarded, guarded, memory_order_relaxed);
    atomic_fetch_add_explicit(&effect->buffers, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&effect->busy_ns, spent, memory_order_relaxed);
    if (effect->kind != KIND_FILTER) return 0;
    uint64_t budget = oton_effect_budget_ns(frames, effect->rate);
    atomic_store_explicit(&effect->budget_ns, budget, memory_order_relaxed);
    if (spent > budget) {
        atomic_store(&effect->overrun_ms, spent / 1e6);
        atomic_store(&effect->overran, 1);
        atomic_store(&effect->bypass, 1);
        return 1;
    }
    return 0;
}

void oton_effect_process(oton_effect *effect, float *samples, size_t frames) { (void)oton_effect_run(effect, samples, frames); }

const char *oton_effect_name(const oton_effect *effect) { return effect->name; }

unsigned oton_effect_channels(const oton_effect *effect) { return effect->channels; }
