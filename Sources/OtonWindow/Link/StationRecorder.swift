import Foundation
import OtonControl
import OtonSupport

/// "Record this station": `oton record URL --out MUSIC/oton --instance window-record-PID` as a
/// process of its own (the CLI's recorder: its file names, index and limits), stopped through its
/// control socket (`quit`: it finishes its files) when asked or when the window quits. A window
/// that dies without a word leaves it recording, and `oton ctl --instance window-record-PID quit` stops it.
final class StationRecorder: @unchecked Sendable {
    private let config: String?
    private var process: Process?
    let instance = "window-record-\(getpid())"

    init(config: String?) {
        self.config = config
    }

    var isRecording: Bool { process?.isRunning == true }

    /// The folder recordings go to: the music folder's "oton" (``XDGPaths/stationRecordings``: $XDG_MUSIC_DIR,
    /// user-dirs.dirs, else $HOME/Music); the system's temporary folder when there is no HOME either.
    static func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        XDGPaths(environment: environment).stationRecordings ?? NSTemporaryDirectory() + "oton"
    }

    /// Starts recording `url`; throws when `oton` cannot be started.
    func start(url: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PlayerProcess.otonExecutable())
        var arguments = ["record", "--out", Self.folder(), "--instance", instance]
        if let config { arguments += ["--config", config] }
        process.arguments = arguments + ["--", url]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
    }

    /// Asks the recorder to finish (`quit` on its socket, SIGTERM when it does not answer) and waits up to `seconds`.
    func stop(waiting seconds: Double) {
        guard let process, process.isRunning else { return }
        let asked = (try? ControlClient(instance: instance))?.sendQuietly(["quit"]) ?? false
        if !asked { process.terminate() }
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
    }
}

private extension ControlClient {
    /// Sends one command with a short deadline; whether it was accepted.
    func sendQuietly(_ words: [String]) -> Bool {
        setTimeout(seconds: 5)
        return (try? send(words))?["ok"]?.boolValue == true
    }
}
