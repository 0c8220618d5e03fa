/* The LV2 features oton offers: URID map and unmap (one table for the process, locked: plugins map
 * their URIs when instantiated, seldom while running), and bounded block length (runs of at most
 * OTON_LV2_BLOCK frames). */
#include "effects_internal.h"

#include <lv2/urid/urid.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static char **uris;
static uint32_t uri_count, uri_capacity;

static LV2_URID map(LV2_URID_Map_Handle handle, const char *uri) {
    (void)handle;
    if (!uri) return 0;
    pthread_mutex_lock(&table_lock);
    for (uint32_t index = 0; index < uri_count; index++) {
        if (strcmp(uris[index], uri) == 0) {
            pthread_mutex_unlock(&table_lock);
            return index + 1;
        }
    }
    LV2_URID id = 0;
    if (uri_count == uri_capacity) {
        uint32_t capacity = uri_capacity ? uri_capacity * 2 : 64;
        char **grown = realloc(uris, capacity * sizeof *grown);
        if (grown) {
            uris = grown;
            uri_capacity = capacity;
        }
    }
    if (uri_count < uri_capacity && (uris[uri_count] = strdup(uri))) id = ++uri_count;
    pthread_mutex_unlock(&table_lock);
    return id;
}

static const char *unmap(LV2_URID_Unmap_Handle handle, LV2_URID urid) {
    (void)handle;
    pthread_mutex_lock(&table_lock);
    const char *uri = urid >= 1 && urid <= uri_count ? uris[urid - 1] : NULL;
    pthread_mutex_unlock(&table_lock);
    return uri;
}

static LV2_URID_Map map_feature_data = {NULL, map};
static LV2_URID_Unmap unmap_feature_data = {NULL, unmap};
static const LV2_Feature map_feature = {LV2_URID__map, &map_feature_data};
static const LV2_Feature unmap_feature = {LV2_URID__unmap, &unmap_feature_data};
static const LV2_Feature bounded_feature = {"http://lv2plug.in/ns/ext/buf-size#boundedBlockLength", NULL};
static const LV2_Feature *const features[] = {&map_feature, &unmap_feature, &bounded_feature, NULL};

const LV2_Feature *const *oton_lv2_features(void) { return features; }
