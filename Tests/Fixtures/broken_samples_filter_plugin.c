/* A filter that breaks what it hands on: every 97th frame NaN, every 89th +infinity, every 83rd
 * 1e30 and every 79th -3.0 (+9.5 dBFS), on every channel, the rest passed as they came. Nothing of it may reach the
 * speakers: the host's safety guard silences the non-finite samples, clamps the huge ones, and the
 * limiter keeps the sound under its ceiling; `oton ctl status` names this filter. */
#include <math.h>

#include "oton_plugin.h"

static int instance_token;

static oton_instance *create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    (void)host; (void)config_json; (void)error; (void)error_size;
    return &instance_token;
}

static void destroy(oton_instance *instance) { (void)instance; }

static void filter(oton_instance *instance, float *samples, size_t frames, uint32_t channels, uint32_t rate) {
    (void)instance; (void)rate;
    for (size_t frame = 0; frame < frames; frame++) {
        float value = frame % 97 == 0 ? NAN : frame % 89 == 0 ? INFINITY : frame % 83 == 0 ? 1e30f : frame % 79 == 0 ? -3.0f : 0;
        if (value == 0) continue;
        for (uint32_t channel = 0; channel < channels; channel++) samples[frame * channels + channel] = value;
    }
}

static const oton_plugin_descriptor descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, 0,
    "org.oton.test.broken-samples", "Broken samples (test)", "1.0.0", "Hands on NaN, infinity and huge values",
    NULL, NULL, 0, 0, create, destroy, NULL, NULL, NULL,
    NULL, 0, 0, filter,
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) { return &descriptor; }
