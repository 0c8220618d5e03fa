/*
 * The plugin's connection to its broker, on a thread of its own: connects, says once that the
 * broker cannot be reached and once that it is connected again, reconnects (1 s, doubling to 30 s),
 * and on each connect publishes "online", the discovery message and the latest now-playing.
 */
#ifndef OTON_MQTT_LINK_H
#define OTON_MQTT_LINK_H
#include <stddef.h>

#include "oton_plugin.h"

enum { MQTT_TEXT = 256, MQTT_TOPIC = 3 * MQTT_TEXT, MQTT_PAYLOAD = 8192 };

typedef struct mqtt_link_config {
    const oton_host *host;
    char broker[MQTT_TEXT];
    int port;
    char username[MQTT_TEXT], password[MQTT_TEXT];
    char status_topic[MQTT_TOPIC], state_topic[MQTT_TOPIC];
    int retain;
    char discovery_topic[MQTT_TOPIC]; /* "": no discovery message */
    char discovery[MQTT_PAYLOAD];
} mqtt_link_config;

typedef struct mqtt_link mqtt_link;

/* Starts the thread (it connects on its own); NULL with a reason in `error` when it cannot. */
mqtt_link *mqtt_link_start(const mqtt_link_config *config, const char *state, char *error, size_t error_size);

/* The now-playing JSON to publish, now when connected, else on the next connect. Any thread. */
void mqtt_link_set_state(mqtt_link *link, const char *state);

/* Says "offline" and disconnects when connected, ends the thread and frees the link. */
void mqtt_link_stop(mqtt_link *link);

#endif
