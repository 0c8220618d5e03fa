/*
 * libOtonMQTT.so (org.oton.mqtt): now playing for Home Assistant and anything else that speaks MQTT.
 *
 * On every track and state change it publishes one JSON object, retained, to TOPIC/now_playing:
 * {"state":"playing","station":"…","artist":"…","title":"…"} (strings escaped by the host's
 * write_json_string: no JSON code here), and "online"/"offline" to TOPIC/status (the broker says
 * "offline" for it when oton dies: the will). With "discovery" (the default) it announces a sensor to
 * Home Assistant's MQTT discovery (DISCOVERY_PREFIX/sensor/OBJECT/now_playing/config), so the
 * sensor appears in Home Assistant with no YAML. The connection (mqtt_link.c, MQTT 3.1.1 on plain
 * sockets) runs on a thread of its own and reconnects by itself (1 s, doubling to 30 s), saying once
 * that the broker cannot be reached and once that it is connected again; the player never waits on
 * the broker. What the broker sends is read a few bytes at a time and never kept: a packet over
 * 256 KiB or a malformed one ends that connection (logged) and it reconnects.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mqtt_link.h"
#include "oton_mqtt.h"

enum { TEXT = MQTT_TEXT, PAYLOAD = MQTT_PAYLOAD, FIELD = 2048 };

typedef struct mqtt_plugin {
    const oton_host *host;
    mqtt_link *link;
    char topic[TEXT];
    char discovery_prefix[TEXT];
    int discovery;
    /* What the last now_playing said: the plugin's mailbox alone reads and writes it. */
    char state[32];
    char station[FIELD];
    char artist[FIELD];
    char title[FIELD];
    char payload[PAYLOAD];
} mqtt_plugin;

static const oton_setting_decl mqtt_settings[] = {
    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "broker", "the MQTT broker's host name or address", "\"127.0.0.1\"", NULL, 0, 0, 0, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_INTEGER, "port", "the broker's port", "1883", NULL, 1, 65535, OTON_SETTING_HAS_RANGE, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "topic", "the base topic: TOPIC/now_playing (JSON) and TOPIC/status (online, offline)", "\"oton\"", NULL, 0, 0, 0, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_BOOLEAN, "discovery", "announce a now-playing sensor to Home Assistant's MQTT discovery", "true", NULL, 0, 0, 0, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "discovery_prefix", "Home Assistant's discovery prefix", "\"homeassistant\"", NULL, 0, 0, 0, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_BOOLEAN, "retain", "the broker keeps the last now_playing for new subscribers", "true", NULL, 0, 0, 0, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "username", "the broker's user name", NULL, NULL, 0, 0, 0, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "password", "the broker's password", NULL, NULL, 0, 0, OTON_SETTING_SECRET, 0},
};

/* One string of the config into `out`; absent keeps what is there. */
static int read_text(const oton_host *host, const char *config, const char *path, char *out, size_t size, char *error, size_t error_size) {
    oton_json_value value;
    memset(&value, 0, sizeof value);
    value.struct_size = sizeof value;
    value.type = OTON_JSON_STRING;
    value.text = out;
    value.text_size = size;
    char previous[TEXT];
    snprintf(previous, sizeof previous, "%s", out);
    if (host->read_json(host, config, path, &value, error, error_size) != OTON_OK) return 0;
    if (!value.found) snprintf(out, size, "%s", previous);
    return 1;
}

static int read_flag(const oton_host *host, const char *config, const char *path, int *out, char *error, size_t error_size) {
    oton_json_value value;
    memset(&value, 0, sizeof value);
    value.struct_size = sizeof value;
    value.type = OTON_JSON_BOOL;
    if (host->read_json(host, config, path, &value, error, error_size) != OTON_OK) return 0;
    if (value.found) *out = value.boolean != 0;
    return 1;
}

/* A JSON string literal of `text` appended at `*cursor`; 0 when it does not fit. */
static int append_literal(const oton_host *host, const char *text, char **cursor, char *end) {
    size_t length = 0;
    if (host->write_json_string(host, text, *cursor, (size_t)(end - *cursor), &length) != OTON_OK) return 0;
    *cursor += length;
    return 1;
}

static int append(const char *text, char **cursor, char *end) {
    int written = snprintf(*cursor, (size_t)(end - *cursor), "%s", text);
    if (written < 0 || written >= end - *cursor) return 0;
    *cursor += written;
    return 1;
}

/* Builds self->payload from the fields. */
static void build_payload(mqtt_plugin *self) {
    char *cursor = self->payload, *end = self->payload + sizeof self->payload;
    const char *keys[] = {"state", "station", "artist", "title"};
    const char *values[] = {self->state, self->station, self->artist, self->title};
    int ok = append("{", &cursor, end);
    for (int index = 0; ok && index < 4; index++) {
        char key[32];
        snprintf(key, sizeof key, "%s\"%s\":", index == 0 ? "" : ",", keys[index]);
        ok = append(key, &cursor, end) && append_literal(self->host, values[index], &cursor, end);
    }
    if (!ok || !append("}", &cursor, end)) snprintf(self->payload, sizeof self->payload, "{\"state\":\"%s\"}", self->state);
}

/* Home Assistant's discovery message for the sensor, into the link's config. */
static void build_discovery(mqtt_plugin *self, mqtt_link_config *link) {
    char object[TEXT];
    char *cursor = link->discovery, *end = link->discovery + sizeof link->discovery;
    size_t index;
    snprintf(object, sizeof object, "oton_%s", self->topic);
    for (index = 0; object[index] != '\0'; index++) {
        char c = object[index];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) object[index] = '_';
    }
    char unique[TEXT + 16];
    snprintf(unique, sizeof unique, "%s_now_playing", object);
    int ok = append("{\"name\":\"Now playing\",\"unique_id\":", &cursor, end) && append_literal(self->host, unique, &cursor, end)
        && append(",\"state_topic\":", &cursor, end) && append_literal(self->host, link->state_topic, &cursor, end)
        && append(",\"json_attributes_topic\":", &cursor, end) && append_literal(self->host, link->state_topic, &cursor, end)
        && append(",\"availability_topic\":", &cursor, end) && append_literal(self->host, link->status_topic, &cursor, end)
        && append(",\"value_template\":\"{{ value_json.artist }} - {{ value_json.title }}\",\"icon\":\"mdi:radio\","
                  "\"device\":{\"identifiers\":[", &cursor, end)
        && append_literal(self->host, object, &cursor, end)
        && append("],\"name\":\"Oton\",\"manufacturer\":\"Oton\",\"model\":\"oton radio player\"}}", &cursor, end);
    if (ok) snprintf(link->discovery_topic, sizeof link->discovery_topic, "%s/sensor/%s/now_playing/config", self->discovery_prefix, object);
}

static oton_instance *mqtt_create(const oton_host *host, const char *config, char *error, size_t error_size) {
    mqtt_plugin *self;
    mqtt_link_config *link;
    oton_json_value port;
    if (!OTON_HAS_FIELD(host, oton_host, write_json_string) || host->write_json_string == NULL) {
        snprintf(error, error_size, "needs oton with plugin ABI 1.6 or newer");
        return NULL;
    }
    self = calloc(1, sizeof *self);
    link = calloc(1, sizeof *link);
    if (self == NULL || link == NULL) {
        snprintf(error, error_size, "out of memory");
        goto refuse;
    }
    self->host = host;
    link->host = host;
    snprintf(link->broker, sizeof link->broker, "127.0.0.1");
    snprintf(self->topic, sizeof self->topic, "oton");
    snprintf(self->discovery_prefix, sizeof self->discovery_prefix, "homeassistant");
    self->discovery = 1;
    link->retain = 1;
    link->port = 1883;
    memset(&port, 0, sizeof port);
    port.struct_size = sizeof port;
    port.type = OTON_JSON_INTEGER;
    port.minimum = 1;
    port.maximum = 65535;
    if (!read_text(host, config, "config.broker", link->broker, sizeof link->broker, error, error_size)
        || !read_text(host, config, "config.topic", self->topic, sizeof self->topic, error, error_size)
        || !read_text(host, config, "config.discovery_prefix", self->discovery_prefix, sizeof self->discovery_prefix, error, error_size)
        || !read_text(host, config, "config.username", link->username, sizeof link->username, error, error_size)
        || !read_text(host, config, "config.password", link->password, sizeof link->password, error, error_size)
        || !read_flag(host, config, "config.discovery", &self->discovery, error, error_size)
        || !read_flag(host, config, "config.retain", &link->retain, error, error_size)
        || host->read_json(host, config, "config.port", &port, error, error_size) != OTON_OK) {
        goto refuse;
    }
    if (port.found) link->port = (int)port.integer;
    if (self->topic[0] == '\0' || strpbrk(self->topic, "+#") != NULL) {
        snprintf(error, error_size, "config.topic must be a topic without + or #, such as \"oton\"");
        goto refuse;
    }
    snprintf(link->status_topic, sizeof link->status_topic, "%s/status", self->topic);
    snprintf(link->state_topic, sizeof link->state_topic, "%s/now_playing", self->topic);
    if (self->discovery) build_discovery(self, link);
    snprintf(self->state, sizeof self->state, "idle");
    build_payload(self);
    self->link = mqtt_link_start(link, self->payload, error, error_size);
    if (self->link == NULL) goto refuse;
    free(link);
    return self;
refuse:
    free(link);
    free(self);
    return NULL;
}

static void mqtt_destroy(oton_instance *instance) {
    mqtt_plugin *self = instance;
    mqtt_link_stop(self->link);
    free(self);
}

static const char *state_name(oton_playback_state state) {
    switch (state) {
    case OTON_STATE_CONNECTING: return "connecting";
    case OTON_STATE_PLAYING: return "playing";
    case OTON_STATE_BUFFERING: return "buffering";
    case OTON_STATE_PAUSED: return "paused";
    case OTON_STATE_STOPPED: return "stopped";
    case OTON_STATE_ERROR: return "error";
    default: return "idle";
    }
}

static void copy(char *out, size_t size, const char *text) { snprintf(out, size, "%s", text ? text : ""); }

static void mqtt_on_event(oton_instance *instance, const oton_event *event) {
    mqtt_plugin *self = instance;
    if (event->kind == OTON_EVENT_TRACK) {
        const oton_track *track = event->payload;
        if (!OTON_HAS_FIELD(track, oton_track, station)) return;
        copy(self->artist, sizeof self->artist, track->artist);
        copy(self->title, sizeof self->title, track->title);
        if (track->station) copy(self->station, sizeof self->station, track->station);
    } else if (event->kind == OTON_EVENT_STATE) {
        const oton_state_info *info = event->payload;
        if (!OTON_HAS_FIELD(info, oton_state_info, state)) return;
        snprintf(self->state, sizeof self->state, "%s", state_name(info->state));
    } else {
        return;
    }
    build_payload(self);
    /* Published now when connected; else the latest goes on the next connect, nothing queued. */
    mqtt_link_set_state(self->link, self->payload);
}

static const char *const mqtt_consumes[] = {"track", "state", NULL};

static const oton_plugin_descriptor mqtt_descriptor = {
    .struct_size = sizeof(oton_plugin_descriptor),
    .abi_major = OTON_ABI_MAJOR,
    .abi_minor = OTON_ABI_MINOR,
    .id = "org.oton.mqtt",
    .name = "MQTT now playing",
    .version = "0.1.0",
    .description = "Publishes now playing to an MQTT broker, with Home Assistant discovery",
    .consumes = mqtt_consumes,
    .create = mqtt_create,
    .destroy = mqtt_destroy,
    .on_event = mqtt_on_event,
    .settings = mqtt_settings,
    .setting_count = sizeof mqtt_settings / sizeof mqtt_settings[0],
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &mqtt_descriptor;
}
