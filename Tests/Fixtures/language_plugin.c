/*
 * A test plugin in C99 that speaks the user's language through oton_host.language and
 * oton_host.translate (ABI 1.4), reading them only when OTON_HAS_FIELD says the host table has
 * them, as a plugin that must also load into older hosts does. Compiled by the tests with cc
 * against Sources/PluginAPI/include alone. No config.
 *
 * `oton ctl lang-say` replies, one line:
 *   "language=L translated=T same=S unknown-same=U null=N"
 *   L  oton_host.language ("-" when the table has no such field)
 *   T  translate("Sleep timer cancelled"), a message of the host's catalogues
 *   S  1 when T is the very pointer passed in (no translation), else 0
 *   U  1 when a message no catalogue has comes back as the very pointer passed in
 *   N  1 when translate(NULL) is NULL
 * `lang-fill` replies translate("Sleep timer: stop in {time} (fade {fade} s)") with its braces kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oton_plugin.h"

typedef struct speaker {
    const oton_host *host;
} speaker;

static const char known[] = "Sleep timer cancelled";
static const char unknown[] = "a message no catalogue has (language plugin)";

static oton_instance *speaker_create(const oton_host *host, const char *config, char *error, size_t error_size) {
    speaker *s = calloc(1, sizeof *s);
    (void)config;
    if (s == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    s->host = host;
    return s;
}

static void speaker_destroy(oton_instance *instance) { free(instance); }

static oton_status speaker_command(oton_instance *instance, const char *name, const char *args_json,
                                   oton_reply_fn reply, void *context) {
    const oton_host *host = ((speaker *)instance)->host;
    char line[1024];
    (void)args_json;
    if (!OTON_HAS_FIELD(host, oton_host, translate) || host->translate == NULL) {
        reply(context, "language=- (the host is older than ABI 1.4)");
        return OTON_OK;
    }
    if (strcmp(name, "lang-fill") == 0) {
        reply(context, host->translate(host, "Sleep timer: stop in {time} (fade {fade} s)"));
        return OTON_OK;
    }
    {
        const char *translated = host->translate(host, known);
        snprintf(line, sizeof line, "language=%s translated=%s same=%d unknown-same=%d null=%d",
                 host->language ? host->language : "(null)", translated, translated == known,
                 host->translate(host, unknown) == unknown, host->translate(host, NULL) == NULL);
    }
    reply(context, line);
    return OTON_OK;
}

static const oton_command_decl commands[] = {
    {sizeof(oton_command_decl), 0, "lang-say", "lang-say", "the language and a translated message"},
    {sizeof(oton_command_decl), 0, "lang-fill", "lang-fill", "a translated message with its placeholders"},
};

static const oton_plugin_descriptor descriptor = {
    sizeof(oton_plugin_descriptor), OTON_ABI_MAJOR, OTON_ABI_MINOR, OTON_TAP_NONE,
    "org.oton.test.language", "Language (test)", "1.0.0", "reads oton_host.language and translate",
    NULL, commands, 2, 0,
    speaker_create, speaker_destroy, NULL, NULL, speaker_command,
#if OTON_ABI_MINOR >= 6
    NULL, 0, 0, /* 1.6: settings, setting_count, reserved2 (none declared) */
    NULL,       /* 1.6: filter (none) */
#endif
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &descriptor;
}
