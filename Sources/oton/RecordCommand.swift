import ArgumentParser
import FileSinkLogic
import Foundation
import OtonHost

/// `oton record`: headless recording of one station with the file-sink plugin.
/// A recording is not listening: of the plugins plugins.json enables only those
/// recording needs run (the file sink, added or enabled with the settings given
/// here, and the artwork plugin for covers), plus any named with --with-plugin.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: tr("Record a station headless into a folder, one file per track (no sound device, no status line)."),
        discussion: """
        Reconnects forever with growing delay unless --retries is given. One line per finished track on standard output.

        A recording is not listening: only the file sink and the artwork plugin (for covers) run, so nothing \
        is added to the listening history or scrobbled. --with-plugin ID runs another enabled plugin too.

        --duration counts the audio recorded, not the clock. A server's burst (audio from before the start, \
        which Icecast sends at once to a new listener) is kept and counted, as streamripper keeps it. If \
        the station sends nothing, oton record still ends after twice the duration plus 30 s.

        Exit codes: 0 done, 2 usage or configuration, 3 stream not playable, 4 recording failed (disk full, write error).
        """
    )

    static let pluginID = "org.oton.file-sink"
    static let pluginLibrary = "libOtonFileSink.so"
    /// Enabled plugins that run while recording without being asked for: covers for the files.
    static let recordingPlugins: Set<String> = [pluginID, "org.oton.artwork"]

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Station name, http(s):// URL, or file. No argument records the default station.")
    var station: String?

    @Option(name: .long, help: "Folder to record into")
    var out: String

    @Flag(name: .long, inversion: .prefixedNo, help: "One file per track, or (--no-split) one file per connection")
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

    @Option(name: .long, help: "Stop after this much audio is recorded: 90s, 30m, 2h, 1h30m (the server's burst counts)")
    var duration: String?

    @Option(name: .long, help: ArgumentHelp("Also run this plugin enabled in plugins.json (repeatable); by default only the file sink and artwork run", valueName: "id"))
    var withPlugin: [String] = []

    @Option(name: .long, help: "Stop after this much is written: 500M, 2G, or bytes")
    var maxSize: String?

    @Option(name: .long, help: "File name template (default {station}/{artist} - {title}.{ext})")
    var template: String?

    @Option(name: .long, help: "File names: portable (default; FAT, exFAT, SMB and Windows accept them: : ? * \" < > | \\ replaced, no trailing dots or spaces) or posix (every character Linux allows)")
    var names: String?

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
        let stopAfter: Double?
        let maxBytes: Double?
        do {
            stopAfter = try duration.map { text throws(RecordArguments.Invalid) in try RecordArguments.seconds(text) }
            maxBytes = try maxSize.map { text throws(RecordArguments.Invalid) in try RecordArguments.bytes(text) }
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
        let enabledIDs = Set(config.plugins.filter(\.enabled).map(\.id))
        if let unknown = withPlugin.first(where: { !enabledIDs.contains($0) }) {
            let known = enabledIDs.subtracting(Self.recordingPlugins).sorted()
            Terminal.error("--with-plugin \(unknown): no enabled plugin has that id; " + (known.isEmpty ? "plugins.json enables no other plugin" : "enabled: \(known.joined(separator: ", "))"))
            throw ExitStatus.configuration
        }
        let outDirectory = out.hasPrefix("/") ? out : FileManager.default.currentDirectoryPath + "/" + out

        var sinkConfig: [String: JSONValue] = [:]
        if let existing = config.plugins.first(where: { $0.id == Self.pluginID }), case let .object(values) = existing.config {
            sinkConfig = values
        }
        sinkConfig[FileSinkKey.directory.rawValue] = .string(outDirectory)
        sinkConfig[FileSinkKey.split.rawValue] = .bool(split)
        sinkConfig[FileSinkKey.mode.rawValue] = .string("always")
        sinkConfig[FileSinkKey.quitOnError.rawValue] = .bool(true)
        sinkConfig[FileSinkKey.station.rawValue] = .string(chosen.name)
        sinkConfig[FileSinkKey.streamUrl.rawValue] = .string(chosen.url)
        if let format { sinkConfig[FileSinkKey.format.rawValue] = .string(format) }
        if cue { sinkConfig[FileSinkKey.cue.rawValue] = .bool(true) }
        if let silenceWindow { sinkConfig[FileSinkKey.silenceWindow.rawValue] = .number(silenceWindow) }
        if let padBefore { sinkConfig[FileSinkKey.padBefore.rawValue] = .number(padBefore) }
        if let padAfter { sinkConfig[FileSinkKey.padAfter.rawValue] = .number(padAfter) }
        if let template { sinkConfig[FileSinkKey.template.rawValue] = .string(template) }
        if let names { sinkConfig[FileSinkKey.names.rawValue] = .string(names) }
        if let partial { sinkConfig[FileSinkKey.partial.rawValue] = .string(partial) }
        if let minSeconds { sinkConfig[FileSinkKey.minSeconds.rawValue] = .number(minSeconds) }
        if let diskFloor { sinkConfig[FileSinkKey.diskFloorMb.rawValue] = .number(diskFloor) }
        if let maxBytes { sinkConfig[FileSinkKey.maxMb.rawValue] = .number(maxBytes / 1_048_576) }
        if let stopAfter { sinkConfig[FileSinkKey.maxSeconds.rawValue] = .number(stopAfter) }
        var recordConfig = config
        let wanted = Self.recordingPlugins.union(withPlugin)
        recordConfig.plugins.removeAll { !wanted.contains($0.id) }
        let path = config.plugins.first(where: { $0.id == Self.pluginID })?.path ?? Self.pluginLibrary
        recordConfig.plugins.removeAll { $0.id == Self.pluginID }
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
                return
            }
            if let stopAfter {
                // The file sink stops at the audio time; this only ends a recording of a station that sends nothing.
                DispatchQueue.global().asyncAfter(deadline: .now() + stopAfter * 2 + 30) { [session] in session.requestQuit() }
            }
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
        if case let .gaveUp(kind, _) = outcome {
            Terminal.error(tr("cannot record {url}: {message}", ["url": chosen.url, "message": kind.localizedMessage]) + "\n  " + kind.localizedFinalRecoverySuggestion)
            throw ExitStatus.notPlayable
        }
    }
}
