import Foundation
import Logging
import OtonSupport

/// Each station's measured loudness, kept in the state folder (``XDGPaths/loudnessFile``) so that a
/// switch to a station heard before starts at its gain at once (docs/levelling.md). Bounded: the
/// ``capacity`` stations heard last. A file that cannot be read is said once and ignored (the next
/// save replaces it). Used on the player's queue only.
public final class LoudnessMemory: @unchecked Sendable {
    /// Stations kept; the one heard longest ago goes first.
    public static let capacity = 500
    /// A file larger than this is not one oton wrote.
    static let maxBytes = 1 << 20
    /// Loudness values kept (LUFS): anything else is not a measurement.
    static let plausible: ClosedRange<Double> = -70...6
    /// A measurement needs this much sound to be remembered.
    public static let minimumSeconds = 10.0

    public let file: String?
    private let logger: Logger
    /// Most recently heard first.
    private var entries: [(url: String, lufs: Double)] = []

    public init(file: String? = XDGPaths().loudnessFile, logger: Logger = Logger(label: "oton.loudness")) {
        self.file = file
        self.logger = logger
        if let file { entries = Self.read(file, logger: logger) }
    }

    /// The loudness measured when `url` played last (LUFS), nil when never.
    public func loudness(of url: String) -> Double? {
        entries.first { $0.url == url }?.lufs
    }

    /// Keeps `lufs` as `url`'s loudness (the most recent) and saves the file.
    public func remember(_ lufs: Double, of url: String) {
        guard lufs.isFinite, Self.plausible.contains(lufs) else { return }
        entries.removeAll { $0.url == url }
        entries.insert((url, (lufs * 100).rounded() / 100), at: 0)
        if entries.count > Self.capacity { entries.removeLast(entries.count - Self.capacity) }
        save()
    }

    private func save() {
        guard let file else { return }
        let stations: [JSONValue] = entries.map { ["url": .string($0.url), "lufs": .number($0.lufs)] }
        let text = JSONValue.object(["version": 1, "stations": .array(stations)]).jsonText + "\n"
        do {
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try AtomicFileWriter.write(Data(text.utf8), to: file)
        } catch {
            logger.warning("\(tr("cannot keep the stations' loudness in {file}: {reason}", ["file": file, "reason": "\(error)"]))")
        }
    }

    /// The entries of `file`: none when it does not exist; none, said once, when it is damaged.
    static func read(_ file: String, logger: Logger) -> [(url: String, lufs: Double)] {
        guard FileManager.default.fileExists(atPath: file) else { return [] }
        do {
            return try parse(try Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            logger.warning("\(tr("{file} is damaged ({reason}); stations' loudness is measured afresh", ["file": file, "reason": "\(error)"]))")
            return []
        }
    }

    struct Damaged: Error, CustomStringConvertible {
        let description: String
    }

    /// The file's entries (at most ``capacity``, each URL once), or why it is not a loudness file.
    package static func parse(_ data: Data) throws -> [(url: String, lufs: Double)] {
        guard data.count <= maxBytes else { throw Damaged(description: "larger than \(maxBytes) bytes") }
        let root = try JSONValue.parse(data, maxBytes: maxBytes)
        guard root["version"]?.numberValue == 1, case let .array(stations)? = root["stations"] else {
            throw Damaged(description: "not {\"version\": 1, \"stations\": […]}")
        }
        var seen = Set<String>()
        var entries: [(url: String, lufs: Double)] = []
        for (index, station) in stations.prefix(capacity).enumerated() {
            guard let url = station["url"]?.stringValue, let lufs = station["lufs"]?.numberValue, plausible.contains(lufs) else {
                throw Damaged(description: "stations[\(index)] needs \"url\" and \"lufs\" from -70 to 6")
            }
            if seen.insert(url).inserted { entries.append((url, lufs)) }
        }
        return entries
    }
}
