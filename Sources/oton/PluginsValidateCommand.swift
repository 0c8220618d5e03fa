import ArgumentParser
import Foundation
import OtonHost

extension PluginsCommand {
    /// `oton plugins validate PATH|ID`: runs a plugin through the contract, one child process per check.
    struct Validate: ParsableCommand {
        // Not yet in the message catalogues (tr): added with the next catalogue update.
        static let configuration = CommandConfiguration(
            abstract: tr("Run a plugin through the plugin contract, each check in a child process, and report every check."),
            discussion: HelpText.paragraphs(
                tr(
                    "Checks: the descriptor; create/destroy with empty, hostile and huge config; every declared command with bad arguments; a storm of every event kind it consumes; a leak check (heap growth per event, media buffer and command; file descriptors and threads left after destroy); media at its taps with DISCONT and format changes; its filter with a test tone (time against the budget, heap growth, finite samples within +18 dBFS, a crash on a later call, writes past the buffer); destroy while events are pending; no call into the host after destroy. Every call into the plugin has a time limit (--timeout). A crash or a hang fails that check only. Data and cache directories are temporary; requests reach no player."
                ),
                tr("Exit status: 0 when no check fails (the last line counts the skipped ones), 1 when one fails, 2 for a usage error."),
                HelpText.examples(
                    "oton plugins validate ./liboton_event_logger.so", "oton plugins validate org.oton.history --timeout 5",
                    "oton plugins validate ./libmine.so --plugin-config '{\"file\":\"/tmp/x.log\"}'")
            )
        )

        @Argument(help: ArgumentHelp(tr("The plugin: a path, a bare file name, or a plugin id from plugins.json")))
        var path: String

        @Option(name: .long, help: ArgumentHelp(tr("Time limit for one call into the plugin, in seconds")))
        var timeout: Double = 2

        @Option(
            name: .customLong("plugin-config"),
            help: ArgumentHelp(
                tr(
                    "The plugin's config as a JSON object, for the checks that need a running instance; the plugin's I/O is then real (its files, its network peers)"
                )))
        var pluginConfig: String?

        @Option(name: .long, help: ArgumentHelp(tr("plugins.json whose ids and folders to use (default: the usual lookup)")))
        var config: String?

        func run() throws {
            guard timeout.isFinite, timeout > 0, timeout <= 600 else {
                Terminal.error("--timeout \(timeout) is out of range: give seconds from 0.1 to 600, e.g. --timeout 2")
                throw ExitStatus.configuration
            }
            let configText: String
            do {
                configText = try PluginConfigArgument.text(given: pluginConfig, plugin: path, configFile: config)
            } catch {
                Terminal.error("--plugin-config is not a JSON object: \(error); give one like '{\"file\":\"/tmp/x.log\"}'")
                throw ExitStatus.configuration
            }
            let library: String
            do {
                var inspect = Inspect()
                inspect.path = path
                inspect.config = config
                library = URL(fileURLWithPath: try inspect.locate()).standardizedFileURL.resolvingSymlinksInPath().path
            } catch {
                Terminal.error("\(error)")
                throw ExitStatus.configuration
            }
            guard FileManager.default.fileExists(atPath: library) else {
                Terminal.error("\(library): no such file; give the path of a plugin library (.so)")
                throw ExitStatus.configuration
            }

            print("validating \(library)")
            var failures = 0
            var skipped: [ValidationCheck] = []
            for (check, outcome) in ValidationChild.runAll(library: library, config: configText, limit: timeout) {
                switch outcome {
                case let .pass(note): print("pass  \(check.title)" + (note.map { " (\($0))" } ?? ""))
                case let .skip(reason):
                    print("skip  \(check.title): \(reason)")
                    skipped.append(check)
                case let .warn(reason): print("warn  \(check.title): \(reason)")
                case let .fail(reason):
                    print("FAIL  \(check.title): \(reason)")
                    failures += 1
                }
            }
            print(ValidationSummary(failed: failures, skipped: skipped.map(\.rawValue)).line)
            if failures > 0 { throw ExitCode(1) }
        }
    }

    /// One check, run by `validate` in a child process. Not for people: the report goes to a file,
    /// and the plugin's config comes on standard input (a command line is for every local user to read).
    struct ValidateOne: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "validate-one", shouldDisplay: false)

        @Option(name: .long) var check: String
        @Option(name: .long) var report: String
        @Option(name: .long) var limit: Double = 2
        @Option(name: .customLong("config-bytes")) var configBytes: Int = 0
        @Argument var path: String

        func run() throws {
            guard let check = ValidationCheck(rawValue: check),
                let out = FileHandle(forWritingAtPath: report)
            else { throw ExitStatus.configuration }
            func line(_ text: String) {
                out.write(Data((text.replacingOccurrences(of: "\n", with: " ") + "\n").utf8))
            }
            let given = String(decoding: Self.read(configBytes, from: STDIN_FILENO), as: UTF8.self)
            // The parent made the working folder and removes it, even when this process crashes.
            let validator = PluginValidator(
                path: path, config: given.isEmpty ? "{}" : given, limit: limit,
                scratchParent: FileManager.default.currentDirectoryPath
            ) { line("phase\t" + $0) }
            switch validator.run(check) {
            case let .pass(note): line("pass\t" + (note ?? ""))
            case let .skip(reason): line("skip\t" + reason)
            case let .warn(reason): line("warn\t" + reason)
            case let .fail(reason): line("fail\t" + reason)
            }
            // A plugin may have left a thread stuck in a callback: do not wait for it.
            _exit(0)
        }

        /// `count` bytes from `fd`, or fewer when it ends first.
        private static func read(_ count: Int, from fd: Int32) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: max(count, 0))
            var done = 0
            while done < bytes.count {
                let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, $0.count - done) }
                if got > 0 {
                    done += got
                } else if got < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            return Array(bytes[..<done])
        }
    }
}
