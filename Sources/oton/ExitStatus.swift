import ArgumentParser

/// The exit codes oton promises: 0 normal, 1 a directory search without a result (ArgumentParser's
/// `ExitCode.failure`), 2 usage or configuration, 3 stream not playable, 4 recording failed.
enum ExitStatus {
    static let configuration = ExitCode(2)
    static let notPlayable = ExitCode(3)
    static let recordingFailed = ExitCode(4)
}
