/*
 * MQTT 3.1.1 as the plugin speaks it: the packets a publisher sends, and a reader of what the broker
 * sends that keeps no more than a few bytes of any packet, refuses one over a limit and names what
 * is malformed. No I/O here (mqtt_link.c does it).
 */
#ifndef OTON_MQTT_WIRE_H
#define OTON_MQTT_WIRE_H
#include <stddef.h>
#include <stdint.h>

/* A broker's packet longer than this (its remaining length) ends the connection unread. */
#define MQTT_PACKET_LIMIT (256u * 1024u)

enum { MQTT_CONNACK = 2, MQTT_PUBLISH = 3, MQTT_PUBACK = 4, MQTT_PINGRESP = 13 };

typedef struct mqtt_connect_info {
    const char *client_id;
    const char *will_topic, *will_message; /* retained, QoS 1 */
    const char *username, *password;       /* NULL or "": none */
    unsigned keepalive_seconds;
} mqtt_connect_info;

/* Each writes one packet into `out` and returns its length, or 0 when it does not fit. */
size_t mqtt_connect_packet(const mqtt_connect_info *info, unsigned char *out, size_t size);
size_t mqtt_publish_packet(const char *topic, const void *payload, size_t length, int retain, uint16_t packet_id, unsigned char *out, size_t size);
size_t mqtt_pingreq_packet(unsigned char *out, size_t size);
size_t mqtt_disconnect_packet(unsigned char *out, size_t size);

typedef enum { MQTT_READ_MORE, MQTT_READ_PACKET, MQTT_READ_TOO_LARGE, MQTT_READ_MALFORMED } mqtt_read_status;

typedef struct mqtt_reader {
    int stage;                 /* 0: the first byte, 1: the remaining length, 2: the body */
    unsigned char first;       /* type << 4 | flags */
    uint32_t length, multiplier, got;
    int length_bytes;
    unsigned char head[4];     /* the body's first bytes; the rest is counted, not kept */
    const char *problem;       /* what was malformed, for the log */
} mqtt_reader;

void mqtt_reader_reset(mqtt_reader *reader);

/* Takes bytes until one packet is whole (MQTT_READ_PACKET: `*used` bytes were taken; its type is
 * reader->first >> 4, its length reader->length, its first bytes reader->head) or the bytes run out
 * (MQTT_READ_MORE). TOO_LARGE and MALFORMED end the stream: the connection is dropped. */
mqtt_read_status mqtt_reader_take(mqtt_reader *reader, const unsigned char *bytes, size_t count, size_t *used);

/* What a CONNACK's return code means, for the log. */
const char *mqtt_connack_text(int code);

#endif
