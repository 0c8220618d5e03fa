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
 * connection, which caps the request head (a larger one is answered 431 and closed). */
static inline struct MHD_Daemon *oton_mhd_start(const struct sockaddr_in *address, unsigned int connection_limit,
                                                unsigned int timeout_seconds, size_t connection_memory,
                                                MHD_AccessHandlerCallback handler, void *handler_context) {
    return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC, ntohs(address->sin_port),
                            NULL, NULL, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)16,
                            MHD_OPTION_END);
}

/* The port the daemon bound (the chosen one when asked for 0); 0 when unknown. */
static inline uint16_t oton_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info != NULL ? info->port : 0;
}

#endif
