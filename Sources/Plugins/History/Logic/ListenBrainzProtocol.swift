import FoundationEssentials
import OtonJSON

/// ListenBrainz's submit-listens API: POST /1/submit-listens with a JSON body
/// and the user token in `Authorization: Token …`.
public enum ListenBrainzProtocol {
    public static let clientName = "Oton"

    public static func endpoint(base: String) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/1/submit-listens"
    }

    public static func headers(token: String) -> [String: String] {
        ["Authorization": "Token \(token)", "Content-Type": "application/json"]
    }

    /// The JSON body: `playing_now` carries no listened_at; `single` carries one listen.
    public static func body(listenType: String, listens: [Listen], version: String) -> Data {
        let payload: [JSONValue] = listens.map { listen in
            var info: [String: JSONValue] = [
                "media_player": .string(clientName),
                "media_player_version": .string(version),
                "submission_client": .string(clientName),
                "submission_client_version": .string(version),
            ]
            if let origin = listen.originURL { info["origin_url"] = .string(origin) }
            if let duration = listen.durationSeconds, let seconds = JSONNumber(duration.rounded()) { info["duration"] = .number(seconds) }
            if listenType != "playing_now", let seconds = JSONNumber(listen.secondsListened.rounded()) { info["duration_played"] = .number(seconds) }
            if let station = listen.station { info["music_service_name"] = .string(station) }
            var item: [String: JSONValue] = [
                "track_metadata": ["artist_name": .string(listen.artist), "track_name": .string(listen.title), "additional_info": .object(info)]
            ]
            if listenType != "playing_now" { item["listened_at"] = .number(JSONNumber(listen.listenedAt)) }
            return .object(item)
        }
        let object: JSONValue = ["listen_type": .string(listenType), "payload": .array(payload)]
        return Data(object.jsonText.utf8)
    }

    /// 200 accepted; 401 a bad token; 429 and 5xx retry (honouring X-RateLimit-Reset-In);
    /// other 4xx reject the listen.
    public static func outcome(of answer: HTTPAnswer) -> SubmissionOutcome {
        let resetIn = answer.headers["x-ratelimit-reset-in"].flatMap(Double.init).map { max(0, $0) }
        switch answer.status {
        case 200..<300:
            return .accepted
        case 401, 403:
            return .unauthorized(
                "ListenBrainz refused the token (HTTP \(answer.status)): \(message(answer)); check the token (https://listenbrainz.org/settings/)")
        case 429:
            return .retry(after: resetIn ?? 1, reason: "rate limited (HTTP 429)")
        case 408, 500..<600:
            return .retry(after: resetIn, reason: "HTTP \(answer.status)")
        default:
            return .rejected("ListenBrainz rejected the listen (HTTP \(answer.status)): \(message(answer))")
        }
    }

    /// Seconds to wait before the next request even after a success, when no requests remain.
    public static func pause(after answer: HTTPAnswer) -> Double? {
        guard let remaining = answer.headers["x-ratelimit-remaining"].flatMap(Int.init), remaining <= 0 else { return nil }
        return answer.headers["x-ratelimit-reset-in"].flatMap(Double.init).map { max(0, $0) }
    }

    static func message(_ answer: HTTPAnswer) -> String {
        if let error = (try? JSONValue.parse(Data(answer.body)))?["error"]?.stringValue {
            return String(error.prefix(300))
        }
        return String(answer.bodyText.prefix(200))
    }
}
