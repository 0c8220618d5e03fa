import ArgumentParser
import Foundation
import OtonHost

extension PluginsCommand {
    /// `oton plugins run PLUGIN --events FILE`: a plugin author's harness.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Feed scripted events, commands and audio to one plugin, without a station, and print what it published and answered."),
            discussion: HelpText.paragraphs(
                tr(
                    "The script has one JSON object a line: an event as --events and oton ctl subscribe print it ({\"kind\": \"track\", \"fields\": {\"artist\": \"A\", \"title\": \"B\"}}), a command ({\"command\": \"NAME\", \"args\": [\"…\"]}), or {\"audio\": true}, where the --audio WAV file (16-bit PCM) is fed to the PCM tap. Lines starting with # are skipped. Output: one JSON line for each event the plugin published (as --events prints it) and each command's reply ({\"command\", \"ok\", \"text\"}), in order. The plugin's I/O is real; its data and cache folders are temporary."
                ),
                tr(
                    "Exit status: 0 when the script ran, 1 when the plugin refused its config, blocked or the script is wrong (the reason on stderr), 2 for a usage error."
                ),
                HelpText.examples(
                    "oton plugins run ./libmine.so --events script.jsonl",
                    "oton plugins run org.example.level-meter --audio tone.wav --events audio.jsonl --plugin-config '{\"window_ms\": 500}'",
                    "oton plugins run ./liboton_half_gain.so --audio tone.wav --filtered half.wav")
            )
        )

        @Argument(help: ArgumentHelp(tr("The plugin: a path, a bare file name, or a plugin id from plugins.json")))
        var path: String

        @Option(name: .long, help: ArgumentHelp(tr("The script: JSON lines of events, commands and {\"audio\": true}; - reads standard input")))
        var events: String?

        @Option(name: .long, help: ArgumentHelp(tr("A 16-bit PCM WAV file, fed where the script says {\"audio\": true}")))
        var audio: String?

        @Option(
            name: .long,
            help: ArgumentHelp(
                tr("Run the plugin's filter over the --audio WAV file and write what it makes to this WAV file, with the time per buffer against the budget")
            ))
        var filtered: String?

        @Option(
            name: .customLong("plugin-config"), help: ArgumentHelp(tr("The plugin's config as a JSON object (default: its entry's in plugins.json, else {})")))
        var pluginConfig: String?

        @Option(name: .long, help: ArgumentHelp(tr("Time limit for one call into the plugin, in seconds")))
        var timeout: Double = 5

        @Option(name: .long, help: ArgumentHelp(tr("plugins.json whose ids and folders to use (default: the usual lookup)")))
        var config: String?

        func run() throws {
            guard timeout.isFinite, timeout > 0, timeout <= 600 else {
                Terminal.error("--timeout \(timeout) is out of range: give seconds from 0.1 to 600")
                throw ExitStatus.configuration
            }
            let library: String
            let configText: String
            let script: String
            do {
                var inspect = Inspect()
                inspect.path = path
                inspect.config = config
                library = try inspect.locate()
                do {
                    configText = try PluginConfigArgument.text(given: pluginConfig, plugin: path, configFile: config)
                } catch {
                    throw InspectFailure(description: tr("--plugin-config is not a JSON object") + ": \(error)")
                }
                guard events != nil || filtered != nil else {
                    throw InspectFailure(description: tr("give a script with --events FILE, or --filtered OUT.wav to run the plugin's filter"))
                }
                guard filtered == nil || audio != nil else {
                    throw InspectFailure(description: tr("--filtered needs the sound to filter: give --audio IN.wav"))
                }
                if let events {
                    let data = events == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: events)
                    guard let data else { throw InspectFailure(description: tr("{file}: cannot be read", ["file": events])) }
                    guard data.count <= PluginScriptStep.maximumBytes else {
                        throw InspectFailure(description: tr("{file}: larger than 16 MiB", ["file": events]))
                    }
                    script = String(decoding: data, as: UTF8.self)
                } else {
                    script = ""
                }
            } catch {
                Terminal.error("\(error)")
                throw ExitStatus.configuration
            }
            do throws(ValidationFailure) {
                let sound = try audio.map { path throws(ValidationFailure) in try WAVAudio(path: path) }
                let runner = PluginScriptRun(path: library, config: configText, limit: timeout, audio: sound, filtered: filtered) { line in
                    StandardOutput.write(line + "\n")
                }
                let outcome = try runner.run(script: script)
                if events != nil { Terminal.note(tr("{count} steps run", ["count": String(outcome.steps)])) }
                if let report = outcome.filter { Self.say(report) }
            } catch {
                Terminal.error(error.reason)
                throw ExitCode(1)
            }
        }

        /// The filter's time per buffer against its budget, as `--filtered` says it.
        private static func say(_ report: FilterDrive.Report) {
            func ms(_ nanoseconds: UInt64) -> String { String(format: "%.3f", Double(nanoseconds) / 1e6) }
            Terminal.note(
                tr(
                    "filter: {buffers} buffers of {frames} frames; time per buffer: median {median} ms, worst {worst} ms; budget {budget} ms (half of each buffer's duration, at least 2 ms)",
                    [
                        "buffers": String(report.buffers), "frames": String(report.frames), "median": ms(report.medianNanoseconds),
                        "worst": ms(report.worstNanoseconds), "budget": ms(report.budgetNanoseconds),
                    ]))
            if report.overBudget > 0 {
                Terminal.note(
                    tr(
                        "filter: {count} buffers took longer than their budget; oton bypasses a filter at its first call over it",
                        ["count": String(report.overBudget)]))
            }
        }
    }
}
