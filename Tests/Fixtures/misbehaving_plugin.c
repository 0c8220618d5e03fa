/*
 * A test plugin in C99 for `oton plugins validate`: well-behaved by default,
 * and with one compile-time knob (-D) for each way of breaking the contract:
 *   MISBEHAVE_BLOCK_IN_EVENT      on_event sleeps 30 s
 *   MISBEHAVE_CRASH_ON_DISCONT    on_media writes through NULL on a DISCONT buffer
 *   MISBEHAVE_CRASH_ON_HUGE       create() writes through NULL when the config is over 1 MiB
 *   MISBEHAVE_LATE_THREAD         create() starts a thread that calls host->log every 10 ms
 *                                 and destroy() leaves it running
 *   MISBEHAVE_DUPLICATE_COMMAND   declares the command "misbehave-stats" twice
 *   MISBEHAVE_BAD_COMMAND_NAME    declares a command named "Bad Name"
 *   MISBEHAVE_SILENT_FAILURE      its command fails without a reply text
 *   MISBEHAVE_LEAK                on_event allocates 4 KiB it never frees, and destroy()
 *                                 does not free the instance
 *   MISBEHAVE_LARGE_DESCRIPTOR    the descriptor's struct_size is 16 bytes more than the
 *                                 descriptor of the ABI minor it declares
 *   MISBEHAVE_SMALL_LEAK          on_event allocates 512 bytes it never frees
 *   MISBEHAVE_MEDIA_LEAK          on_media keeps a 4 KiB copy of every buffer, never freed
 *   MISBEHAVE_COMMAND_LEAK        on_command allocates 4 KiB it never frees
 *   MISBEHAVE_FD_LEAK             on_event opens /dev/null and never closes it
 *   MISBEHAVE_THREAD_LEAK         create() starts 16 threads that sleep, and destroy() leaves them
 *   MISBEHAVE_CRASH_IN_EVENT      on_event writes through NULL
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oton_plugin.h"

typedef struct misbehaving {
    const oton_host *host;
    unsigned long events, buffers;
} misbehaving;

#if defined(MISBEHAVE_CRASH_ON_DISCONT) || defined(MISBEHAVE_CRASH_ON_HUGE) || defined(MISBEHAVE_CRASH_IN_EVENT)
static void crash(void) {
    volatile int *nowhere = NULL;
    *nowhere = 1;
}
#endif

#ifdef MISBEHAVE_THREAD_LEAK
static void *sleeper(void *argument) {
    (void)argument;
    struct timespec pause = {3600, 0};
    for (;;) nanosleep(&pause, NULL);
    return NULL;
}
#endif

#ifdef MISBEHAVE_LATE_THREAD
static void *chatter(void *argument) {
    const oton_host *host = argument;
    struct timespec pause = {0, 10 * 1000 * 1000};
    for (;;) {
        host->log(host, OTON_LOG_DEBUG, "still here");
        nanosleep(&pause, NULL);
    }
    return NULL;
}
#endif

static oton_instance *misbehaving_create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    misbehaving *self = calloc(1, sizeof *self);
#ifdef MISBEHAVE_CRASH_ON_HUGE
    if (strlen(config_json) > (1u << 20)) crash();
#else
    (void)config_json;
#endif
    if (self == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    self->host = host;
#ifdef MISBEHAVE_THREAD_LEAK
    for (int index = 0; index < 16; index++) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, sleeper, NULL) == 0) pthread_detach(thread);
    }
#endif
#ifdef MISBEHAVE_LATE_THREAD
    {
        pthread_t thread;
        if (pthread_create(&thread, NULL, chatter, (void *)host) == 0) pthread_detach(thread);
    }
#endif
    return self;
}

static void misbehaving_destroy(oton_instance *instance) {
#ifdef MISBEHAVE_LEAK
    (void)instance;
#else
    free(instance);
#endif
}

static void misbehaving_on_event(oton_instance *instance, const oton_event *event) {
    misbehaving *self = instance;
    (void)event;
    self->events++;
#ifdef MISBEHAVE_LEAK
    {
        char *lost = malloc(4096);
        if (lost != NULL) memset(lost, (int)(self->events & 0xff), 4096);
    }
#endif
#ifdef MISBEHAVE_SMALL_LEAK
    {
        char *lost = malloc(512);
        if (lost != NULL) memset(lost, (int)(self->events & 0xff), 512);
    }
#endif
#ifdef MISBEHAVE_FD_LEAK
    (void)open("/dev/null", O_RDONLY);
#endif
#ifdef MISBEHAVE_CRASH_IN_EVENT
    crash();
#endif
#ifdef MISBEHAVE_BLOCK_IN_EVENT
    {
        struct timespec pause = {30, 0};
        nanosleep(&pause, NULL);
    }
#endif
}

static void misbehaving_on_media(oton_instance *instance, const oton_media_buffer *buffer) {
    misbehaving *self = instance;
    self->buffers++;
#ifdef MISBEHAVE_MEDIA_LEAK
    {
        char *kept = malloc(4096);
        if (kept != NULL) memcpy(kept, buffer->data, buffer->size < 4096 ? buffer->size : 4096);
    }
#endif
#ifdef MISBEHAVE_CRASH_ON_DISCONT
    if (buffer->flags & OTON_MEDIA_FLAG_DISCONT) crash();
#else
    (void)buffer;
#endif
}

static oton_status misbehaving_on_command(oton_instance *instance, const char *name, const char *args_json,
                                          oton_reply_fn reply, void *reply_context) {
    misbehaving *self = instance;
    char text[128];
    if (strcmp(name, "misbehave-stats") != 0) return OTON_ERR_UNSUPPORTED;
#ifdef MISBEHAVE_COMMAND_LEAK
    {
        char *lost = malloc(4096);
        if (lost != NULL) memset(lost, 1, 4096);
    }
#endif
#ifdef MISBEHAVE_SILENT_FAILURE
    (void)self; (void)reply; (void)reply_context; (void)text;
    if (strcmp(args_json, "[]") != 0) return OTON_ERR_INVALID;
#else
    if (strcmp(args_json, "[]") != 0) {
        reply(reply_context, "misbehave-stats takes no arguments");
        return OTON_ERR_INVALID;
    }
#endif
    snprintf(text, sizeof text, "%lu events, %lu buffers", self->events, self->buffers);
    reply(reply_context, text);
    return OTON_OK;
}

static const oton_command_decl misbehaving_commands[] = {
    {sizeof(oton_command_decl), 0, "misbehave-stats", "misbehave-stats", "counts"},
#if defined(MISBEHAVE_DUPLICATE_COMMAND)
    {sizeof(oton_command_decl), 0, "misbehave-stats", "misbehave-stats", "the same name again"},
#elif defined(MISBEHAVE_BAD_COMMAND_NAME)
    {sizeof(oton_command_decl), 0, "Bad Name", "Bad Name", "not [a-z0-9-]"},
#endif
};

static const char *const misbehaving_consumes[] = {"*", NULL};

#ifdef MISBEHAVE_LARGE_DESCRIPTOR
/* A descriptor with 16 bytes after it that struct_size claims, as a plugin built against a
 * newer header but declaring this one's minor would have. */
static const struct {
    oton_plugin_descriptor descriptor;
    char beyond[16];
} misbehaving_large = {{
    sizeof(oton_plugin_descriptor) + 16, OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_PCM | OTON_TAP_STREAM,
    "org.oton.test.misbehaving", "Misbehaving", "1.0.0", "Breaks the contract on request",
    misbehaving_consumes, misbehaving_commands, sizeof misbehaving_commands / sizeof misbehaving_commands[0], 0,
    misbehaving_create, misbehaving_destroy, misbehaving_on_event, misbehaving_on_media, misbehaving_on_command,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0,
    NULL,       /* 1.6: filter (none) */
#endif
}, {0}};
#define misbehaving_descriptor misbehaving_large.descriptor
#else
static const oton_plugin_descriptor misbehaving_descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_PCM | OTON_TAP_STREAM,
    "org.oton.test.misbehaving", "Misbehaving", "1.0.0", "Breaks the contract on request",
    misbehaving_consumes, misbehaving_commands, sizeof misbehaving_commands / sizeof misbehaving_commands[0], 0,
    misbehaving_create, misbehaving_destroy, misbehaving_on_event, misbehaving_on_media, misbehaving_on_command,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
#endif
};
#endif

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &misbehaving_descriptor;
}
