import FileSinkLogic
import Foundation

/// A track's end: its file sealed and placed (kept, kept as incomplete, or dropped, as the settings
/// and the host's wishes say), its index line written, and the notice of it.
extension Recorder {
    func end(_ segment: TrackSplitter.Segment, complete: Bool) {
        guard let open, open.segment.id == segment.id else { return }
        self.open = nil
        guard open.persist, let file = open.file else { return }  // never asked for: forget it
        let track = TrackFinisher.Track(segment: open.segment, artworkPath: open.artworkPath)
        finisher.seal(file, track, tagging: tagging)
        // Not flushed here: TrackFinisher flushes whichever file ends up with the track's name
        // (one fsync per track, not one for the .part and another for its tagged copy).
        file.close(sync: false)
        let seconds = Double(open.segment.durationNanoseconds) / 1e9
        var isComplete = complete && !open.lostStart
        let name = namer.relativeName(open.segment, at: open.began)
        let sequence = open.segment.metadata?.sequence
        let announced = sequence.flatMap { sequence in wishes.last { $0.sequence == sequence } }
        let wish = settings.wishlist ? announced?.decision ?? .notWished : nil
        if settings.wishlist, announced?.fromStart == false { isComplete = false }  // joined in its middle (the host says so)
        let decision =
            wish.map { wish in
                wishlistPlacement(
                    relativeName: name, complete: isComplete, seconds: seconds, minimumSeconds: settings.minimumSeconds,
                    policy: settings.partial, wish: wish)
            }
            ?? placement(
                relativeName: name, complete: isComplete, seconds: seconds, minimumSeconds: settings.minimumSeconds, policy: settings.partial,
                cutShort: segment.cutShort)
        open.entry.bytes = file.size
        open.entry.seconds = (seconds * 1000).rounded() / 1000
        var finalPath: String?
        var reason: String?
        var reasonCode: String?
        switch decision {
        case let .drop(why):
            unlink(file.path)
            open.entry.status = .dropped
            open.entry.file = nil
            reason = why
            reasonCode = wish?.reasonCode ?? (seconds < settings.minimumSeconds ? "too-short" : "partial-dropped")
            if wish == nil && file.size > 0 {  // an empty one (a new connection just as the duration was reached) is no loss
                notKept.add(seconds, tooShort: reasonCode == "too-short")
            }
        case let .keep(relative):
            do {
                finalPath = try finisher.finalize(file, track, relative: relative, tagging: tagging)
                if settings.writeCue { finisher.writeCue(track, marks: open.marks, beside: finalPath!) }
                open.entry.status = isComplete ? .complete : .incomplete
                open.entry.file = namer.relativePath(finalPath!)
            } catch {
                open.entry.status = .failed
                reason = "\(error)"
                reasonCode = "write-failed"
                try? FileOps.sync(file.path)
                notify(
                    .log(
                        level: .error,
                        message: tr("cannot finish {path}: {reason}; the data stays in the .part file", ["path": file.path, "reason": "\(error)"])))
            }
        }
        let partDirectory = (file.path as NSString).deletingLastPathComponent
        if partDirectory != settings.directory { rmdir(partDirectory) }  // only when left empty
        saveIndex(open.entry)
        notify(
            .finished(
                path: finalPath, name: name, seconds: seconds, bytes: file.size, complete: isComplete, status: open.entry.status, reason: reason,
                reasonCode: reasonCode, sequence: sequence))
    }

    func saveIndex(_ entry: RecordingIndex.Track) {
        do {
            if let warning = try indexFile.record(entry) { notify(.log(level: .warning, message: warning)) }
        } catch {
            notify(.log(level: .warning, message: tr("cannot update the index: {reason}", ["reason": "\(error)"])))
        }
    }
}
