import Foundation
import HistoryLogic
import IcecastFixture
import OtonTestSupport

/// ListenBrainz's submit-listens endpoint and Last.fm's 2.0 endpoints as their
/// documentation describes them, on 127.0.0.1. Every request is checked: the
/// JSON schema and `Authorization: Token …` for ListenBrainz; the form fields
/// and the api_sig (MD5 by coreutils' md5sum, independent of the plugin's) for
/// Last.fm. A request that breaks the documentation gets HTTP 400 and is
/// recorded in `violations`. Answers can be switched to 401, 429 with reset
/// headers, 503 and Last.fm error bodies under HTTP 200.
final class FakeScrobbleService: @unchecked Sendable {
    enum Mode: Equatable {
        case ok
        case status(Int, resetIn: Int?)
        case lastFMError(Int)
        /// Answers 200 only after this many seconds (a service that hangs).
        case slow(Double)
    }

    struct LBListen: Equatable {
        var type: String
        var artist: String
        var title: String
        var listenedAt: Int64?
        var additionalInfo: [String: String]
    }

    struct LastFMCall {
        var method: String
        var fields: [String: String]
    }

    static let token = "lb-token-0123456789"
    static let apiKey = "0123456789abcdef0123456789abcdef"
    static let apiSecret = "fedcba9876543210fedcba9876543210"
    static let sessionKey = "session-key-42"

    let server: LocalHTTPServer
    private let lock = NSLock()
    private var mode = Mode.ok
    private var oneShot: [Mode] = []
    private var accepted: [LBListen] = []
    private var lastFMCalls: [LastFMCall] = []
    private var problems: [String] = []
    private var sessionTokenAuthorizedAfter = 0
    private var getSessionCalls = 0
    private var redirects: [String: String] = [:]

    var baseURL: String { server.baseURL.absoluteString }
    var lastFMURL: String { server.url("/2.0/").absoluteString }

    init() throws {
        server = try LocalHTTPServer.start()
        server.setHandler { [unowned self] request in self.answer(request) }
    }

    func stop() { server.stop() }

    func setMode(_ newMode: Mode) { lock.withLock { mode = newMode } }
    /// Answers requests to `path` with 307 and this Location (relative or absolute).
    func redirect(_ path: String, to location: String) { lock.withLock { redirects[path] = location } }
    /// Answers the next requests with these modes, then goes back to the mode set.
    func queue(_ modes: [Mode]) { lock.withLock { oneShot += modes } }
    /// auth.getSession answers error 14 (not authorized yet) this many times first.
    func authorizeAfter(_ calls: Int) { lock.withLock { sessionTokenAuthorizedAfter = calls } }

    var listens: [LBListen] { lock.withLock { accepted } }
    var singles: [LBListen] { listens.filter { $0.type == "single" } }
    var playingNow: [LBListen] { listens.filter { $0.type == "playing_now" } }
    var lastFM: [LastFMCall] { lock.withLock { lastFMCalls } }
    var violations: [String] { lock.withLock { problems } }

    /// Polls (nothing to await: the requests come from another process or thread).
    func wait(timeout: TimeInterval = 20, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }

    private func currentMode() -> Mode {
        lock.withLock { oneShot.isEmpty ? mode : oneShot.removeFirst() }
    }

    private func violation(_ text: String) -> CannedResponse {
        lock.withLock { problems.append(text) }
        return .json(#"{"code": 400, "error": "\#(text)"}"#, status: 400)
    }

    private func answer(_ request: RecordedRequest) -> CannedResponse? {
        if let location = lock.withLock({ redirects[request.path] }) {
            return CannedResponse(status: 307, headers: ["Location": location], body: Data("moved".utf8))
        }
        switch request.path {
        case "/1/submit-listens": return listenBrainz(request)
        case "/2.0/", "/2.0": return lastFMAnswer(request)
        default: return nil
        }
    }

    // MARK: ListenBrainz (https://listenbrainz.readthedocs.io/en/latest/users/api/core.html)

    private func listenBrainz(_ request: RecordedRequest) -> CannedResponse {
        guard request.method == "POST" else { return violation("submit-listens takes POST, got \(request.method)") }
        guard request.headers["authorization"] == "Token \(Self.token)" else {
            return .json(#"{"code": 401, "error": "Invalid authorization token."}"#, status: 401)
        }
        guard let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any] else {
            return violation("body is not a JSON object")
        }
        guard let type = object["listen_type"] as? String, ["single", "playing_now", "import"].contains(type) else {
            return violation("listen_type must be single, playing_now or import")
        }
        guard let payload = object["payload"] as? [[String: Any]], !payload.isEmpty else { return violation("payload must be a non-empty list") }
        if type != "import" && payload.count != 1 { return violation("\(type) takes exactly one listen") }
        var parsed: [LBListen] = []
        for item in payload {
            let listenedAt = (item["listened_at"] as? NSNumber)?.int64Value
            if type == "playing_now" && item["listened_at"] != nil { return violation("playing_now must not have listened_at") }
            if type != "playing_now" && (listenedAt ?? 0) < 1_033_430_400 { return violation("listened_at missing or before 2002-10-01") }
            guard let metadata = item["track_metadata"] as? [String: Any],
                let artist = metadata["artist_name"] as? String, !artist.isEmpty,
                let title = metadata["track_name"] as? String, !title.isEmpty
            else {
                return violation("track_metadata needs artist_name and track_name")
            }
            var info: [String: String] = [:]
            if let additional = metadata["additional_info"] {
                guard let dictionary = additional as? [String: Any] else { return violation("additional_info must be an object") }
                for (key, value) in dictionary { info[key] = "\(value)" }
            }
            parsed.append(LBListen(type: type, artist: artist, title: title, listenedAt: listenedAt, additionalInfo: info))
        }
        var mode = currentMode()
        if case let .slow(seconds) = mode {
            Thread.sleep(forTimeInterval: seconds)
            mode = .ok
        }
        switch mode {
        case .ok, .lastFMError, .slow:
            lock.withLock { accepted += parsed }
            return CannedResponse.json(#"{"status": "ok"}"#).with(["X-RateLimit-Remaining": "10", "X-RateLimit-Reset-In": "5"])
        case let .status(code, resetIn):
            var response = CannedResponse.json(#"{"code": \#(code), "error": "unavailable"}"#, status: code)
            if let resetIn { response = response.with(["X-RateLimit-Remaining": "0", "X-RateLimit-Reset-In": String(resetIn)]) }
            return response
        }
    }

    // MARK: Last.fm (https://www.last.fm/api)

    private func lastFMAnswer(_ request: RecordedRequest) -> CannedResponse {
        guard request.method == "POST" else { return violation("Last.fm write methods take POST") }
        guard (request.headers["content-type"] ?? "").hasPrefix("application/x-www-form-urlencoded") else {
            return violation("Last.fm takes application/x-www-form-urlencoded")
        }
        let pairs = LastFMProtocol.formDecode(String(decoding: request.body, as: UTF8.self))
        var fields: [String: String] = [:]
        for (key, value) in pairs { fields[key] = value }
        guard let method = fields["method"] else { return violation("no method") }
        guard fields["format"] == "json" else { return violation("format=json expected") }
        guard fields["api_key"] == Self.apiKey else { return .json(#"{"error": 10, "message": "Invalid API key"}"#) }
        guard let signature = fields["api_sig"],
            signature
                == Self.md5(
                    pairs.filter { $0.0 != "api_sig" && $0.0 != "format" && $0.0 != "callback" }
                        .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }.map { $0.0 + $0.1 }.joined() + Self.apiSecret)
        else {
            return .json(#"{"error": 13, "message": "Invalid method signature supplied"}"#)
        }
        switch method {
        case "auth.getToken":
            return .json(#"{"token": "tok3n0123456789"}"#)
        case "auth.getSession":
            guard fields["token"] == "tok3n0123456789" else { return .json(#"{"error": 4, "message": "Invalid authentication token"}"#) }
            let authorized = lock.withLock { () -> Bool in
                getSessionCalls += 1; return getSessionCalls > sessionTokenAuthorizedAfter
            }
            guard authorized else { return .json(#"{"error": 14, "message": "Unauthorized Token - This token has not been authorized"}"#) }
            return .json(#"{"session": {"name": "oton-user", "key": "\#(Self.sessionKey)", "subscriber": 0}}"#)
        case "track.updateNowPlaying", "track.scrobble":
            guard fields["sk"] == Self.sessionKey else { return .json(#"{"error": 9, "message": "Invalid session key - Please re-authenticate"}"#) }
            if method == "track.scrobble" {
                var count = 0
                while fields["artist[\(count)]"] != nil { count += 1 }
                guard count >= 1, count <= 50 else { return violation("track.scrobble takes 1 to 50 scrobbles, got \(count)") }
                for index in 0..<count {
                    guard fields["track[\(index)]"] != nil, Int64(fields["timestamp[\(index)]"] ?? "") != nil else {
                        return violation("scrobble \(index) needs track and timestamp")
                    }
                    guard fields["chosenByUser[\(index)]"] == "0" else { return violation("radio scrobbles need chosenByUser=0") }
                }
            } else if fields["artist"] == nil || fields["track"] == nil {
                return violation("updateNowPlaying needs artist and track")
            }
            switch currentMode() {
            case let .lastFMError(code):
                return .json(#"{"error": \#(code), "message": "error \#(code)"}"#)
            case let .status(code, _):
                return .text("unavailable", status: code)
            case .ok, .slow:
                lock.withLock { lastFMCalls.append(LastFMCall(method: method, fields: fields)) }
                if method == "track.updateNowPlaying" {
                    return .json(##"{"nowplaying": {"ignoredMessage": {"code": "0", "#text": ""}}}"##)
                }
                return .json(#"{"scrobbles": {"@attr": {"accepted": 1, "ignored": 0}, "scrobble": []}}"#)
            }
        default:
            return .json(#"{"error": 3, "message": "Invalid Method - No method with that name in this package"}"#)
        }
    }

    /// MD5 by coreutils, so the check does not share code with the plugin.
    static func md5(_ text: String) -> String {
        let directory = NSTemporaryDirectory() + "oton-md5-\(UUID().uuidString)"
        try? text.write(toFile: directory, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try? runProcess("/usr/bin/md5sum", [directory])
        return String((result?.stdout ?? "").prefix(32))
    }
}

extension CannedResponse {
    func with(_ extra: [String: String]) -> CannedResponse {
        var copy = self
        for (key, value) in extra { copy.headers[key] = value }
        return copy
    }
}
