/* The LV2 catalogue: installed plugins, their audio ports and their controls, read with lilv and kept
 * for the life of the process (never freed: small and shared). A chain's plugin is read from its own
 * bundle alone (oton_lv2_find_in_bundle: an installed collection costs a start nothing); the full
 * listing (oton_lv2_count) reads every plugin's data, for `oton effects list`. */
#include "oton_effects.h"
#include "effects_internal.h"

#include <lilv/lilv.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CORE "http://lv2plug.in/ns/lv2core#"

/* Guards everything below, and every use of a lilv world (lilv_plugin_instantiate reads one): a
 * lookup, a listing, an instantiation (caps events, never per buffer) at a time. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* The plugins read so far, by index (each entry allocated once and never moved or freed). */
static oton_lv2_entry **entries;
static unsigned entry_count, entry_capacity;
/* The world of the bundles a chain asked for (oton_lv2_find_in_bundle), one bundle loaded at a time,
 * and their folders; `listed`: the full listing (its own world, never freed) was read. */
static LilvWorld *bundles_world;
static char **loaded_bundles;
static unsigned loaded_count;
static int listed;

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

/* Reads `plugin` (of `in`) into the table unless a plugin of its URI is there; its index. Lock held. */
static int add_entry(LilvWorld *in, const LilvPlugin *plugin) {
    const char *uri = lilv_node_as_uri(lilv_plugin_get_uri(plugin));
    for (unsigned index = 0; index < entry_count; index++)
        if (strcmp(entries[index]->info.uri, uri) == 0) return (int)index;
    if (entry_count == entry_capacity) {
        unsigned capacity = entry_capacity ? entry_capacity * 2 : 16;
        oton_lv2_entry **grown = realloc(entries, capacity * sizeof *grown);
        if (!grown) return -1;
        entries = grown;
        entry_capacity = capacity;
    }
    oton_lv2_entry *entry = calloc(1, sizeof *entry);
    if (!entry) return -1;
    LilvNode *audio = lilv_new_uri(in, LILV_URI_AUDIO_PORT), *control = lilv_new_uri(in, LILV_URI_CONTROL_PORT),
             *input = lilv_new_uri(in, LILV_URI_INPUT_PORT), *output = lilv_new_uri(in, LILV_URI_OUTPUT_PORT),
             *optional = lilv_new_uri(in, CORE "connectionOptional"), *integer = lilv_new_uri(in, CORE "integer"),
             *toggled = lilv_new_uri(in, CORE "toggled"), *sample_rate = lilv_new_uri(in, CORE "sampleRate");
    read_entry(plugin, entry, audio, control, input, output, optional, integer, toggled, sample_rate);
    LilvNode *nodes[] = {audio, control, input, output, optional, integer, toggled, sample_rate};
    for (size_t index = 0; index < sizeof nodes / sizeof nodes[0]; index++) lilv_node_free(nodes[index]);
    entries[entry_count] = entry;
    return (int)entry_count++;
}

/* The full listing: every installed plugin's data read (seconds with a large collection). Lock held. */
static void list_all(void) {
    if (listed) return;
    listed = 1;
    LilvWorld *world = lilv_world_new();
    if (!world) return;
    lilv_world_load_all(world);
    const LilvPlugins *plugins = lilv_world_get_all_plugins(world);
    LILV_FOREACH (plugins, iterator, plugins) add_entry(world, lilv_plugins_get(plugins, iterator));
}

const oton_lv2_entry *oton_lv2_entry_at(unsigned index) {
    pthread_mutex_lock(&lock);
    const oton_lv2_entry *entry = index < entry_count ? entries[index] : NULL;
    pthread_mutex_unlock(&lock);
    return entry;
}

unsigned oton_lv2_count(void) {
    pthread_mutex_lock(&lock);
    list_all();
    unsigned count = entry_count;
    pthread_mutex_unlock(&lock);
    return count;
}

int oton_lv2_plugin(unsigned index, oton_lv2_plugin_info *out) {
    const oton_lv2_entry *entry = oton_lv2_entry_at(index);
    if (!entry) return 0;
    *out = entry->info;
    return 1;
}

int oton_lv2_find(const char *uri) {
    pthread_mutex_lock(&lock);
    list_all();
    int found = -1;
    for (unsigned index = 0; index < entry_count && found < 0; index++)
        if (strcmp(entries[index]->info.uri, uri) == 0) found = (int)index;
    pthread_mutex_unlock(&lock);
    return found;
}

int oton_lv2_control(unsigned plugin, unsigned control, oton_lv2_control_info *out) {
    const oton_lv2_entry *entry = oton_lv2_entry_at(plugin);
    if (!entry || control >= entry->info.controls) return 0;
    *out = entry->controls[control];
    return 1;
}

/* "file:///usr/lib/lv2/amp-swh.lv2/" for "/usr/lib/lv2/amp-swh.lv2" (lilv wants the final slash). Lock held. */
static LilvNode *bundle_node(LilvWorld *in, const char *path) {
    size_t length = strlen(path);
    char *folder = malloc(length + 2);
    if (!folder) return NULL;
    memcpy(folder, path, length + 1);
    if (length == 0 || folder[length - 1] != '/') strcat(folder, "/");
    LilvNode *node = lilv_new_file_uri(in, NULL, folder);
    free(folder);
    return node;
}

int oton_lv2_find_in_bundle(const char *uri, const char *bundle_path) {
    pthread_mutex_lock(&lock);
    int found = -1;
    for (unsigned index = 0; index < entry_count && found < 0; index++)
        if (strcmp(entries[index]->info.uri, uri) == 0) found = (int)index;
    if (found < 0 && !bundles_world) bundles_world = lilv_world_new();
    if (found < 0 && bundles_world) {
        int loaded = 0;
        for (unsigned index = 0; index < loaded_count && !loaded; index++) loaded = strcmp(loaded_bundles[index], bundle_path) == 0;
        LilvNode *bundle = loaded ? NULL : bundle_node(bundles_world, bundle_path);
        char **grown = bundle ? realloc(loaded_bundles, (loaded_count + 1) * sizeof *grown) : NULL;
        if (grown) {
            loaded_bundles = grown;
            loaded_bundles[loaded_count++] = strdup(bundle_path);
            lilv_world_load_bundle(bundles_world, bundle);
        }
        if (bundle) lilv_node_free(bundle);
        LilvNode *name = lilv_new_uri(bundles_world, uri);
        const LilvPlugin *plugin = name ? lilv_plugins_get_by_uri(lilv_world_get_all_plugins(bundles_world), name) : NULL;
        if (name) lilv_node_free(name);
        if (plugin) found = add_entry(bundles_world, plugin);
    }
    pthread_mutex_unlock(&lock);
    return found;
}

unsigned oton_lv2_each_bundle(const char *search_path, oton_lv2_bundle_fn each, void *context) {
    LilvWorld *manifests = lilv_world_new();
    if (!manifests) return 0;
    LilvNode *path = lilv_new_string(manifests, search_path);
    lilv_world_set_option(manifests, LILV_OPTION_LV2_PATH, path);
    lilv_node_free(path);
    lilv_world_load_all(manifests); /* the manifests only: no plugin's data is read here */
    const LilvPlugins *plugins = lilv_world_get_all_plugins(manifests);
    unsigned count = 0;
    LILV_FOREACH (plugins, iterator, plugins) {
        const LilvPlugin *plugin = lilv_plugins_get(plugins, iterator);
        char *path = lilv_file_uri_parse(lilv_node_as_uri(lilv_plugin_get_bundle_uri(plugin)), NULL);
        if (!path) continue;
        each(context, lilv_node_as_uri(lilv_plugin_get_uri(plugin)), path);
        lilv_free(path);
        count++;
    }
    lilv_world_free(manifests);
    return count;
}

unsigned oton_lv2_loaded_bundle_count(void) {
    pthread_mutex_lock(&lock);
    unsigned count = loaded_count;
    pthread_mutex_unlock(&lock);
    return count;
}

const char *oton_lv2_loaded_bundle(unsigned index) {
    pthread_mutex_lock(&lock);
    const char *path = index < loaded_count ? loaded_bundles[index] : NULL;
    pthread_mutex_unlock(&lock);
    return path;
}

LilvInstance *oton_lv2_instantiate(const oton_lv2_entry *entry, double rate) {
    pthread_mutex_lock(&lock);
    LilvInstance *instance = lilv_plugin_instantiate(entry->plugin, rate, oton_lv2_features());
    pthread_mutex_unlock(&lock);
    return instance;
}
