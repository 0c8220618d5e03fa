import CGStreamer
import Foundation

/// The titles a DASH manifest announces in its `EventStream` elements (ISO/IEC 23009-1 §5.10.2):
/// events of an ID3 scheme (``EventMessage/id3Schemes``) whose content (or `messageData`) is a
/// base64 ID3v2 tag. GStreamer 1.22's dashdemux reads no EventStream, so every manifest an
/// `otonhttpsrc` receives, first or reloaded, is read here too (``DASHTimelineRepair``'s rewriter
/// hands it over with its URL), and a pipeline asks, as each segment download begins, which event
/// is current (``current(manifest:secondsPlayed:now:)``).
///
/// When an event is current: in a live (dynamic) MPD, once the wall clock has passed the manifest's
/// `availabilityStartTime` + the Period's `start` + the event's time (less `presentationTimeOffset`),
/// plus the `suggestedPresentationDelay` the player keeps behind the live edge; in a static MPD,
/// once the pipeline has been fetching segments for the event's time. An event with a `duration`
/// stops being current when it ends. So titles appear with the segment that plays them, give or take
/// one segment, never before.
///
/// The text is untrusted: it goes the way of every stream title (``TagSet`` → ``TrackAccumulator``).
/// Memory: at most ``manifestCapacity`` manifests of at most ``eventCapacity`` events each, each
/// ID3 tag at most ``FragmentBoxScanner/maxMessageBytes``. Threads: any (a lock).
package enum DASHEventStreams {
    package static let manifestCapacity = 16
    package static let eventCapacity = 256

    package struct Event: Equatable, Sendable {
        /// Seconds from the start of the presentation (the Period's start included).
        package let seconds: Double
        package let duration: Double?
        package let tags: TagSet
    }

    package struct Manifest: Equatable, Sendable {
        package let isDynamic: Bool
        package let availabilityStart: Date?
        package let presentationDelay: Double
        package let events: [Event]
    }

    private final class Table: @unchecked Sendable {
        let lock = NSLock()
        var manifests: [String: Manifest] = [:]
        var order: [String] = []
    }
    private static let table = Table()

    /// Reads `manifest` (fetched from `url`) and keeps its events; a manifest without any forgets the URL's.
    package static func remember<Bytes: Collection>(manifest: Bytes, url: String) where Bytes.Element == UInt8 {
        let read = parse(Array(manifest))
        table.lock.lock(); defer { table.lock.unlock() }
        guard let read, !read.events.isEmpty else {
            if table.manifests.removeValue(forKey: url) != nil { table.order.removeAll { $0 == url } }
            return
        }
        if table.manifests.updateValue(read, forKey: url) == nil { table.order.append(url) }
        while table.order.count > manifestCapacity { table.manifests[table.order.removeFirst()] = nil }
    }

    /// The event current in the manifest fetched from `url`: `secondsPlayed` is how long the pipeline
    /// has been fetching segments (for a static MPD); `now` the wall clock (for a dynamic one).
    package static func current(manifest url: String, secondsPlayed: Double, now: Date = Date()) -> Event? {
        table.lock.lock()
        let manifest = table.manifests[url]
        table.lock.unlock()
        guard let manifest else { return nil }
        return current(in: manifest, secondsPlayed: secondsPlayed, now: now)
    }

    package static func current(in manifest: Manifest, secondsPlayed: Double, now: Date) -> Event? {
        var position = secondsPlayed
        if manifest.isDynamic, let start = manifest.availabilityStart {
            position = now.timeIntervalSince(start) - manifest.presentationDelay
        }
        guard let event = manifest.events.last(where: { $0.seconds <= position }) else { return nil }
        if let duration = event.duration, position > event.seconds + duration { return nil }
        return event
    }

    /// The manifest's ID3 events in time order, or nil when it is not an MPD.
    package static func parse(_ bytes: [UInt8]) -> Manifest? {
        var scanner = XMLTagScanner(bytes)
        var root: XMLTagScanner.Element?
        var periodStart = 0.0
        var stream: (scheme: String, timescale: Double, offset: Double)?
        var events: [Event] = []
        while let tag = scanner.next() {
            switch tag {
            case let .end(name):
                if name == "EventStream" { stream = nil }
            case let .start(element):
                if root == nil {
                    guard element.name == "MPD" else { return nil }
                    root = element
                }
                switch element.name {
                case "Period":
                    periodStart = element.attributes["start"].flatMap { DASHTimelineRepair.seconds(ofDuration: $0.value) } ?? 0
                case "EventStream":
                    let timescale = element.attributes["timescale"].flatMap { Double($0.value) } ?? 1
                    let offset = element.attributes["presentationTimeOffset"].flatMap { Double($0.value) } ?? 0
                    stream = nil
                    if !element.selfClosing, timescale > 0 { stream = (element.attributes["schemeIdUri"]?.value ?? "", timescale, offset) }
                case "Event":
                    guard let stream, EventMessage.id3Schemes.contains(stream.scheme), events.count < eventCapacity * 4 else { break }
                    let text = element.attributes["messageData"]?.value ?? (element.selfClosing ? "" : content(after: element, in: bytes))
                    guard let tags = tags(base64: text) else { break }
                    let time = element.attributes["presentationTime"].flatMap { Double($0.value) } ?? 0
                    let duration = element.attributes["duration"].flatMap { Double($0.value) }.map { $0 / stream.timescale }
                    events.append(Event(seconds: periodStart + (time - stream.offset) / stream.timescale, duration: duration, tags: tags))
                default:
                    break
                }
            }
        }
        guard let root else { return nil }
        let ordered = events.enumerated().sorted { ($0.element.seconds, $0.offset) < ($1.element.seconds, $1.offset) }.map(\.element)
        return Manifest(
            isDynamic: root.attributes["type"]?.value == "dynamic",
            availabilityStart: root.attributes["availabilityStartTime"].flatMap { date(from: $0.value) },
            presentationDelay: root.attributes["suggestedPresentationDelay"].flatMap { DASHTimelineRepair.seconds(ofDuration: $0.value) } ?? 0,
            events: Array(ordered.suffix(eventCapacity)))
    }

    /// An xs:dateTime as manifests write it, with or without fractions of a second.
    private static func date(from text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        return formatter.date(from: text)
    }

    /// The text between an element's start tag and the next tag (base64 has no markup).
    private static func content(after element: XMLTagScanner.Element, in bytes: [UInt8]) -> String {
        let limit = min(bytes.count, element.end + FragmentBoxScanner.maxMessageBytes * 4 / 3 + 64)
        guard element.end < limit else { return "" }
        let end = bytes[element.end..<limit].firstIndex(of: UInt8(ascii: "<")) ?? limit
        return String(decoding: bytes[element.end..<end], as: UTF8.self)
    }

    private static func tags(base64 text: String) -> TagSet? {
        let compact = text.filter { !$0.isWhitespace }
        guard !compact.isEmpty, compact.count <= FragmentBoxScanner.maxMessageBytes * 4 / 3 + 4,
            let data = Data(base64Encoded: compact)
        else { return nil }
        return SegmentEventTitles.tags(ofID3: Array(data))
    }
}
