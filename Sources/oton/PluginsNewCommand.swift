import ArgumentParser
import Foundation
import OtonHost

extension PluginsCommand {
    /// `oton plugins new NAME`: a plugin project outside oton's tree.
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Make a new plugin project in a folder of its own: a C source, a Makefile that builds it against the installed SDK, and a README."),
            discussion: HelpText.paragraphs(
                tr(
                    "The project builds with make (the header through pkg-config oton-plugin, which scripts/install installs) and passes oton plugins validate as generated: make check runs it. --kind sink writes the current track to a file, replaced atomically (a now-playing file for OBS); --kind command answers a control command."
                ),
                HelpText.examples("oton plugins new now-playing-file", "oton plugins new track-counter --kind command --id org.example.counter")
            )
        )

        @Argument(help: ArgumentHelp(tr("The plugin's name: lower-case letters, digits and '-', starting with a letter; also the folder's name")))
        var name: String

        @Option(name: .long, help: ArgumentHelp(tr("The language: c")))
        var lang: String = "c"

        @Option(name: .long, help: ArgumentHelp(tr("What it does: sink or command")))
        var kind: String = "sink"

        @Option(name: .long, help: ArgumentHelp(tr("Its reverse-DNS id (default: org.example.NAME)")))
        var id: String?

        @Option(name: .long, help: ArgumentHelp(tr("The folder to make the project in (. is the current folder)")))
        var into: String = "."

        func run() throws {
            guard PluginProjectTemplate.isValidName(name) else {
                Terminal.error(
                    tr("\"{name}\" cannot name a plugin: use lower-case letters, digits and '-', starting with a letter, at most 40", ["name": name]))
                throw ExitStatus.configuration
            }
            guard lang == "c" else {
                Terminal.error(
                    tr(
                        "--lang {lang}: only c projects are made so far; a Swift plugin uses OtonPluginKit inside oton's package (docs/plugin-guide.md)",
                        ["lang": lang]))
                throw ExitStatus.configuration
            }
            guard let kind = PluginProjectTemplate.Kind(rawValue: kind) else {
                Terminal.error(tr("--kind {kind}: give sink or command", ["kind": kind]))
                throw ExitStatus.configuration
            }
            let id = id ?? "org.example.\(name)"
            guard EventKindRegistry.isNamespacedName(id) else {
                Terminal.error(tr("--id {id} is not a reverse-DNS name such as org.example.logger", ["id": id]))
                throw ExitStatus.configuration
            }
            let folder = (into as NSString).appendingPathComponent(name)
            guard !FileManager.default.fileExists(atPath: folder) else {
                Terminal.error(tr("{folder} already exists; nothing was written (pick another name or --into)", ["folder": folder]))
                throw ExitStatus.configuration
            }
            let template = PluginProjectTemplate(name: name, id: id, kind: kind)
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for file in template.files {
                    try AtomicFileWriter.write(Data(file.text.utf8), to: (folder as NSString).appendingPathComponent(file.name))
                }
            } catch {
                Terminal.error("\(folder): \(error)")
                throw ExitStatus.configuration
            }
            print(tr("made {folder}: cd {folder} && make && make check", ["folder": folder]))
        }
    }
}
