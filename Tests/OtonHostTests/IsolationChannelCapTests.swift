import Foundation
import XCTest

@testable import OtonHost

/// A peer on the isolation socket announces a 64 MiB JSON header: the channel refuses it from the
/// length prefix alone, without waiting for (or reading) one byte of it, and says why.
final class IsolationChannelCapTests: XCTestCase {
    private func prefix(length: UInt32, kind: UInt8, headerLength: UInt32) -> [UInt8] {
        func le(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> UInt32($0 * 8)) } }
        return le(length) + [kind] + le(headerLength)
    }

    func testAHeaderOverTheCapIsRefusedBeforeItIsRead() throws {
        let (ours, theirs) = try IsolationChannel.pair()
        defer { close(ours); close(theirs) }
        let headerLength = UInt32(64 << 20) - 5  // the largest a frame may carry
        let bytes = prefix(length: 5 + headerLength, kind: IsolationChannel.Kind.request.rawValue, headerLength: headerLength)
        XCTAssertEqual(bytes.withUnsafeBytes { write(theirs, $0.baseAddress, $0.count) }, 9)
        // Only the prefix was sent: a channel that tried to read the header would wait here forever.
        var limit = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(ours, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let channel = IsolationChannel(fd: ours)
        let started = Date()
        XCTAssertNil(channel.receive())
        XCTAssertLessThan(Date().timeIntervalSince(started), 4, "refused from the prefix, not after a read timed out")
        XCTAssertTrue(channel.sawGarbage)
        XCTAssertEqual(channel.refusal, "a frame header of 67108859 bytes, over the 64 KiB cap")
    }

    func testAHeaderAtTheCapStillArrivesAndSendingOverItFails() throws {
        let (ours, theirs) = try IsolationChannel.pair()
        defer { close(ours); close(theirs) }
        let sender = IsolationChannel(fd: theirs), receiver = IsolationChannel(fd: ours)
        let text = String(repeating: "x", count: IsolationChannel.maximumHeaderBytes - 20)
        let received = DispatchQueue.global()
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var frame: IsolationChannel.Frame?
        received.async {
            frame = receiver.receive(); done.signal()
        }
        XCTAssertTrue(sender.send(.reply, ["t": .string(text)]))
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(frame?.header["t"]?.stringValue, text)
        XCTAssertFalse(sender.send(.reply, ["t": .string(text + String(repeating: "y", count: 100))]), "our own side keeps the cap too")
    }
}
