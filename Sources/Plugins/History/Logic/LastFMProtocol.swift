import FoundationEssentials
import OtonJSON

/// Last.fm's API 2.0: form-encoded POSTs signed with api_sig, answers in JSON
/// (`format=json`), errors as {"error": N, "message": "…"} even under HTTP 200.
public enum LastFMProtocol {
    /// At most this many scrobbles in one track.scrobble request.
    public static let batchLimit = 50

    /// Lower-case hex MD5 of the UTF-8 bytes of a string; supplied by the plugin.
    public typealias MD5 = @Sendable (String) -> String

    /// api_sig: every parameter but `format` and `callback`, sorted by name,
    /// name and value concatenated, the shared secret appended, MD5 in hex.
    public static func signature(_ parameters: [(String, String)], secret: String, md5: MD5) -> String {
        let text =
            parameters.filter { $0.0 != "format" && $0.0 != "callback" }
            .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            .map { $0.0 + $0.1 }.joined() + secret
        return md5(text)
    }

    /// The signed form body (parameters plus api_sig and format=json), URL-encoded.
    public static func signedForm(_ parameters: [(String, String)], secret: String, md5: MD5) -> String {
        let all = parameters + [("api_sig", signature(parameters, secret: secret, md5: md5)), ("format", "json")]
        return all.map { formEncode($0.0) + "=" + formEncode($0.1) }.joined(separator: "&")
    }

    public static func scrobbleParameters(_ listens: [Listen], apiKey: String, sessionKey: String) -> [(String, String)] {
        var parameters: [(String, String)] = [("method", "track.scrobble"), ("api_key", apiKey), ("sk", sessionKey)]
        for (index, listen) in listens.prefix(batchLimit).enumerated() {
            parameters.append(("artist[\(index)]", listen.artist))
            parameters.append(("track[\(index)]", listen.title))
            parameters.append(("timestamp[\(index)]", String(listen.listenedAt)))
            parameters.append(("chosenByUser[\(index)]", "0"))
            if let duration = listen.durationSeconds { parameters.append(("duration[\(index)]", String(Int(duration.rounded())))) }
        }
        return parameters
    }

    public static func nowPlayingParameters(_ listen: Listen, apiKey: String, sessionKey: String) -> [(String, String)] {
        var parameters: [(String, String)] = [
            ("method", "track.updateNowPlaying"), ("api_key", apiKey), ("sk", sessionKey),
            ("artist", listen.artist), ("track", listen.title),
        ]
        if let duration = listen.durationSeconds { parameters.append(("duration", String(Int(duration.rounded())))) }
        return parameters
    }

    /// Codes worth retrying: 8 operation failed, 11 service offline, 16 temporarily unavailable, 29 rate limit.
    static let temporaryErrors: Set<Int> = [8, 11, 16, 29]
    /// Codes that mean the credentials are wrong: 4 authentication failed, 9 invalid session key,
    /// 10 invalid API key, 14/15 token not authorized/expired, 26 suspended key.
    static let credentialErrors: Set<Int> = [4, 9, 10, 14, 15, 26]

    /// The error code and message in a body, if it is an error.
    public static func error(in body: [UInt8]) -> (code: Int, message: String)? {
        guard let object = try? JSONValue.parse(Data(body)), let code = object["error"]?.intValue else { return nil }
        return (code, String((object["message"]?.stringValue ?? "").prefix(300)))
    }

    public static func outcome(of answer: HTTPAnswer) -> SubmissionOutcome {
        if let (code, message) = error(in: answer.body) {
            if temporaryErrors.contains(code) {
                return .retry(after: code == 29 ? 60 : nil, reason: "Last.fm error \(code): \(message)")
            }
            if credentialErrors.contains(code) {
                let hint = code == 9 ? "re-authenticate with `oton lastfm login`" : "check the API key, secret and session (`oton lastfm login`)"
                return .unauthorized("Last.fm error \(code): \(message); \(hint)")
            }
            return .rejected("Last.fm error \(code): \(message)")
        }
        switch answer.status {
        case 200..<300:
            guard (try? JSONValue.parse(Data(answer.body)))?.objectValue != nil else {
                return .retry(after: nil, reason: "Last.fm answered HTTP \(answer.status) with a body that is not JSON")
            }
            return .accepted
        case 401, 403:
            return .unauthorized("Last.fm refused the request (HTTP \(answer.status)); re-authenticate with `oton lastfm login`")
        case 400..<500 where answer.status != 408 && answer.status != 429:
            return .rejected("Last.fm rejected the request (HTTP \(answer.status))")
        default:
            return .retry(after: nil, reason: "HTTP \(answer.status)")
        }
    }

    /// The listens Last.fm ignored in an accepted track.scrobble answer, with their reasons.
    public static func ignoredMessages(in body: [UInt8]) -> [String] {
        guard let scrobble = (try? JSONValue.parse(Data(body)))?["scrobbles"]?["scrobble"] else { return [] }
        // One scrobble comes as an object, several as a list.
        let list = scrobble.arrayValue ?? [scrobble]
        return list.compactMap { item in
            guard let ignored = item["ignoredMessage"],
                let code = ignored["code"]?.stringValue.flatMap(Int.init) ?? ignored["code"]?.intValue,
                code != 0
            else { return nil }
            return "ignored (code \(code)): \(ignored["#text"]?.stringValue ?? "")"
        }
    }

    /// A user name from Last.fm's answer as it may be shown in a terminal: control characters
    /// (escape sequences included) and format characters (bidi overrides) dropped, at most 64
    /// characters; nil when nothing printable is left.
    public static func displayName(_ name: String?) -> String? {
        guard let name else { return nil }
        let kept = name.unicodeScalars.filter { scalar in
            let category = scalar.properties.generalCategory
            return category != .control && category != .format && category != .lineSeparator && category != .paragraphSeparator
        }
        let text = String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : String(text.prefix(64))
    }

    /// application/x-www-form-urlencoded: everything but unreserved characters percent-encoded.
    public static func formEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// Decodes a form body back into pairs (for tests and the fake service).
    public static func formDecode(_ body: String) -> [(String, String)] {
        body.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            func decode(_ text: String) -> String {
                (text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding) ?? text
            }
            return (decode(parts[0]), decode(parts.count > 1 ? parts[1] : ""))
        }
    }
}
