import Foundation
import Synchronization

/// Standard output for lines a reader may stop reading (`oton play | head -2`).
/// A closed pipe is not a crash: the first EPIPE calls ``onClosed`` once — the
/// running session quits as on Ctrl-C, other commands exit 0 — and later writes
/// are dropped. Any thread.
public enum StandardOutput {
    private static let closed = Atomic<Bool>(false)
    private static let handler = Mutex<@Sendable () -> Void>({ exit(0) })

    /// What happens when the reader goes away; a session sets it to its orderly quit.
    public static func onClosed(_ action: @escaping @Sendable () -> Void) {
        handler.withLock { $0 = action }
    }

    /// Writes all of `text`; false once the reader has gone.
    @discardableResult
    public static func write(_ text: String) -> Bool {
        guard !closed.load(ordering: .relaxed) else { return false }
        signal(SIGPIPE, SIG_IGN)  // EPIPE instead of a signal; idempotent
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                if !closed.exchange(true, ordering: .relaxed) {
                    let action = handler.withLock { $0 }
                    action()
                }
                return false
            }
        }
        return true
    }
}
