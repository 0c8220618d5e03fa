import ArgumentParser
import Foundation
import OtonHost

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: tr("Play a station (by name from plugins.json), a URL or a file. No argument plays the default station."),
        discussion: HelpText.paragraphs(
            tr(
                "Keys under the status line: ? keys; space pause/resume; + - volume up/down 5 %; n p next / previous station; 1 to 9 station by number; s sleep timer presets; c cancel the sleep timer; h share the track; r record the track; Left Right back / on 10 s; L live (timeshift); q quit."
            ),
            tr("Volume is in percent: 50 or 50%, 0 to 100, up to 150 amplified."),
            tr(
                "Exit codes: 0 normal, 1 --search found nothing or could not reach the directory, 2 usage or configuration error, 3 stream not playable after the retries."
            ),
            HelpText.examples(
                "oton play                              # " + tr("the default station"),
                "oton play \"Oton FM\" --volume 60%",
                "oton play https://host/stream.mp3 --no-tui",
                "oton play --headless --events events.jsonl",
                "oton play --search \"radio paradise\"     # " + tr("the first result of the station directory"))
        )
    )

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp(tr("Station name, http(s):// URL, or file")))
    var station: String?

    @Option(name: .long, help: ArgumentHelp(tr("Play the first station the Radio Browser directory finds for these words"), valueName: "query"))
    var search: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            tr("Radio Browser server for --search (default: \"directory_server\" in plugins.json, else DNS)"),
            valueName: "url"))
    var directoryServer: String?

    @Flag(name: .long, help: ArgumentHelp(tr("No sound device (real time into a fake sink) and no status line: for servers and recording")))
    var headless = false

    @Flag(name: .long, help: ArgumentHelp(tr("Log lines instead of the one-line terminal status")))
    var noTui = false

    @OptionGroup var eventsAndRetries: EventsAndRetriesOptions
    var events: String? { eventsAndRetries.events }
    var retries: Int? { eventsAndRetries.retries }

    @Option(
        name: .long,
        help: ArgumentHelp(tr("Start volume in percent: 0 to 100, up to 150 amplified (50 or 50%); without it, the volume set last"), valueName: "percent"),
        transform: StartVolume.percent)
    var volume: Int?

    @Option(
        name: .long, help: ArgumentHelp(tr("Rise from silence to the volume over this long once the station plays: 30s, 2m"), valueName: "duration"),
        transform: FadeInArgument.seconds)
    var fadeIn: Int?

    @Flag(
        name: .long,
        help: ArgumentHelp(
            tr(
                "Play as an alarm (what `oton alarm` timers run): never silent, a built-in tone when the station does not play within 20 s; a running oton makes way"
            )))
    var alarm = false

    @Flag(name: .long, help: ArgumentHelp(tr("Start with loudness levelling off (every station at its own level; `oton ctl level on` turns it on)")))
    var noLevel = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            tr(
                "Keep this much of the stream to pause and rewind (`oton ctl seek -30s`): 30m (unset), 2h; 0 turns it off. Overrides \"timeshift\" in plugins.json"
            ), valueName: "duration"),
        transform: { text in
            guard let settings = TimeshiftSettings(text: text) else { throw ValidationError("--timeshift \(text): " + TimeshiftSettings.problem) }
            return settings
        })
    var timeshift: TimeshiftSettings?

    @Option(name: .long, help: ArgumentHelp(tr("GStreamer audio output instead of the automatic choice: pulsesink, pipewiresink, alsasink, …")))
    var audioSink: String?

    @Option(name: .long, help: ArgumentHelp(tr("Control socket name for `oton ctl --instance` (default: \"default\", or play-PID when taken)")))
    var instance: String?

    @Flag(name: .long, help: ArgumentHelp(tr("Open no control socket")))
    var noControl = false

    /// What `oton window` starts its player with: its standard input is a pipe only the window
    /// holds, so the player quits when the window does, or dies.
    @Flag(name: .long, help: ArgumentHelp(tr("Quit when standard input closes (the window that started this oton has gone)"), visibility: .hidden))
    var quitWhenStdinCloses = false

    /// What the window writes into that pipe before it closes it to leave the player playing.
    static let keepPlayingLine = "keep-playing\n"

    func validate() throws {
        if search != nil, station != nil { throw ValidationError(tr("give a station or --search QUERY, not both")) }
        if directoryServer != nil, search == nil { throw ValidationError(tr("--directory-server is for --search")) }
    }

    /// The first result of the directory search; its play is counted in the background.
    private func searchedStation(_ query: String) throws -> Station {
        let client = try DirectoryServerOptions.client(server: directoryServer, config: options.config)
        let found = try DirectorySearchRunner.search(DirectorySearchQuery(name: query, limit: 1), with: client)[0]
        DirectorySearchRunner.countPlay(of: found, with: client)
        return found.station
    }

    func run() throws {
        QuitSignals.installEarly(endingStuckStarts: true)  // a SIGTERM during the start waits for the session instead of being lost
        let interactive = !headless && !noTui && isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0 && events != "-"
        options.bootstrapLogging(terminal: interactive)
        let config: OtonConfig
        let chosen: Station
        if alarm && search == nil {
            (config, chosen) = alarmStation()
        } else {
            config = try options.loadConfig()
            chosen = try search.map { try searchedStation($0) } ?? options.resolveStation(station, in: config)
        }
        // The chain's LV2 plugins, each read from its own bundle (the first start after an install reads every
        // bundle's manifest to index them): before the warm-up thread, which owns the flag during gst_init,
        // so that a quit signal meanwhile ends oton at once, as inside gst_init (issue 53 §6).
        var effects: (effects: [EffectSettings], problems: [String])?
        if !config.effects.isEmpty {
            audioStartIsPreparingPlugins = 1
            effects = EffectCatalogue.usable(config.effects)
            audioStartIsPreparingPlugins = 0
        }
        // Only once the station is known: a usage error exits while no other thread runs (exit() while
        // the warm-up thread was inside GStreamer's or GIO's initialisation aborted 1 run in 40 under load).
        GLibMainLoop.warmUp()
        // Without --volume, the volume the listener set last (an alarm names its own and keeps it to itself).
        let volumeMemory = VolumeMemory()
        let startPercent = volume ?? (alarm ? nil : volumeMemory.lastPercent()) ?? 100
        var playerOptions = Player.Options(headless: headless, volume: Double(startPercent) / 100)
        if !alarm { playerOptions.volumeMemory = volumeMemory }
        if alarm || fadeIn != nil {
            playerOptions.wakeUp = WakeUp(fadeMilliseconds: (fadeIn ?? 0) * 1000, toneAfter: alarm ? WakeUp.alarmToneAfter : nil)
        }
        playerOptions.levelling = config.loudness
        if noLevel { playerOptions.levelling?.enabled = false }
        playerOptions.loudnessMemory = LoudnessMemory()
        playerOptions.timeshift = alarm ? nil : timeshift ?? config.timeshift
        if let chain = effects {
            for problem in chain.problems { Terminal.error(problem) }
            playerOptions.effects = chain.effects
        }
        if alarm, !noControl, instance == nil || instance == "default" { takeOver() }
        if let retries {
            // A limit for scripts: as many tries as asked, 2 s, 4 s, 6 s … apart; without one a listener's player never gives up.
            if headless { playerOptions.reconnect.maxAttempts = max(retries, 0) } else { playerOptions.reconnect = .limited(retries) }
        }
        if let audioSink {
            guard StreamPipeline.hasElement(audioSink) else {
                Terminal.error(
                    "--audio-sink \(audioSink): no such GStreamer element here; try pulsesink, pipewiresink or alsasink (gst-inspect-1.0 lists them)")
                throw ExitStatus.configuration
            }
            playerOptions.audioSink = audioSink
        }

        let session: HostSession
        do {
            let control: HostSession.ControlInstance = noControl ? .disabled : instance.map { .named($0) } ?? .automatic(prefix: "play")
            session = try HostSession(config: config, station: chosen, options: playerOptions, eventsPath: events, control: control)
        } catch {
            Terminal.error("cannot write events to \(events ?? "?"): \(error.localizedDescription)")
            throw ExitStatus.configuration
        }
        var statusLine: StatusLine?
        var logLines: PlaybackLogLines?
        let watching = config.watchWishes ? FavouritesWishWatch.forPlay(config: config, playing: chosen, explicitConfig: options.config, bus: session.bus) : nil
        let outcome = session.run { session in
            watching?.start()
            if quitWhenStdinCloses { Self.quitWhenStandardInputCloses(session) }
            if interactive {
                statusLine = StatusLine(session: session)
            } else if events != "-" {
                logLines = PlaybackLogLines(bus: session.bus)
            }
        }
        watching?.stop()
        statusLine?.close()
        logLines?.close()
        if case let .gaveUp(kind, reconnects) = outcome {
            // Said once, and true: the suggestion promises no retries, and the count is the one made.
            Terminal.error(
                """
                \(tr("cannot play {url}: {message}", ["url": chosen.url, "message": kind.localizedMessage]))
                  \(kind.localizedFinalRecoverySuggestion)
                  \(Self.stoppedLine(kind: kind, reconnects: reconnects, limit: playerOptions.reconnect.maxAttempts))
                """)
            throw ExitStatus.notPlayable
        }
    }

    /// Reads standard input to its end, then quits the session, unless the last line written there
    /// was `keep-playing` (the window closed with "keep playing when the window closes" on: it goes on).
    private static func quitWhenStandardInputCloses(_ session: HostSession) {
        let thread = Thread { [weak session] in
            var buffer = [UInt8](repeating: 0, count: 256)
            var tail: [UInt8] = []  // the last bytes read, bounded: what is written there is the window's
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count == 0 || (count < 0 && errno != EINTR) { break }
                if count > 0 { tail = Array((tail + buffer[0..<count]).suffix(64)) }
            }
            if String(decoding: tail, as: UTF8.self).hasSuffix(PlayCommand.keepPlayingLine) {
                Terminal.note(tr("the window closed; playing on (oton window attaches to this player again)"))
                return
            }
            session?.requestQuit()
        }
        thread.name = "oton.stdin-lifeline"
        thread.start()
    }

    /// An alarm is never silent: when its plugins.json cannot be read, or its station no longer
    /// resolves (renamed, removed, another config), the built-in tone rings, after a line that says why.
    private func alarmStation() -> (OtonConfig, Station) {
        var config = OtonConfig()
        do {
            config = try ConfigLoader.load(explicit: options.config)
            return (config, try StationResolver.resolve(station, in: config))
        } catch {
            Terminal.error(tr("alarm: {reason}; playing the alarm tone instead", ["reason": "\(error)"]))
            let name = station ?? config.defaultStationName ?? "oton"
            return (config, Station(name: tr("alarm tone: {station} could not be reached", ["station": name]), url: PipelineDescription.toneURL))
        }
    }

    /// An alarm makes a running "default" oton quit (cancelling its sleep timer), then plays as "default".
    private func takeOver() {
        switch AlarmTakeover.run() {
        case .nobodyRuns: break
        case .tookOver: Terminal.note(tr("alarm: the oton that was playing made way"))
        case let .leftAlone(reason): Terminal.note(tr("alarm: the running oton stays ({reason}); this one plays beside it", ["reason": reason]))
        }
    }

    /// How oton came to stop: after the reconnects `--retries` allowed (more are possible), after
    /// fewer because the failure allows no more (a 404), or without one because none would help.
    static func stoppedLine(kind: PlaybackErrorKind, reconnects: Int, limit: Int?) -> String {
        let count = ["count": "\(reconnects)"]
        if reconnects == 0, !kind.isRetryable { return tr("oton stopped without reconnecting, as that would not help.") }
        let moreRetriesHelp = limit.map { reconnects >= $0 } == true && kind.retryLimit.map { reconnects < $0 } != false
        if !moreRetriesHelp {
            return reconnects == 1
                ? tr("oton stopped after 1 reconnect attempt; run the same command to try again.")
                : tr("oton stopped after {count} reconnect attempts; run the same command to try again.", count)
        }
        return reconnects == 1
            ? tr("oton stopped after 1 reconnect attempt; run the same command to try again (--retries N for more attempts).")
            : tr("oton stopped after {count} reconnect attempts; run the same command to try again (--retries N for more attempts).", count)
    }
}

extension FavouritesWishWatch {
    /// `"watch_wishes": true`: the favourites other than `playing`, watched for the wishlist's tracks; nil (said
    /// on standard error) when the wishlist is empty or cannot be read, or there is nothing else to watch.
    static func forPlay(config: OtonConfig, playing: Station, explicitConfig: String?, bus: PluginBus) -> FavouritesWishWatch? {
        let wishes: [Wish]
        do {
            wishes = try WishlistFile.load(try WishlistFile.path(explicitConfig: explicitConfig)).wishes
        } catch {
            Terminal.error(tr("watch_wishes: {problem}; not watching", ["problem": "\(error)"]))
            return nil
        }
        let others = config.stations.filter { $0.url != playing.url }
        guard !wishes.isEmpty, !others.isEmpty else { return nil }
        return FavouritesWishWatch(stations: others, wishes: wishes, shutdownTimeout: config.shutdownTimeout, announceOn: bus)
    }
}
