import Foundation
import OtonJSON
import OtonSupport

/// `--events FILE|-`: writes every bus event as one JSON object per line,
/// the same view a plugin gets: kind, source, flags, monotonic and wall time, fields.
public final class EventLineWriter: MailboxConsumer, @unchecked Sendable {
    public static let subscriberID = "oton.events-writer"

    /// nil: standard output (through ``StandardOutput``, so a closed pipe ends the session quietly).
    private let handle: FileHandle?
    private let closeOnFinish: Bool
    private var subscription: BusSubscription?
    /// A recorder of several stations: each line names its station (`"station":"…"` after the kind).
    private let station: String?
    /// Writers of several sessions share one file: one line at a time.
    private let writeLock: NSLock

    /// A writer for one session of several, into a file (or standard output) they share: the
    /// handle is opened once by ``openShared(_:)``, and each line names `station`.
    public init(shared: (handle: FileHandle?, lock: NSLock), bus: PluginBus, station: String) {
        handle = shared.handle
        closeOnFinish = false
        self.station = station
        writeLock = shared.lock
        subscription = BusSubscription(
            bus: bus, id: Self.subscriberID, kinds: .all, limits: Mailbox.Limits(events: 65_536, mediaBytes: 0),
            consumer: self)
    }

    /// Creates or truncates `destination` ("-": standard output) for writers that share it.
    public static func openShared(_ destination: String) throws -> (handle: FileHandle?, lock: NSLock) {
        guard destination != "-" else { return (nil, NSLock()) }
        guard FileManager.default.createFile(atPath: destination, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: destination])
        }
        return (try FileHandle(forWritingTo: URL(fileURLWithPath: destination)), NSLock())
    }

    /// `destination` is a path, or "-" for standard output. The file is created or truncated.
    public init(destination: String, bus: PluginBus) throws {
        if destination == "-" {
            handle = nil
            closeOnFinish = false
        } else {
            guard FileManager.default.createFile(atPath: destination, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: destination])
            }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: destination))
            closeOnFinish = true
        }
        station = nil
        writeLock = NSLock()
        subscription = BusSubscription(
            bus: bus, id: Self.subscriberID, kinds: .all, limits: Mailbox.Limits(events: 65_536, mediaBytes: 0),
            consumer: self)
    }

    public static func line(for event: BusEvent, station: String? = nil) -> String {
        let wall = Date(timeIntervalSince1970: Double(event.wallMicroseconds) / 1_000_000)
        return "{\"kind\":" + JSONText.quoted(event.name)
            + (station.map { ",\"station\":" + JSONText.quoted($0) } ?? "")
            + ",\"source\":" + JSONText.quoted(event.source)
            + ",\"flags\":" + String(event.flags)
            + ",\"mono_ns\":" + String(event.monotonicNanoseconds)
            + ",\"wall\":" + JSONText.quoted(wall.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)))
            + ",\"fields\":" + JSONText.object(event.fields) + "}\n"
    }

    public func deliver(event: FrozenEvent) {
        write(Self.line(for: event.event, station: station))
    }

    private func write(_ line: String) {
        writeLock.lock(); defer { writeLock.unlock() }
        if let handle { try? handle.write(contentsOf: Data(line.utf8)) } else { StandardOutput.write(line) }
    }

    public func deliver(media: MediaPacket, extraFlags: UInt32) {}

    public func deliverDropNotice(_ counts: Mailbox.DropCounts) {
        write(BusSubscription.droppedLine(source: Self.subscriberID, counts) + "\n")
    }

    /// Writes everything queued, then stops.
    public func finish() {
        subscription?.close { [handle, closeOnFinish] in
            if closeOnFinish { try? handle?.close() }
        }
    }
}
