import Foundation
import OtonJSON

/// Archive upload's settings from the file sink's config: `upload` ("s3://bucket/prefix"),
/// `upload_endpoint` (an S3-compatible server's URL; AWS's own when absent) and `upload_delete`
/// (remove the local copy once the upload is confirmed). Credentials and region are never in the
/// config: ``AWSEnvironment`` reads them where the AWS tools do.
public struct UploadSettings: Equatable, Sendable {
    public var destination: S3Destination
    public var endpoint: String?
    public var deleteAfterUpload = false

    public init(destination: S3Destination, endpoint: String? = nil, deleteAfterUpload: Bool = false) {
        self.destination = destination
        self.endpoint = endpoint
        self.deleteAfterUpload = deleteAfterUpload
    }

    static func parse(_ config: PluginConfigReader) throws(PluginConfigError) -> UploadSettings? {
        func key(_ key: FileSinkKey) -> String { key.rawValue }
        guard let text = try config.string(key(.upload), nonEmpty: true, expected: "an object store address: s3://bucket/prefix") else {
            for other in [FileSinkKey.uploadEndpoint, .uploadDelete] where config.value(key(other)) != nil {
                throw config.error(key(other), "applies to uploads only; set upload (s3://bucket/prefix) too")
            }
            return nil
        }
        guard let destination = S3Destination(text) else {
            throw config.error(
                key(.upload), "must be s3://bucket/prefix (a bucket name of 3 to 63 lower-case letters, digits, dots and hyphens), not \"\(text)\"")
        }
        var settings = UploadSettings(destination: destination)
        if let endpoint = try config.string(key(.uploadEndpoint), nonEmpty: true) {
            guard S3Destination.isEndpoint(endpoint) else {
                throw config.error(key(.uploadEndpoint), "must be an http:// or https:// address such as http://127.0.0.1:9000, not \"\(endpoint)\"")
            }
            settings.endpoint = endpoint
        }
        settings.deleteAfterUpload = try config.bool(key(.uploadDelete)) ?? false
        return settings
    }
}

/// `s3://bucket/prefix`: where archive segments go, each under the prefix by its path in the output folder.
public struct S3Destination: Equatable, Sendable {
    public var bucket: String
    /// Without leading or trailing slashes; may be empty.
    public var prefix: String

    public init?(_ text: String) {
        guard text.hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        guard Self.isBucketName(bucket) else { return nil }
        self.bucket = bucket
        prefix = rest.dropFirst(bucket.count).split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    /// The same bucket with `folder` under the prefix (one station's folder of a recording of many).
    public func appending(_ folder: String) -> S3Destination {
        var copy = self
        copy.prefix = prefix.isEmpty ? folder : prefix + "/" + folder
        return copy
    }

    public var text: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/" + prefix) }

    /// The object key of a file at `relative` (its path inside the output folder).
    public func key(_ relative: String) -> String {
        prefix.isEmpty ? relative : prefix + "/" + relative
    }

    /// The object's URL: path-style (`ENDPOINT/bucket/key`) on a given endpoint (MinIO, Ceph,
    /// moto, a loopback server: they all take it), virtual-hosted on AWS
    /// (`https://bucket.s3.REGION.amazonaws.com/key`; path-style there too for a bucket with a dot,
    /// which TLS could not name).
    public func url(key: String, endpoint: String?, region: String) -> String {
        let path = Self.encodePath(key)
        if let endpoint {
            let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
            return base + "/" + bucket + "/" + path
        }
        if bucket.contains(".") { return "https://s3.\(region).amazonaws.com/\(bucket)/\(path)" }
        return "https://\(bucket).s3.\(region).amazonaws.com/\(path)"
    }

    /// Every byte but the unreserved ones and "/" percent-encoded (S3's canonical URI, encoded once).
    public static func encodePath(_ key: String) -> String {
        var out = ""
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }

    public static func isBucketName(_ name: String) -> Bool {
        guard (3...63).contains(name.count), let first = name.first, let last = name.last,
            first.isLetter || first.isNumber, last.isLetter || last.isNumber
        else { return false }
        return name.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "." || $0 == "-" }
    }

    public static func isEndpoint(_ text: String) -> Bool {
        (text.hasPrefix("http://") || text.hasPrefix("https://")) && !text.contains(" ") && text.split(separator: "/").count >= 2
    }
}

/// Region, credentials and endpoint where the AWS tools look for them: AWS_ACCESS_KEY_ID,
/// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, else the shared credentials file
/// (AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials) for the profile AWS_PROFILE (or default);
/// the region from AWS_REGION, AWS_DEFAULT_REGION, else the config file (AWS_CONFIG_FILE or
/// ~/.aws/config), else us-east-1; the endpoint from AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL.
/// Pure: the caller gives the environment and a way to read a file.
public struct AWSEnvironment: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public var accessKey: String
    public var secretKey: String
    public var sessionToken: String?
    public var region: String
    public var endpoint: String?
    /// Where the credentials came from, for messages ("the environment", "/root/.aws/credentials [default]").
    public var source: String

    public init(accessKey: String, secretKey: String, sessionToken: String?, region: String, endpoint: String?, source: String) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.sessionToken = sessionToken
        self.region = region
        self.endpoint = endpoint
        self.source = source
    }

    /// Never the secret or the token.
    public var description: String { "AWS credentials from \(source) (key \(accessKey.prefix(4))…), region \(region)" }
    public var debugDescription: String { description }

    public struct Missing: Error, Equatable, CustomStringConvertible {
        public let looked: [String]
        public var description: String {
            "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or add them to " + looked.joined(separator: " or ")
        }
    }

    public static func resolve(environment: [String: String], readFile: (String) -> String?) throws(Missing) -> AWSEnvironment {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let home = value("HOME") ?? "/root"
        let profile = value("AWS_PROFILE") ?? "default"
        let credentialsPath = value("AWS_SHARED_CREDENTIALS_FILE") ?? home + "/.aws/credentials"
        let configPath = value("AWS_CONFIG_FILE") ?? home + "/.aws/config"
        let configFile = readFile(configPath).map(INIText.parse) ?? [:]
        let configSection = configFile[profile == "default" ? "default" : "profile " + profile] ?? configFile[profile] ?? [:]
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? configSection["region"] ?? "us-east-1"
        let endpoint = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL")
        if let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") {
            return AWSEnvironment(
                accessKey: key, secretKey: secret, sessionToken: value("AWS_SESSION_TOKEN"), region: region,
                endpoint: endpoint, source: "the environment")
        }
        let section = readFile(credentialsPath).map(INIText.parse)?[profile] ?? [:]
        if let key = section["aws_access_key_id"], let secret = section["aws_secret_access_key"] {
            return AWSEnvironment(
                accessKey: key, secretKey: secret, sessionToken: section["aws_session_token"], region: region,
                endpoint: endpoint, source: "\(credentialsPath) [\(profile)]")
        }
        throw Missing(looked: ["\(credentialsPath) [\(profile)]"])
    }
}

/// The INI text of the AWS files: `[section]`, `key = value`, `#` and `;` comments.
enum INIText {
    static func parse(_ text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            sections[current, default: [:]][name] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return sections
    }
}

/// How long an upload waits after its `attempt`-th failure: 1 s, 2 s, 4 s … up to `cap`, each
/// stretched by `jitter` (0 … 1, a random share the caller draws) up to a half again, so that
/// many stations' retries after an outage do not arrive together.
public enum UploadBackoff {
    public static func seconds(afterFailure attempt: Int, jitter: Double, cap: Double = 60) -> Double {
        let base = min(cap, Double(1 << min(max(attempt - 1, 0), 20)))
        return base * (1 + 0.5 * min(max(jitter, 0), 1))
    }
}

/// The pending-uploads journal: `.upload-queue/` in an output folder, one small file per finished
/// segment not yet uploaded (its name from the segment's path, its text that path), written
/// before the segment counts as finished and removed once the upload is confirmed. It survives a
/// restart; the retention keeps every segment it names.
public enum UploadJournal {
    public static let folder = ".upload-queue"

    /// The entry's file name for a segment at `relative` (its path inside the output folder).
    public static func entryName(_ relative: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in relative.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".json"
    }

    /// `segmentStored`: the segment is in the store already (checked); only its ledger is left, so a
    /// restart does not send the segment again.
    public static func entryText(segment relative: String, queuedUnix: Double, segmentStored: Bool = false) -> String {
        var fields: [String: JSONValue] = ["segment": .string(relative), "queued_unix": .number(queuedUnix)]
        if segmentStored { fields["segment_stored"] = .bool(true) }
        return JSONValue.object(fields).jsonText
    }

    public struct Entry: Equatable, Sendable {
        public var segment: String
        public var segmentStored: Bool

        public init(segment: String, segmentStored: Bool) {
            self.segment = segment
            self.segmentStored = segmentStored
        }
    }

    /// The entry's segment (inside the output folder, never outside it) and its progress.
    public static func entry(_ text: String) -> Entry? {
        guard let value = try? JSONValue.parse(Data(text.utf8)), let segment = value["segment"]?.stringValue, !segment.isEmpty,
            !segment.hasPrefix("/"), !segment.split(separator: "/").contains("..")
        else { return nil }
        return Entry(segment: segment, segmentStored: value["segment_stored"]?.boolValue ?? false)
    }
}
