import ArgumentParser
import Foundation
import OtonHost

/// `oton record`: headless recording of one station with the file-sink plugin.
/// A recording is not listening: of the plugins plugins.json enables only the
/// ones recording needs run (artwork, for covers), plus those --with-plugin
/// names; the file sink is added (or its plugins.json entry enabled) with the
/// settings given here.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a station headless into a folder, one file per track (no sound device, no status line).",
        discussion: """
            Only the plugins recording needs run: the file sink, and artwork (covers in MP3 tags) when plugins.json enables it. \
            History, now playing, notifications and scrobbling do not: a recorded track was not heard. \
            Add one with --with-plugin ID (repeatable; its entry in plugins.json is used, enabled or not).

            --duration counts recorded audio, not time on the clock: --duration 4s writes 4 s of audio. \
            The burst a server sends on connecting (audio from just before oton connected, often several seconds) is kept and counts; \
            time spent reconnecting does not.

            File names are portable by default (they work on FAT/exFAT sticks and SMB shares): \
            : ? * " < > | \\ become look-alike characters, trailing dots and spaces go, CON, NUL, COM1… get a _. \
            --names posix keeps every character Linux allows.

            Reconnects forever with growing delay unless --retries is given. One line per finished track on standard output. \
            Exit codes: 0 done, 2 usage or configuration, 3 stream not playable, 4 recording failed (disk full, write error).
            """
    )

    static let pluginID = "org.oton.file-sink"
    static let pluginLibrary = "libOtonFileSink.so"

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Station name, http(s):// URL, or file. No argument records the default station.")
    var station: String?

    @Option(name: .long, help: "Folder to record into")
    var out: String

    @Flag(name: .long, inversion: .prefixedNo, help: "One file per track (default), or one file per connection")
    var split = true

    @Option(name: .long, help: "stream: the encoded stream as received (default); wav: decoded PCM")
    var format: String?

    @Option(name: .long, help: "Move each cut to the quietest moment within ± this many seconds of the title change (MP3, AAC, WAV)")
    var silenceWindow: Double?

    @Option(name: .long, help: "Start each track this many seconds early (files overlap)")
    var padBefore: Double?

    @Option(name: .long, help: "End each track this many seconds late (files overlap)")
    var padAfter: Double?

    @Flag(name: .long, help: "Write a CUE sheet beside each file (with --no-split: where each track begins)")
    var cue = false

    @Option(name: .long, help: "Stop after this much recorded audio (the server's connect burst counts, reconnect gaps do not): 90s, 30m, 2h, 1h30m")
    var duration: String?

    @Option(name: .long, help: "Stop after this much is written: 500M, 2G, or bytes")
    var maxSize: String?

    @Option(name: .long, help: "File name template (default {station}/{artist} - {title}.{ext})")
    var template: String?

    @Option(name: .long, help: "portable (default): names that work on FAT/exFAT and SMB; posix: keep every character Linux allows")
    var names: String?

    @Option(name: .customLong("with-plugin"), help: ArgumentHelp("Also run this plugin from plugins.json (repeatable); by default only the file sink and artwork run", valueName: "id"))
    var withPlugins: [String] = []

    @Option(name: .long, help: "Incomplete first and last tracks: incomplete (into incomplete/), drop or keep")
    var partial: String?

    @Option(name: .long, help: "Drop tracks shorter than this many seconds (default 5)")
    var minSeconds: Double?

    @Option(name: .long, help: "Stop recording when less than this many MB are free (default 64)")
    var diskFloor: Double?

    @Option(name: .long, help: "Write every bus event as one JSON line to FILE, or - for standard output")
    var events: String?

    @Option(name: .long, help: "Reconnect attempts after a failure (default: unlimited)")
    var retries: Int?

    func run() throws {
        options.bootstrapLogging()
        let config = try options.loadConfig()
        let chosen = try options.resolveStation(station, in: config)
        if let format, format != "stream" && format != "wav" {
            Terminal.error("--format \(format): use stream (the encoded stream as received) or wav (decoded PCM)")
            throw ExitStatus.configuration
        }
        if let names, names != "portable" && names != "posix" {
            Terminal.error("--names \(names): use portable (names that work on FAT/exFAT sticks and SMB shares) or posix (every character Linux allows)")
            throw ExitStatus.configuration
        }
        let stopAfter: Double?
        let maxBytes: Double?
        let otherPlugins: [PluginEntry]
        do {
            stopAfter = try duration.map { text throws(RecordArguments.Invalid) in try RecordArguments.seconds(text) }
            maxBytes = try maxSize.map { text throws(RecordArguments.Invalid) in try RecordArguments.bytes(text) }
            otherPlugins = try RecordArguments.plugins(config.plugins, withPlugins: withPlugins, fileSinkID: Self.pluginID)
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.configuration
        }
        // inf and nan parse as Doubles; the file sink checks each range, these it could not even receive as JSON.
        for (flag, value) in [("--silence-window", silenceWindow), ("--pad-before", padBefore), ("--pad-after", padAfter),
                              ("--min-seconds", minSeconds), ("--disk-floor", diskFloor)] {
            if let value, !value.isFinite {
                Terminal.error("\(flag) \(value): must be a finite number (see oton record --help for its range)")
                throw ExitStatus.configuration
            }
        }
        let outDirectory = out.hasPrefix("/") ? out : FileManager.default.currentDirectoryPath + "/" + out

        var sinkConfig: [String: JSONValue] = [:]
        if let existing = config.plugins.first(where: { $0.id == Self.pluginID }), case let .object(values) = existing.config {
            sinkConfig = values
        }
        sinkConfig["directory"] = .string(outDirectory)
        sinkConfig["split"] = .bool(split)
        sinkConfig["mode"] = .string("always")
        sinkConfig["quit_on_error"] = .bool(true)
        sinkConfig["station"] = .string(chosen.name)
        sinkConfig["stream_url"] = .string(chosen.url)
        if let format { sinkConfig["format"] = .string(format) }
        if cue { sinkConfig["cue"] = .bool(true) }
        if let silenceWindow { sinkConfig["silence_window"] = .number(silenceWindow) }
        if let padBefore { sinkConfig["pad_before"] = .number(padBefore) }
        if let padAfter { sinkConfig["pad_after"] = .number(padAfter) }
        if let template { sinkConfig["template"] = .string(template) }
        if let partial { sinkConfig["partial"] = .string(partial) }
        if let minSeconds { sinkConfig["min_seconds"] = .number(minSeconds) }
        if let diskFloor { sinkConfig["disk_floor_mb"] = .number(diskFloor) }
        if let maxBytes { sinkConfig["max_mb"] = .number(maxBytes / 1_048_576) }
        if let stopAfter { sinkConfig["max_seconds"] = .number(stopAfter) }
        if let names { sinkConfig["names"] = .string(names) }
        var recordConfig = config
        let path = config.plugins.first(where: { $0.id == Self.pluginID })?.path ?? Self.pluginLibrary
        recordConfig.plugins = otherPlugins
        recordConfig.plugins.append(PluginEntry(id: Self.pluginID, path: path, enabled: true, config: .object(sinkConfig), location: "oton record"))

        var playerOptions = Player.Options(headless: true)
        playerOptions.decodes = false // nobody listens: parse and tag the stream; decoded only when a plugin selects the PCM tap
        if let retries { playerOptions.reconnect.maxAttempts = max(retries, 0) }
        let session: HostSession
        do {
            session = try HostSession(config: recordConfig, station: chosen, options: playerOptions, eventsPath: events)
        } catch {
            Terminal.error("cannot write events to \(events ?? "?"): \(error.localizedDescription)")
            throw ExitStatus.configuration
        }
        var lines: RecordLogLines?
        var sinkFailure: String?
        let outcome = session.run { session in
            lines = RecordLogLines(bus: session.bus)
            if let report = session.plugins.reports.first(where: { $0.id == Self.pluginID }), case let .failed(error) = report.status {
                sinkFailure = error.description
                session.requestQuit()
            }
            // --duration is the file sink's: it stops after that much audio and asks the host to quit.
        }
        lines?.close()
        if let sinkFailure {
            Terminal.error("cannot record: \(sinkFailure)")
            throw ExitStatus.configuration
        }
        if let failure = lines?.recordingFailure {
            Terminal.error("recording failed: \(failure)")
            throw ExitStatus.recordingFailed
        }
        if case let .gaveUp(kind) = outcome {
            Terminal.error("cannot record \(chosen.url): \(kind.message)\n  \(kind.recoverySuggestion)")
            throw ExitStatus.notPlayable
        }
    }
}
