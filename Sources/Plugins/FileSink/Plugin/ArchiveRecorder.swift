import FileSinkLogic
import Foundation
import OtonJSON

#if canImport(Glibc)
    import Glibc
#endif

/// Carries out the archive splitter's decisions on disk: each segment a `.part` named from the
/// archive template, fsynced and renamed into place when it ends, with its gap ledger
/// (``ArchiveLedger``) beside it, appended line by line. While a segment is open a marker in the
/// output folder names it, so the next start finishes what `kill -9` left (the `.part` renamed, the
/// ledger marked interrupted): nothing received is deleted. Retention runs after every segment.
/// Not thread safe: called on the plugin's mailbox worker only, like ``Recorder``.
final class ArchiveRecorder {
    private final class Open {
        var segment: ArchiveSplitter.Segment
        let file: PartFile
        let ledgerPath: String
        var gaps = 0
        var missingNanoseconds: Int64 = 0

        init(segment: ArchiveSplitter.Segment, file: PartFile, ledgerPath: String) {
            self.segment = segment
            self.file = file
            self.ledgerPath = ledgerPath
        }
    }

    let settings: FileSinkSettings
    let archive: ArchiveSettings
    private var splitter: ArchiveSplitter
    private var open: Open?
    private var stopped = false
    /// Finished segments the retention may remove (kept only when a retention is set).
    private var catalogue: [ArchiveRetention.Entry] = []
    private var bytesSinceSpaceCheck: UInt64 = .max
    private var totalBytes: UInt64 = 0
    private let markerPath: String
    /// Where finished segments are uploaded (nil: nowhere).
    private var uploads: UploadSettings?
    private let notify: (Recorder.Notice) -> Void
    private let tr: (String, [String: String]) -> String

    init(
        settings: FileSinkSettings, archive: ArchiveSettings, translate: @escaping (String, [String: String]) -> String = MessageTemplate.filled,
        notify: @escaping (Recorder.Notice) -> Void
    ) throws {
        self.settings = settings
        self.archive = archive
        self.notify = notify
        tr = translate
        splitter = ArchiveSplitter(period: archive.period)
        if !settings.tracks { splitter.audioLimit = settings.maxNanoseconds }  // with tracks, the track recorder stops it
        markerPath = settings.directory + "/" + ArchiveMarker.name(pid: getpid())
        do {
            try FileOps.makeDirectories(settings.directory)
        } catch {
            throw PartFile.Failure(description: "cannot create the output folder \(settings.directory): \(error.localizedDescription)")
        }
        guard access(settings.directory, W_OK) == 0 else {
            throw PartFile.Failure(description: "the output folder \(settings.directory) is not writable")
        }
        if let upload = archive.upload {
            let aws: AWSEnvironment
            do {
                aws = try AWSEnvironment.resolve(environment: ProcessInfo.processInfo.environment) { path in
                    FileManager.default.contents(atPath: path).flatMap { String(data: $0, encoding: .utf8) }
                }
            } catch {
                throw PartFile.Failure(description: "cannot upload to \(upload.destination.text): \(error)")
            }
            uploads = upload
            ArchiveUploader.shared.register(directory: settings.directory, settings: upload, aws: aws, translate: translate) { level, message in
                notify(.log(level: level, message: message))
            }
        }
        let abandoned = ArchiveMarker.finishAbandoned(in: settings.directory)
        if abandoned.interrupted > 0 {
            notify(
                .log(
                    level: .warning,
                    message: tr(
                        "{count} archive segment(s) in {folder} were left unfinished by a recorder that ended abruptly; renamed and marked interrupted in their ledgers",
                        ["count": String(abandoned.interrupted), "folder": settings.directory])))
        }
        for (path, marker) in abandoned.refused { refuse(path, namedIn: marker) }
        for segment in abandoned.segments { queueUpload(segment) }
        if archive.retention.isActive {
            let scanned = ArchiveCatalogue.scan(settings.directory)
            for (path, ledger) in scanned.refused { refuse(path, namedIn: ledger) }
            catalogue = scanned.entries
            applyRetention()
        }
    }

    var isStopped: Bool { stopped }

    func receive(_ reading: StreamUnitReader.Reading, arrival: Int64) {
        guard !stopped else { return }
        apply(splitter.receive(reading, arrival: arrival))
        // Archive only: --duration counts the audio archived, to the frame (with track files, the track recorder stops).
        if splitter.reachedLimit {
            stop(
                reason: .maxDuration,
                message: tr(
                    "recording stopped: {duration} of audio recorded (the duration asked for)", ["duration": formatSeconds(Double(splitter.audioPlaced) / 1e9)]),
                isError: false)
        }
    }

    func track(_ metadata: TrackMetadata) {
        guard !stopped else { return }
        apply(splitter.track(metadata))
    }

    func playerError(kind: String) {
        splitter.playerError(kind: kind)
    }

    /// The recording ends: the open segment ends early (its ledger says why).
    func finish() {
        guard !stopped else { return }
        apply(splitter.finish())
        stopped = true
    }

    /// The instance goes: uploads of this folder get a moment to finish (the journal keeps the rest).
    func close() {
        if uploads != nil { ArchiveUploader.shared.unregister(directory: settings.directory) }
    }

    /// Writes the pending-upload journal entry of a finished segment and wakes the uploader.
    /// Logs (once: at the start) a path that a file in the output folder names but that is not the recorder's to touch.
    private func refuse(_ path: String, namedIn file: String) {
        notify(
            .log(
                level: .warning,
                message: tr(
                    "ignored {path}, named in {file}: only files inside the archive folder {folder} are renamed, uploaded or deleted, never one outside it or a symbolic link",
                    ["path": path, "file": file, "folder": settings.directory])))
    }

    private func queueUpload(_ path: String) {
        guard uploads != nil, path.hasPrefix(settings.directory + "/"), ArchiveConfinement.isInside(path, root: settings.directory) else { return }
        let relative = String(path.dropFirst(settings.directory.count + 1))
        do {
            try UploadJournalFiles.write(directory: settings.directory, relative: relative)
            ArchiveUploader.shared.queued(directory: settings.directory, relative: relative)
        } catch {
            notify(.log(level: .error, message: tr("cannot queue {path} for upload: {reason}", ["path": path, "reason": "\(error)"])))
        }
    }

    // MARK: -

    private func apply(_ actions: [ArchiveSplitter.Action]) {
        // The units of one buffer go to the disk in one write.
        var run: [UInt8] = []
        func flushRun() {
            guard !run.isEmpty else { return }
            write(run)
            run = []
        }
        for action in actions {
            guard !stopped else { return }
            if case let .write(bytes) = action {
                run += bytes
                continue
            }
            flushRun()
            guard !stopped else { return }
            switch action {
            case let .begin(segment):
                begin(segment)
            case .write:
                break
            case let .gap(gap, offset):
                open?.gaps += 1
                open?.missingNanoseconds += gap.missingNanoseconds
                ledger(ArchiveLedger.gapLine(gap, offsetNanoseconds: offset))
            case let .title(metadata, at, offset):
                ledger(ArchiveLedger.titleLine(metadata, at: at, offsetNanoseconds: offset))
            case let .end(segment, reason):
                end(segment, reason: reason)
            }
        }
        if !stopped { flushRun() }
    }

    private func begin(_ segment: ArchiveSplitter.Segment) {
        let relative = archive.naming.relativePath(
            start: ArchiveNaming.namedTime(of: segment), station: settings.station, container: segment.container, caps: segment.caps)
        let base = settings.directory + "/" + relative
        let directory = (base as NSString).deletingLastPathComponent
        do {
            try FileOps.makeDirectories(directory)
            guard FileOps.isInside(directory, root: settings.directory) else {
                throw PartFile.Failure(description: "\(directory) leads outside the output folder (a symbolic link?)")
            }
            // A name given before (its segment may be uploaded and removed) is not given again: a restart inside a window gets `NAME (2)`.
            let file = try ArchiveNames.claim(
                base, root: settings.directory, start: segment.start, period: archive.period,
                caseBlind: settings.template.portable)
            let final = String(file.path.dropLast(".part".count))
            let opened = Open(segment: segment, file: file, ledgerPath: ArchiveMarker.ledgerPath(forSegment: final))
            open = opened
            try ArchiveMarker.write(markerPath, part: file.path, ledger: opened.ledgerPath)
            try ArchiveMarker.appendLine(
                ArchiveLedger.segmentLine(
                    segment, file: (final as NSString).lastPathComponent,
                    station: settings.station, streamURL: settings.streamURL), to: opened.ledgerPath)
            notify(.started(path: file.path, metadata: nil))
        } catch {
            stop(reason: .writeFailed, message: tr("archive recording stopped: {reason}", ["reason": "\(error)"]))
        }
    }

    private func write(_ bytes: [UInt8]) {
        guard let open else { return }
        if !checkSpace(adding: bytes.count) { return }
        do {
            try open.file.write(bytes)
        } catch {
            stop(reason: .writeFailed, message: tr("archive recording stopped: {reason}", ["reason": "\(error)"]))
            return
        }
        totalBytes += UInt64(bytes.count)
        if settings.maxBytes > 0 && totalBytes >= settings.maxBytes && !settings.tracks {
            stop(
                reason: .maxSize, message: tr("recording stopped: reached the size limit of {size} MiB", ["size": "\(settings.maxBytes / 1_048_576)"]),
                isError: false)
        }
    }

    private func end(_ segment: ArchiveSplitter.Segment, reason: ArchiveSplitter.EndReason) {
        guard let open, open.segment.id == segment.id else { return }
        self.open = nil
        open.file.close(sync: true)
        let final: String
        do {
            final = try FileOps.linkWithoutReplacing(open.file.path, to: String(open.file.path.dropLast(".part".count)))
        } catch {
            notify(
                .log(
                    level: .error,
                    message: tr("cannot finish {path}: {reason}; the data stays in the .part file", ["path": open.file.path, "reason": "\(error)"])))
            return
        }
        let status: ArchiveLedger.Status = reason == .boundary ? .complete : .endedEarly
        ledger(
            ArchiveLedger.endLine(
                segment, status: status, why: reason == .boundary ? nil : reason.rawValue,
                gaps: open.gaps, missingNanoseconds: open.missingNanoseconds), to: open.ledgerPath)
        queueUpload(final)  // before the marker goes: a crash in between queues it again at the next start
        unlink(markerPath)
        let seconds = Double(segment.audioNanoseconds) / 1e9
        notify(.archived(path: final, seconds: seconds, bytes: segment.bytes, status: status.rawValue))
        if archive.retention.isActive {  // (when_full oldest needs the catalogue too)
            let ledgerBytes = ArchiveCatalogue.size(of: open.ledgerPath) ?? 0
            catalogue.append(ArchiveRetention.Entry(path: final, start: segment.start, end: segment.end, bytes: segment.bytes + ledgerBytes))
            applyRetention()
        }
    }

    private func ledger(_ line: String, to path: String? = nil) {
        guard let path = path ?? open?.ledgerPath else { return }
        do {
            try ArchiveMarker.appendLine(line, to: path)
        } catch {
            notify(.log(level: .warning, message: tr("cannot write the archive ledger {path}: {reason}", ["path": path, "reason": "\(error)"])))
        }
    }

    /// Removes what the retention says, oldest first; never the open segment (it is not in the
    /// catalogue) nor one waiting for its upload (it counts towards the size, but stays).
    private func applyRetention() {
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        let (removable, pendingBytes) = removableSegments()
        let doomed = archive.retention.expired(removable, now: now, writingBytes: (open?.file.size ?? 0) + pendingBytes)
        remove(
            doomed,
            why: tr(
                "--keep {keep}, --keep-size {size}",
                [
                    "keep": archive.retention.maxAgeNanoseconds.map { formatSeconds(Double($0) / 1e9) } ?? "-",
                    "size": archive.retention.maxBytes.map { formatBytes($0) } ?? "-",
                ]))
    }

    /// The catalogue's segments the retention may remove: those gone already (an upload with
    /// `upload_delete` removed them) leave the catalogue; those in the upload journal stay, with their bytes.
    private func removableSegments() -> (removable: [ArchiveRetention.Entry], pendingBytes: UInt64) {
        catalogue.removeAll { access($0.path, F_OK) != 0 }
        var pendingBytes: UInt64 = 0
        let removable = catalogue.filter { entry in
            guard UploadJournalFiles.isPending(entry.path, directory: settings.directory) else { return true }
            pendingBytes += entry.bytes
            return false
        }
        return (removable, pendingBytes)
    }

    /// Deletes finished segments with their ledgers, and the folders they leave empty; each removal is logged.
    private func remove(_ doomed: [ArchiveRetention.Entry], why: String) {
        guard !doomed.isEmpty else { return }
        let paths = Set(doomed.map(\.path))
        catalogue.removeAll { paths.contains($0.path) }
        for entry in doomed where ArchiveConfinement.isInside(entry.path, root: settings.directory) {
            unlink(entry.path)
            unlink(ArchiveMarker.ledgerPath(forSegment: entry.path))
            ArchiveCatalogue.removeEmptyFolders(from: (entry.path as NSString).deletingLastPathComponent, root: settings.directory)
            notify(.log(level: .info, message: tr("retention: removed {path} ({why})", ["path": entry.path, "why": why])))
        }
    }

    /// statvfs at most every 256 KiB written. False (and recording stopped) below the floor.
    private func checkSpace(adding count: Int) -> Bool {
        bytesSinceSpaceCheck = bytesSinceSpaceCheck == .max ? .max : bytesSinceSpaceCheck + UInt64(count)
        guard bytesSinceSpaceCheck >= 256 << 10 else { return true }
        bytesSinceSpaceCheck = 0
        guard let free = DiskSpace.available(at: settings.directory) else { return true }
        if free < settings.diskFloorBytes + UInt64(count), let oldest = archive.retention.oldestToFreeSpace(removableSegments().removable) {
            // --when-full oldest: the oldest finished segment goes instead of the recording stopping.
            remove(
                [oldest],
                why: tr(
                    "only {free} MiB free, below the floor of {floor} MiB (--when-full oldest)",
                    ["free": String(free / 1_048_576), "floor": String(settings.diskFloorBytes / 1_048_576)]))
            bytesSinceSpaceCheck = .max  // check again at the next write
            return true
        }
        if free < settings.diskFloorBytes + UInt64(count) {
            stop(
                reason: .diskFull,
                message: tr(
                    "archive recording stopped: only {free} MiB free in {folder}, below the floor of {floor} MiB (config.disk_floor_mb / --disk-floor)",
                    ["free": "\(free / 1_048_576)", "folder": settings.directory, "floor": "\(settings.diskFloorBytes / 1_048_576)"]))
            return false
        }
        return true
    }

    /// Stops cleanly: the open segment ends early and nothing more is written.
    private func stop(reason: Recorder.StopReason, message: String, isError: Bool = true) {
        guard !stopped else { return }
        apply(splitter.finish())
        stopped = true
        notify(.stopped(reason: reason, message: message, isError: isError))
    }
}
