import CGio
import FoundationEssentials
import HistoryLogic

/// A scrobbling service the worker submits to.
protocol ScrobbleService: Sendable {
    /// The journal's name for it: "listenbrainz" or "lastfm".
    var name: String { get }
    var batchLimit: Int { get }
    func nowPlaying(_ listen: Listen, over transport: HTTPTransport) -> SubmissionOutcome
    func submit(_ listens: [Listen], over transport: HTTPTransport) -> (SubmissionOutcome, pause: Double?)
}

extension SubmissionOutcome {
    init(_ result: Result<HTTPAnswer, HTTPTransport.Failure>, classify: (HTTPAnswer) -> SubmissionOutcome) {
        switch result {
        case let .success(answer): self = classify(answer)
        case let .failure(failure): self = .retry(after: nil, reason: failure.description)
        }
    }
}

/// ListenBrainz: one `single` listen per request, `playing_now` when a track starts.
struct ListenBrainzService: ScrobbleService {
    let url: String
    let token: String
    var name: String { "listenbrainz" }
    var batchLimit: Int { 1 }

    func nowPlaying(_ listen: Listen, over transport: HTTPTransport) -> SubmissionOutcome {
        let body = ListenBrainzProtocol.body(listenType: "playing_now", listens: [listen], version: HistoryPlugin.version)
        return SubmissionOutcome(
            transport.post(ListenBrainzProtocol.endpoint(base: url), headers: ListenBrainzProtocol.headers(token: token), body: body),
            classify: ListenBrainzProtocol.outcome)
    }

    func submit(_ listens: [Listen], over transport: HTTPTransport) -> (SubmissionOutcome, pause: Double?) {
        let body = ListenBrainzProtocol.body(listenType: "single", listens: listens, version: HistoryPlugin.version)
        let result = transport.post(ListenBrainzProtocol.endpoint(base: url), headers: ListenBrainzProtocol.headers(token: token), body: body)
        let pause = (try? result.get()).flatMap(ListenBrainzProtocol.pause(after:))
        return (SubmissionOutcome(result, classify: ListenBrainzProtocol.outcome), pause)
    }
}

/// Last.fm: track.updateNowPlaying and track.scrobble in batches of at most 50.
struct LastFMService: ScrobbleService {
    let url: String
    let apiKey: String
    let apiSecret: String
    let sessionKey: String
    var name: String { "lastfm" }
    var batchLimit: Int { LastFMProtocol.batchLimit }

    /// Last.fm's signature is an MD5 hex digest; GLib (already linked for D-Bus) has one.
    static let md5: LastFMProtocol.MD5 = { text in
        guard let digest = g_compute_checksum_for_string(G_CHECKSUM_MD5, text, -1) else { return "" }
        defer { g_free(digest) }
        return String(cString: digest)
    }

    private func post(_ parameters: [(String, String)], over transport: HTTPTransport) -> Result<HTTPAnswer, HTTPTransport.Failure> {
        let form = LastFMProtocol.signedForm(parameters, secret: apiSecret, md5: Self.md5)
        return transport.post(url, headers: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"], body: Data(form.utf8))
    }

    func nowPlaying(_ listen: Listen, over transport: HTTPTransport) -> SubmissionOutcome {
        SubmissionOutcome(
            post(LastFMProtocol.nowPlayingParameters(listen, apiKey: apiKey, sessionKey: sessionKey), over: transport),
            classify: LastFMProtocol.outcome)
    }

    func submit(_ listens: [Listen], over transport: HTTPTransport) -> (SubmissionOutcome, pause: Double?) {
        let result = post(LastFMProtocol.scrobbleParameters(listens, apiKey: apiKey, sessionKey: sessionKey), over: transport)
        return (SubmissionOutcome(result, classify: LastFMProtocol.outcome), nil)
    }
}
