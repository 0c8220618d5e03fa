import Foundation
import OtonEvents
import OtonStreamFraming
import OtonSupport

/// One station's timeshift ring (docs/timeshift.md): the received stream, compressed as it came,
/// in chunk files of a folder of its own under `$XDG_CACHE_HOME/oton/timeshift`, with its
/// ``TimeshiftIndex``. The receiver appends (and notes titles and gaps), playback reads at an
/// offset; the oldest chunks are deleted as the ring passes its length or its size. The folder is
/// removed when the ring is closed (a station switch, the end of the process) and, for a process
/// that died, by the next ring made.
///
/// Threads: every method may be called from any thread; `lock` guards the index, the files and
/// `resumeOffset`. A read or write is a pread/pwrite of at most a few KiB under it.
public final class TimeshiftRing: @unchecked Sendable, Equatable {
    public let folder: String
    public let settings: TimeshiftSettings
    private let lock = NSLock()
    private var index: TimeshiftIndex
    private var oggHeaders = TimeshiftOggHeaders()
    private var files: [Int: Int32] = [:]
    private var closed = false
    /// Where the next connection's playback starts (nil: at live): set when a connection ends behind live.
    private var resume: UInt64?
    private static let counter = Counter()

    /// Makes the ring's folder (and removes those of players no longer running).
    public init(settings: TimeshiftSettings, paths: XDGPaths = XDGPaths()) throws(TimeshiftError) {
        guard let parent = paths.timeshiftFolder else { throw .noCacheFolder }
        Self.removeAbandoned(in: parent)
        folder = parent + "/\(getpid())-\(Self.counter.next())"
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotCreate(folder, reason: error.localizedDescription)
        }
        self.settings = settings
        index = TimeshiftIndex(
            chunkBytes: settings.chunkBytes, maxBytes: settings.maxBytes,
            maxAgeNanoseconds: Int64(settings.seconds * 1_000_000_000))
    }

    deinit { close() }

    public static func == (a: TimeshiftRing, b: TimeshiftRing) -> Bool { a === b }

    /// Deletes every chunk and the folder; reads and writes after it do nothing.
    public func close() {
        lock.lock(); defer { lock.unlock() }
        guard !closed else { return }
        closed = true
        for (number, descriptor) in files {
            Foundation.close(descriptor)
            unlink(path(of: number))
        }
        files = [:]
        rmdir(folder)
    }

    // MARK: writing (the receiver)

    /// Appends received bytes; drops what the ring no longer holds.
    /// Nil when the bytes were written; else why not (a full disk: the caller plays on without the ring).
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer, at now: Int64 = Clock.monotonicNanoseconds()) -> String? {
        lock.lock(); defer { lock.unlock() }
        guard !closed, bytes.count > 0, let base = bytes.baseAddress else { return nil }
        oggHeaders.received(bytes, at: index.head)
        var done = 0
        var failure: String?
        for piece in index.append(bytes.count, at: now) {
            if let descriptor = file(piece.chunk, create: true) {
                let written = pwrite(descriptor, base + done, piece.length, off_t(piece.offsetInChunk))
                if written != piece.length, failure == nil {
                    failure = written < 0 ? String(cString: strerror(errno)) : "wrote \(written) of \(piece.length) bytes"
                }
            } else if failure == nil {
                failure = "cannot open \(path(of: piece.chunk)): \(String(cString: strerror(errno)))"
            }
            done += piece.length
        }
        for number in index.prune(now: now) {
            if let descriptor = files.removeValue(forKey: number) { Foundation.close(descriptor) }
            unlink(path(of: number))
        }
        oggHeaders.prune(before: index.start)
        return failure
    }

    /// Titles noted at `offset` (not yet heard: playback has not passed it) instead of at the head.
    package func note(_ tags: TagSet, at offset: UInt64) {
        lock.lock(); defer { lock.unlock() }
        guard !closed else { return }
        index.note(.tags(tags), at: offset)
    }

    /// A title (or a gap: a new connection) at the head.
    package func note(_ note: TimeshiftIndex.Note) {
        lock.lock(); defer { lock.unlock() }
        guard !closed else { return }
        index.note(note)
        if note == .gap { oggHeaders.connectionStarted() }
    }

    // MARK: reading (playback)

    /// Up to `count` bytes from `offset`: the bytes, and the offset read from (later than asked when the
    /// ring no longer held it). Empty when `offset` is at the head (nothing newer yet).
    public func read(from offset: UInt64, upTo count: Int) -> (bytes: [UInt8], from: UInt64) {
        lock.lock(); defer { lock.unlock() }
        return readHeld(from: offset, upTo: count)
    }

    /// Where playback asked for at `offset` starts, and the bytes sent before it: inside an Ogg
    /// chain, its header pages and then its next page (``TimeshiftOggHeaders``); else `offset` as it is.
    package func playbackStart(at offset: UInt64) -> TimeshiftOggHeaders.Start {
        lock.lock(); defer { lock.unlock() }
        var start = oggHeaders.start(at: max(offset, index.start)) { oggPage(from: $0) }
        start.offset = max(start.offset, index.start)  // a chain begun before the ring's start: from its start
        return start
    }

    /// The first page at or after `offset` (under the lock), looked for in the next two pages' worth of bytes.
    private func oggPage(from offset: UInt64) -> UInt64? {
        var bytes: [UInt8] = []
        var next = offset
        while bytes.count < 2 * TimeshiftOggHeaders.maxPageBytes {
            let (piece, from) = readHeld(from: next, upTo: 64 * 1024)
            guard !piece.isEmpty, from == next else { break }
            bytes += piece
            next += UInt64(piece.count)
        }
        return OggPage.next(in: bytes, from: 0).map { offset + UInt64($0.start) }
    }

    private func readHeld(from offset: UInt64, upTo count: Int) -> (bytes: [UInt8], from: UInt64) {
        let from = max(offset, index.start)
        guard !closed, let (chunk, inChunk) = index.locate(from), let descriptor = file(chunk.number, create: false) else { return ([], from) }
        let length = Int(min(UInt64(count), chunk.length - inChunk))
        var bytes = [UInt8](repeating: 0, count: length)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, length, off_t(inChunk)) }
        return (got > 0 ? Array(bytes.prefix(got)) : [], from)
    }

    /// The ring's extent now: its oldest and newest offsets and when they were received.
    public var extent: Extent {
        lock.lock(); defer { lock.unlock() }
        return Extent(
            start: index.start, head: index.head, startTime: index.time(at: index.start), headTime: index.headTime,
            heldBytes: index.heldBytes)
    }

    public struct Extent: Sendable, Equatable {
        public var start: UInt64
        public var head: UInt64
        public var startTime: Int64?
        public var headTime: Int64?
        public var heldBytes: UInt64
        /// How much time the ring holds (ns).
        public var span: Int64 { (headTime ?? 0) - (startTime ?? 0) }
    }

    public func time(at offset: UInt64) -> Int64? {
        lock.lock(); defer { lock.unlock() }
        return index.time(at: offset)
    }

    public func offset(at nanoseconds: Int64) -> UInt64 {
        lock.lock(); defer { lock.unlock() }
        return index.offset(at: nanoseconds)
    }

    package func marks(in range: Range<UInt64>) -> [TimeshiftIndex.Mark] {
        lock.lock(); defer { lock.unlock() }
        return index.marks(in: range)
    }

    public func tags(at offset: UInt64) -> TagSet? {
        lock.lock(); defer { lock.unlock() }
        return index.tags(at: offset)
    }

    /// Where the next connection's playback starts: an offset behind live, or nil for live.
    public var resumeOffset: UInt64? {
        get { lock.lock(); defer { lock.unlock() }; return resume }
        set { lock.lock(); resume = newValue; lock.unlock() }
    }

    /// The bytes the ring's files take on disk now (for tests and the benchmark).
    public var diskBytes: UInt64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.reduce(0) { total, name in
            var info = stat()
            return total + (stat(folder + "/" + name, &info) == 0 ? UInt64(info.st_size) : 0)
        }
    }

    // MARK: files (under the lock)

    private func path(of chunk: Int) -> String { folder + "/\(chunk).chunk" }

    private func file(_ number: Int, create: Bool) -> Int32? {
        if let descriptor = files[number] { return descriptor }
        guard create else { return nil }
        let descriptor = open(path(of: number), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        files[number] = descriptor
        return descriptor
    }

    /// Folders of rings whose process is gone (killed, crashed): "PID-N" with no such process.
    private static func removeAbandoned(in parent: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] {
            guard let pid = name.split(separator: "-").first.flatMap({ Int32($0) }), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(atPath: parent + "/" + name)
        }
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int {
            lock.lock(); defer { lock.unlock() }
            value += 1
            return value
        }
    }
}

public enum TimeshiftError: Error, Sendable, CustomStringConvertible {
    case noCacheFolder
    case cannotCreate(String, reason: String)

    public var description: String {
        switch self {
        case .noCacheFolder:
            tr("no cache folder for the timeshift ring (set HOME or XDG_CACHE_HOME); playing without timeshift")
        case let .cannotCreate(folder, reason):
            tr("cannot make the timeshift folder {folder} ({reason}); playing without timeshift", ["folder": folder, "reason": reason])
        }
    }
}
