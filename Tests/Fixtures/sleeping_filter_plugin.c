/* A filter that breaks the real-time rules: every call sleeps SLEEP_MS (default 40 ms), far over
 * its budget (half a buffer of about 10–20 ms). The host must bypass it after its first call and
 * play on without an audible gap; the log names it. */
#include <stdlib.h>
#include <time.h>

#include "oton_plugin.h"

#ifndef SLEEP_MS
#define SLEEP_MS 40
#endif

static int instance_token;

static oton_instance *create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    (void)host; (void)config_json; (void)error; (void)error_size;
    return &instance_token;
}

static void destroy(oton_instance *instance) { (void)instance; }

static void filter(oton_instance *instance, float *samples, size_t frames, uint32_t channels, uint32_t rate) {
    (void)instance; (void)rate;
    struct timespec pause = {SLEEP_MS / 1000, (SLEEP_MS % 1000) * 1000000L};
    nanosleep(&pause, NULL);
    for (size_t index = 0; index < frames * channels; index++) samples[index] = 0; /* never heard if bypassed in time */
}

static const oton_plugin_descriptor descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, 0,
    "org.oton.test.sleeping-filter", "Sleeping filter (test)", "1.0.0", "Sleeps in its filter",
    NULL, NULL, 0, 0, create, destroy, NULL, NULL, NULL,
    NULL, 0, 0, filter,
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) { return &descriptor; }
