import ArgumentParser
import Foundation
import OtonHost

/// `oton config init|path`: where the configuration comes from, and a file to start from.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: tr("Show which plugins.json is in use, or write the built-in default to edit."),
        subcommands: [Path.self, Init.self]
    )

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Print the configuration file in use and why it was chosen."))

        @Option(name: .long, help: ArgumentHelp(tr("plugins.json to use instead of the lookup")))
        var config: String?

        func run() throws {
            do {
                switch try ConfigLoader.locate(explicit: config) {
                case let .file(file, reason):
                    print(URL(fileURLWithPath: file).standardizedFileURL.path)
                    note(reason)
                case let .builtIn(tried):
                    print(BuiltInConfig.name)
                    note("no plugins.json found (looked at: \(tried.joined(separator: ", "))); `oton config init` writes one to edit")
                }
            } catch {
                Terminal.error(error.description)
                throw ExitStatus.configuration
            }
        }
    }

    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Write the built-in default to $XDG_CONFIG_HOME/oton/plugins.json (never over an existing file).")
        )

        @Argument(help: ArgumentHelp(tr("Where to write it instead (a file path).")))
        var path: String?

        func run() throws {
            // The file `oton play` reads (XDGPaths: a relative XDG_CONFIG_HOME is ignored, as the spec says).
            guard let target = path ?? XDGPaths().userConfigFile else {
                Terminal.error("neither XDG_CONFIG_HOME nor HOME is set; pass a path: oton config init FILE")
                throw ExitStatus.configuration
            }
            let directory = (target as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: directory.isEmpty ? "." : directory, withIntermediateDirectories: true)
            } catch {
                Terminal.error("cannot create \(directory): \(error.localizedDescription)")
                throw ExitStatus.configuration
            }
            // O_EXCL: never over an existing file, not even one that appears meanwhile.
            let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                let reason = errno == EEXIST ? "it already exists; edit it, or move it away first" : String(cString: strerror(errno))
                Terminal.error("not writing \(target): \(reason)")
                throw ExitStatus.configuration
            }
            let bytes = Array(BuiltInConfig.text.utf8)
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            let synced = fsync(fd) == 0
            close(fd)
            guard written == bytes.count, synced else {
                unlink(target)
                Terminal.error("could not write \(target) completely; nothing was left behind")
                throw ExitStatus.configuration
            }
            print(target)
        }
    }
}

/// A line for the reader on standard error (standard output carries only the answer).
private func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
