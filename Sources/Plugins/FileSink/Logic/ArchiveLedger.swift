import OtonJSON

/// The gap ledger beside each archive segment (`NAME.jsonl` beside `NAME.mp3`): one JSON object
/// per line, written as things happen, so what a crash leaves is readable up to its last line.
/// - `{"type":"segment", …}` when the segment begins: its file, start, the boundary it runs to, codec;
/// - `{"type":"title", …}` for the title in effect at the start and each title heard, with its offset and
///   `title_source` (stream, station-api, provider:<rule>, recognised: where the title came from);
/// - `{"type":"gap", …}` for every gap: when, seconds missing, why (reconnect, source-down, stall, lost-data);
/// - `{"type":"end", …}` when it ends: start, end, seconds, bytes, frames, codec, bitrate, status
///   (`complete`: it reached its boundary; `ended-early` with `why`; `interrupted`: the recorder was
///   killed, written by the next start).
/// Offsets are seconds of audio into the segment; times are ISO 8601 UTC with milliseconds, and
/// `*_unix` the same as seconds since 1970.
public enum ArchiveLedger {
    public enum Status: String, Sendable {
        case complete
        case endedEarly = "ended-early"
        case interrupted
    }

    public static func segmentLine(_ segment: ArchiveSplitter.Segment, file: String, station: String?, streamURL: String?) -> String {
        var fields: [String: JSONValue] = [
            "type": "segment", "file": .string(file), "codec": .string(codec(segment)), "caps": .string(segment.caps),
            "from_boundary": .bool(segment.fromBoundary), "period_end": .string(time(segment.periodEnd)),
        ]
        fields.merge(timeFields("start", segment.start)) { $1 }
        if let station { fields["station"] = .string(station) }
        if let streamURL { fields["stream_url"] = .string(streamURL) }
        return JSONValue.object(fields).jsonText
    }

    public static func titleLine(_ metadata: TrackMetadata, at wall: Int64, offsetNanoseconds: Int64) -> String {
        var fields: [String: JSONValue] = ["type": "title", "offset": seconds(offsetNanoseconds)]
        fields.merge(timeFields("at", wall)) { $1 }
        if let title = metadata.title { fields["title"] = .string(title) }
        if let artist = metadata.artist { fields["artist"] = .string(artist) }
        if let source = metadata.titleSource { fields["title_source"] = .string(source) }
        return JSONValue.object(fields).jsonText
    }

    public static func gapLine(_ gap: ArchiveSplitter.Gap, offsetNanoseconds: Int64) -> String {
        var fields: [String: JSONValue] = [
            "type": "gap", "offset": seconds(offsetNanoseconds), "seconds": seconds(gap.missingNanoseconds),
            "reason": .string(gap.reason.rawValue),
        ]
        fields.merge(timeFields("at", gap.at)) { $1 }
        if gap.overlapNanoseconds > 0 { fields["repeated_seconds"] = seconds(gap.overlapNanoseconds) }
        if gap.discardedBytes > 0 { fields["discarded_bytes"] = .int(gap.discardedBytes) }
        return JSONValue.object(fields).jsonText
    }

    /// The segment's summary, its last line.
    public static func endLine(
        _ segment: ArchiveSplitter.Segment, status: Status, why: String? = nil, gaps: Int,
        missingNanoseconds: Int64
    ) -> String {
        var fields: [String: JSONValue] = [
            "type": "end", "status": .string(status.rawValue), "bytes": .number(Double(segment.bytes)), "frames": .int(segment.frames),
            "seconds": seconds(segment.audioNanoseconds), "codec": .string(codec(segment)), "gaps": .int(gaps),
            "missing_seconds": seconds(missingNanoseconds),
        ]
        fields.merge(timeFields("start", segment.start)) { $1 }
        fields.merge(timeFields("end", segment.end)) { $1 }
        if segment.headerBytes > 0 { fields["header_bytes"] = .number(Double(segment.headerBytes)) }
        if let kbps = bitrate(segment) { fields["bitrate_kbps"] = .int(kbps) }
        if let why { fields["why"] = .string(why) }
        return JSONValue.object(fields).jsonText
    }

    /// The line the next start appends to the ledger of a segment its recorder never ended (`kill -9`).
    public static func interruptedLine(bytes: UInt64, markedAt wall: Int64) -> String {
        var fields: [String: JSONValue] = [
            "type": "end", "status": .string(Status.interrupted.rawValue), "bytes": .number(Double(bytes)),
            "why": "the recorder ended without finishing this segment (killed or crashed)",
        ]
        fields.merge(timeFields("marked", wall)) { $1 }
        return JSONValue.object(fields).jsonText
    }

    /// The codec as people name it: mp3, aac, vorbis, opus, flac (Ogg), or the container.
    public static func codec(_ segment: ArchiveSplitter.Segment) -> String {
        let caps = segment.caps.lowercased()
        switch segment.container {
        case .mpegAudio: return "mp3"
        case .adts: return "aac"
        case .ogg: return caps.contains("opus") ? "opus" : caps.contains("flac") ? "flac" : "vorbis"
        case .flac: return "flac"
        case .pcm: return "pcm"
        case .unknown: return "unknown"
        }
    }

    /// Average kbit/s of the audio written (repeated headers left out); nil without audio time.
    public static func bitrate(_ segment: ArchiveSplitter.Segment) -> Int? {
        guard segment.audioNanoseconds > 0 else { return nil }
        let bits = Double(segment.bytes - segment.headerBytes) * 8
        return Int((bits / (Double(segment.audioNanoseconds) / 1e9) / 1000).rounded())
    }

    static func seconds(_ nanoseconds: Int64) -> JSONValue {
        .number((Double(nanoseconds) / 1e6).rounded() / 1000)
    }

    static func time(_ wall: Int64) -> String {
        TimeText.iso8601Milliseconds(microseconds: ArchivePeriod.floorDivide(wall, 1000))
    }

    static func timeFields(_ name: String, _ wall: Int64) -> [String: JSONValue] {
        [name: .string(time(wall)), name + "_unix": .number((Double(wall) / 1e6).rounded() / 1000)]
    }
}
