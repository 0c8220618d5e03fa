import FileSinkLogic
import Foundation
import OtonJSON

/// Carries out the splitter's decisions on disk: .part files named from the
/// template (TrackFileNamer), sealed and renamed into place (or into
/// incomplete/, or deleted) when they end (TrackFinisher), the JSON index,
/// the free-space floor and the size limit. Not thread safe: FileSinkInstance
/// calls it from the plugin's mailbox worker only.
final class Recorder {
    /// The track being cut (RecorderTrack.swift).
    typealias Open = RecorderTrack

    let settings: FileSinkSettings
    private var splitter: TrackSplitter
    /// Stream mode with a silence search: how loud the decoded audio beside the stream was.
    private let loudness = LoudnessTimeline()
    var open: Open?
    /// The folder's index: each change to a track is one journal line.
    let indexFile: SharedIndexFile
    private let session: String
    private let sessionStart = Date()
    private var stopped = false
    var notKept = RecorderNotKept()
    /// Tagging copies the file; not when space ran out.
    var tagging = true
    private lazy var share = DiskShare(directory: settings.directory)  // this recorder's part of the disk (DiskShare.swift)
    private var totalBytes: UInt64 = 0
    /// Audio written to files so far (the `max_seconds` limit).
    private var totalNanoseconds: Int64 = 0
    /// The next unit would have taken the audio further from `max_seconds` than stopping short of it: nothing more is written.
    private var durationReached = false
    /// The duration was reached before the first title named the file (a server's burst arrives at once):
    /// the stop waits for that title, or for this much more audio.
    private static let titleGraceNanoseconds: Int64 = 5_000_000_000
    /// Audio that came (and was not written) since the duration was reached, while waiting for that title.
    private var waitedNanoseconds: Int64 = 0
    let notify: (Notice) -> Void
    /// Replies in the user's language: the plugin's `HostHandle.tr` (English by default, for tests).
    let tr: (String, [String: String]) -> String
    let namer: TrackFileNamer
    let finisher: TrackFinisher
    /// Wishlist mode: what the host said of each announced track's sequence (the last few only).
    var wishes: [(sequence: UInt64, decision: WishDecision, fromStart: Bool)] = []
    /// WAV sizes are refreshed in the header every this many bytes.
    private var bytesSinceHeaderRefresh = 0

    var isStopped: Bool { stopped }

    init(
        settings: FileSinkSettings, translate: @escaping (String, [String: String]) -> String = MessageTemplate.filled,
        notify: @escaping (Notice) -> Void
    ) throws {
        self.tr = translate
        self.settings = settings
        self.notify = notify
        namer = TrackFileNamer(settings: settings)
        finisher = TrackFinisher(settings: settings) { level, message in notify(.log(level: level, message: message)) }
        splitter = settings.makeSplitter()
        if settings.listensToDecodedAudio { splitter.loudness = loudness }
        session = TimeText.iso8601(Date()) + "-\(getpid())"
        do {
            try FileOps.makeDirectories(settings.directory)
        } catch {
            throw PartFile.Failure(description: "cannot create the output folder \(settings.directory): \(error.localizedDescription)")
        }
        guard access(settings.directory, W_OK) == 0 else {
            throw PartFile.Failure(description: "the output folder \(settings.directory) is not writable")
        }
        indexFile = try SharedIndexFile(directory: settings.directory, name: settings.indexName, streamURL: settings.streamURL)
        do {
            let (count, warning) = try indexFile.open(session: session)
            if let warning { notify(.log(level: .warning, message: warning)) }
            if count > 0 {
                notify(
                    .log(
                        level: .warning,
                        message: tr(
                            "{count} track(s) in {index} were left unfinished by a recording that ended abruptly; marked interrupted (their .part files are kept)",
                            ["count": String(count), "index": indexFile.path])))
            }
        } catch {
            notify(.log(level: .warning, message: tr("cannot update the index: {reason}", ["reason": "\(error)"])))
        }
    }

    // MARK: input

    func receive(_ buffer: TrackSplitter.Buffer) {
        guard !stopped else { return }
        apply(splitter.receive(buffer))
    }

    /// A buffer the instance already read into units (shared with the archive).
    func receive(_ reading: StreamUnitReader.Reading, monotonicNanoseconds: Int64) {
        guard !stopped else { return }
        apply(splitter.receive(reading, monotonicNanoseconds: monotonicNanoseconds))
    }

    /// Decoded audio beside the stream (stream mode with a silence search): only its loudness is kept.
    func hear(_ bytes: [UInt8], format: PCMFormat, pts: Int64, connection: UInt64) {
        loudness.add(bytes, format: format, pts: pts, connection: connection)
    }

    func track(_ metadata: TrackMetadata) {
        defer { stopAtDurationIfReached() }  // a stop that waited for the first title
        guard !stopped else { return }
        apply(splitter.track(metadata))
    }

    /// The host announced a wish (`org.oton.wish.heard`): the track with this sequence is kept or not as it says.
    /// `fromStart` false: the host joined it in its middle (a connection's first track), so it is incomplete
    /// even when the cut before it looked like a title change (a server's burst can outlast the first title).
    func wish(sequence: UInt64, _ decision: WishDecision, fromStart: Bool) {
        wishes.append((sequence, decision, fromStart))
        if wishes.count > 64 { wishes.removeFirst(wishes.count - 64) }
    }

    /// The artwork plugin published a cover; it belongs to the current track when the titles agree.
    func artwork(path: String, title: String?) {
        guard let open else { return }
        if let title, let current = open.segment.metadata?.title, title != current { return }
        open.artworkPath = path
    }

    /// Ends the recording (the current file is incomplete) and merges the index journal.
    func finish() {
        if !stopped {
            apply(splitter.finish())
            stopped = true
        }
        do {
            if let warning = try indexFile.close() { notify(.log(level: .warning, message: warning)) }
        } catch {
            notify(
                .log(
                    level: .warning,
                    message: tr("cannot update the index: {reason}; its changes stay in {journal}", ["reason": "\(error)", "journal": indexFile.journalPath])))
        }
    }

    /// record-current: write the current track from its start and keep writing it to its end.
    func recordCurrent() -> (Bool, String) {
        guard !stopped else { return (false, tr("recording has stopped; see the log", [:])) }
        guard let open else { return (false, tr("nothing is playing yet", [:])) }
        let name = TrackFileNamer.describe(open.segment.metadata)
        let path = open.file?.path ?? "?"
        if open.persist {
            return (true, tr("already recording {track} to {path}", ["track": name, "path": path]))
        }
        open.persist = true
        guard startFile(open) else { return (false, tr("cannot record {track}; see the log", ["track": name])) }
        let ago = formatSeconds(Double(open.segment.durationNanoseconds) / 1e9)
        let values = ["track": name, "ago": ago, "path": path]
        return (
            true,
            open.lostStart
                ? tr("recording {track} from {ago} ago (the start did not fit in config.buffer_mb) to {path}", values)
                : tr("recording {track} from its start ({ago} ago) to {path}", values)
        )
    }

    // MARK: actions

    private func apply(_ actions: [TrackSplitter.Action]) {
        // Consecutive audio units of one buffer go to the disk in one write (a 4 KiB buffer holds ~10 MP3 frames).
        var run: [UInt8] = []
        var runNanoseconds: Int64 = 0
        func flushRun() {
            guard !run.isEmpty else { return }
            write(run, nanoseconds: runNanoseconds)
            run = []
            runNanoseconds = 0
        }
        for action in actions {
            guard !stopped else { return }
            if case let .write(_, bytes, nanoseconds) = action, nanoseconds > 0 {
                if let open, open.persist, settings.maxNanoseconds > 0 {
                    // --duration ends at the unit (frame, page) nearest the duration, not after the whole buffer
                    // it came in: a server's burst arrives in one piece (+2.4 s on a Vorbis station: issue 39 §3).
                    // An Ogg page can be half a second or more: the one that crosses the duration is written
                    // and its end trimmed when the file is finished (its granule position); a frame is
                    // short enough to take the nearest.
                    let left = settings.maxNanoseconds - totalNanoseconds - runNanoseconds
                    let trims = open.segment.container == .ogg
                    if !durationReached && (trims ? left <= 0 : left < nanoseconds - nanoseconds / 2) {
                        flushRun()
                        durationReached = true
                    }
                    if durationReached {
                        write(bytes, nanoseconds: nanoseconds)
                        continue
                    }
                }
                run += bytes
                runNanoseconds += nanoseconds
                continue
            }
            flushRun()
            guard !stopped else { return }
            switch action {
            case let .begin(segment):
                begin(segment)
            case let .write(_, bytes, nanoseconds):
                write(bytes, nanoseconds: nanoseconds)
            case let .rename(_, metadata):
                if let open {
                    open.segment.metadata = metadata
                    fill(&open.entry, metadata)
                    renamePart(open)
                    if open.persist { saveIndex(open.entry) }
                }
            case let .end(segment, complete):
                end(segment, complete: complete)
            case let .mark(_, metadata, nanoseconds):
                open?.marks.append(CueSheet.Track(title: metadata.title, performer: metadata.artist, nanoseconds: nanoseconds))
            }
        }
        if !stopped { flushRun() }
    }

    private var toldAlignmentUnsupported = false

    private func begin(_ segment: TrackSplitter.Segment) {
        let wantsAlignment = settings.silenceWindow > 0 || settings.padBefore > 0 || settings.padAfter > 0
        if wantsAlignment && settings.split && !segment.container.supportsAlignedCuts && !toldAlignmentUnsupported {
            toldAlignmentUnsupported = true
            notify(
                .log(
                    level: .warning,
                    message: tr(
                        "--silence-window and --pad-* do not apply to this stream ({container}): Ogg pages cannot move between logical streams, so cuts stay where the titles change",
                        ["container": segment.container.rawValue])))
        }
        let offset = Date().timeIntervalSince(sessionStart)
        var entry = RecordingIndex.Track(
            id: segment.id, session: session, status: .recording, file: nil, title: nil, artist: nil, station: nil,
            sequence: nil, connection: segment.connection, started: TimeText.iso8601(Date()),
            sessionSeconds: (offset * 1000).rounded() / 1000, streamOffset: segment.streamOffset)
        fill(&entry, segment.metadata)
        let open = Open(segment: segment, persist: settings.mode == .always, entry: entry)
        self.open = open
        if open.persist { _ = startFile(open) }
    }

    private func fill(_ entry: inout RecordingIndex.Track, _ metadata: TrackMetadata?) {
        entry.title = metadata?.title
        entry.artist = metadata?.artist
        entry.station = metadata?.station ?? settings.station
        entry.streamURL = metadata?.streamURL ?? settings.streamURL
        entry.sequence = metadata?.sequence
        entry.titleSource = metadata?.titleSource
    }

    /// Opens the .part file and writes what was buffered. False when recording had to stop.
    private func startFile(_ open: Open) -> Bool {
        let relative = namer.relativeName(open.segment, at: open.began)
        let base = settings.directory + "/" + relative
        let directory = (base as NSString).deletingLastPathComponent
        do {
            try FileOps.makeDirectories(directory)
            guard FileOps.isInside(directory, root: settings.directory) else {
                throw PartFile.Failure(description: "\(directory) leads outside the output folder (a symbolic link?)")
            }
            open.file = try FileOps.createUnique(base, suffix: ".part", caseBlind: settings.template.portable)
            if open.segment.container == .pcm {
                try open.file!.writeWAVHeader(PCMFormat(caps: open.segment.caps) ?? PCMFormat(rate: 44100, channels: 2))
            }
        } catch {
            stop(reason: .writeFailed, message: tr("recording stopped: {reason}", ["reason": "\(error)"]))
            return false
        }
        open.entry.file = namer.relativePath(open.file!.path)
        notify(.started(path: open.file!.path, metadata: open.segment.metadata))
        saveIndex(open.entry)
        let buffered = open.buffered
        open.buffered = []
        open.bufferedBytes = 0
        for chunk in buffered where !stopped { writeToFile(open, chunk.bytes) }
        return !stopped
    }

    /// The track's title arrived after its .part was opened: the .part takes the name it will have,
    /// so that what a crash leaves behind is named after its track too.
    private func renamePart(_ open: Open) {
        guard let file = open.file else { return }
        let base = settings.directory + "/" + namer.relativeName(open.segment, at: open.began)
        guard file.path != base + ".part" else { return }
        let directory = (base as NSString).deletingLastPathComponent
        let oldDirectory = (file.path as NSString).deletingLastPathComponent
        do {
            try FileOps.makeDirectories(directory)
            guard FileOps.isInside(directory, root: settings.directory) else {
                throw PartFile.Failure(description: "\(directory) leads outside the output folder")
            }
            try file.rename(toBase: base, suffix: ".part", caseBlind: settings.template.portable)
            open.entry.file = namer.relativePath(file.path)
            if oldDirectory != settings.directory && oldDirectory != directory { rmdir(oldDirectory) }  // only when left empty
        } catch {
            notify(
                .log(
                    level: .warning,
                    message: tr("cannot rename {path} after its track: {reason}; it keeps its name until it ends", ["path": file.path, "reason": "\(error)"])))
        }
    }

    private func write(_ bytes: [UInt8], nanoseconds: Int64) {
        guard let open else { return }
        if open.persist && settings.maxNanoseconds > 0 && (durationReached || totalNanoseconds >= settings.maxNanoseconds) {
            durationReached = true
            // The duration is in the file: what comes while the stop waits for a title is not written
            // (it made an untitled 15 s recording 20 s long), only counted against the grace.
            waitedNanoseconds += nanoseconds
            stopAtDurationIfReached()
            return
        }
        open.segment.bytes += UInt64(bytes.count)
        open.segment.durationNanoseconds += nanoseconds
        if open.persist {
            writeToFile(open, bytes)
            totalNanoseconds += nanoseconds
            stopAtDurationIfReached()
            return
        }
        open.buffered.append((bytes, nanoseconds))
        open.bufferedBytes += bytes.count
        trimBuffer(open)
    }

    /// Keeps the on-demand buffer bounded: the oldest audio goes (Ogg codec headers stay).
    /// Stops at `max_seconds` of audio, but not before the first title has named the file (within a grace).
    private func stopAtDurationIfReached() {
        guard settings.maxNanoseconds > 0, durationReached || totalNanoseconds >= settings.maxNanoseconds, !stopped else { return }
        durationReached = true
        if let open, open.segment.container == .ogg, totalNanoseconds > settings.maxNanoseconds {
            // Now, not at the stop: the file may end (a connection closing) while the stop waits for a title.
            let over = min(totalNanoseconds - settings.maxNanoseconds, open.segment.durationNanoseconds)
            open.segment.trimNanoseconds = over
            open.segment.durationNanoseconds -= over
            totalNanoseconds -= over
        }
        let untitled = open?.segment.metadata?.title == nil && open?.segment.metadata?.artist == nil
        if untitled && waitedNanoseconds < Self.titleGraceNanoseconds { return }
        stop(
            reason: .maxDuration,
            message: tr(
                "recording stopped: {duration} of audio recorded (the duration asked for)", ["duration": formatSeconds(Double(totalNanoseconds) / 1e9)]),
            isError: false)
    }

    private func trimBuffer(_ open: Open) {
        guard open.bufferedBytes > settings.bufferBytes else { return }
        var protected = 0
        if open.segment.container.hasCodecHeaders {
            while protected < open.buffered.count && open.buffered[protected].nanoseconds == 0 { protected += 1 }
        }
        while open.bufferedBytes > settings.bufferBytes && open.buffered.count > protected + 1 {
            let dropped = open.buffered.remove(at: protected)
            open.bufferedBytes -= dropped.bytes.count
            open.segment.durationNanoseconds -= dropped.nanoseconds
            open.lostStart = true
        }
    }

    private func writeToFile(_ open: Open, _ bytes: [UInt8]) {
        guard let file = open.file else { return }
        if !checkSpace(adding: bytes.count) { return }
        do {
            try file.write(bytes)
            totalBytes += UInt64(bytes.count)
            if open.segment.container == .pcm {
                bytesSinceHeaderRefresh += bytes.count
                if bytesSinceHeaderRefresh >= 1 << 20 {
                    bytesSinceHeaderRefresh = 0
                    try file.refreshWAVSizes()
                }
            }
        } catch {
            stop(reason: .writeFailed, message: tr("recording stopped: {reason}", ["reason": "\(error)"]))
            return
        }
        if settings.maxBytes > 0 && totalBytes >= settings.maxBytes {
            stop(
                reason: .maxSize, message: tr("recording stopped: reached the size limit of {size} MiB", ["size": "\(settings.maxBytes / 1_048_576)"]),
                isError: false)
        }
    }

    /// statvfs at most every 256 KiB written. False (and recording stopped) below the floor, or near it for the station writing most.
    private func checkSpace(adding count: Int) -> Bool {
        guard share.wrote(count), let free = DiskSpace.available(at: settings.directory) else { return true }
        if let message = share.stopMessage(free: free, adding: count, settings: settings, tr: tr) {
            stop(reason: .diskFull, message: message)
            return false
        }
        return true
    }

    /// Stops cleanly: the current file ends as incomplete and nothing more is written.
    private func stop(reason: StopReason, message: String, isError: Bool = true) {
        guard !stopped else { return }
        if !reason.diskHasRoom { tagging = false }
        // What was written is intact (a failed write is cut back); file it as incomplete.
        if let open { end(open.segment, complete: false) }
        stopped = true
        share.leave()
        notify(.stopped(reason: reason, message: message + notKept.summary(minimumSeconds: settings.minimumSeconds, tr: tr), isError: isError))
    }
}
