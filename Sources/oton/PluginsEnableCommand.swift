import ArgumentParser
import Foundation
import OtonHost

extension PluginsCommand {
    /// `oton plugins enable ID`: turns back on a plugin that oton went without since it crashed oton
    /// in-process (its lines leave `$XDG_STATE_HOME/oton/crashed-plugins`, ``PluginCrashRecord``).
    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Turn back on a plugin that oton starts without because it crashed oton."),
            discussion: HelpText.paragraphs(
                tr(
                    "A plugin running in oton's own process that crashes it (in a callback or its audio filter) is named on stderr, and every later start goes without it and says so. This forgets its crash: the next start loads it again. Whether plugins.json enables it is not changed."
                ),
                HelpText.examples("oton plugins enable org.example.gain")
            )
        )

        @Argument(help: ArgumentHelp(tr("The plugin's id in plugins.json")))
        var id: String

        func run() throws {
            guard let record = PluginCrashRecord.standard else {
                throw ValidationError(tr("no state folder: set HOME or XDG_STATE_HOME"))
            }
            guard try record.enable(id) else {
                throw ValidationError(
                    tr("{plugin} is not off for a crash (see {file}); whether it runs is plugins.json's \"enabled\"", ["plugin": id, "file": record.path]))
            }
            print(tr("{plugin} is on again: the next start of oton loads it", ["plugin": id]))
        }
    }
}
