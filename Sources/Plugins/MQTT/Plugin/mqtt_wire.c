/* MQTT 3.1.1 packets (OASIS standard, section 2 and 3) for mqtt_wire.h. */
#include "mqtt_wire.h"

#include <string.h>

typedef struct writer {
    unsigned char *at, *end;
    int ok;
} writer;

static void put(writer *w, const void *bytes, size_t count) {
    if (!w->ok || (size_t)(w->end - w->at) < count) {
        w->ok = 0;
        return;
    }
    memcpy(w->at, bytes, count);
    w->at += count;
}

static void put_byte(writer *w, unsigned value) {
    unsigned char byte = (unsigned char)value;
    put(w, &byte, 1);
}

/* A UTF-8 string: its length in two bytes, then the bytes (at most 65535). */
static void put_string(writer *w, const char *text, size_t length) {
    if (length > 65535) {
        w->ok = 0;
        return;
    }
    put_byte(w, (unsigned)(length >> 8));
    put_byte(w, (unsigned)(length & 0xff));
    put(w, text, length);
}

/* The fixed header: the first byte and the remaining length, 7 bits a byte, at most 4 bytes. */
static void put_header(writer *w, unsigned first, size_t remaining) {
    put_byte(w, first);
    if (remaining > 268435455u) {
        w->ok = 0;
        return;
    }
    do {
        unsigned byte = (unsigned)(remaining % 128);
        remaining /= 128;
        put_byte(w, remaining > 0 ? byte | 128 : byte);
    } while (remaining > 0);
}

static int given(const char *text) { return text != NULL && text[0] != '\0'; }

size_t mqtt_connect_packet(const mqtt_connect_info *info, unsigned char *out, size_t size) {
    writer w = {out, out + size, 1};
    size_t id = strlen(info->client_id), will_topic = strlen(info->will_topic), will_message = strlen(info->will_message);
    size_t remaining = 10 + 2 + id + 2 + will_topic + 2 + will_message;
    /* Clean session, a will of QoS 1 that the broker retains. */
    unsigned flags = 0x02 | 0x04 | 0x08 | 0x20;
    if (given(info->username)) {
        flags |= 0x80;
        remaining += 2 + strlen(info->username);
        if (given(info->password)) {
            flags |= 0x40;
            remaining += 2 + strlen(info->password);
        }
    }
    put_header(&w, 0x10, remaining);
    put_string(&w, "MQTT", 4);
    put_byte(&w, 4); /* protocol level: 3.1.1 */
    put_byte(&w, flags);
    put_byte(&w, info->keepalive_seconds >> 8);
    put_byte(&w, info->keepalive_seconds & 0xff);
    put_string(&w, info->client_id, id);
    put_string(&w, info->will_topic, will_topic);
    put_string(&w, info->will_message, will_message);
    if (flags & 0x80) put_string(&w, info->username, strlen(info->username));
    if (flags & 0x40) put_string(&w, info->password, strlen(info->password));
    return w.ok ? (size_t)(w.at - out) : 0;
}

size_t mqtt_publish_packet(const char *topic, const void *payload, size_t length, int retain, uint16_t packet_id, unsigned char *out, size_t size) {
    writer w = {out, out + size, 1};
    size_t topic_length = strlen(topic);
    put_header(&w, 0x30 | 0x02 | (retain ? 0x01 : 0x00), 2 + topic_length + 2 + length); /* QoS 1 */
    put_string(&w, topic, topic_length);
    put_byte(&w, packet_id >> 8);
    put_byte(&w, packet_id & 0xff);
    put(&w, payload, length);
    return w.ok ? (size_t)(w.at - out) : 0;
}

size_t mqtt_pingreq_packet(unsigned char *out, size_t size) {
    writer w = {out, out + size, 1};
    put_header(&w, 0xc0, 0);
    return w.ok ? (size_t)(w.at - out) : 0;
}

size_t mqtt_disconnect_packet(unsigned char *out, size_t size) {
    writer w = {out, out + size, 1};
    put_header(&w, 0xe0, 0);
    return w.ok ? (size_t)(w.at - out) : 0;
}

void mqtt_reader_reset(mqtt_reader *reader) {
    memset(reader, 0, sizeof *reader);
    reader->multiplier = 1;
}

static mqtt_read_status malformed(mqtt_reader *reader, const char *problem) {
    reader->problem = problem;
    return MQTT_READ_MALFORMED;
}

/* The first byte: a type a broker sends, with the flags 3.1.1 fixes for it. */
static mqtt_read_status check_first(mqtt_reader *reader) {
    unsigned type = reader->first >> 4, flags = reader->first & 0x0f;
    switch (type) {
    case 1: case 8: case 10: case 12: case 14: return malformed(reader, "a packet only a client sends");
    case 0: case 15: return malformed(reader, "a reserved packet type");
    case MQTT_PUBLISH: return (flags & 0x06) == 0x06 ? malformed(reader, "a PUBLISH of QoS 3") : MQTT_READ_MORE;
    case 6: return flags == 0x02 ? MQTT_READ_MORE : malformed(reader, "wrong flags in a fixed header");
    default: return flags == 0 ? MQTT_READ_MORE : malformed(reader, "wrong flags in a fixed header");
    }
}

/* The remaining length is known: one over the limit is not read, and the short packets have theirs. */
static mqtt_read_status check_length(mqtt_reader *reader) {
    unsigned type = reader->first >> 4;
    if (reader->length > MQTT_PACKET_LIMIT) return MQTT_READ_TOO_LARGE;
    if ((type == MQTT_CONNACK || type == MQTT_PUBACK) && reader->length != 2) return malformed(reader, "a CONNACK or PUBACK not 2 bytes long");
    if (type == MQTT_PINGRESP && reader->length != 0) return malformed(reader, "a PINGRESP with a body");
    return MQTT_READ_MORE;
}

mqtt_read_status mqtt_reader_take(mqtt_reader *reader, const unsigned char *bytes, size_t count, size_t *used) {
    size_t index = 0;
    mqtt_read_status status = MQTT_READ_MORE;
    while (index < count) {
        if (reader->stage == 2) {
            size_t want = reader->length - reader->got, have = count - index, take = want < have ? want : have;
            for (size_t k = 0; k < take && reader->got + k < sizeof reader->head; k++) reader->head[reader->got + k] = bytes[index + k];
            reader->got += (uint32_t)take;
            index += take;
        } else {
            unsigned char byte = bytes[index++];
            if (reader->stage == 0) {
                reader->first = byte;
                reader->stage = 1;
                if ((status = check_first(reader)) != MQTT_READ_MORE) break;
                continue;
            }
            reader->length += (uint32_t)(byte & 127) * reader->multiplier;
            reader->multiplier *= 128;
            if (++reader->length_bytes > 4) {
                status = malformed(reader, "a remaining length of more than 4 bytes");
                break;
            }
            if (byte & 128) continue;
            reader->stage = 2;
            if ((status = check_length(reader)) != MQTT_READ_MORE) break;
        }
        if (reader->got == reader->length) {
            status = MQTT_READ_PACKET;
            break;
        }
    }
    *used = index;
    return status;
}

const char *mqtt_connack_text(int code) {
    switch (code) {
    case 1: return "it does not speak MQTT 3.1.1";
    case 2: return "it rejected the client id";
    case 3: return "the server is unavailable";
    case 4: return "bad user name or password";
    case 5: return "not authorized";
    default: return "an unknown reason";
    }
}
