import OtonPluginKit
import WebRemoteLogic
import XCTest

/// Connections that have not shown the token: bounded per address and in all by pushing out the
/// oldest, never the newcomer, and each only for `requestSeconds`.
final class WebRemoteWaitingConnectionsTests: XCTestCase {
    private func limits(perAddress: Int = 8, total: Int = 32, seconds: Int = 5) -> ServerLimits {
        var limits = ServerLimits()
        limits.maximumWaitingPerAddress = perAddress
        limits.maximumWaitingConnections = total
        limits.requestSeconds = seconds
        return limits
    }

    func testANewConnectionFromABusyAddressPushesOutThatAddresssOldest() {
        var waiting = WaitingConnections<Int>(limits: limits(perAddress: 3).waiting)
        for id in 0..<3 { XCTAssertEqual(waiting.admit(id, address: "127.0.0.1", nowSeconds: 0), []) }
        XCTAssertEqual(waiting.admit(10, address: "10.0.0.2", nowSeconds: 0), [], "another address is not affected")
        XCTAssertEqual(waiting.admit(3, address: "127.0.0.1", nowSeconds: 1), [0], "the oldest of that address goes, not the newcomer")
        XCTAssertEqual(waiting.admit(4, address: "127.0.0.1", nowSeconds: 1), [1])
        XCTAssertEqual(waiting.count, 4)
        waiting.remove(4)  // its head arrived
        XCTAssertEqual(waiting.admit(5, address: "127.0.0.1", nowSeconds: 1), [])
    }

    func testTheTotalBoundPushesOutTheOldestOfAnyAddress() {
        var waiting = WaitingConnections<Int>(limits: limits(perAddress: 8, total: 4).waiting)
        for id in 0..<4 { XCTAssertEqual(waiting.admit(id, address: "10.0.0.\(id)", nowSeconds: Int64(id)), []) }
        XCTAssertEqual(waiting.admit(4, address: "10.0.0.9", nowSeconds: 5), [0])
        XCTAssertEqual(waiting.count, 4)
    }

    func testAHeadThatIsLateExpires() {
        var waiting = WaitingConnections<Int>(limits: limits(seconds: 5).waiting)
        _ = waiting.admit(1, address: "a", nowSeconds: 100)
        _ = waiting.admit(2, address: "a", nowSeconds: 103)
        XCTAssertEqual(waiting.expire(nowSeconds: 104), [])
        XCTAssertEqual(waiting.expire(nowSeconds: 105), [1])
        XCTAssertEqual(waiting.expire(nowSeconds: 108), [2])
        XCTAssertEqual(waiting.count, 0)
    }

    /// The server's defaults leave room: the waiting bound is far below the connection bound.
    func testTheDefaultsKeepSlotsForRequestsWithTheToken() {
        let limits = ServerLimits()
        XCTAssertLessThanOrEqual(limits.maximumWaitingConnections + limits.maximumEventClients, limits.maximumConnections / 2)
        XCTAssertLessThan(limits.maximumWaitingPerAddress, limits.maximumWaitingConnections)
    }
}
