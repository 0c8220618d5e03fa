/* A filter that breaks the real-time contract in one way, chosen at build time, for the filter
 * check of `oton plugins validate`; without a knob it passes the sound as it came.
 *   FILTER_LEAK          mallocs 4 KiB in every call and never frees it
 *   FILTER_CRASH_AT=N    writes through a null pointer in its Nth call
 *   FILTER_PAST_THE_END  writes one frame more than it was given (into the guard page)
 *   FILTER_BEFORE_THE_START  writes the sample before the first one */
#include <stdlib.h>
#include <string.h>

#include "oton_plugin.h"

typedef struct state {
    unsigned long calls;
    void *volatile kept; /* so that the compiler keeps the leaked allocation */
} state;

static oton_instance *create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    (void)host; (void)config_json; (void)error; (void)error_size;
    return calloc(1, sizeof(state));
}

static void destroy(oton_instance *instance) { free(instance); }

static void filter(oton_instance *instance, float *samples, size_t frames, uint32_t channels, uint32_t rate) {
    state *self = instance;
    (void)rate;
    self->calls++;
#ifdef FILTER_LEAK
    self->kept = malloc(4096);
    if (self->kept) memset(self->kept, 1, 4096);
#endif
#ifdef FILTER_CRASH_AT
    if (self->calls == FILTER_CRASH_AT) *(volatile int *)self->kept = 1;
#endif
#ifdef FILTER_BEFORE_THE_START
    samples[-1] = 0.5f;
#endif
#ifdef FILTER_PAST_THE_END
    for (size_t index = 0; index < (frames + 1) * channels; index++) samples[index] *= 1.0f;
#else
    (void)samples; (void)frames; (void)channels;
#endif
}

static const oton_plugin_descriptor descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, 0,
    "org.oton.test.misbehaving-filter", "Misbehaving filter (test)", "1.0.0", "Breaks one rule of filters",
    NULL, NULL, 0, 0, create, destroy, NULL, NULL, NULL,
    NULL, 0, 0, filter,
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) { return &descriptor; }
