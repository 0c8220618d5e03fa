import CGStreamer
import Foundation
import OtonSupport

/// Feeds one playback pipeline's appsrc from a ``TimeshiftRing``, from a start offset onwards
/// (docs/timeshift.md). Each time the appsrc runs dry (need-data, on its streaming thread) it
/// pushes the next piece of the ring — DISCONT after a gap or a jump — and, before it, a mark
/// event saying which ring offset everything before it ended at; the mark travels downstream in
/// order with the audio, so whoever watches it at the output knows which offset is heard.
/// At the live edge it waits (in short steps, so a stop never waits long) for the receiver.
///
/// A finite programme (issue 54 §9) has an end offset: there the feeder ends the stream (EOS), so
/// the playback pipeline says it has played it all.
///
/// Threads: `cursor`, `prefix`, `pushedOnce` and `discont` are the streaming thread's alone; `condition`
/// guards `stopped` and `endOffset`.
final class TimeshiftFeeder: @unchecked Sendable {
    let ring: TimeshiftRing
    let startOffset: UInt64
    /// A line for the listener's log (the ring lost the audio at the cursor).
    private let onNotice: @Sendable (String) -> Void
    private let condition = NSCondition()
    private var stopped = false
    private var endOffset: UInt64?

    private var cursor: UInt64
    private var pushedOnce = false
    private var discont = false

    /// At most this much a push: 4 KiB is a quarter second of 128 kbit/s, the grain titles follow at.
    static let pieceBytes = 4096
    static let firstPieceBytes = 512

    /// Sent before the ring's bytes (an Ogg chain's headers when starting inside it).
    private var prefix: [UInt8]

    init(ring: TimeshiftRing, from offset: UInt64, prefix: [UInt8] = [], onNotice: @escaping @Sendable (String) -> Void) {
        self.ring = ring
        startOffset = offset
        cursor = offset
        self.prefix = prefix
        self.onNotice = onNotice
    }

    /// Connects it to an appsrc (bytes, no timestamps: the parsers time the audio).
    func attach(to element: UnsafeMutablePointer<GstElement>) {
        otgst_set_bool(element, "is-live", 0)
        otgst_set_uint64(element, "max-bytes", 64 * 1024)
        otgst_set_bool(element, "block", 0)
        otgst_app_src_connect(
            element,
            { source, _, data in
                guard let source, let data else { return }
                Unmanaged<TimeshiftFeeder>.fromOpaque(data).takeUnretainedValue().needData(source)
            }, Unmanaged.passRetained(self).toOpaque(),
            { data in
                if let data { Unmanaged<TimeshiftFeeder>.fromOpaque(data).release() }
            })
    }

    /// Ends every wait; pushes nothing after it.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// The programme ends at `offset` in the ring (the receiver has it all): playback ends there.
    func end(at offset: UInt64) {
        condition.lock()
        endOffset = offset
        condition.broadcast()
        condition.unlock()
    }

    private var end: UInt64? {
        condition.lock(); defer { condition.unlock() }
        return endOffset
    }

    /// The receiver wrote more (wakes a feeder waiting at the live edge).
    func dataArrived() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    private var isStopped: Bool {
        condition.lock(); defer { condition.unlock() }
        return stopped
    }

    /// On the appsrc's streaming thread: one piece, or nothing once stopped.
    private func needData(_ source: UnsafeMutablePointer<GstAppSrc>) {
        if !prefix.isEmpty {
            _ = prefix.withUnsafeBytes { otgst_app_src_push(source, $0.baseAddress, gsize($0.count), 0) }
            prefix = []
            return
        }
        if pushedOnce { _ = otgst_app_src_push_mark(source, guint64(cursor)) }
        while !isStopped {
            // The first piece is short: the first mark (and with it the title playback starts in) follows it soon.
            let (bytes, from) = ring.read(from: cursor, upTo: pushedOnce ? Self.pieceBytes : Self.firstPieceBytes)
            if from > cursor {
                discont = true
                onNotice(tr("the timeshift ring no longer held the paused audio; playing from the oldest it holds"))
                cursor = from
            }
            guard !bytes.isEmpty else {
                if let end, cursor >= end {
                    _ = gst_app_src_end_of_stream(source)
                    stop()
                    return
                }
                condition.lock()
                if !stopped { _ = condition.wait(until: Date().addingTimeInterval(0.2)) }
                condition.unlock()
                continue
            }
            // A mark inside the piece (a gap: a new connection; a title) ends it there: the next piece starts
            // DISCONT after a gap, and a title's mark event goes right before its first byte, so the title is
            // heard with its audio at any bitrate (a 4 KiB piece is 5 s of a 6 kbit/s stream).
            var piece = bytes[...]
            let range = cursor..<(cursor + UInt64(bytes.count))
            if let mark = ring.marks(in: range).first(where: { $0.offset > cursor }) {
                piece = bytes[..<Int(mark.offset - cursor)]
            }
            let flagged = discont || ring.marks(in: cursor..<(cursor + 1)).contains { $0.note == .gap }
            discont = false
            _ = piece.withUnsafeBytes { otgst_app_src_push(source, $0.baseAddress, gsize($0.count), flagged ? 1 : 0) }
            cursor += UInt64(piece.count)
            pushedOnce = true
            return
        }
    }
}
