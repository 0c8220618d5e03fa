/*
 * A hostile plugin for "isolation": "process" that hides its crash. In create() it forks a
 * grandchild that calls setsid() (leaving oton's process group and session), ignores SIGTERM,
 * keeps every descriptor (file descriptor 3 is the socket to oton) and waits forever; its pid is
 * appended to GRANDCHILD_PIDS, the creating process's to WORKER_PIDS. On its first event, when
 * CRASH_MARK does not exist yet, it creates it and writes through NULL: only the first process
 * crashes, the restarted one lives (with a grandchild of its own) until oton ends. Compiled by
 * the tests with cc against Sources/PluginAPI/include alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "oton_plugin.h"

static int instance_storage;

/* Async-signal-safe: the grandchild is a fork of a threaded process. */
static void append_pid(const char *path, pid_t pid) {
    char text[24];
    int at = (int)sizeof text;
    text[--at] = '\n';
    do {
        text[--at] = (char)('0' + pid % 10);
        pid /= 10;
    } while (pid > 0);
    int file = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (file < 0) return;
    if (write(file, text + at, sizeof text - (size_t)at) < 0) { /* the test then finds no pid */ }
    close(file);
}

static oton_instance *forking_create(const oton_host *host, const char *config, char *error, size_t error_size) {
    (void)host;
    (void)config;
    /* create() returns only once the grandchild has left the session and written its pid: on a
     * loaded machine it may otherwise not have run at all before the first event's crash ends it,
     * and the test would take the restarted process's grandchild for the first one. */
    int ready[2];
    if (pipe(ready) != 0) {
        snprintf(error, error_size, "pipe failed");
        return NULL;
    }
    pid_t grandchild = fork();
    if (grandchild < 0) {
        snprintf(error, error_size, "fork failed");
        return NULL;
    }
    if (grandchild == 0) {
        close(ready[0]);
        setsid();
        signal(SIGTERM, SIG_IGN);
        signal(SIGINT, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        append_pid(GRANDCHILD_PIDS, getpid());
        if (write(ready[1], "r", 1) < 0) { /* the parent then reads end of file and goes on */ }
        close(ready[1]);
        for (;;) pause();
    }
    close(ready[1]);
    char byte;
    while (read(ready[0], &byte, 1) < 0 && errno == EINTR) { /* interrupted: read again */ }
    close(ready[0]);
    append_pid(WORKER_PIDS, getpid());
    return &instance_storage;
}

static void forking_destroy(oton_instance *instance) { (void)instance; }

static void forking_event(oton_instance *instance, const oton_event *event) {
    (void)instance;
    (void)event;
    if (access(CRASH_MARK, F_OK) == 0) return;
    int mark = open(CRASH_MARK, O_WRONLY | O_CREAT, 0600);
    if (mark >= 0) close(mark);
    *(volatile int *)0 = 1;
}

static const char *const consumes[] = {"*", NULL};

static const oton_plugin_descriptor descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_NONE,
    "org.oton.test.forking", "Forking crasher (test)", "1.0.0", "forks a setsid grandchild, then crashes",
    consumes, NULL, 0, 0,
    forking_create, forking_destroy, forking_event, NULL, NULL,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
#endif
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &descriptor;
}
