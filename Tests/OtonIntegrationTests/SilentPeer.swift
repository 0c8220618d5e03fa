import Foundation
import IcecastFixture
import OtonTestSupport

/// A TCP peer on loopback that accepts one connection and never reads from it.
final class SilentPeer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private var accepted: Int32 = -1

    init() throws {
        guard let (listener, port) = LoopbackListener.open(backlog: 4) else { throw FixtureError("silent peer: bind/listen errno \(errno)") }
        self.listener = listener
        self.port = port
    }

    /// Accepts the first connection (waiting up to `timeout`) and keeps it open, unread.
    func acceptOne(timeout: TimeInterval) -> Bool {
        var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, Int32(timeout * 1000)) == 1 else { return false }
        accepted = accept(listener, nil, nil)
        return accepted >= 0
    }

    func close() {
        if accepted >= 0 { Glibc.close(accepted) }
        Glibc.close(listener)
    }
}
