import OtonJSON

/// Reads the plugin's "config" object. Every key has a default that matches a snapserver on this
/// machine configured as docs/snapcast.md shows:
///
/// - host, port: where snapserver's TCP source listens (`source = tcp://…?mode=server`); 127.0.0.1:4953.
/// - stream: the source's `name=`, which the control script reports; "Oton".
/// - format: the source's `sampleformat`, "48000:16:2" (snapserver's default).
/// - metadata_listen: where the plugin waits for the stream's control script; 127.0.0.1:4955.
/// - mute_local: true plays only in the Snapcast rooms (the local output's volume is set to 0).
/// - buffer_ms: the most sound kept for a slow or absent snapserver before the oldest is dropped.
public struct SnapcastConfig: Sendable, Equatable {
    public static let knownKeys: Set<String> = ["host", "port", "stream", "format", "metadata_listen", "mute_local", "buffer_ms"]
    public static let defaultMetadataListen = ListenAddress(host: "127.0.0.1", port: 4955)

    public var host = "127.0.0.1"
    public var port: UInt16 = 4953
    public var stream = "Oton"
    public var format = SnapcastSampleFormat.standard
    public var metadataListen = Self.defaultMetadataListen
    public var muteLocal = false
    public var bufferMilliseconds = 2000

    public init() {}

    /// The most bytes of sound kept waiting for snapserver.
    public var bufferBytes: Int {
        let bytes = format.bytesPerSecond * bufferMilliseconds / 1000
        return max(format.frameBytes, bytes - bytes % format.frameBytes)
    }

    public static func parse(_ json: String) throws(PluginConfigError) -> SnapcastConfig {
        let reader = try PluginConfigReader(json: json, example: #"{"host": "127.0.0.1", "port": 4953, "stream": "Oton"}"#)
        try reader.refuseUnknownKeys(known: knownKeys, owner: "a snapcast")
        var config = SnapcastConfig()
        if let host = try reader.string(
            "host", nonEmpty: true, maxCount: 253,
            expected: "a host name or IPv4 address such as \"127.0.0.1\"")
        {
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else {
                throw reader.error("host", "must be a host name or IPv4 address such as \"127.0.0.1\" (letters, digits, dots and dashes), not \"\(host)\"")
            }
            config.host = host
        }
        if let port = try reader.integer("port", in: 1...65535) { config.port = UInt16(port) }
        if let stream = try reader.string(
            "stream", nonEmpty: true, maxCount: 64,
            expected: "the name= of snapserver's source, 1 to 64 characters, such as \"Oton\"")
        {
            guard stream.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                throw reader.error("stream", "must not contain control characters")
            }
            config.stream = stream
        }
        if let text = try reader.string("format", expected: "snapserver's sampleformat such as \"48000:16:2\"") {
            guard let format = SnapcastSampleFormat.parse(text) else {
                throw reader.error(
                    "format",
                    "must be RATE:16:CHANNELS as in snapserver's sampleformat, e.g. \"48000:16:2\" (rate 8000 to 192000, 16 bits, 1 to 8 channels), not \"\(text)\""
                )
            }
            config.format = format
        }
        if let text = try reader.string("metadata_listen", expected: "a string such as \"127.0.0.1:4955\"") {
            do {
                config.metadataListen = try ListenAddress.parse(text, example: "127.0.0.1:4955")
            } catch {
                throw reader.error("metadata_listen", "must be an IPv4 ADDRESS:PORT such as \"127.0.0.1:4955\", not \"\(text)\"")
            }
        }
        if let mute = try reader.bool("mute_local") { config.muteLocal = mute }
        if let milliseconds = try reader.integer("buffer_ms", in: 100...10000) { config.bufferMilliseconds = milliseconds }
        return config
    }
}
