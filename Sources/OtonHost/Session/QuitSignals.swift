import Dispatch
import Foundation
import Logging
import OtonSupport
import Synchronization

/// The write end of the quit signals' pipe, for the signal handler (which may only touch globals).
/// Concurrency: written once, before the handler is installed, and only read after.
nonisolated(unsafe) private var quitSignalPipeWriteEnd: Int32 = -1
/// For the first signal's deadline (``QuitSignals/installEarly(endingStuckStarts:)``): its seconds (0: none),
/// whether the end already began (then none is set), how many signals came, and the first one's number.
/// Concurrency: the seconds are written before the handler is installed; the others only by the handler,
/// except `quitEndBegan`, a flag it reads. Each is touched before the handler is installed, so that the
/// handler never runs a global's lazy initialisation.
nonisolated(unsafe) private var quitStartDeadline: UInt32 = 0
nonisolated(unsafe) private var quitEndBegan: sig_atomic_t = 0
nonisolated(unsafe) private var quitSignalsCaught: sig_atomic_t = 0
nonisolated(unsafe) private var firstQuitSignal: Int32 = SIGTERM

/// The pipe SIGINT and SIGTERM are written into, with the handler installed: made once per process, as
/// early as `oton` starts (``QuitSignals/installEarly()``), so a signal that comes before any session
/// exists waits in the pipe and ends the session as soon as it runs. Nil when no pipe could be made.
private let quitSignalPipeReadEnd: Int32? = {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends {
        _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    quitSignalPipeWriteEnd = ends[1]
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { number in
        if audioStartIsPreparingPlugins != 0, quitEndBegan == 0 {
            // Inside gst_init (a first start builds the plugin registry): nothing to end in order yet.
            let line: StaticString = "oton: stopped while preparing the audio plugins\n"
            _ = write(STDERR_FILENO, line.utf8Start, line.utf8CodeUnitCount)
            _exit(128 + number)
        }
        var byte = UInt8(truncatingIfNeeded: number)
        _ = write(quitSignalPipeWriteEnd, &byte, 1)
        quitSignalsCaught += 1
        if quitSignalsCaught == 1, quitStartDeadline > 0, quitEndBegan == 0 {
            firstQuitSignal = number
            alarm(quitStartDeadline)  // async-signal-safe; SIGALRM below ends a stuck start
        }
    }
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    // Installed over whatever the parent left: an ignored SIGTERM is inherited across exec, and so is a
    // blocked one (a parent that spawns oton from a libdispatch thread passes on that thread's mask, in
    // which SIGTERM is blocked: such an oton never saw its SIGTERM).
    var unblock = sigset_t()
    sigemptyset(&unblock)
    for number in [SIGINT, SIGTERM] {
        sigaction(number, &action, nil)
        sigaddset(&unblock, number)
    }
    _ = (quitSignalsCaught, quitEndBegan, firstQuitSignal, audioStartIsPreparingPlugins)
    if quitStartDeadline > 0 {
        var deadline = sigaction()
        deadline.__sigaction_handler.sa_handler = { _ in
            let line: StaticString = "oton: the quit signal was not taken up within 10 s (something is stuck: the start or the player); exiting at once\n"
            _ = write(STDERR_FILENO, line.utf8Start, line.utf8CodeUnitCount)
            _exit(128 + firstQuitSignal)
        }
        sigemptyset(&deadline.sa_mask)
        sigaction(SIGALRM, &deadline, nil)
        sigaddset(&unblock, SIGALRM)
    }
    pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    return ends[0]
}()

/// SIGINT and SIGTERM for a process that runs sessions (`oton play`, `oton record`): the first asks
/// for an orderly end; a second one exits at once (status 128 + signal) with one line saying what
/// the end was still waiting for. Installed once per process; lasts as long as the process.
///
/// No signal is lost, however early it comes: the handler is installed with sigaction before this
/// returns and only writes the signal's number into a pipe (async-signal-safe); a dispatch source
/// reads the pipe on a normal thread. (Ignoring the signals and then registering a dispatch signal
/// source, as before, left a window in which a SIGTERM was dropped and oton ran on.)
///
/// Concurrency: `source` is written once, in init; the count is atomic.
public final class QuitSignals: @unchecked Sendable {
    private var source: DispatchSourceRead?
    private let received = SignalCount()

    /// Catches SIGINT and SIGTERM from now on (and unblocks them on the calling thread, which the threads it
    /// starts inherit); they wait until a session's QuitSignals reads them. Call first thing in `oton play`
    /// and `oton record`, on the main thread, before other threads start. Idempotent.
    ///
    /// `endingStuckStarts`: the first signal also gives oton ``startDeadlineSeconds`` to begin its orderly
    /// end (``endBegan()``); past that it exits at once (128 + signal), saying so. A start stuck where
    /// no session reads the signal (in gst_init, say) ends on the first SIGTERM, not never.
    public static func installEarly(endingStuckStarts: Bool = false) {
        if endingStuckStarts { quitStartDeadline = startDeadlineSeconds }
        _ = quitSignalPipeReadEnd
    }

    /// The seconds of ``installEarly(endingStuckStarts:)`` (the line the deadline prints says 10 too).
    public static let startDeadlineSeconds: UInt32 = 10

    /// The orderly end has begun: the first signal's deadline no longer applies (the end has bounds of its own).
    public static func endBegan() {
        quitEndBegan = 1
        alarm(0)
    }

    /// `waitingFor` names what holds the shutdown, for the second signal's line.
    package init(logger: Logger, message: String, requestQuit: @escaping @Sendable () -> Void, waitingFor: @escaping @Sendable () -> String) {
        guard let readEnd = quitSignalPipeReadEnd else {
            logger.error("\(tr("cannot make the signal pipe: {reason}; SIGINT and SIGTERM end oton at once", ["reason": String(cString: strerror(errno))]))")
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        source.setEventHandler { [received] in
            var numbers = [UInt8](repeating: 0, count: 16)
            while true {
                let count = read(readEnd, &numbers, numbers.count)
                guard count > 0 else { return }
                for number in numbers.prefix(count).map(Int32.init) {
                    if received.value.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                        let line = "oton: second signal \(number), exiting at once; \(waitingFor())\n"
                        line.withCString { _ = write(STDERR_FILENO, $0, strlen($0)) }
                        _exit(128 + number)
                    }
                    logger.info("signal \(number): \(message) (send it again to exit at once)")
                    requestQuit()
                }
            }
        }
        source.resume()
        self.source = source
    }
}

/// How many quit signals arrived (a class, so the handlers can share it).
private final class SignalCount: Sendable {
    let value = Atomic<Int>(0)
}
