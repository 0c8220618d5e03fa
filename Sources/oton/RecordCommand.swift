import ArgumentParser
import FileSinkLogic
import Foundation
import OtonHost
import Synchronization

/// `oton record`: headless recording of one station, or of many in one process (one session each),
/// with the file-sink plugin.
/// A recording is not listening: of the plugins plugins.json enables only those
/// recording needs run (the file sink, added or enabled with the settings given
/// here, and the artwork plugin for covers), plus any named with --with-plugin.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: tr("Record a station headless into a folder, one file per track (no sound device, no status line)."),
        discussion: HelpText.paragraphs(
            tr("Reconnects forever with growing delay unless --retries is given. One line per finished track on standard output."),
            tr(
                "Several stations (names, URLs, --all, --stations FILE) are recorded by one process, each into its own folder under --out, with its own reconnects and index; `oton ctl status` lists them and `oton ctl record add|remove NAME` changes the set while it runs. --shard I/N keeps only the stations shard I of N owns (rendezvous hashing of the URL), so N recorders share a list with nothing else shared."
            ),
            tr(
                "Only the encoded stream is recorded (--format stream, no plugin asking for decoded audio), so the light engine reads it (libcurl, no GStreamer pipeline); HLS, WAV and --silence-window use GStreamer. --engine chooses by hand."
            ),
            tr(
                "A recording is not listening: only the file sink and the artwork plugin (for covers) run, so nothing is added to the listening history or scrobbled. --with-plugin ID runs another enabled plugin too."
            ),
            tr(
                "--wishlist keeps only the tracks on the wishlist (`oton wish add`), each whole from its first byte: every track is recorded and, when it ends, kept if it was a wish and dropped otherwise. A wish heard from its middle (the first track after connecting) is dropped unless --partial keep puts it into incomplete/. A wish already kept (the same artist and title, folded) is not kept again unless --again. `oton record --all --wishlist --out DIR` watches every station of plugins.json."
            ),
            tr(
                "--duration counts the audio recorded, not the clock. A server's burst (audio from before the start, which Icecast sends at once to a new listener) is kept and counted, as streamripper keeps it. If the station sends nothing, oton record still ends after twice the duration plus 30 s."
            ),
            tr("Exit codes: 0 done, 2 usage or configuration, 3 stream not playable, 4 recording failed (disk full, write error).")
        )
    )

    static let pluginID = "org.oton.file-sink"
    static let pluginLibrary = "libOtonFileSink.so"
    /// Enabled plugins that run while recording without being asked for: covers for the files.
    static let recordingPlugins: Set<String> = [pluginID, "org.oton.artwork"]
    /// The metrics plugin: in a recorder of several stations its `station` label is the session's own
    /// (its folder), not the stream's icy-name, which two stations may share (issue 39, N8).
    static let metricsPluginID = "org.oton.metrics"

    static func labelled(metrics entry: PluginEntry, as label: String) -> PluginEntry {
        guard entry.id == metricsPluginID, case var .object(members) = entry.config, members["station"] == nil else { return entry }
        members["station"] = .string(label)
        var labelled = entry
        labelled.config = .object(members)
        return labelled
    }

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp(tr("Station names, http(s):// URLs, or files. No argument records the default station.")))
    var stations: [String] = []

    @Flag(name: .long, help: ArgumentHelp(tr("Record every station of plugins.json")))
    var all = false

    @Option(name: .customLong("stations"), help: ArgumentHelp(tr("Record the stations of an .m3u or .pls file"), valueName: "file"))
    var stationsFile: String?

    @Option(name: .long, help: ArgumentHelp(tr("Keep only the stations shard I of N owns (rendezvous hashing of each URL)"), valueName: "I/N"))
    var shard: String?

    @Option(name: .long, help: ArgumentHelp(tr("Engine: auto (the light engine whenever only the encoded stream is recorded), light or gstreamer")))
    var engine: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            tr("Control socket name for `oton ctl --instance` (several stations, or one with this option; default: \"default\", or record-PID when taken)")))
    var instance: String?

    @Option(name: .long, help: ArgumentHelp(tr("Folder to record into")))
    var out: String

    @Flag(name: .long, inversion: .prefixedNo, help: ArgumentHelp(tr("One file per track, or (--no-split) one file per connection")))
    var split = true

    @Option(name: .long, help: ArgumentHelp(tr("stream: the encoded stream as received (default); wav: decoded PCM")))
    var format: String?

    @Option(name: .long, help: ArgumentHelp(tr("Move each cut to the quietest moment within +/- this many seconds of the title change (MP3, AAC, WAV)")))
    var silenceWindow: Double?

    @Option(name: .long, help: ArgumentHelp(tr("Start each track this many seconds early (files overlap)")))
    var padBefore: Double?

    @Option(name: .long, help: ArgumentHelp(tr("End each track this many seconds late (files overlap)")))
    var padAfter: Double?

    @Flag(name: .long, help: ArgumentHelp(tr("Write a CUE sheet beside each file (with --no-split: where each track begins)")))
    var cue = false

    @Option(name: .long, help: ArgumentHelp(tr("Stop after this much audio is recorded: 90s, 30m, 2h, 1h30m (the server's burst counts)")))
    var duration: String?

    @Option(
        name: .long,
        help: ArgumentHelp(tr("Also run this plugin enabled in plugins.json (repeatable); by default only the file sink and artwork run"), valueName: "id"))
    var withPlugin: [String] = []

    @Option(name: .long, help: ArgumentHelp(tr("Stop after this much is written: 500M, 2G, or bytes")))
    var maxSize: String?

    @Option(name: .long, help: ArgumentHelp(tr("File name template (default {station}/{artist} - {title}.{ext})")))
    var template: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            tr(
                "File names: portable (default; FAT, exFAT, SMB and Windows accept them: : ? * \" < > | \\ replaced, no trailing dots or spaces) or posix (every character Linux allows)"
            )))
    var names: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            tr(
                "Incomplete first and last tracks: incomplete (into incomplete/), drop or keep (with --wishlist: drop by default; keep puts a wish heard from its middle into incomplete/)"
            )))
    var partial: String?

    @Flag(name: .long, help: ArgumentHelp(tr("Keep only the tracks on the wishlist (oton wish add), whole from their first byte")))
    var wishlist = false

    @Flag(name: .long, help: ArgumentHelp(tr("With --wishlist: keep a wish even when the same track was kept before")))
    var again = false

    @Option(name: .long, help: ArgumentHelp(tr("Drop tracks shorter than this many seconds (default 5)")))
    var minSeconds: Double?

    @Option(name: .long, help: ArgumentHelp(tr("Stop recording when less than this many MB are free (default 64)")))
    var diskFloor: Double?

    @OptionGroup var archiveOptions: ArchiveOptions

    @OptionGroup var airWatchOptions: AirWatchOptions

    @OptionGroup var eventsAndRetries: EventsAndRetriesOptions
    var events: String? { eventsAndRetries.events }
    var retries: Int? { eventsAndRetries.retries }

    func run() throws {
        QuitSignals.installEarly()  // a SIGTERM during the start waits for the session instead of being lost
        options.bootstrapLogging()
        let config = try options.loadConfig()
        let chosenStations = try RecordStationList.choose(
            arguments: stations, all: all, file: stationsFile, shard: shard, config: config,
            options: options)
        let engineChoice =
            try engine.map { text throws -> EngineChoice in
                guard let choice = EngineChoice(rawValue: text) else {
                    Terminal.error("--engine \(text): use auto, light or gstreamer")
                    throw ExitStatus.configuration
                }
                return choice
            } ?? .auto
        if engineChoice == .light, format == "wav" || silenceWindow != nil {
            Terminal.error("--engine light records the encoded stream only; --format wav and --silence-window need GStreamer (use --engine auto)")
            throw ExitStatus.configuration
        }
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
        for (flag, value) in [
            ("--silence-window", silenceWindow), ("--pad-before", padBefore), ("--pad-after", padAfter),
            ("--min-seconds", minSeconds), ("--disk-floor", diskFloor),
        ] {
            if let value, !value.isFinite {
                Terminal.error("\(flag) \(value): must be a finite number (see oton record --help for its range)")
                throw ExitStatus.configuration
            }
        }
        let archiveConfig = try archiveOptions.sinkConfig().merging(try airWatchOptions.sinkConfig()) { $1 }
        let alertCommands = airWatchOptions.onAlert.map { BoundedCommands(command: $0) }
        defer { alertCommands?.stopAll() }  // what they started ends with oton
        let enabledIDs = Set(config.plugins.filter(\.enabled).map(\.id))
        if let unknown = withPlugin.first(where: { !enabledIDs.contains($0) }) {
            let known = enabledIDs.subtracting(Self.recordingPlugins).sorted()
            Terminal.error(
                "--with-plugin \(unknown): no enabled plugin has that id; "
                    + (known.isEmpty ? "plugins.json enables no other plugin" : "enabled: \(known.joined(separator: ", "))"))
            throw ExitStatus.configuration
        }
        let wishes = try wishlist ? loadWishes() : nil
        let outDirectory = out.hasPrefix("/") ? out : FileManager.default.currentDirectoryPath + "/" + out

        var sinkConfig: [String: JSONValue] = [:]
        if let existing = config.plugins.first(where: { $0.id == Self.pluginID }), case let .object(values) = existing.config {
            sinkConfig = values
        }
        sinkConfig[FileSinkKey.directory.rawValue] = .string(outDirectory)
        sinkConfig[FileSinkKey.split.rawValue] = .bool(split)
        sinkConfig[FileSinkKey.mode.rawValue] = .string("always")
        sinkConfig[FileSinkKey.quitOnError.rawValue] = .bool(true)
        if let format { sinkConfig[FileSinkKey.format.rawValue] = .string(format) }
        if cue { sinkConfig[FileSinkKey.cue.rawValue] = .bool(true) }
        if let silenceWindow { sinkConfig[FileSinkKey.silenceWindow.rawValue] = .number(silenceWindow) }
        if let padBefore { sinkConfig[FileSinkKey.padBefore.rawValue] = .number(padBefore) }
        if let padAfter { sinkConfig[FileSinkKey.padAfter.rawValue] = .number(padAfter) }
        if let template { sinkConfig[FileSinkKey.template.rawValue] = .string(template) }
        if let names { sinkConfig[FileSinkKey.names.rawValue] = .string(names) }
        if let partial { sinkConfig[FileSinkKey.partial.rawValue] = .string(partial) }
        if wishes != nil {
            sinkConfig[FileSinkKey.wishlist.rawValue] = .bool(true)
            if partial == nil { sinkConfig[FileSinkKey.partial.rawValue] = .string(PartialPolicy.drop.rawValue) }
        }
        if let minSeconds { sinkConfig[FileSinkKey.minSeconds.rawValue] = .number(minSeconds) }
        if let diskFloor { sinkConfig[FileSinkKey.diskFloorMb.rawValue] = .number(diskFloor) }
        if let maxBytes { sinkConfig[FileSinkKey.maxMb.rawValue] = .number(maxBytes / 1_048_576) }
        if let stopAfter { sinkConfig[FileSinkKey.maxSeconds.rawValue] = .number(stopAfter) }
        sinkConfig.merge(archiveConfig) { $1 }
        let wanted = Self.recordingPlugins.union(withPlugin)
        let otherPlugins = config.plugins.filter { wanted.contains($0.id) && $0.id != Self.pluginID }
        let path = config.plugins.first(where: { $0.id == Self.pluginID })?.path ?? Self.pluginLibrary
        let baseSinkConfig = sinkConfig
        /// The plugins of one station's session: the file sink told its station and folder, then the others.
        let plugins: @Sendable (Station, String?) -> [PluginEntry] = { station, folder in
            var sink = baseSinkConfig
            sink[FileSinkKey.station.rawValue] = .string(station.name)
            sink[FileSinkKey.streamUrl.rawValue] = .string(station.url)
            if let folder {
                // Several stations: each its own folder (and so its own index), the files straight in it unless --template says otherwise.
                sink[FileSinkKey.directory.rawValue] = .string(outDirectory + "/" + folder)
                sink[FileSinkKey.station.rawValue] = .string(folder)
                if sink[FileSinkKey.template.rawValue] == nil { sink[FileSinkKey.template.rawValue] = .string("{artist} - {title}.{ext}") }
                if sink[FileSinkKey.archive.rawValue] != nil && sink[FileSinkKey.archiveTemplate.rawValue] == nil {
                    sink[FileSinkKey.archiveTemplate.rawValue] = .string(ArchiveNaming.standardInStationFolder)
                }
                // Each station's objects under its folder's name, as on the disk.
                if case let .string(upload) = sink[FileSinkKey.upload.rawValue], let destination = S3Destination(upload) {
                    sink[FileSinkKey.upload.rawValue] = .string(destination.appending(folder).text)
                }
            }
            return [PluginEntry(id: Self.pluginID, path: path, enabled: true, config: .object(sink), location: "oton record")]
                + otherPlugins.map { entry in folder.map { Self.labelled(metrics: entry, as: $0) } ?? entry }
        }

        var playerOptions = Player.Options(headless: true)
        playerOptions.decodes = false  // nobody listens: parse and tag the stream; decoded only when a plugin selects the PCM tap
        playerOptions.engine = engineChoice
        if let retries { playerOptions.reconnect.maxAttempts = max(retries, 0) }
        // One station with --instance too: the socket it names is the many-stations recorder's (status, quit).
        if chosenStations.count > 1 || all || stationsFile != nil || shard != nil || instance != nil {
            return try recordMany(
                chosenStations, config: config, playerOptions: playerOptions, stopAfter: stopAfter, wishes: wishes,
                alertCommands: alertCommands
            ) { plugins($0, $1) }
        }
        let chosen = chosenStations[0]
        var recordConfig = config
        recordConfig.plugins = plugins(chosen, nil)
        let session: HostSession
        do {
            session = try HostSession(config: recordConfig, station: chosen, options: playerOptions, eventsPath: events)
        } catch {
            Terminal.error("cannot write events to \(events ?? "?"): \(error.localizedDescription)")
            throw ExitStatus.configuration
        }
        var lines: RecordLogLines?
        var watch: WishWatcher.Watch?
        var sinkFailure: String?
        var watchdog: RecorderWatchdog?
        let outcome = session.run { session in
            watchdog = RecorderWatchdog { [player = session.player] in RecorderStatusLine.text([player]) }
            watchdog?.ready()
            lines = RecordLogLines(bus: session.bus, onAlert: alertCommands)
            watch = wishes?.watch(bus: session.bus, station: chosen.name)
            if let report = session.plugins.reports.first(where: { $0.id == Self.pluginID }), case let .failed(error) = report.status {
                sinkFailure = error.description(in: .current)
                session.requestQuit()
                return
            }
            if let stopAfter {
                // The file sink stops at the audio time; this only ends a recording of a station that sends nothing.
                DispatchQueue.global().asyncAfter(deadline: .now() + stopAfter * 2 + 30) { [session] in session.requestQuit() }
            }
        }
        watchdog?.stopping()
        watch?.close()
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
            Terminal.error(
                tr("cannot record {url}: {message}", ["url": chosen.url, "message": kind.localizedMessage]) + "\n  " + kind.localizedFinalRecoverySuggestion)
            throw ExitStatus.notPlayable
        }
    }

    /// Several stations: one process, a session each (``MultiRecorder``).
    private func recordMany(
        _ stations: [Station], config: OtonConfig, playerOptions: Player.Options, stopAfter: Double?, wishes: WishWatcher?,
        alertCommands: BoundedCommands?, plugins: @escaping @Sendable (Station, String) -> [PluginEntry]
    ) throws {
        let shared: (handle: FileHandle?, lock: NSLock)?
        do {
            shared = try events.map(EventLineWriter.openShared)
        } catch {
            Terminal.error("cannot write events to \(events ?? "?"): \(error.localizedDescription)")
            throw ExitStatus.configuration
        }
        let recorder = MultiRecorder(catalogue: config, options: playerOptions, events: shared, plan: plugins) { session in
            let lines = RecordLogLines(bus: session.bus, station: session.label, onAlert: alertCommands)
            guard let wishes else { return lines }
            return WishRecordingObserver(lines: lines, watch: wishes.watch(bus: session.bus, station: session.station.name))
        }
        let silent = Mutex<Set<String>>([])
        if let stopAfter {
            DispatchQueue.global().asyncAfter(deadline: .now() + stopAfter * 2 + 30) { [recorder] in recorder.requestQuit() }
            // A station that has sent nothing when the others are done ends then, and says so (it held
            // the whole run to the safety limit above and ended without a word).
            let patience = stopAfter + Self.silentStationGrace
            DispatchQueue.global().asyncAfter(deadline: .now() + patience) { [recorder] in
                for (session, _) in recorder.sessions where session.player.snapshot.receivedBytes == 0 {
                    silent.withLock { _ = $0.insert(session.label) }
                    Terminal.note(tr("{station}: nothing received in {seconds} s; not recorded", ["station": session.label, "seconds": "\(Int(patience))"]))
                    session.requestQuit()
                }
            }
        }
        let control: HostSession.ControlInstance = instance.map { .named($0) } ?? .automatic(prefix: "record")
        let ended = recorder.run(stations, control: control)
        let nothingReceived = silent.withLock { $0 }
        if let failed = ended.first(where: { $0.recordingFailure != nil }) {
            Terminal.error("recording \(failed.label) failed: \(failed.recordingFailure ?? "")")
            throw ExitStatus.recordingFailed
        }
        let gaveUp = ended.filter { if case .gaveUp = $0.outcome { true } else { nothingReceived.contains($0.label) } }
        if !ended.isEmpty, gaveUp.count == ended.count {
            Terminal.error("no station could be recorded")
            throw ExitStatus.notPlayable
        }
    }

    /// With `--duration D` and several stations, one that has received nothing after D plus this is ended.
    static let silentStationGrace = 15.0

    /// --wishlist: the wishlist of this configuration and the wishes kept before; a usage error when
    /// the list is empty or a file cannot be read (nothing is recorded then).
    private func loadWishes() throws -> WishWatcher {
        guard split else {
            Terminal.error(tr("--wishlist keeps tracks one by one; it cannot be used with --no-split"))
            throw ExitStatus.configuration
        }
        do {
            let path = try WishlistFile.path(explicitConfig: options.config)
            let file = try WishlistFile.load(path)
            guard !file.wishes.isEmpty else {
                Terminal.error(tr("--wishlist: the wishlist {path} is empty; add wishes with `oton wish add \"Artist - Title\"`", ["path": path]))
                throw ExitStatus.configuration
            }
            return WishWatcher(wishes: file.wishes, kept: try KeptWishes(), again: again)
        } catch let failure as WishlistFile.Failure {
            Terminal.error(failure.description)
            throw ExitStatus.configuration
        } catch let failure as KeptWishes.Failure {
            Terminal.error(failure.description)
            throw ExitStatus.configuration
        }
    }

    func validate() throws {
        if again && !wishlist { throw ValidationError(tr("--again applies to --wishlist only")) }
    }
}
