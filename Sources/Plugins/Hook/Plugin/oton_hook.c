/*
 * libOtonHook.so (org.oton.hook): runs a command of yours on every track change.
 *
 * The command is a list of words (no shell: "command": ["/usr/local/bin/np", "--quiet"]); it gets
 * the track in its environment: OTON_EVENT=track, OTON_ARTIST, OTON_TITLE, OTON_STATION,
 * OTON_STREAM_URL, OTON_RAW_TITLE, OTON_SEQUENCE (a break — ads, a jingle — is not a track and runs
 * nothing), never in its arguments, so a title that starts with "-" is no option. Of oton's own
 * environment it gets PATH (a fixed one) and what a desktop notifier needs to reach the session:
 * DBUS_SESSION_BUS_ADDRESS, DISPLAY, WAYLAND_DISPLAY, XDG_RUNTIME_DIR, each when oton has it. Bounded: at most `max_running` at once (a change while they all run is skipped and
 * counted), each ended (its whole process group, SIGKILL) after `timeout_seconds`; its output goes
 * to /dev/null and how it ended to oton's log. The player never waits on it: the command starts
 * from the plugin's mailbox and a thread of the plugin's own reaps it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oton_hook.h"

enum { MAX_WORDS = 64, WORD = 1024, MAX_RUNNING = 8, ENV_TEXT = 4096, TRACK_VARIABLES = 8, PASSED = 4 };

/* Of oton's environment, what reaches the command besides the track: a notifier's way to the session. */
static const char *const passed_names[PASSED] = {"DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR"};

typedef struct child {
    pid_t pid;            /* 0: free slot */
    struct timespec started;
} child;

typedef struct hook {
    const oton_host *host;
    char words[MAX_WORDS][WORD];
    char *argv[MAX_WORDS + 1];
    long long timeout_seconds;
    long long max_running;
    pthread_mutex_t lock;  /* guards children, stopping, skipped */
    pthread_cond_t changed;
    child children[MAX_RUNNING];
    int stopping;
    unsigned long skipped, started;
    pthread_t reaper;
    char passed[PASSED][ENV_TEXT]; /* NAME=value of those oton has, read once in create */
    int passed_count;
} hook;

static const oton_setting_decl hook_settings[] = {
    {sizeof(oton_setting_decl), OTON_SETTING_STRINGS, "command", "the command and its arguments, without a shell", NULL, NULL, 0, 0, OTON_SETTING_REQUIRED, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_INTEGER, "timeout_seconds", "a run still going after this is ended (SIGKILL to its process group)", "10", NULL, 1, 3600, OTON_SETTING_HAS_RANGE, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_INTEGER, "max_running", "at most this many runs at once; a change beyond is skipped and counted", "2", NULL, 1, MAX_RUNNING, OTON_SETTING_HAS_RANGE, 0},
};

static double seconds_since(const struct timespec *then) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - then->tv_sec) + (double)(now.tv_nsec - then->tv_nsec) / 1e9;
}

/* The plugin's thread: reaps what ended, ends what ran too long, logs each. */
static void *reap(void *argument) {
    hook *self = argument;
    char line[256];
    pthread_mutex_lock(&self->lock);
    for (;;) {
        int running = 0;
        for (int index = 0; index < MAX_RUNNING; index++) {
            child *slot = &self->children[index];
            if (slot->pid == 0) continue;
            int status = 0;
            pid_t done = waitpid(slot->pid, &status, WNOHANG);
            if (done == slot->pid || (done < 0 && errno == ECHILD)) {
                if (done == slot->pid && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
                    snprintf(line, sizeof line, "hook exited with status %d", WEXITSTATUS(status));
                    self->host->log(self->host, OTON_LOG_WARNING, line);
                } else if (done == slot->pid && WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
                    snprintf(line, sizeof line, "hook ended by signal %d", WTERMSIG(status));
                    self->host->log(self->host, OTON_LOG_WARNING, line);
                }
                slot->pid = 0;
                continue;
            }
            running++;
            if (self->stopping || seconds_since(&slot->started) >= (double)self->timeout_seconds) {
                kill(-slot->pid, SIGKILL);
                kill(slot->pid, SIGKILL);
                if (!self->stopping) {
                    snprintf(line, sizeof line, "hook still running after %lld s: ended (SIGKILL to its process group)", self->timeout_seconds);
                    self->host->log(self->host, OTON_LOG_WARNING, line);
                }
                waitpid(slot->pid, &status, 0);
                slot->pid = 0;
                running--;
            }
        }
        if (self->stopping && running == 0) break;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&self->changed, &self->lock, &until);
    }
    pthread_mutex_unlock(&self->lock);
    return NULL;
}

static oton_instance *hook_create(const oton_host *host, const char *config, char *error, size_t error_size) {
    hook *self;
    oton_json_value value;
    if (!OTON_HAS_FIELD(host, oton_host, read_json) || host->read_json == NULL) {
        snprintf(error, error_size, "needs oton with plugin ABI 1.5 or newer");
        return NULL;
    }
    self = calloc(1, sizeof *self);
    if (self == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    self->host = host;
    self->timeout_seconds = 10;
    self->max_running = 2;
    memset(&value, 0, sizeof value);
    value.struct_size = sizeof value;
    value.type = OTON_JSON_ARRAY_LENGTH;
    if (host->read_json(host, config, "config.command", &value, error, error_size) != OTON_OK) goto refuse;
    if (!value.found || value.integer < 1 || value.integer > MAX_WORDS) {
        snprintf(error, error_size, "config.command must list the command and its arguments (1 to %d words), e.g. [\"/usr/local/bin/np\"]", MAX_WORDS);
        goto refuse;
    }
    long long count = value.integer;
    for (long long index = 0; index < count; index++) {
        char path[64];
        snprintf(path, sizeof path, "config.command[%lld]", index);
        memset(&value, 0, sizeof value);
        value.struct_size = sizeof value;
        value.type = OTON_JSON_STRING;
        value.text = self->words[index];
        value.text_size = WORD;
        if (host->read_json(host, config, path, &value, error, error_size) != OTON_OK) goto refuse;
        self->argv[index] = self->words[index];
    }
    self->argv[count] = NULL;
    if (self->words[0][0] != '/') {
        snprintf(error, error_size, "config.command[0] must be an absolute path (no shell and no PATH search), not \"%s\"", self->words[0]);
        goto refuse;
    }
    {
        const char *paths[] = {"config.timeout_seconds", "config.max_running"};
        long long *targets[] = {&self->timeout_seconds, &self->max_running};
        const double maxima[] = {3600, MAX_RUNNING};
        for (int index = 0; index < 2; index++) {
            memset(&value, 0, sizeof value);
            value.struct_size = sizeof value;
            value.type = OTON_JSON_INTEGER;
            value.minimum = 1;
            value.maximum = maxima[index];
            if (host->read_json(host, config, paths[index], &value, error, error_size) != OTON_OK) goto refuse;
            if (value.found) *targets[index] = value.integer;
        }
    }
    for (int index = 0; index < PASSED; index++) {
        const char *value = getenv(passed_names[index]);
        if (value == NULL) continue;
        int length = snprintf(self->passed[self->passed_count], ENV_TEXT, "%s=%s", passed_names[index], value);
        if (length > 0 && length < ENV_TEXT) self->passed_count++; /* a longer one is left out, not cut */
    }
    pthread_mutex_init(&self->lock, NULL);
    pthread_cond_init(&self->changed, NULL);
    if (pthread_create(&self->reaper, NULL, reap, self) != 0) {
        snprintf(error, error_size, "cannot start the hook's thread");
        pthread_cond_destroy(&self->changed);
        pthread_mutex_destroy(&self->lock);
        goto refuse;
    }
    return self;
refuse:
    free(self);
    return NULL;
}

static void hook_destroy(oton_instance *instance) {
    hook *self = instance;
    pthread_mutex_lock(&self->lock);
    self->stopping = 1;
    pthread_cond_signal(&self->changed);
    pthread_mutex_unlock(&self->lock);
    pthread_join(self->reaper, NULL);
    pthread_cond_destroy(&self->changed);
    pthread_mutex_destroy(&self->lock);
    free(self);
}

static void set(char *storage, char **slot, const char *name, const char *value) {
    snprintf(storage, ENV_TEXT, "%s=%s", name, value ? value : "");
    *slot = storage;
}

static void hook_on_event(oton_instance *instance, const oton_event *event) {
    hook *self = instance;
    const oton_track *track = event->payload;
    char environment[TRACK_VARIABLES][ENV_TEXT];
    char *envp[TRACK_VARIABLES + PASSED + 1];
    char sequence[32];
    int free_slot = -1;
    if (event->kind != OTON_EVENT_TRACK || !OTON_HAS_FIELD(track, oton_track, stream_url)) return;
    for (uint32_t index = 0; index < event->field_count; index++) {
        if (strcmp(event->fields[index].key, OTON_FIELD_BREAK) == 0) return; /* a break is not a track */
    }
    if (track->title == NULL && track->artist == NULL) return;
    snprintf(sequence, sizeof sequence, "%llu", (unsigned long long)track->sequence);
    set(environment[0], &envp[0], "OTON_EVENT", "track");
    set(environment[1], &envp[1], "OTON_ARTIST", track->artist);
    set(environment[2], &envp[2], "OTON_TITLE", track->title);
    set(environment[3], &envp[3], "OTON_STATION", track->station);
    set(environment[4], &envp[4], "OTON_STREAM_URL", track->stream_url);
    set(environment[5], &envp[5], "OTON_RAW_TITLE", track->raw_title);
    set(environment[6], &envp[6], "OTON_SEQUENCE", sequence);
    set(environment[7], &envp[7], "PATH", "/usr/local/bin:/usr/bin:/bin");
    for (int index = 0; index < self->passed_count; index++) envp[TRACK_VARIABLES + index] = self->passed[index];
    envp[TRACK_VARIABLES + self->passed_count] = NULL;

    pthread_mutex_lock(&self->lock);
    int running = 0;
    for (int index = 0; index < MAX_RUNNING; index++) {
        if (self->children[index].pid != 0) running++;
        else if (free_slot < 0) free_slot = index;
    }
    if (running >= self->max_running || free_slot < 0) {
        self->skipped++;
        if (self->skipped == 1 || self->skipped % 100 == 0) {
            char line[160];
            snprintf(line, sizeof line, "hook: %lld runs still going; this track change skipped (%lu so far)", self->max_running, self->skipped);
            self->host->log(self->host, OTON_LOG_WARNING, line);
        }
        pthread_mutex_unlock(&self->lock);
        return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    sigset_t none, defaults;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_init(&attributes);
    sigemptyset(&none);
    sigfillset(&defaults);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setpgroup(&attributes, 0); /* its own group: the timeout ends all of it */
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = 0;
    int failed = posix_spawn(&pid, self->argv[0], &actions, &attributes, self->argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (failed != 0) {
        char line[WORD + 64];
        snprintf(line, sizeof line, "hook: cannot run %s: %s", self->argv[0], strerror(failed));
        self->host->log(self->host, OTON_LOG_WARNING, line);
    } else {
        self->children[free_slot].pid = pid;
        clock_gettime(CLOCK_MONOTONIC, &self->children[free_slot].started);
        self->started++;
        pthread_cond_signal(&self->changed);
    }
    pthread_mutex_unlock(&self->lock);
}

static const char *const hook_consumes[] = {"track", NULL};

static const oton_plugin_descriptor hook_descriptor = {
    .struct_size = sizeof(oton_plugin_descriptor),
    .abi_major = OTON_ABI_MAJOR,
    .abi_minor = OTON_ABI_MINOR,
    .id = "org.oton.hook",
    .name = "Hook",
    .version = "0.1.0",
    .description = "Runs a command of yours on every track change, bounded and with a timeout",
    .consumes = hook_consumes,
    .create = hook_create,
    .destroy = hook_destroy,
    .on_event = hook_on_event,
    .settings = hook_settings,
    .setting_count = sizeof hook_settings / sizeof hook_settings[0],
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &hook_descriptor;
}
