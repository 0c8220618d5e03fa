/// The files `oton plugins new` writes: a C plugin project that builds against the installed SDK
/// (pkg-config oton-plugin) outside oton's tree and passes `oton plugins validate` as generated.
struct PluginProjectTemplate {
    enum Kind: String, CaseIterable {
        /// Writes the current track to a file, replaced atomically (a now-playing file for OBS).
        case sink
        /// Answers a control command (`oton ctl NAME-count`).
        case command
    }

    /// The project's name: [a-z0-9-], as typed.
    let name: String
    let id: String
    let kind: Kind

    /// [a-z0-9-]{1,40}, starting with a letter: a file name, a command name and (with - as _) a C identifier.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first >= 0x61, first <= 0x7A, name.utf8.count <= 40 else { return false }
        return name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }

    var symbol: String { name.replacingOccurrences(of: "-", with: "_") }
    var library: String { "lib\(symbol).so" }

    /// File name → contents.
    var files: [(name: String, text: String)] {
        [("Makefile", makefile), ("\(symbol).c", source), ("README.md", readme)]
    }

    private var makefile: String {
        """
        # Builds \(library) against the installed Oton plugin SDK (scripts/install puts
        # oton-plugin.pc under PREFIX/lib/pkgconfig; set PKG_CONFIG_PATH when PREFIX is not ~/.local or /usr).
        # CFLAGS is yours (make CFLAGS="-O2 -Werror"); what a plugin needs is in PLUGIN_CFLAGS.
        CC ?= cc
        CFLAGS ?= -O2 -Wall -Wextra -pedantic
        PLUGIN_CFLAGS = -std=c99 -D_POSIX_C_SOURCE=200809L -fPIC -fvisibility=hidden $(shell pkg-config --cflags oton-plugin)

        \(library): \(symbol).c
        \t$(CC) $(PLUGIN_CFLAGS) $(CFLAGS) -shared -o $@ $<

        check: \(library)
        \toton plugins validate ./\(library)

        clean:
        \trm -f \(library)

        .PHONY: check clean

        """
    }

    private var readme: String {
        """
        # \(name)

        An Oton plugin (\(kind == .sink ? "a sink: it writes the current track to a file, replaced atomically" : "a control command")),
        made by `oton plugins new \(name) --lang c --kind \(kind.rawValue)`.

        ```sh
        make            # builds \(library)
        make check      # oton plugins validate ./\(library)
        oton plugins inspect ./\(library)
        ```

        Add it to plugins.json:

        ```json
        {"id": "\(id)", "path": "\(library)"\(kind == .sink ? #", "config": {"file": "/tmp/now-playing.txt"}"# : "")}
        ```

        (a bare file name is looked for beside plugins.json and in ~/.local/share/oton/plugins).
        The contract is the header (`pkg-config --cflags oton-plugin`) and the plugin guide
        installed beside it (share/doc/oton/plugin-guide.md).

        """
    }

    private var source: String {
        var text = """
            /*
             * \(symbol).c — an Oton plugin made by `oton plugins new`. ABI 1.6: its settings are
             * declared (oton checks plugins.json against them before create()), its config is read with
             * oton_host.read_json, and it writes JSON-free text.
             */
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>

            #include "oton_plugin.h"

            typedef struct plugin {
                const oton_host *host;
                unsigned long tracks;
                char file[4096];
            } plugin;


            """
        switch kind {
        case .sink:
            text += """
                static const oton_setting_decl settings[] = {
                    {sizeof(oton_setting_decl), OTON_SETTING_STRING, "file",
                     "the file that holds the current \\"artist - title\\" (default: now-playing.txt in the plugin's data folder)",
                     NULL, NULL, 0, 0, 0, 0},
                };

                static const char *const consumes[] = {"track", NULL};

                /* Replaced atomically: a reader (OBS's text source) never sees half a line. */
                static void write_line(plugin *self, const char *line) {
                    char temporary[4200];
                    FILE *file;
                    snprintf(temporary, sizeof temporary, "%s.tmp", self->file);
                    file = fopen(temporary, "w");
                    if (file == NULL) {
                        self->host->log(self->host, OTON_LOG_WARNING, "cannot write the now-playing file");
                        return;
                    }
                    fprintf(file, "%s\\n", line);
                    if (fclose(file) != 0 || rename(temporary, self->file) != 0) {
                        self->host->log(self->host, OTON_LOG_WARNING, "cannot replace the now-playing file");
                        remove(temporary);
                    }
                }

                static void plugin_on_event(oton_instance *instance, const oton_event *event) {
                    plugin *self = instance;
                    const oton_track *track = event->payload;
                    char line[2048];
                    if (event->kind != OTON_EVENT_TRACK || !OTON_HAS_FIELD(track, oton_track, artist)) return;
                    self->tracks++;
                    snprintf(line, sizeof line, "%s%s%s", track->artist ? track->artist : "", track->artist && track->title ? " - " : "",
                             track->title ? track->title : "");
                    write_line(self, line);
                }


                """
        case .command:
            text += """
                static const oton_command_decl commands[] = {
                    {sizeof(oton_command_decl), 0, "\(name)-count", "\(name)-count", "how many tracks were heard"},
                };

                static const char *const consumes[] = {"track", NULL};

                static void plugin_on_event(oton_instance *instance, const oton_event *event) {
                    plugin *self = instance;
                    if (event->kind == OTON_EVENT_TRACK) self->tracks++;
                }

                /* PLUGIN MAILBOX. */
                static oton_status plugin_on_command(oton_instance *instance, const char *name, const char *args_json,
                                                     oton_reply_fn reply, void *reply_context) {
                    plugin *self = instance;
                    char text[64];
                    if (strcmp(name, "\(name)-count") != 0) return OTON_ERR_UNSUPPORTED;
                    if (strcmp(args_json, "[]") != 0) {
                        reply(reply_context, "\(name)-count takes no arguments");
                        return OTON_ERR_INVALID;
                    }
                    snprintf(text, sizeof text, "%lu tracks", self->tracks);
                    reply(reply_context, text);
                    return OTON_OK;
                }


                """
        }
        text += """
            /* MAIN THREAD. config_json is borrowed; error is the host's buffer. */
            static oton_instance *plugin_create(const oton_host *host, const char *config_json, char *error, size_t error_size) {
                plugin *self;
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

            """
        if kind == .sink {
            text += """
                    {
                        oton_json_value value;
                        memset(&value, 0, sizeof value);
                        value.struct_size = sizeof value;
                        value.type = OTON_JSON_STRING;
                        value.text = self->file;
                        value.text_size = sizeof self->file;
                        if (host->read_json(host, config_json, "config.file", &value, error, error_size) != OTON_OK) {
                            free(self);
                            return NULL;
                        }
                        if (!value.found) snprintf(self->file, sizeof self->file, "%s/now-playing.txt", host->data_dir);
                    }

                """
        } else {
            text += "    (void)config_json;\n"
        }
        text += """
                return self;
            }

            /* PLUGIN MAILBOX, last call. */
            static void plugin_destroy(oton_instance *instance) {
                free(instance);
            }

            static const oton_plugin_descriptor descriptor = {
                .struct_size = sizeof(oton_plugin_descriptor),
                .abi_major = OTON_ABI_MAJOR,
                .abi_minor = OTON_ABI_MINOR,
                .id = "\(id)",
                .name = "\(name)",
                .version = "0.1.0",
                .description = "\(kind == .sink ? "Writes the current track to a file" : "Counts the tracks heard")",
                .consumes = consumes,
                .create = plugin_create,
                .destroy = plugin_destroy,
                .on_event = plugin_on_event,

            """
        if kind == .sink {
            text += """
                    .settings = settings,
                    .setting_count = sizeof settings / sizeof settings[0],

                """
        } else {
            text += """
                    .commands = commands,
                    .command_count = sizeof commands / sizeof commands[0],
                    .on_command = plugin_on_command,

                """
        }
        text += """
            };

            OTON_EXPORT const oton_plugin_descriptor *oton_plugin_entry(void) {
                return &descriptor;
            }

            """
        return text
    }
}
