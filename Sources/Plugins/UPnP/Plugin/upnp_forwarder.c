/*
 * libOtonUPnP.so: the library oton loads for org.oton.upnp. It holds no UPnP code; it loads
 * libOtonUPnPCore.so (beside it) and forwards every call to that library's descriptor.
 *
 * Why: GUPnP links libsoup 3, and libsoup refuses (aborts the process) to share a process with
 * libsoup 2.4, which oton's player loads for GStreamer's HTTP source. Inside oton's own process
 * the core would end oton, so create() loads it only in a process of the plugin's own
 * ("isolation": "process" runs it in `oton plugin-host`; `oton plugins validate` runs each check
 * in `oton plugins validate-one`), and otherwise fails with a reason that says what to change.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "upnp_forwarder.h"

/* The same English text as needsIsolationMessage in the core (the catalogues have it there). */
static const char needs_isolation[] =
    "the UPnP plugin must run in a process of its own: add \"isolation\": \"process\" to its entry in plugins.json "
    "(GUPnP's libsoup 3 cannot share oton's process with the player's libsoup 2.4)";

static pthread_once_t core_once = PTHREAD_ONCE_INIT;
static const oton_plugin_descriptor *core; /* written once under core_once */
static char core_error[512];

/* True in `oton plugin-host …` and `oton plugins validate-one …`, the processes of a plugin's own. */
static int runs_in_own_process(void) {
    char buffer[4096];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t size = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (size <= 0) return 0;
    buffer[size] = '\0';
    const char *arguments[3] = {NULL, NULL, NULL};
    const char *cursor = buffer;
    for (int index = 0; index < 3 && cursor < buffer + size; index++) {
        arguments[index] = cursor;
        cursor += strlen(cursor) + 1;
    }
    if (arguments[1] == NULL) return 0;
    if (strcmp(arguments[1], "plugin-host") == 0) return 1;
    return strcmp(arguments[1], "plugins") == 0 && arguments[2] != NULL && strcmp(arguments[2], "validate-one") == 0;
}

static void load_core(void) {
    Dl_info self;
    if (dladdr((const void *)&load_core, &self) == 0 || self.dli_fname == NULL) {
        snprintf(core_error, sizeof core_error, "cannot find where libOtonUPnP.so was loaded from");
        return;
    }
    char path[4096];
    const char *slash = strrchr(self.dli_fname, '/');
    int folder = slash == NULL ? 0 : (int)(slash - self.dli_fname) + 1;
    if (snprintf(path, sizeof path, "%.*slibOtonUPnPCore.so", folder, self.dli_fname) >= (int)sizeof path) {
        snprintf(core_error, sizeof core_error, "the plugin's folder name is too long");
        return;
    }
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(core_error, sizeof core_error, "cannot load %s: %s", path, reason != NULL ? reason : "unknown error");
        return;
    }
    oton_plugin_entry_fn entry = (oton_plugin_entry_fn)dlsym(library, "oton_upnp_core_entry");
    const oton_plugin_descriptor *descriptor = entry != NULL ? entry() : NULL;
    if (descriptor == NULL || descriptor->struct_size < OTON_DESCRIPTOR_SIZE_1_0 || descriptor->create == NULL ||
        descriptor->destroy == NULL) {
        snprintf(core_error, sizeof core_error, "%s has no usable oton_upnp_core_entry", path);
        return;
    }
    core = descriptor;
}

static oton_instance *create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    if (!runs_in_own_process() || dlopen("libsoup-2.4.so.1", RTLD_LAZY | RTLD_NOLOAD) != NULL) {
        const char *text = needs_isolation;
        if (OTON_HAS_FIELD(host, oton_host, translate) && host->translate != NULL) {
            const char *translated = host->translate(host, needs_isolation);
            if (translated != NULL) text = translated;
        }
        snprintf(error, error_size, "%s", text);
        return NULL;
    }
    pthread_once(&core_once, load_core);
    if (core == NULL) {
        snprintf(error, error_size, "%s", core_error);
        return NULL;
    }
    return core->create(host, config_json, error, error_size);
}

/* Every instance was made by the core (create() returns only its instances). */
static void destroy(oton_instance *instance) { core->destroy(instance); }

static void on_event(oton_instance *instance, const oton_event *event) {
    if (core->on_event != NULL) core->on_event(instance, event);
}

static oton_status on_command(oton_instance *instance, const char *name, const char *args_json,
                              oton_reply_fn reply, void *reply_context) {
    if (core->on_command == NULL) return OTON_ERR_UNSUPPORTED;
    return core->on_command(instance, name, args_json, reply, reply_context);
}

/* The core's descriptor, word for word (UPnPCoreEntry.swift): keep the two alike. */
static const char *const consumes[] = {"track", "state", NULL};
static const oton_command_decl commands[] = {{
    .struct_size = sizeof(oton_command_decl),
    .name = "cast",
    .usage = "cast list|to NAME|stop|status",
    .help = "list the UPnP/DLNA renderers on the network, cast the station to one (local playback pauses), stop casting, "
            "or say what is cast",
}};

static const oton_plugin_descriptor descriptor = {
    .struct_size = sizeof(oton_plugin_descriptor),
    .abi_major = OTON_ABI_MAJOR,
    .abi_minor = OTON_ABI_MINOR,
    .media_taps = OTON_TAP_NONE,
    .id = "org.oton.upnp",
    .name = "UPnP casting",
    .version = "0.1.0",
    .description = "Casts the station to a UPnP/DLNA renderer (a TV, receiver or speaker) found on the local network",
    .consumes = consumes,
    .commands = commands,
    .command_count = 1,
    .create = create,
    .destroy = destroy,
    .on_event = on_event,
    .on_media = NULL,
    .on_command = on_command,
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) { return &descriptor; }
