/*
 * A test plugin in C99 that runs control commands through oton_host.run_command (ABI 1.3),
 * compiled by the tests with cc against Sources/PluginAPI/include alone.
 *
 * Config: {"log": "PATH"}, a file it appends lines "CALL STATUS [REPLY]" to:
 *   in create(), before its mailbox runs (so no reply can arrive yet):
 *     "null-name STATUS"          run_command with a NULL name             (expects -1, INVALID)
 *     "bad-args STATUS"           args_json that is not an array of strings (expects -1)
 *     "subscribe STATUS"          "subscribe", a stream and not a reply    (expects -2, UNSUPPORTED)
 *     "queued N"                  how many `status` commands were accepted before OTON_ERR_BUSY
 *                                 (expects 16: the replies wait for the mailbox)
 *     "busy STATUS"               the one after those                      (expects -3, BUSY)
 *   later, on the plugin's mailbox:
 *     "done-status STATUS REPLY"  each `status` reply (16 of them)
 *     "done-unknown STATUS REPLY" `no-such-command`, asked after the first reply (expects -4, FAILED)
 *   `oton ctl runner-run ARGS…` runs its own `runner-echo` with ARGS through run_command and
 *   logs "done-run STATUS REPLY"; `runner-echo ARGS…` replies "echo " and its arguments' JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oton_plugin.h"

typedef struct runner {
    const oton_host *host;
    FILE *log;
} runner;

static void say(runner *r, const char *call, oton_status status, const char *reply) {
    fprintf(r->log, "%s %d%s%s\n", call, (int)status, reply ? " " : "", reply ? reply : "");
    fflush(r->log);
}

static void done_unknown(void *user, oton_status status, const char *reply);

static void done_status(void *user, oton_status status, const char *reply) {
    runner *r = user;
    static int asked;
    say(r, "done-status", status, reply);
    if (!asked) { /* the queue has room again: ask for a command nobody has */
        asked = 1;
        say(r, "unknown-queued", r->host->run_command(r->host, "no-such-command", "[]", done_unknown, r), NULL);
    }
}
static void done_unknown(void *user, oton_status status, const char *reply) { say(user, "done-unknown", status, reply); }
static void done_run(void *user, oton_status status, const char *reply) { say(user, "done-run", status, reply); }

static oton_instance *runner_create(const oton_host *host, const char *config, char *error, size_t error_size) {
    const char *at = strstr(config, "\"log\"");
    const char *start, *end;
    char path[1024];
    runner *r;
    int queued = 0;
    oton_status status;
    if (!OTON_HAS_FIELD(host, oton_host, run_command) || host->run_command == NULL) {
        snprintf(error, error_size, "this host has no run_command (ABI 1.3)");
        return NULL;
    }
    if (at == NULL || (start = strchr(at + 5, '"')) == NULL || (end = strchr(start + 1, '"')) == NULL
        || (size_t)(end - start - 1) >= sizeof path) {
        snprintf(error, error_size, "config needs \"log\": a file path");
        return NULL;
    }
    memcpy(path, start + 1, (size_t)(end - start - 1));
    path[end - start - 1] = '\0';
    r = calloc(1, sizeof *r);
    r->host = host;
    r->log = fopen(path, "a");
    if (r->log == NULL) {
        snprintf(error, error_size, "cannot open %s", path);
        free(r);
        return NULL;
    }
    say(r, "null-name", host->run_command(host, NULL, NULL, NULL, NULL), NULL);
    say(r, "bad-args", host->run_command(host, "status", "{\"not\": \"an array\"}", NULL, NULL), NULL);
    say(r, "subscribe", host->run_command(host, "subscribe", NULL, NULL, NULL), NULL);
    while ((status = host->run_command(host, "status", NULL, done_status, r)) == OTON_OK && queued < 100) queued++;
    fprintf(r->log, "queued %d\n", queued);
    say(r, "busy", status, NULL);
    return r;
}

static void runner_destroy(oton_instance *instance) {
    runner *r = instance;
    fclose(r->log);
    free(r);
}

static oton_status runner_command(oton_instance *instance, const char *name, const char *args,
                                  oton_reply_fn reply, void *context) {
    runner *r = instance;
    if (strcmp(name, "runner-echo") == 0) {
        reply(context, "echo ");
        reply(context, args);
        return OTON_OK;
    }
    if (strcmp(name, "runner-run") == 0) {
        /* Its own command, from inside on_command: the host runs it once this call has returned. */
        oton_status status = r->host->run_command(r->host, "runner-echo", args, done_run, r);
        reply(context, status == OTON_OK ? "queued runner-echo" : "run_command refused runner-echo");
        return status;
    }
    return OTON_ERR_UNSUPPORTED;
}

static const oton_command_decl commands[] = {
    {sizeof(oton_command_decl), 0, "runner-echo", "runner-echo ARGS…", "replies with its arguments as JSON"},
    {sizeof(oton_command_decl), 0, "runner-run", "runner-run ARGS…", "runs runner-echo ARGS… through run_command"},
};

static const oton_plugin_descriptor descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_NONE,
    "org.oton.test.command-runner", "Command runner (test)", "1.0.0", "runs control commands through run_command",
    NULL, commands, 2, 0,
    runner_create, runner_destroy, NULL, NULL, runner_command,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
#endif
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &descriptor;
}
