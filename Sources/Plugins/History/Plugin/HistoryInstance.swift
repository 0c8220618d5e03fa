import Foundation
import HistoryLogic
import OtonPluginKit
import PluginAPI

/// One History plugin instance. Runs on the host's mailbox: events update the
/// tracker and the database (local I/O only) and hand listens to the worker,
/// which does the network I/O on its own thread. The worker starts with the
/// first state event, so an instance created without a player (`oton history`)
/// only reads.
/// Concurrency: confined to the plugin's mailbox (the host never runs two of its callbacks at once); the
/// worker (SubmissionWorker) owns its own thread and state.
final class HistoryInstance: @unchecked Sendable {
    let host: HostHandle
    let config: HistoryConfig
    let databasePath: String
    /// Open, or nil while another program holds its lock (see ``database()``).
    private var opened: HistoryDatabase?
    /// Set when the lock outlasted ``HistoryDatabaseOpener/lockPatience``: history is off for this session.
    private var lockedOut = false
    private var tracker: ListeningTracker
    private var currentPlayID: Int64?
    /// Read when the worker starts (a player runs), so `oton history` never touches secrets.
    private var services: [any ScrobbleService] = []
    private var worker: SubmissionWorker?
    private var workerStarted = false
    private let artworkKind: oton_event_kind

    init(host: HostHandle, config: HistoryConfig) throws {
        self.host = host
        self.config = config
        let path = config.database ?? Self.defaultDatabasePath(dataDirectory: host.dataDirectory)
        if config.database == nil, let moved = Self.moveOlderDefaultDatabase(to: path, dataDirectory: host.dataDirectory) {
            host.log(OTON_LOG_INFO, "history moved from \(moved) to \(path), the plugin's own data folder")
        }
        databasePath = path
        do {
            let opened = try HistoryDatabaseOpener.open(path: path)
            self.opened = opened.database
            if let notice = opened.notice { host.log(OTON_LOG_WARNING, notice) }
        } catch let locked as HistoryDatabaseOpener.Locked {
            // Not a reason to turn history off: database() waits for the lock, on this plugin's mailbox.
            host.log(
                OTON_LOG_WARNING,
                host.tr("{reason}; trying again for up to {seconds} s", ["reason": "\(locked)", "seconds": "\(Int(HistoryDatabaseOpener.lockPatience))"]))
        }
        tracker = ListeningTracker(jingles: JingleDetector(patterns: config.jinglePatterns))
        artworkKind = host.table.pointee.event_kind?(host.table, OTON_EVENT_NAME_ARTWORK_READY) ?? 0
    }

    /// history.sqlite in the plugin's own data folder, the one the host gives it
    /// ($XDG_DATA_HOME/oton/plugins/org.oton.history).
    static func defaultDatabasePath(dataDirectory: String) -> String {
        dataDirectory + "/history.sqlite"
    }

    /// oton 0.1 kept the history two folders up ($XDG_DATA_HOME/oton/history.sqlite). When only that file
    /// exists, it moves here with its -wal and -shm (a rename in the same file system: nothing is lost).
    /// Returns the old path when it moved.
    static func moveOlderDefaultDatabase(to path: String, dataDirectory: String) -> String? {
        let older = ((dataDirectory as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent + "/history.sqlite"
        let files = FileManager.default
        guard !files.fileExists(atPath: path), files.fileExists(atPath: older) else { return nil }
        for suffix in ["-wal", "-shm"] where files.fileExists(atPath: older + suffix) {
            guard rename(older + suffix, path + suffix) == 0 else { return nil }
        }
        return rename(older, path) == 0 ? older : nil
    }

    static func sessionKeyFile(_ lastFM: HistoryConfig.LastFM, host: HostHandle) -> String {
        lastFM.sessionKeyFile ?? host.dataDirectory + "/lastfm.session-key"
    }

    /// The services whose credentials are present; the others are reported once and left out.
    private static func makeServices(config: HistoryConfig, host: HostHandle) -> [any ScrobbleService] {
        var out: [any ScrobbleService] = []
        func secret(_ reference: SecretReference, _ what: String) -> String? {
            do {
                guard let value = try SecretReader.read(reference, what: what) else {
                    host.log(
                        OTON_LOG_WARNING,
                        host.tr(
                            "{what} not found (set {variable} or create {file}); not scrobbling there",
                            [
                                "what": what, "variable": reference.environmentVariable ?? host.tr("the _env variable"),
                                "file": reference.file ?? host.tr("the _file"),
                            ]))
                    return nil
                }
                return value
            } catch {
                host.log(
                    OTON_LOG_ERROR,
                    host.tr("{reason}; not scrobbling there", ["reason": (error as? SecretReader.Refused)?.text { host.tr($0, $1) } ?? "\(error)"]))
                return nil
            }
        }
        if let listenBrainz = config.listenBrainz, let token = secret(listenBrainz.token, "ListenBrainz token") {
            out.append(ListenBrainzService(url: listenBrainz.url, token: token))
        }
        if let lastFM = config.lastFM, let key = secret(lastFM.apiKey, "Last.fm API key"),
            let secretValue = secret(lastFM.apiSecret, "Last.fm API secret")
        {
            let file = sessionKeyFile(lastFM, host: host)
            do {
                if let session = try SecretReader.readFile(file, what: "Last.fm session key") {
                    out.append(LastFMService(url: lastFM.url, apiKey: key, apiSecret: secretValue, sessionKey: session))
                } else {
                    host.log(OTON_LOG_WARNING, host.tr("Last.fm: no session key in {file}; run `oton lastfm login` to authorize Oton", ["file": file]))
                }
            } catch {
                host.log(
                    OTON_LOG_ERROR,
                    host.tr("{reason}; not scrobbling to Last.fm", ["reason": (error as? SecretReader.Refused)?.text { host.tr($0, $1) } ?? "\(error)"]))
            }
        }
        return out
    }

    /// The database, opened now if a lock kept it closed at create(): retried with backoff for up to
    /// ``HistoryDatabaseOpener/lockPatience`` seconds (on the mailbox: events wait in it meanwhile),
    /// then history is off for the session, said once. Mailbox only.
    private func database(logging: Bool = true) -> HistoryDatabase? {
        if let opened { return opened }
        guard !lockedOut else { return nil }
        do {
            let made = try HistoryDatabaseOpener.openWaiting(path: databasePath)
            opened = made.database
            if let notice = made.notice { host.log(OTON_LOG_WARNING, notice) }
            host.log(OTON_LOG_INFO, host.tr("the listening history at {path} is open: the lock was released", ["path": databasePath]))
            return made.database
        } catch {
            lockedOut = true
            if logging { host.log(OTON_LOG_ERROR, host.tr("{reason}; the listening history is off until oton starts again", ["reason": "\(error)"])) }
            return nil
        }
    }

    // MARK: Events (mailbox)

    func handle(_ event: EventView.Snapshot, wallMicroseconds: Int64) {
        let effects: [ListeningTracker.Effect]
        switch event.kind {
        case OTON_EVENT_TRACK:
            effects = tracker.track(fields: event.fields, monoNanoseconds: event.monotonicNanoseconds, wallMicroseconds: wallMicroseconds)
        case OTON_EVENT_STATE:
            startWorkerIfNeeded()
            effects = tracker.state(event.state?.state ?? "", monoNanoseconds: event.monotonicNanoseconds, wallMicroseconds: wallMicroseconds)
        case artworkKind where artworkKind != 0:
            if let id = currentPlayID, let path = event[OTON_FIELD_PATH], !path.isEmpty, let database = database() {
                attempt(host.tr("cannot store the artwork path in {database}: {reason}")) { try database.setArtwork(id, path: path) }
            }
            return
        default:
            return
        }
        apply(effects)
    }

    private func apply(_ effects: [ListeningTracker.Effect]) {
        guard !effects.isEmpty, let database = database() else { return }
        for effect in effects {
            switch effect {
            case let .started(start):
                currentPlayID = attempt(host.tr("cannot record the track in {database}: {reason}")) { try database.insertPlay(start) }
                if let listen = ScrobbleRule.nowPlaying(start) { worker?.nowPlaying(listen) }
            case let .updated(start):
                if let id = currentPlayID { attempt(host.tr("cannot update the track in {database}: {reason}")) { try database.updatePlay(id, start) } }
            case let .ended(end):
                guard let id = currentPlayID else { continue }
                currentPlayID = nil
                let listen = ScrobbleRule.listen(for: end, minimumLiveSeconds: config.minimumLiveSeconds)
                attempt(host.tr("cannot complete the track in {database}: {reason}")) {
                    try database.finishPlay(id, end, listen: listen, services: services.map(\.name))
                }
                if listen != nil { worker?.wake() }
            }
        }
    }

    private func startWorkerIfNeeded() {
        guard worker == nil, !workerStarted else { return }
        workerStarted = true
        services = Self.makeServices(config: config, host: host)
        guard !services.isEmpty, let database = database() else { return }
        let host = self.host
        let worker = SubmissionWorker(database: database, services: services, config: config) { isError, message in
            host.log(isError ? OTON_LOG_ERROR : OTON_LOG_WARNING, message)
        }
        self.worker = worker
        worker.start()
        host.log(OTON_LOG_INFO, "scrobbling to \(services.map(\.name).joined(separator: ", "))")
    }

    @discardableResult
    /// `failure`: the line to log when `body` throws, in the user's language, with {database} and {reason} to fill.
    private func attempt<T>(_ failure: String, _ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch {
            host.log(OTON_LOG_ERROR, MessageTemplate.filled(failure, ["database": databasePath, "reason": "\(error)"]))
            return nil
        }
    }

    // MARK: Commands (mailbox)

    /// Pieces of a streamed reply are about this size: the host passes each on as it comes.
    private static let replyPiece = 64 << 10

    func command(_ name: String, _ arguments: [String], reply: (String) -> Void) -> Bool {
        guard name == "history" else {
            let (ok, text) = command(name, arguments)
            reply(text)
            return ok
        }
        do {
            var query = try HistoryQuery.parse(arguments)
            query.skipBelowSeconds = config.minimumLiveSeconds
            guard let database = database(logging: false) else {
                reply(
                    host.tr(
                        "the listening history at {path} stayed locked by another program for {seconds} s; close what holds it (sqlite3, a backup or sync tool, another oton) and try again",
                        ["path": databasePath, "seconds": "\(Int(HistoryDatabaseOpener.lockPatience))"]))
                return false
            }
            if query.stats {
                reply(HistoryFormatter.format(try database.stats(query), as: query.format, labels: query.labels))
                return true
            }
            // Row by row from the cursor, in pieces: memory stays bounded whatever --limit asks.
            var writer = HistoryRowWriter(format: query.format, labels: query.labels)
            var piece = ""
            try database.forEachPlay(query) { row in
                piece += writer.add(row)
                if piece.utf8.count >= Self.replyPiece {
                    reply(piece)
                    piece = ""
                }
            }
            piece += writer.finish()
            if writer.isEmpty, query.format == .table, !query.includeSkipped, let hidden = try? database.countSkipped(query), hidden > 0 {
                // The first half hour of switching stations leaves only short plays: say why the list is empty.
                piece +=
                    host.tr(
                        "{count} plays heard for less than {seconds} s (or without a title) are not listed; --all shows them.",
                        ["count": "\(hidden)", "seconds": "\(Int(query.skipBelowSeconds))"]) + "\n"
            }
            reply(piece)
            return true
        } catch {
            reply(describe(error))
            return false
        }
    }

    func command(_ name: String, _ arguments: [String]) -> (Bool, String) {
        switch name {
        case "history":
            var text = ""
            let ok = command(name, arguments) { text += $0 }
            return (ok, text)
        case "lastfm-login":
            return lastFMLogin(arguments)
        default:
            return (false, host.tr("unknown command {name}", ["name": name]))
        }
    }

    /// An error as a reply, in the user's language where it is one of the plugin's own messages.
    private func describe(_ error: any Error) -> String {
        if let invalid = error as? HistoryQuery.Invalid { return invalid.text { host.tr($0, $1) } }
        if let refused = error as? SecretReader.Refused { return refused.text { host.tr($0, $1) } }
        return "\(error)"  // SQLite's own words
    }

    private func lastFMLogin(_ arguments: [String]) -> (Bool, String) {
        guard let lastFM = config.lastFM else {
            return (
                false,
                host.tr(
                    "Last.fm is not configured: add \"lastfm\" with api_key_env/api_key_file and api_secret_env/api_secret_file to the config of org.oton.history in plugins.json"
                )
            )
        }
        let apiKey: String, apiSecret: String
        do {
            guard let key = try SecretReader.read(lastFM.apiKey, what: "Last.fm API key"),
                let secret = try SecretReader.read(lastFM.apiSecret, what: "Last.fm API secret")
            else {
                return (false, host.tr("the Last.fm API key and secret were not found (set api_key_env/api_secret_env variables or _file entries)"))
            }
            (apiKey, apiSecret) = (key, secret)
        } catch {
            return (false, describe(error))
        }
        let login = LastFMLogin(config: lastFM, apiKey: apiKey, apiSecret: apiSecret, sessionKeyFile: Self.sessionKeyFile(lastFM, host: host))
        let reply: LastFMLogin.Reply
        switch arguments.first {
        case "start": reply = login.start()
        case "finish" where arguments.count == 2: reply = login.finish(token: arguments[1])
        default: return (false, host.tr("usage: lastfm-login start | lastfm-login finish TOKEN"))
        }
        switch reply {
        case let .ok(text): return (true, text)
        case let .pending(text), let .failed(text): return (false, text)
        }
    }

    /// Ends the current track (not scrobbled: it did not end by a title change) and stops the worker.
    func shutdown() {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        guard opened != nil else { return }  // never wait for a lock at shutdown
        apply(tracker.state("stopped", monoNanoseconds: Int64(DispatchTime.now().uptimeNanoseconds), wallMicroseconds: now))
        worker?.stop()
        worker = nil
    }
}
