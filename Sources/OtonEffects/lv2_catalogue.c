/* The LV2 catalogue: every installed plugin, its audio ports and its controls, read once with lilv
 * and kept for the life of the process (never freed: a loaded catalogue is small and shared). */
#include "oton_effects.h"
#include "effects_internal.h"

#include <lilv/lilv.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CORE "http://lv2plug.in/ns/lv2core#"

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static LilvWorld *world;
static oton_lv2_entry *entries;
static unsigned entry_count;
/* lilv_plugin_instantiate reads the world: one instantiation at a time (caps events, never per buffer). */
static pthread_mutex_t instantiating = PTHREAD_MUTEX_INITIALIZER;

/* The features oton offers a plugin (see effects_features.c). */
static const char *const offered[] = {
    "http://lv2plug.in/ns/ext/urid#map", "http://lv2plug.in/ns/ext/urid#unmap",
    "http://lv2plug.in/ns/ext/buf-size#boundedBlockLength", CORE "isLive", CORE "hardRTCapable", CORE "inPlaceBroken", NULL,
};

static int is_offered(const char *uri) {
    for (const char *const *feature = offered; *feature; feature++)
        if (strcmp(*feature, uri) == 0) return 1;
    return 0;
}

static char *copy_node(LilvNode *node, const char *fallback) {
    char *text = strdup(node ? lilv_node_as_string(node) : fallback);
    if (node) lilv_node_free(node);
    return text;
}

static void read_entry(const LilvPlugin *plugin, oton_lv2_entry *entry, LilvNode *audio, LilvNode *control,
                       LilvNode *input, LilvNode *output, LilvNode *optional, LilvNode *integer, LilvNode *toggled, LilvNode *sample_rate) {
    entry->plugin = plugin;
    entry->info.uri = strdup(lilv_node_as_uri(lilv_plugin_get_uri(plugin)));
    entry->info.name = copy_node(lilv_plugin_get_name(plugin), entry->info.uri);
    unsigned ports = lilv_plugin_get_num_ports(plugin);
    entry->port_count = ports;
    entry->audio_in = calloc(ports ? ports : 1, sizeof(unsigned));
    entry->audio_out = calloc(ports ? ports : 1, sizeof(unsigned));
    entry->control_ports = calloc(ports ? ports : 1, sizeof(unsigned));
    entry->controls = calloc(ports ? ports : 1, sizeof(oton_lv2_control_info));
    entry->is_control = calloc(ports ? ports : 1, sizeof(unsigned char));
    float *minimum = calloc(ports ? ports : 1, sizeof(float)), *maximum = calloc(ports ? ports : 1, sizeof(float)),
          *defaults = calloc(ports ? ports : 1, sizeof(float));
    lilv_plugin_get_port_ranges_float(plugin, minimum, maximum, defaults);
    for (unsigned index = 0; index < ports; index++) {
        const LilvPort *port = lilv_plugin_get_port_by_index(plugin, index);
        int is_input = lilv_port_is_a(plugin, port, input), is_output = lilv_port_is_a(plugin, port, output);
        if (lilv_port_is_a(plugin, port, audio)) {
            if (is_input) entry->audio_in[entry->info.audio_inputs++] = index;
            else if (is_output) entry->audio_out[entry->info.audio_outputs++] = index;
        } else if (lilv_port_is_a(plugin, port, control)) {
            entry->is_control[index] = 1;
            if (!is_input) continue; /* a control output (a meter): given memory, never shown */
            oton_lv2_control_info *info = &entry->controls[entry->info.controls];
            info->symbol = strdup(lilv_node_as_string(lilv_port_get_symbol(plugin, port)));
            info->name = copy_node(lilv_port_get_name(plugin, port), info->symbol);
            info->minimum = isnan(minimum[index]) ? -INFINITY : minimum[index];
            info->maximum = isnan(maximum[index]) ? INFINITY : maximum[index];
            info->default_value = isnan(defaults[index]) ? (isfinite(info->minimum) ? info->minimum : 0) : defaults[index];
            info->integer = lilv_port_has_property(plugin, port, integer);
            info->toggled = lilv_port_has_property(plugin, port, toggled);
            info->sample_rate = lilv_port_has_property(plugin, port, sample_rate);
            entry->control_ports[entry->info.controls++] = index;
        } else if (!lilv_port_has_property(plugin, port, optional) && !entry->info.unsupported) {
            entry->info.unsupported = "a port that is neither audio nor control (atom, CV, event)";
        }
    }
    free(minimum);
    free(maximum);
    free(defaults);
    LilvNodes *required = lilv_plugin_get_required_features(plugin);
    LILV_FOREACH (nodes, feature, required) {
        const char *uri = lilv_node_as_uri(lilv_nodes_get(required, feature));
        if (!is_offered(uri) && !entry->info.unsupported) entry->info.unsupported = strdup(uri);
    }
    lilv_nodes_free(required);
    if (!entry->info.unsupported && (entry->info.audio_inputs == 0 || entry->info.audio_inputs != entry->info.audio_outputs))
        entry->info.unsupported = "not an effect (its audio inputs and outputs differ)";
}

static void load(void) {
    world = lilv_world_new();
    if (!world) return;
    lilv_world_load_all(world);
    const LilvPlugins *plugins = lilv_world_get_all_plugins(world);
    unsigned count = lilv_plugins_size(plugins);
    entries = calloc(count ? count : 1, sizeof *entries);
    if (!entries) return;
    LilvNode *audio = lilv_new_uri(world, LILV_URI_AUDIO_PORT), *control = lilv_new_uri(world, LILV_URI_CONTROL_PORT),
             *input = lilv_new_uri(world, LILV_URI_INPUT_PORT), *output = lilv_new_uri(world, LILV_URI_OUTPUT_PORT),
             *optional = lilv_new_uri(world, CORE "connectionOptional"), *integer = lilv_new_uri(world, CORE "integer"),
             *toggled = lilv_new_uri(world, CORE "toggled"), *sample_rate = lilv_new_uri(world, CORE "sampleRate");
    LILV_FOREACH (plugins, iterator, plugins) {
        read_entry(lilv_plugins_get(plugins, iterator), &entries[entry_count++], audio, control, input, output, optional, integer, toggled, sample_rate);
    }
    LilvNode *nodes[] = {audio, control, input, output, optional, integer, toggled, sample_rate};
    for (size_t index = 0; index < sizeof nodes / sizeof nodes[0]; index++) lilv_node_free(nodes[index]);
}

const oton_lv2_entry *oton_lv2_entry_at(unsigned index) {
    pthread_once(&loaded, load);
    return index < entry_count ? &entries[index] : NULL;
}

unsigned oton_lv2_count(void) {
    pthread_once(&loaded, load);
    return entry_count;
}

int oton_lv2_plugin(unsigned index, oton_lv2_plugin_info *out) {
    const oton_lv2_entry *entry = oton_lv2_entry_at(index);
    if (!entry) return 0;
    *out = entry->info;
    return 1;
}

int oton_lv2_find(const char *uri) {
    unsigned count = oton_lv2_count();
    for (unsigned index = 0; index < count; index++)
        if (strcmp(entries[index].info.uri, uri) == 0) return (int)index;
    return -1;
}

int oton_lv2_control(unsigned plugin, unsigned control, oton_lv2_control_info *out) {
    const oton_lv2_entry *entry = oton_lv2_entry_at(plugin);
    if (!entry || control >= entry->info.controls) return 0;
    *out = entry->controls[control];
    return 1;
}

LilvInstance *oton_lv2_instantiate(const oton_lv2_entry *entry, double rate) {
    pthread_mutex_lock(&instantiating);
    LilvInstance *instance = lilv_plugin_instantiate(entry->plugin, rate, oton_lv2_features());
    pthread_mutex_unlock(&instantiating);
    return instance;
}
