import Foundation

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
        let payload: [[String: Any]] = listens.map { listen in
            var info: [String: Any] = [
                "media_player": clientName,
                "media_player_version": version,
                "submission_client": clientName,
                "submission_client_version": version,
            ]
            if let origin = listen.originURL { info["origin_url"] = origin }
            if let duration = listen.durationSeconds { info["duration"] = Int(duration.rounded()) }
            if listenType != "playing_now" { info["duration_played"] = Int(listen.secondsListened.rounded()) }
            if let station = listen.station { info["music_service_name"] = station }
            var item: [String: Any] = [
                "track_metadata": ["artist_name": listen.artist, "track_name": listen.title, "additional_info": info],
            ]
            if listenType != "playing_now" { item["listened_at"] = listen.listenedAt }
            return item
        }
        let object: [String: Any] = ["listen_type": listenType, "payload": payload]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// 200 accepted; 401 a bad token; 429 and 5xx retry (honouring X-RateLimit-Reset-In);
    /// other 4xx reject the listen.
    public static func outcome(of answer: HTTPAnswer) -> SubmissionOutcome {
        let resetIn = answer.headers["x-ratelimit-reset-in"].flatMap(Double.init).map { max(0, $0) }
        switch answer.status {
        case 200 ..< 300:
            return .accepted
        case 401, 403:
            return .unauthorized("ListenBrainz refused the token (HTTP \(answer.status)): \(message(answer)); check the token (https://listenbrainz.org/settings/)")
        case 429:
            return .retry(after: resetIn ?? 1, reason: "rate limited (HTTP 429)")
        case 408, 500 ..< 600:
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
        if let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
           let error = object["error"] as? String {
            return String(error.prefix(300))
        }
        return String(answer.bodyText.prefix(200))
    }
}
