import FileSinkLogic
import Foundation
import OtonHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Uploads finished archive segments and their ledgers to object storage (S3's PUT, signed with
/// libcurl's AWS SigV4), for every output folder of the process, on ``workers`` threads of its
/// own (so one stuck request does not hold the others): the recording never waits on it. Every
/// request has its limits (``Timeouts``): a store that does not answer, or answers too slowly,
/// fails that upload, which is logged and retried. What is to upload is the pending-uploads journal on disk
/// (``UploadJournal``, written by ``ArchiveRecorder`` before a segment counts as finished), so a
/// restart goes on where the last run stopped; in memory the uploader holds at most
/// ``capacity`` jobs and reads the journal again when they are done. A failed upload is retried
/// after a growing pause (``UploadBackoff``), forever: nothing is given up, and the retention
/// keeps every segment the journal names. A confirmed upload (2xx for the segment, a HEAD that
/// gives its size, 2xx for the ledger) removes the journal entry, and with `upload_delete` the
/// local copies.
///
/// Threading: `register`, `queued` and `unregister` are called on plugin mailboxes; the upload
/// threads do the rest. One lock guards the state; no transfer runs under it. Each folder's
/// log function (its instance's host log, ANY THREAD) is called under the lock, so after
/// `unregister` returns nothing calls that instance's host again.
final class ArchiveUploader: @unchecked Sendable {
    static let shared = ArchiveUploader()

    /// Jobs held in memory at most; the journal on disk holds the rest.
    static let capacity = 1024
    /// At the end of a recording, how long `unregister` waits for the folder's uploads (process-wide:
    /// the host's shutdown deadline is short). What is left goes at the next start.
    static let drainSeconds = 1.0
    /// Uploads at once.
    static let workers = 3

    typealias Log = (Recorder.LogLevel, String) -> Void

    private final class Folder {
        let directory: String
        let settings: UploadSettings
        let aws: AWSEnvironment
        var log: Log?
        var needsScan = true
        let translate: (String, [String: String]) -> String

        init(directory: String, settings: UploadSettings, aws: AWSEnvironment, translate: @escaping (String, [String: String]) -> String, log: @escaping Log) {
            self.directory = directory
            self.settings = settings
            self.aws = aws
            self.translate = translate
            self.log = log
        }
    }

    private struct Job {
        let directory: String
        let relative: String
        var failures = 0
        var notBefore = 0.0
        /// The segment is stored and checked; only its ledger is left (a retry does not send it again).
        var segmentStored = false
        /// A worker is uploading it.
        var busy = false
    }

    private let condition = NSCondition()
    private var folders: [String: Folder] = [:]
    private var jobs: [Job] = []
    private var known: Set<String> = []
    /// Uploads under way, by folder.
    private var inFlight: [String: Int] = [:]
    private var threads: [Thread] = []
    private var drainDeadline: Double?
    private let timeouts: Timeouts
    private let client: CappedHTTPClient

    init(timeouts: Timeouts = .current) {
        self.timeouts = timeouts
        client = CappedHTTPClient(
            limits: .init(
                totalMilliseconds: 3_600_000, connectMilliseconds: timeouts.connectSeconds * 1000, maxRedirects: 0,
                firstByteMilliseconds: timeouts.firstByteSeconds * 1000, answerMilliseconds: timeouts.answerSeconds * 1000),
            userAgent: "oton (archive upload)")
    }

    /// The folder's uploads start (its journal is read on the upload thread).
    func register(
        directory: String, settings: UploadSettings, aws: AWSEnvironment,
        translate: @escaping (String, [String: String]) -> String, log: @escaping Log
    ) {
        condition.lock()
        defer { condition.unlock() }
        folders[directory] = Folder(directory: directory, settings: settings, aws: aws, translate: translate, log: log)
        if threads.isEmpty {
            for _ in 0..<Self.workers {
                let thread = Thread { [self] in run() }
                thread.name = "oton.archive-upload"
                threads.append(thread)
                thread.start()
            }
        }
        condition.broadcast()
    }

    /// A journal entry for `relative` was written in `directory`: upload it soon.
    func queued(directory: String, relative: String) {
        condition.lock()
        defer { condition.unlock() }
        guard let folder = folders[directory] else { return }
        if !add(directory: directory, relative: relative) { folder.needsScan = true }
        condition.broadcast()
    }

    /// The recording of `directory` ends: waits a little for its uploads (at most until the
    /// process-wide drain deadline), then forgets the folder; its journal keeps the rest.
    func unregister(directory: String) {
        condition.lock()
        defer { condition.unlock() }
        let now = Self.now()
        let deadline = drainDeadline ?? now + Self.drainSeconds
        drainDeadline = deadline
        while Self.now() < deadline,
            inFlight[directory, default: 0] > 0 || jobs.contains(where: { $0.directory == directory && $0.notBefore <= Self.now() })
        {
            _ = condition.wait(until: Date(timeIntervalSinceNow: max(0.01, deadline - Self.now())))
        }
        folders[directory]?.log = nil
        folders[directory] = nil
        jobs.removeAll { $0.directory == directory }
        known = known.filter { !$0.hasPrefix(directory + "\0") }
        condition.broadcast()
    }

    // MARK: - The upload thread

    private func run() {
        condition.lock()
        while true {
            if let folder = folders.values.first(where: { $0.needsScan && jobs.count < Self.capacity / 2 }) {
                folder.needsScan = false
                condition.unlock()
                let found = Self.scan(folder.directory)
                condition.lock()
                if folders[folder.directory] === folder {
                    for entry in found where !add(directory: folder.directory, relative: entry.segment, segmentStored: entry.segmentStored) {
                        folder.needsScan = true  // more than the queue holds: read again when it has room
                        break
                    }
                }
                continue
            }
            let now = Self.now()
            guard let index = jobs.indices.filter({ !jobs[$0].busy && jobs[$0].notBefore <= now }).min(by: { jobs[$0].notBefore < jobs[$1].notBefore }),
                let folder = folders[jobs[index].directory]
            else {
                let next = jobs.filter { !$0.busy }.map(\.notBefore).min().map { max(0.05, $0 - now) } ?? 30
                _ = condition.wait(until: Date(timeIntervalSinceNow: min(next, 30)))
                continue
            }
            jobs[index].busy = true
            let job = jobs[index]
            inFlight[job.directory, default: 0] += 1
            condition.unlock()
            let outcome = upload(job, folder: folder)
            condition.lock()
            inFlight[job.directory, default: 1] -= 1
            if let at = jobs.firstIndex(where: { $0.directory == job.directory && $0.relative == job.relative }) {
                jobs[at].busy = false
                switch outcome {
                case let .done(message):
                    jobs.remove(at: at)
                    known.remove(job.directory + "\0" + job.relative)
                    folder.log?(.info, message)
                case let .refused(message):
                    jobs.remove(at: at)
                    known.remove(job.directory + "\0" + job.relative)
                    folder.log?(.warning, message)
                case let .failed(reason, hint, stored):
                    jobs[at].segmentStored = jobs[at].segmentStored || stored
                    jobs[at].failures += 1
                    let pause = UploadBackoff.seconds(afterFailure: jobs[at].failures, jitter: Double.random(in: 0...1))
                    jobs[at].notBefore = Self.now() + pause
                    let failures = jobs[at].failures
                    // The first failure of a segment, then every 10th: an outage must not flood the log.
                    if failures == 1 || failures % 10 == 0 {
                        let tr = folder.translate
                        folder.log?(
                            .warning,
                            tr(
                                "upload of {path} to {destination} at {host} failed ({reason}); attempt {attempt}, next in {seconds} s{hint}",
                                [
                                    "path": job.relative, "host": Self.host(of: folder),
                                    "destination": "s3://\(folder.settings.destination.bucket)/" + folder.settings.destination.key(job.relative),
                                    "reason": reason,
                                    "attempt": String(failures), "seconds": String(format: "%.0f", pause), "hint": hint.map { "; " + $0 } ?? "",
                                ]))
                    }
                }
            }
            condition.broadcast()
        }
    }

    /// Adds a job unless known; false when the queue is full (the journal keeps it).
    private func add(directory: String, relative: String, segmentStored: Bool = false) -> Bool {
        let id = directory + "\0" + relative
        if known.contains(id) { return true }
        guard jobs.count < Self.capacity else { return false }
        known.insert(id)
        jobs.append(Job(directory: directory, relative: relative, segmentStored: segmentStored))
        return true
    }

    private enum Outcome {
        case done(String)
        /// Not the recorder's file: the entry is gone, nothing was sent (a warning).
        case refused(String)
        case failed(String, hint: String?, segmentStored: Bool = false)
    }

    private func upload(_ job: Job, folder: Folder) -> Outcome {
        let tr = folder.translate
        let root = folder.directory
        let entry = root + "/" + UploadJournal.folder + "/" + UploadJournal.entryName(job.relative)
        let segment = root + "/" + job.relative
        let ledger = ArchiveMarker.ledgerPath(forSegment: segment)
        guard !job.relative.split(separator: "/").contains(".."), ArchiveConfinement.isInside(segment, root: root),
            ArchiveConfinement.isInside(ledger, root: root)
        else {
            unlink(entry)
            return .refused(
                tr(
                    "ignored {path}, named in {file}: only files inside the archive folder {folder} are renamed, uploaded or deleted, never one outside it or a symbolic link",
                    ["path": segment, "file": entry, "folder": root]))
        }
        var info = stat()
        guard stat(segment, &info) == 0 else {
            unlink(entry)
            return .done(tr("upload: {path} is no longer there; its journal entry is removed", ["path": segment]))
        }
        let destination = folder.settings.destination
        let signing = CappedHTTPClient.AWSSigning(
            region: folder.aws.region, accessKey: folder.aws.accessKey,
            secretKey: folder.aws.secretKey, sessionToken: folder.aws.sessionToken)
        let endpoint = folder.settings.endpoint ?? folder.aws.endpoint
        let started = Self.now()
        let segmentKey = destination.key(job.relative)
        let segmentURL = destination.url(key: segmentKey, endpoint: endpoint, region: folder.aws.region)
        if !job.segmentStored {
            if let failure = put(segment, to: segmentURL, contentType: Self.contentType(of: segment), signing: signing) { return failure }
            // The store has it as we sent it: its size, read back.
            do {
                let answer = try client.head(segmentURL, signing: signing)
                guard (200..<300).contains(answer.status) else { return .failed("HEAD: HTTP \(answer.status)", hint: nil) }
                guard let length = answer.headers["content-length"].flatMap(Int64.init), length == Int64(info.st_size) else {
                    return .failed(
                        tr(
                            "the stored object has {stored} bytes, not {local}",
                            ["stored": answer.headers["content-length"] ?? "?", "local": String(info.st_size)]), hint: nil)
                }
            } catch {
                return .failed("HEAD: \(error)", hint: nil)
            }
            // Said in the journal too, so that a restart sends only the ledger.
            if let queued = try? FileManager.default.attributesOfItem(atPath: entry)[.modificationDate] as? Date {
                let text = UploadJournal.entryText(segment: job.relative, queuedUnix: queued.timeIntervalSince1970, segmentStored: true)
                try? FileOps.replaceAtomically(entry, with: Data(text.utf8))
            }
        }
        if access(ledger, F_OK) == 0 {
            let relativeLedger = String(ledger.dropFirst(root.count + 1))
            let ledgerURL = destination.url(key: destination.key(relativeLedger), endpoint: endpoint, region: folder.aws.region)
            if case let .failed(reason, hint, _) = put(ledger, to: ledgerURL, contentType: "application/x-ndjson", signing: signing) {
                return .failed(reason, hint: hint, segmentStored: true)
            }
        }
        unlink(entry)
        let seconds = Self.now() - started
        var message = tr(
            "uploaded {path} to s3://{bucket}/{key} ({size} in {seconds} s)",
            [
                "path": job.relative, "bucket": destination.bucket, "key": segmentKey, "size": formatBytes(UInt64(info.st_size)),
                "seconds": String(format: "%.2f", seconds),
            ])
        if folder.settings.deleteAfterUpload {
            unlink(segment)
            unlink(ledger)
            ArchiveCatalogue.removeEmptyFolders(from: (segment as NSString).deletingLastPathComponent, root: root)
            message += "; " + tr("the local copy is removed", [:])
        }
        return .done(message)
    }

    /// nil when the store answered 2xx.
    private func put(_ path: String, to url: String, contentType: String, signing: CappedHTTPClient.AWSSigning) -> Outcome? {
        do {
            let answer = try client.put(
                url, file: path, headers: ["content-type": contentType], signing: signing, lowSpeedBytes: timeouts.lowSpeedBytes,
                lowSpeedSeconds: timeouts.lowSpeedSeconds)
            guard (200..<300).contains(answer.status) else {
                let code = Self.errorCode(answer.body)
                return .failed("HTTP \(answer.status)" + (code.map { " \($0)" } ?? ""), hint: Self.hint(status: answer.status, code: code))
            }
            return nil
        } catch {
            return .failed("\(error)", hint: nil)
        }
    }

    /// S3's error code from an XML answer (`<Code>NoSuchBucket</Code>`); never the rest of the body.
    private static func errorCode(_ body: Data) -> String? {
        guard let text = String(data: body.prefix(4096), encoding: .utf8), let open = text.range(of: "<Code>"),
            let close = text.range(of: "</Code>", range: open.upperBound..<text.endIndex)
        else { return nil }
        let code = text[open.upperBound..<close.lowerBound]
        return code.count <= 64 && code.allSatisfy({ $0.isLetter || $0.isNumber }) ? String(code) : nil
    }

    private static func hint(status: Int, code: String?) -> String? {
        switch (status, code) {
        case (_, "NoSuchBucket"): "does the bucket exist? create it, or correct --upload"
        case (403, _), (_, "InvalidAccessKeyId"), (_, "SignatureDoesNotMatch"):
            "check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or ~/.aws/credentials and AWS_PROFILE), the region and the bucket's permissions"
        default: nil
        }
    }

    /// The store's host and port, as the log names it.
    private static func host(of folder: Folder) -> String {
        let endpoint = folder.settings.endpoint ?? folder.aws.endpoint
        let url = folder.settings.destination.url(key: "", endpoint: endpoint, region: folder.aws.region)
        guard let parts = URLComponents(string: url), let host = parts.host else { return url }
        return parts.port.map { host + ":" + String($0) } ?? host
    }

    private static func contentType(of path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "mp3": "audio/mpeg"
        case "aac": "audio/aac"
        case "ogg", "oga", "opus": "audio/ogg"
        case "flac": "audio/flac"
        default: "application/octet-stream"
        }
    }

    /// The segments named in a folder's journal, oldest entry first.
    private static func scan(_ directory: String) -> [UploadJournal.Entry] {
        let journal = directory + "/" + UploadJournal.folder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: journal) else { return [] }
        var found: [(Double, UploadJournal.Entry)] = []
        for name in names where name.hasSuffix(".json") {
            let path = journal + "/" + name
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8),
                let entry = UploadJournal.entry(text)
            else { continue }
            var info = stat()
            let modified = stat(path, &info) == 0 ? Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9 : 0
            found.append((modified, entry))
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
