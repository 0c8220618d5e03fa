import Dispatch
import Foundation
import Logging
import OtonEvents
import OtonMedia
import OtonStations
import Synchronization

/// Follows a station's status API for the player: asks it when a connection starts and when the heard
/// title changes (``StationStatusLookup`` decides when and how often), and hands what it learns to
/// `use`. One follower per station: a switch makes a new one and stops the old.
///
/// `@unchecked Sendable`: confined to the player's queue (`queue`): every method is called there, the
/// timer fires there and the poller's answers are brought back there. `liveRound` is the one value
/// read elsewhere (the transfer's cancel check on the poller's thread), behind its Mutex.
package final class StationStatusFollower: StationTitleFollowing, @unchecked Sendable {
    private let poller: StationStatusPoller
    private let queue: DispatchQueue
    private let logger: Logger
    private let use: (StationStatus, TitleSource) -> Void
    private var lookup = StationStatusLookup()
    private var timer: DispatchSourceTimer?
    private var stopped = false
    /// The stream's title heard last, for the log line when the status never names it.
    private var heardTitle: String?
    /// The status round whose transfer may run.
    private let liveRound = Mutex<UInt64?>(nil)

    /// Nil when `station` has no status API.
    package init?(station: Station, queue: DispatchQueue, logger: Logger, use: @escaping (StationStatus, TitleSource) -> Void) {
        guard let status = station.statusURL.flatMap(URL.init(string:)) else { return nil }
        poller = StationStatusPoller(statusURL: status, streamURL: URL(string: station.url), userAgent: station.requestUserAgent)
        self.queue = queue
        self.logger = logger
        self.use = use
    }

    /// A connection started.
    package func connected() { run(lookup.connected()) }

    /// The stream's own title changed: the status API may know the artwork for it.
    package func heardTrackChanged(_ heard: StationStatusLookup.Heard) {
        heardTitle = heard.title ?? heard.rawTitle
        run(lookup.heardTrackChanged(heard))
    }

    /// No more asking; an answer under way is dropped.
    package func stop() {
        stopped = true
        timer?.cancel()
        timer = nil
        liveRound.withLock { $0 = nil }
    }

    private func run(_ step: StationStatusLookup.Step) {
        guard !stopped else { return }
        switch step {
        case let .ask(afterSeconds, round):
            timer?.cancel()
            timer = nil
            liveRound.withLock { $0 = round }
            if afterSeconds <= 0 {
                ask(round: round)
            } else {
                let timer = DispatchSource.makeTimerSource(queue: queue)
                timer.schedule(deadline: .now() + .milliseconds(Int(afterSeconds * 1000)))
                timer.setEventHandler { [weak self] in self?.ask(round: round) }
                timer.resume()
                self.timer = timer
            }
        case let .use(status):
            use(status, .stationAPI)
        case let .gaveUp(_, lastTitle):
            logger.debug("the station status never named \"\(heardTitle ?? "")\" (it said \"\(lastTitle ?? "")\"); no cover from it for this track")
        case .stale:
            break
        }
    }

    private func ask(round: UInt64) {
        guard !stopped else { return }
        let poller = poller
        poller.poll(isCancelled: { [weak self] in self?.liveRound.withLock { $0 } != round }) { [weak self] result in
            guard let self else { return }
            queue.async { [self] in
                guard !stopped, liveRound.withLock({ $0 }) == round else { return }
                switch result {
                case let .success(status):
                    for step in lookup.answered(status, round: round) { run(step) }
                case let .failure(error):
                    logger.info("status API \(poller.statusURL.absoluteString): \(error)")
                    run(lookup.failed(round: round))
                }
            }
        }
    }
}
