#ifndef OTON_CMICROHTTPD_SHIM_H
#define OTON_CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call: these take
 * fixed arguments. One internal poll() thread serves every connection; nothing else is started. */

/* Binds exactly `address` (IPv4); the other arguments are the server's bounds: open connections,
 * seconds a connection may stay idle (a request must arrive within it), and the memory of one
 * connection, which caps the request head (a larger one is answered 431 and closed). `notify`
 * (may be NULL) hears each connection start and end on the daemon's thread (the metrics listener
 * counts the connections still sending their request head). */
static inline struct MHD_Daemon *oton_mhd_start_notified(const struct sockaddr_in *address, unsigned int connection_limit,
                                                         unsigned int timeout_seconds, size_t connection_memory,
                                                         MHD_NotifyConnectionCallback notify, void *notify_context,
                                                         MHD_AccessHandlerCallback handler, void *handler_context) {
    return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC, ntohs(address->sin_port),
                            NULL, NULL, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)16,
                            MHD_OPTION_END);
}

/* The port the daemon bound (the chosen one when asked for 0); 0 when unknown. */
static inline uint16_t oton_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info != NULL ? info->port : 0;
}

/* The web remote's daemon: one thread per connection (an event-stream response may wait in its
 * content callback for the next update without holding up anyone else), each with a small stack.
 * `notify` hears each connection start and end, on the thread that accepted or served it. `timeout_seconds` is the idle deadline every connection
 * starts with; `connection_limit` bounds them all. */
static inline struct MHD_Daemon *oton_mhd_start_threaded(const struct sockaddr_in *address, unsigned int connection_limit,
                                                         unsigned int timeout_seconds, size_t connection_memory,
                                                         size_t thread_stack_bytes,
                                                         MHD_NotifyConnectionCallback notify, void *notify_context,
                                                         MHD_AccessHandlerCallback handler, void *handler_context) {
    return MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC,
                            ntohs(address->sin_port), NULL, NULL, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory,
                            MHD_OPTION_THREAD_STACK_SIZE, thread_stack_bytes,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)256,
                            MHD_OPTION_END);
}

/* A new idle deadline for one connection (MHD_set_connection_option is variadic). */
static inline enum MHD_Result oton_mhd_set_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    return MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

/* The socket of a connection, or -1. */
static inline int oton_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info != NULL ? info->connect_fd : -1;
}

/* The peer's address of a connection, or NULL. */
static inline const struct sockaddr *oton_mhd_connection_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info != NULL ? info->client_addr : NULL;
}

/* The response closes its connection and is never chunked (an event stream simply ends with it). */
static inline enum MHD_Result oton_mhd_close_after(struct MHD_Response *response) {
    return MHD_set_response_options(response, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END);
}

/* The pointer a connection's notify callback stored for it, or NULL. */
static inline void *oton_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info != NULL ? info->socket_context : NULL;
}

/* True for the notification of a connection's start (false: its end). */
static inline int oton_mhd_is_start(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

#endif
