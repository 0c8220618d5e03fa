/// What a recorder's front end keeps of one session (the command line's file lines): how many
/// files it finished and the last problem it saw, for `oton ctl status`.
public protocol RecordingObserver: AnyObject, Sendable {
    var filesWritten: Int { get }
    var lastProblem: String? { get }
    /// The error that stopped the recording, if one did (disk full, write error).
    var recordingFailure: String? { get }
    /// Waits for what is queued, then stops listening.
    func close()
}
