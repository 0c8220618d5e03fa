import Logging
import Synchronization

/// The log of a favourite watched for wishes (`"watch_wishes": true`): its first warning is said, with
/// a word on where the rest go; every later warning or error is logged at info, shown only with
/// `--log-level info`. An unreachable favourite used to print a warning over the status line at every
/// reconnect, forever (7 in 80 s).
struct FirstWarningLogHandler: LogHandler {
    private var inner: any LogHandler
    /// Shared by the copies Logger makes of this handler.
    private let warned = Warned()

    private final class Warned: Sendable {
        let flag = Mutex(false)
    }

    /// Laid over the handler the logging system gives `label`.
    init(label: String) {
        inner = Logger(label: label).handler
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= .warning else { return inner.log(event: event) }
        var event = event
        if warned.flag.withLock({ first in
            defer { first = true }; return !first
        }) {
            event.message = "\(event.message) \(tr("(a favourite watched for wishes: what follows for it is logged at --log-level info)"))"
        } else {
            event.level = .info
            guard inner.logLevel <= .info else { return }
        }
        inner.log(event: event)
    }
}
