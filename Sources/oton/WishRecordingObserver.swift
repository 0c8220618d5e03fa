import OtonHost

/// `oton record --wishlist`: a station's file lines and its wish watch, ended together (the watch
/// last, once the file sink's final tracks are finished, so a kept wish is remembered).
final class WishRecordingObserver: RecordingObserver {
    private let lines: RecordLogLines
    private let watch: WishWatcher.Watch

    init(lines: RecordLogLines, watch: WishWatcher.Watch) {
        self.lines = lines
        self.watch = watch
    }

    var filesWritten: Int { lines.filesWritten }
    var lastProblem: String? { lines.lastProblem }
    var recordingFailure: String? { lines.recordingFailure }

    func close() {
        watch.close()
        lines.close()
    }
}
