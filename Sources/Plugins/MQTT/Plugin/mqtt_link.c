/* The connection thread of mqtt_link.h: plain sockets and poll, one broker, MQTT 3.1.1. */
#define _GNU_SOURCE
#include "mqtt_link.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mqtt_wire.h"

enum { KEEPALIVE = 30, WAIT_SECONDS = 10, MAX_DELAY = 30, PACKET = MQTT_PAYLOAD + 2 * MQTT_TOPIC };

struct mqtt_link {
    mqtt_link_config config;
    char where[MQTT_TEXT + 16]; /* host:port, for the log */
    char client_id[64];
    pthread_t thread;
    int wake[2]; /* a byte on wake[1]: the state changed, or stop */
    /* Guarded by `lock`: written by the plugin's mailbox, read by the thread. */
    pthread_mutex_t lock;
    char state[MQTT_PAYLOAD];
    int state_changed, stopping;
    /* The thread's own. */
    uint16_t packet_id;
    double last_sent; /* now() of the last packet sent: a PINGREQ follows KEEPALIVE / 2 of silence */
};

typedef enum { SESSION_LOST, SESSION_STOPPED } session_end;

static double now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec / 1e9;
}

static int stopping(mqtt_link *link) {
    pthread_mutex_lock(&link->lock);
    int stop = link->stopping;
    pthread_mutex_unlock(&link->lock);
    return stop;
}

static void drain(int fd) {
    char bytes[64];
    while (read(fd, bytes, sizeof bytes) > 0) {}
}

static void say(mqtt_link *link, oton_log_level level, const char *format, const char *detail) {
    char line[MQTT_TEXT * 2];
    snprintf(line, sizeof line, format, link->where, detail);
    link->config.host->log(link->config.host, level, line);
}

/* Waits `seconds` (a change of state does not cut it short); 1 when told to stop. */
static int pause_for(mqtt_link *link, double seconds) {
    double until = now() + seconds;
    for (;;) {
        if (stopping(link)) return 1;
        double left = until - now();
        if (left <= 0) return 0;
        struct pollfd wake = {link->wake[0], POLLIN, 0};
        if (poll(&wake, 1, (int)(left * 1000) + 1) > 0) drain(link->wake[0]);
    }
}

/* A connected socket (non-blocking), or -1 with the reason, or -2 when told to stop. */
static int dial(mqtt_link *link, char *reason, size_t size) {
    struct addrinfo hints, *found = NULL;
    char port[16];
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(port, sizeof port, "%d", link->config.port);
    int failed = getaddrinfo(link->config.broker, port, &hints, &found);
    if (failed != 0) {
        snprintf(reason, size, "%s", gai_strerror(failed));
        return -1;
    }
    snprintf(reason, size, "no address");
    for (struct addrinfo *address = found; address != NULL; address = address->ai_next) {
        int fd = socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, address->ai_protocol);
        if (fd < 0) {
            snprintf(reason, size, "%s", strerror(errno));
            continue;
        }
        int error = connect(fd, address->ai_addr, address->ai_addrlen) == 0 ? 0 : errno;
        double until = now() + WAIT_SECONDS;
        while (error == EINPROGRESS) {
            struct pollfd waits[2] = {{fd, POLLOUT, 0}, {link->wake[0], POLLIN, 0}};
            double left = until - now();
            if (left <= 0) {
                error = ETIMEDOUT;
                break;
            }
            if (poll(waits, 2, (int)(left * 1000) + 1) <= 0) continue;
            if (waits[1].revents) {
                drain(link->wake[0]);
                if (stopping(link)) {
                    close(fd);
                    freeaddrinfo(found);
                    return -2;
                }
            }
            if (waits[0].revents) {
                socklen_t length = sizeof error;
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
            }
        }
        if (error == 0) {
            freeaddrinfo(found);
            return fd;
        }
        snprintf(reason, size, "%s", strerror(error));
        close(fd);
    }
    freeaddrinfo(found);
    return -1;
}

/* All of `bytes`, within WAIT_SECONDS; 0 with the reason when not. */
static int send_all(mqtt_link *link, int fd, const unsigned char *bytes, size_t count, char *reason, size_t size) {
    double until = now() + WAIT_SECONDS;
    while (count > 0) {
        ssize_t sent = send(fd, bytes, count, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent > 0) {
            bytes += sent;
            count -= (size_t)sent;
            continue;
        }
        if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            snprintf(reason, size, "%s", strerror(errno));
            return 0;
        }
        struct pollfd wait = {fd, POLLOUT, 0};
        double left = until - now();
        if (left <= 0) {
            snprintf(reason, size, "it took nothing for %d s", WAIT_SECONDS);
            return 0;
        }
        poll(&wait, 1, (int)(left * 1000) + 1);
    }
    link->last_sent = now();
    return 1;
}

static int publish(mqtt_link *link, int fd, const char *topic, const char *payload, int retain, char *reason, size_t size) {
    unsigned char packet[PACKET];
    link->packet_id = link->packet_id == 65535 ? 1 : (uint16_t)(link->packet_id + 1);
    size_t length = mqtt_publish_packet(topic, payload, strlen(payload), retain, link->packet_id, packet, sizeof packet);
    return length > 0 && send_all(link, fd, packet, length, reason, size);
}

/* The latest now-playing when it changed since it was last taken (or `always`). */
static int take_state(mqtt_link *link, char *out, int always) {
    pthread_mutex_lock(&link->lock);
    int changed = link->state_changed || always;
    if (changed) memcpy(out, link->state, sizeof link->state);
    link->state_changed = 0;
    pthread_mutex_unlock(&link->lock);
    return changed;
}

static int announce(mqtt_link *link, int fd, char *reason, size_t size) {
    char state[MQTT_PAYLOAD];
    take_state(link, state, 1);
    return publish(link, fd, link->config.status_topic, "online", 1, reason, size)
        && (link->config.discovery_topic[0] == '\0' || publish(link, fd, link->config.discovery_topic, link->config.discovery, 1, reason, size))
        && publish(link, fd, link->config.state_topic, state, link->config.retain, reason, size);
}

/* One connection: CONNECT, its CONNACK, then publishing until it breaks or the plugin stops.
 * `*connected` is set once the broker accepted it, which is logged when `say_connected`. */
static session_end session(mqtt_link *link, int fd, int say_connected, int *connected, char *reason, size_t size) {
    unsigned char packet[PACKET], bytes[4096];
    mqtt_connect_info info = {link->client_id, link->config.status_topic, "offline", link->config.username, link->config.password, KEEPALIVE};
    size_t length = mqtt_connect_packet(&info, packet, sizeof packet);
    mqtt_reader reader;
    double connect_until = now() + WAIT_SECONDS, ping_sent = 0;
    char state[MQTT_PAYLOAD];
    *connected = 0;
    if (length == 0) {
        snprintf(reason, size, "the CONNECT packet does not fit");
        return SESSION_LOST;
    }
    if (!send_all(link, fd, packet, length, reason, size)) return SESSION_LOST;
    mqtt_reader_reset(&reader);
    for (;;) {
        if (stopping(link)) {
            if (*connected && publish(link, fd, link->config.status_topic, "offline", 1, reason, size) && (length = mqtt_disconnect_packet(packet, sizeof packet)) > 0)
                send_all(link, fd, packet, length, reason, size);
            return SESSION_STOPPED;
        }
        double due = !*connected ? connect_until : ping_sent > 0 ? ping_sent + KEEPALIVE : link->last_sent + KEEPALIVE / 2.0;
        struct pollfd waits[2] = {{fd, POLLIN, 0}, {link->wake[0], POLLIN, 0}};
        double left = due - now();
        int ready = poll(waits, 2, left > 0 ? (int)(left * 1000) + 1 : 0);
        if (ready > 0 && waits[1].revents) {
            drain(link->wake[0]);
            if (*connected && take_state(link, state, 0) && !publish(link, fd, link->config.state_topic, state, link->config.retain, reason, size))
                return SESSION_LOST;
        }
        if (ready > 0 && waits[0].revents) {
            ssize_t got = recv(fd, bytes, sizeof bytes, MSG_DONTWAIT);
            if (got == 0) {
                snprintf(reason, size, "it closed the connection");
                return SESSION_LOST;
            }
            if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                snprintf(reason, size, "%s", strerror(errno));
                return SESSION_LOST;
            }
            size_t at = 0;
            while (got > 0 && at < (size_t)got) {
                size_t used = 0;
                mqtt_read_status status = mqtt_reader_take(&reader, bytes + at, (size_t)got - at, &used);
                at += used;
                if (status == MQTT_READ_TOO_LARGE) {
                    snprintf(reason, size, "it sent a packet of %u bytes, more than the %u this plugin takes", (unsigned)reader.length, MQTT_PACKET_LIMIT);
                    return SESSION_LOST;
                }
                if (status == MQTT_READ_MALFORMED) {
                    snprintf(reason, size, "it sent a malformed packet: %s", reader.problem);
                    return SESSION_LOST;
                }
                if (status != MQTT_READ_PACKET) break;
                unsigned type = reader.first >> 4;
                if ((type == MQTT_CONNACK) == (*connected != 0)) {
                    snprintf(reason, size, "it sent a malformed packet: %s", *connected ? "a second CONNACK" : "a packet before its CONNACK");
                    return SESSION_LOST;
                }
                if (type == MQTT_CONNACK) {
                    if (reader.head[1] != 0) {
                        snprintf(reason, size, "it refused the connection: %s", mqtt_connack_text(reader.head[1]));
                        return SESSION_LOST;
                    }
                    *connected = 1;
                    if (say_connected) say(link, OTON_LOG_INFO, "connected to the MQTT broker %s%s", "");
                    if (!announce(link, fd, reason, size)) return SESSION_LOST;
                } else if (type == MQTT_PINGRESP) {
                    ping_sent = 0;
                }
                mqtt_reader_reset(&reader);
            }
        }
        if (!*connected && now() >= connect_until) {
            snprintf(reason, size, "no CONNACK within %d s", WAIT_SECONDS);
            return SESSION_LOST;
        }
        if (*connected && ping_sent > 0 && now() >= ping_sent + KEEPALIVE) {
            snprintf(reason, size, "no answer for %d s", KEEPALIVE);
            return SESSION_LOST;
        }
        if (*connected && ping_sent == 0 && now() - link->last_sent >= KEEPALIVE / 2.0) {
            if ((length = mqtt_pingreq_packet(packet, sizeof packet)) == 0 || !send_all(link, fd, packet, length, reason, size)) return SESSION_LOST;
            ping_sent = now();
        }
    }
}

static void *run(void *argument) {
    mqtt_link *link = argument;
    char reason[MQTT_TEXT];
    int delay = 1, said_down = 0, ever = 0;
    while (!stopping(link)) {
        int fd = dial(link, reason, sizeof reason), connected = 0;
        double started = now();
        if (fd == -2) break;
        if (fd >= 0) {
            session_end end = session(link, fd, said_down || !ever, &connected, reason, sizeof reason);
            close(fd);
            if (end == SESSION_STOPPED) break;
        }
        if (connected) {
            ever = 1;
            said_down = 0;
            /* A broker that drops each connection at once is not tried again every second. */
            if (now() - started >= KEEPALIVE) delay = 1;
        }
        if (!said_down) {
            said_down = 1;
            if (connected) say(link, OTON_LOG_WARNING, "lost the MQTT broker %s: %s; reconnecting", reason);
            else say(link, OTON_LOG_WARNING, "cannot connect to the MQTT broker %s: %s; trying again, every 30 s at most", reason);
        }
        if (pause_for(link, delay)) break;
        delay = delay * 2 > MAX_DELAY ? MAX_DELAY : delay * 2;
    }
    return NULL;
}

mqtt_link *mqtt_link_start(const mqtt_link_config *config, const char *state, char *error, size_t error_size) {
    mqtt_link *link = calloc(1, sizeof *link);
    if (link == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    link->config = *config;
    snprintf(link->where, sizeof link->where, strchr(config->broker, ':') ? "[%s]:%d" : "%s:%d", config->broker, config->port);
    snprintf(link->client_id, sizeof link->client_id, "oton-%ld", (long)getpid());
    snprintf(link->state, sizeof link->state, "%s", state);
    if (pipe2(link->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(error, error_size, "cannot make a pipe: %s", strerror(errno));
        free(link);
        return NULL;
    }
    pthread_mutex_init(&link->lock, NULL);
    if (pthread_create(&link->thread, NULL, run, link) != 0) {
        snprintf(error, error_size, "cannot start the MQTT thread");
        pthread_mutex_destroy(&link->lock);
        close(link->wake[0]);
        close(link->wake[1]);
        free(link);
        return NULL;
    }
    return link;
}

static void wake(mqtt_link *link) {
    ssize_t written = write(link->wake[1], "x", 1); /* a full pipe already wakes it */
    (void)written;
}

void mqtt_link_set_state(mqtt_link *link, const char *state) {
    pthread_mutex_lock(&link->lock);
    snprintf(link->state, sizeof link->state, "%s", state);
    link->state_changed = 1;
    pthread_mutex_unlock(&link->lock);
    wake(link);
}

void mqtt_link_stop(mqtt_link *link) {
    pthread_mutex_lock(&link->lock);
    link->stopping = 1;
    pthread_mutex_unlock(&link->lock);
    wake(link);
    pthread_join(link->thread, NULL);
    pthread_mutex_destroy(&link->lock);
    close(link->wake[0]);
    close(link->wake[1]);
    free(link);
}
