/* What the effect files share and the header does not show. */
#ifndef OTON_EFFECTS_INTERNAL_H
#define OTON_EFFECTS_INTERNAL_H

#include "oton_effects.h"
#include <lilv/lilv.h>

typedef struct oton_lv2_entry {
    const LilvPlugin *plugin;
    oton_lv2_plugin_info info;
    unsigned port_count;
    unsigned *audio_in, *audio_out;   /* port indexes, info.audio_inputs / audio_outputs of them */
    unsigned *control_ports;          /* the port index of each control (info.controls) */
    oton_lv2_control_info *controls;
    unsigned char *is_control;        /* per port: a control port (input or output) */
} oton_lv2_entry;

const oton_lv2_entry *oton_lv2_entry_at(unsigned index);
LilvInstance *oton_lv2_instantiate(const oton_lv2_entry *entry, double rate);
/* The NULL-terminated features oton offers (URID map and unmap; bounded block length). */
const LV2_Feature *const *oton_lv2_features(void);

/* Frames handed to an LV2 instance per run (the bounded block length). */
#define OTON_LV2_BLOCK 1024u

/* Runs one buffer in place; 1 when a filter overran its budget with it (now bypassed). */
int oton_effect_run(oton_effect *effect, float *samples, size_t frames);
const char *oton_effect_name(const oton_effect *effect);
/* The channels of the format configured (0 before a caps event). */
unsigned oton_effect_channels(const oton_effect *effect);

#endif
