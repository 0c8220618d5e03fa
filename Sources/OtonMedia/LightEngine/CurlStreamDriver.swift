import CCurl
import Foundation
import OtonSupport

/// The light engine's one thread: a libcurl multi handle that reads every light connection of the
/// process. A recorder has no latency to keep, so once every connection is receiving, the thread
/// wakes once a tick (500 ms) and reads whatever has arrived in large pieces, instead of once per
/// network packet. While a connection is still being made the thread polls every 20 ms for it,
/// and the connections already receiving are held (not read) between ticks: one station
/// connecting does not make every station read per packet (issue 39, N14: a flood was read at
/// 48 MB/s instead of 3.1 MB/s while any station was reconnecting). Each connection is also read
/// no faster than its ``FloodGuard`` allows.
///
/// Threads: one, whatever the number of stations. All curl calls happen on it; other threads only
/// queue additions and removals under `condition`.
package final class CurlStreamDriver: @unchecked Sendable {  // `condition` guards the queues; the rest is the driver thread's
    package static let shared = CurlStreamDriver()

    /// How long the thread sleeps between reads when every connection is receiving
    /// (OTON_LIGHT_TICK_MS, 10 … 1000; default 500: measured at 100 stations, 250 ms cost 0.66× streamripper's CPU and 500 ms 0.45×).
    package let tickMilliseconds: Int

    private let condition = NSCondition()
    private var additions: [LightStream] = []
    private var removals: [(LightStream, DispatchSemaphore)] = []
    private var started = false
    // Driver thread only:
    private let multi: UnsafeMutableRawPointer
    private var active: [ObjectIdentifier: LightStream] = [:]
    /// When the receiving connections were last read while another was connecting.
    private var lastTick: Int64 = 0

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    private init() {
        _ = Self.globalInit
        multi = curl_multi_init()!
        let tick = ProcessInfo.processInfo.environment["OTON_LIGHT_TICK_MS"].flatMap(Int.init) ?? 500
        tickMilliseconds = min(max(tick, 10), 1000)
    }

    /// Adds a connection; its transfer starts on the next turn of the thread.
    package func add(_ stream: LightStream) {
        condition.lock()
        additions.append(stream)
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "oton.light-engine"
            thread.stackSize = 1 << 20
            thread.start()
        }
        condition.signal()
        condition.unlock()
        curl_multi_wakeup(multi)
    }

    /// Removes a connection and waits (at most `timeout`) until its transfer is gone.
    package func remove(_ stream: LightStream, timeout: DispatchTimeInterval) -> Bool {
        let done = DispatchSemaphore(value: 0)
        condition.lock()
        removals.append((stream, done))
        condition.signal()
        condition.unlock()
        curl_multi_wakeup(multi)
        return done.wait(timeout: .now() + timeout) == .success
    }

    private func run() {
        while true {
            condition.lock()
            let adding = additions
            let removing = removals
            additions.removeAll()
            removals.removeAll()
            condition.unlock()
            for stream in adding where stream.attach(to: multi) { active[ObjectIdentifier(stream)] = stream }
            for (stream, done) in removing {
                if active.removeValue(forKey: ObjectIdentifier(stream)) != nil { stream.detach(from: multi) }
                done.signal()
            }

            // Receiving connections are read once a tick; between ticks they are held while another connects.
            let now = Clock.monotonicNanoseconds()
            let connecting = active.values.contains { !$0.isReceiving }
            let due = now - lastTick >= Int64(tickMilliseconds) * 1_000_000
            if due { lastTick = now }
            for stream in active.values { stream.updateHolding(driverHolds: connecting && !due && stream.isReceiving) }

            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let stream = LightStream.from(easy)
                else { continue }
                let code = message.pointee.data.result
                let osErrno = Int32(clamping: oton_curl_os_errno(easy))  // read before the handle is freed
                active.removeValue(forKey: ObjectIdentifier(stream))
                stream.detach(from: multi)
                stream.finished(code, osErrno: osErrno)
            }

            if active.isEmpty {
                condition.lock()
                while additions.isEmpty && removals.isEmpty { condition.wait() }
                condition.unlock()
            } else if active.values.contains(where: { !$0.isReceiving }) {
                curl_multi_poll(multi, nil, 0, 20, nil)
            } else {
                condition.lock()
                if additions.isEmpty && removals.isEmpty {
                    _ = condition.wait(until: Date(timeIntervalSinceNow: Double(tickMilliseconds) / 1000))
                }
                condition.unlock()
            }
        }
    }
}
