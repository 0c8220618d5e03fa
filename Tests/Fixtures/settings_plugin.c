/*
 * settings_plugin.c — ABI 1.6: declares the keys of its config (oton_setting_decl), so that the
 * host checks plugins.json before create(). create() writes the config it got into config.file:
 * a test sees whether create() ran and with what.
 *
 * Settings: file (text, required), format (text, one of text/json, default "text"),
 * interval_ms (integer 100..60000, default 1000), verbose (true/false, default false),
 * tags (a list of text), token (text, secret).
 * Knobs (-D): SETTINGS_DUPLICATE_KEY declares "format" twice; SETTINGS_BAD_DEFAULT gives format
 * the default "xml", not among its choices.
 */
#include <stdio.h>
#include <stdlib.h>

#include "oton_plugin.h"

static const char *const formats[] = {"text", "json", NULL};

static const oton_setting_decl settings[] = {
    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "file", "the file create() writes its config into", NULL, NULL, 0, 0, OTON_SETTING_REQUIRED, 0},
#ifdef SETTINGS_BAD_DEFAULT
    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "format", "how lines are written", "\"xml\"", formats, 0, 0, 0, 0},
#else
    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "format", "how lines are written", "\"text\"", formats, 0, 0, 0, 0},
#endif
    {sizeof(oton_setting_decl), OTON_SETTING_INTEGER, "interval_ms", "how often to write", "1000", NULL, 100, 60000, OTON_SETTING_HAS_RANGE, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_BOOLEAN, "verbose", "write every event", "false", NULL, 0, 0, 0, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_STRINGS, "tags", "words to add to each line", NULL, NULL, 0, 0, 0, 0},
    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "token", "a service token", NULL, NULL, 0, 0, OTON_SETTING_SECRET, 0},
#ifdef SETTINGS_DUPLICATE_KEY
    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "format", "again", NULL, NULL, 0, 0, 0, 0},
#endif
};

static oton_instance *settings_create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
    char path[4096];
    oton_json_value value = {0};
    FILE *file;
    value.struct_size = sizeof value;
    value.type = OTON_JSON_STRING;
    value.text = path;
    value.text_size = sizeof path;
    if (host->read_json(host, config_json, "config.file", &value, error, error_size) != OTON_OK) return NULL;
    file = fopen(path, "w");
    if (file == NULL) {
        snprintf(error, error_size, "cannot write %s", path);
        return NULL;
    }
    fprintf(file, "created with %s\n", config_json);
    fclose(file);
    return malloc(1);
}

static void settings_destroy(oton_instance *instance) {
    free(instance);
}

static const oton_plugin_descriptor settings_descriptor = {
    .struct_size = sizeof(oton_plugin_descriptor),
    .abi_major = OTON_ABI_MAJOR,
    .abi_minor = OTON_ABI_MINOR,
    .id = "org.oton.test.settings",
    .name = "Settings",
    .version = "1.0.0",
    .description = "declares its settings",
    .create = settings_create,
    .destroy = settings_destroy,
    .settings = settings,
    .setting_count = sizeof settings / sizeof settings[0],
};

OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
    return &settings_descriptor;
}
