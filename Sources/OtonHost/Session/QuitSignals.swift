import Dispatch
import Foundation
import Logging
import Synchronization

/// SIGINT and SIGTERM for a process that runs sessions (`oton play`, `oton record`): the first asks
/// for an orderly end; a second one exits at once (status 128 + signal) with one line saying what
/// the end was still waiting for. Installed once per process; lasts as long as the process.
final class QuitSignals: @unchecked Sendable { // `sources` is written once, in init; the count is atomic
    private var sources: [DispatchSourceSignal] = []
    private let received = SignalCount()

    /// `waitingFor` names what holds the shutdown, for the second signal's line.
    init(logger: Logger, message: String, requestQuit: @escaping @Sendable () -> Void, waitingFor: @escaping @Sendable () -> String) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [received, source] in
                // Two signals in quick succession may arrive as one call: `data` counts them.
                let count = max(Int(source.data), 1)
                if received.value.add(count, ordering: .sequentiallyConsistent).newValue > 1 {
                    let line = "oton: second signal \(number), exiting at once; \(waitingFor())\n"
                    line.withCString { _ = write(STDERR_FILENO, $0, strlen($0)) }
                    _exit(128 + number)
                }
                logger.info("signal \(number): \(message) (send it again to exit at once)")
                requestQuit()
            }
            source.resume()
            sources.append(source)
        }
    }
}

/// How many quit signals arrived (a class, so the handlers can share it).
private final class SignalCount: Sendable {
    let value = Atomic<Int>(0)
}
