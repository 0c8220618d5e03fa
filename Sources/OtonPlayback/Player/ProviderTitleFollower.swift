import Dispatch
import Foundation
import Logging
import OtonEvents
import OtonHTTP
import OtonMedia
import OtonStations
import OtonSupport
import Synchronization

/// Finds titles for a station whose stream has none, without configuration (docs/titles.md): once the
/// stream has shown no title for `quietSeconds` (none at all, or only the station's name), or the same
/// title for ``constantTitleSeconds`` (a slogan), it
/// tries the catalogue rules that match the stream URL (the one that worked last time first), one
/// request each with a short bound, and polls the first that names a title every `poll_seconds` of its
/// rule. What worked is kept per station (``NowPlayingFoundStore``); a failing rule is forgotten and the
/// rules are tried again at the next quiet spell. Each rule's failure is said once at info.
///
/// Answers are used as ``StationStatusLookup`` decides: every answer while the stream is titleless;
/// after a stream title change only an answer naming the heard title (for its cover), so a provider
/// never replaces a stream title that is present and changing.
///
/// `@unchecked Sendable`: confined to the player's queue, as ``StationStatusFollower``; `liveRound` is
/// read on the transfer's thread, behind its Mutex.
package final class ProviderTitleFollower: StationTitleFollowing, @unchecked Sendable {
    /// Discovery and polls: a slow or huge provider costs at most this, never playback.
    static let limits = CappedHTTPClient.Limits(totalMilliseconds: 5000, connectMilliseconds: 3000, maxRedirects: 3)
    static let maxBytes = 512 * 1024

    private let streamURL: URL
    private let candidates: [(rule: NowPlayingRule, placeholders: [String: String])]
    private let queue: DispatchQueue
    private let transfers = DispatchQueue(label: "oton.now-playing")
    private let logger: Logger
    private let store: NowPlayingFoundStore
    private let userAgent: String
    private let quietSeconds: Double
    private let use: (StationStatus, TitleSource) -> Void
    private var active: StationStatusPoller?
    private var lookup = StationStatusLookup()
    private var pollTimer: DispatchSourceTimer?
    private var quietTimer: DispatchSourceTimer?
    private var discovering = false
    private var stopped = false
    private var toldFailures: Set<String> = []
    private let liveRound = Mutex<UInt64?>(nil)
    /// The push channel followed (its number; nil: none), read by its transfer's cancel check.
    private let livePush = Mutex<UInt64?>(nil)
    private var pushCount: UInt64 = 0
    private let pushes = DispatchQueue(label: "oton.now-playing.push")

    /// Nil when no rule of `catalogue` matches the station's stream URL.
    package init?(
        station: Station, queue: DispatchQueue, logger: Logger, catalogue: NowPlayingCatalogue = .load(),
        store: NowPlayingFoundStore = NowPlayingFoundStore(), quietSeconds: Double = ProviderTitleFollower.defaultQuietSeconds,
        use: @escaping (StationStatus, TitleSource) -> Void
    ) {
        for problem in catalogue.problems { logger.warning("\(problem.text(tr))") }
        guard let streamURL = URL(string: station.url) else { return nil }
        var candidates = catalogue.candidates(for: streamURL)
        guard !candidates.isEmpty else { return nil }
        if let found = store.rule(for: station.url), let index = candidates.firstIndex(where: { $0.rule.name == found }) {
            candidates.insert(candidates.remove(at: index), at: 0)
        }
        self.streamURL = streamURL
        self.candidates = candidates
        self.queue = queue
        self.logger = logger
        self.store = store
        self.quietSeconds = quietSeconds
        userAgent = station.requestUserAgent
        self.use = use
    }

    /// 60 s, or `$OTON_NOW_PLAYING_QUIET_SECONDS` (the tests' shorter spell).
    package static var defaultQuietSeconds: Double {
        ProcessInfo.processInfo.environment["OTON_NOW_PLAYING_QUIET_SECONDS"].flatMap(Double.init).map { max(0.5, $0) } ?? 60
    }

    /// A stream title that stays the same this long (a slogan, not a song) also sends oton looking.
    package static let constantTitleSeconds: Double = 600

    package func connected() { restartQuiet() }

    package func heardTrackChanged(_ heard: StationStatusLookup.Heard) {
        // A stream that names its songs is not asked about: only one whose title stays the same for ten minutes.
        restartQuiet(heard.title != nil || heard.rawTitle != nil ? max(quietSeconds, Self.constantTitleSeconds) : quietSeconds)
        guard active != nil else { return }
        run(lookup.heardTrackChanged(heard))
    }

    package func stop() {
        stopped = true
        for timer in [pollTimer, quietTimer] { timer?.cancel() }
        pollTimer = nil
        quietTimer = nil
        liveRound.withLock { $0 = nil }
        livePush.withLock { $0 = nil }
    }

    private func restartQuiet(_ seconds: Double? = nil) {
        guard !stopped else { return }
        quietTimer?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(Int((seconds ?? quietSeconds) * 1000)))
        timer.setEventHandler { [weak self] in self?.quiet() }
        timer.resume()
        quietTimer = timer
    }

    /// The stream said nothing new for `quietSeconds`: poll the rule that works, or find one.
    private func quiet() {
        quietTimer?.cancel()
        quietTimer = nil
        guard !stopped else { return }
        if active != nil {
            _ = lookup.heardTrackChanged(.init(title: nil, artist: nil, rawTitle: nil))
            run(.ask(afterSeconds: 0, round: lookup.round))
        } else if !discovering {
            discovering = true
            attempt(candidateAt: 0)
        }
    }

    private func attempt(candidateAt index: Int) {
        guard !stopped else { return }
        guard index < candidates.count else {
            discovering = false
            logger.info(
                "\(tr("no now-playing provider named a title for {url}; oton asks again after the next quiet minute", ["url": streamURL.absoluteString]))")
            return
        }
        let (rule, placeholders) = candidates[index]
        guard let poller = makePoller(rule, placeholders) else { return attempt(candidateAt: index + 1) }
        if rule.pushOnly {
            // The platform documents only its push channel: follow it; its first title finds the rule.
            return followPush(poller) { [weak self] reason in
                guard let self else { return }
                guard active !== poller else { return pushEnded(poller, reason: reason) }
                tell(rule, reason, url: poller.statusURL)
                attempt(candidateAt: index + 1)
            }
        }
        transfers.async { [weak self] in
            let result = poller.fetch(isCancelled: { [weak self] in self?.stopped ?? true })
            guard let self else { return }
            queue.async { [self] in
                guard !stopped else { return }
                switch result {
                case let .success(status) where status.title != nil:
                    discovering = false
                    found(poller, status: status)
                case .success:
                    tell(rule, "\(tr("the answer names no title"))", url: poller.statusURL)
                    attempt(candidateAt: index + 1)
                case let .failure(error):
                    tell(rule, "\(error)", url: poller.statusURL)
                    attempt(candidateAt: index + 1)
                }
            }
        }
    }

    private func makePoller(_ rule: NowPlayingRule, _ placeholders: [String: String]) -> StationStatusPoller? {
        StationStatusPoller(
            rule: rule, placeholders: placeholders, streamURL: streamURL, limits: Self.limits, maxBytes: Self.maxBytes, userAgent: userAgent)
    }

    private func found(_ poller: StationStatusPoller, status: StationStatus) {
        guard let rule = poller.rule else { return }
        logger.info(
            "\(tr("titles for {url} come from the now-playing provider {rule} ({status})", ["url": streamURL.absoluteString, "rule": rule.name, "status": poller.statusURL.absoluteString]))"
        )
        store.set(rule.name, for: streamURL.absoluteString)
        active = poller
        lookup = StationStatusLookup(idleInterval: rule.pollSeconds)
        _ = lookup.heardTrackChanged(.init(title: nil, artist: nil, rawTitle: nil))
        use(status, .provider(rule.name))
        if rule.push != nil, livePush.withLock({ $0 }) == nil {
            followPush(poller) { [weak self] reason in self?.pushEnded(poller, reason: reason) }
        }
        run(.ask(afterSeconds: rule.pollSeconds, round: lookup.round))
    }

    /// Follows the rule's push channel on its own thread: each event is read as the rule says and used
    /// as an answer. Until its first event, it is bounded like a poll (``limits``); then it lasts until
    /// it ends, the station changes or it stays silent for 90 s. `failed` runs on the queue.
    private func followPush(_ poller: StationStatusPoller, failed: @escaping @Sendable (String) -> Void) {
        guard let rule = poller.rule, let url = rule.pushURL(poller.placeholders) else { return failed("no push URL") }
        pushCount &+= 1
        let number = pushCount
        livePush.withLock { $0 = number }
        let firstEventBy = Date().addingTimeInterval(Double(Self.limits.totalMilliseconds) / 1000)
        let heard = PushHeard()
        let channel = ServerSentEvents(userAgent: userAgent)
        pushes.async { [weak self] in
            let isCancelled: @Sendable () -> Bool = { [weak self] in
                guard let self, livePush.withLock({ $0 }) == number else { return true }
                return !heard.flag.withLock { $0 } && Date() > firstEventBy
            }
            var failure: String?
            do {
                try channel.follow(url.absoluteString, isCancelled: isCancelled) { [weak self] event in
                    guard let self else { return }
                    let read = try? NowPlayingReader.read(Data(event.utf8), rule: rule, placeholders: poller.placeholders, pushed: true)
                    guard let status = read, status.title != nil else { return }
                    heard.flag.withLock { $0 = true }
                    queue.async { [self] in pushed(status, from: poller, number: number) }
                }
                failure = tr("the push channel ended")
            } catch {
                failure =
                    heard.flag.withLock({ $0 }) || (error as? CappedHTTPClient.Failure) != .cancelled
                    ? "\(error)" : tr("no event within {seconds} s", ["seconds": "5"])
            }
            guard let self, let failure else { return }
            queue.async { [self] in
                guard !stopped, livePush.withLock({ $0 }) == number else { return }
                livePush.withLock { $0 = nil }
                failed(failure)
            }
        }
    }

    private func pushed(_ status: StationStatus, from poller: StationStatusPoller, number: UInt64) {
        guard !stopped, livePush.withLock({ $0 }) == number, let rule = poller.rule else { return }
        if active !== poller {
            discovering = false
            return found(poller, status: status)
        }
        for step in lookup.answered(status, round: lookup.round) {
            if case let .use(status) = step { use(status, .provider(rule.name)) }
        }
    }

    /// The push channel of the rule in use ended: polls carry on, or, for a push-only rule, it is tried again later.
    private func pushEnded(_ poller: StationStatusPoller, reason: String) {
        guard let rule = poller.rule, active === poller else { return }
        tell(rule, reason, url: rule.pushURL(poller.placeholders) ?? poller.statusURL)
        guard rule.pushOnly else { return run(.ask(afterSeconds: rule.pollSeconds, round: lookup.round)) }
        store.set(nil, for: streamURL.absoluteString)
        active = nil
        restartQuiet()
    }

    private func tell(_ rule: NowPlayingRule, _ reason: String, url: URL) {
        guard toldFailures.insert(rule.name).inserted else { return }
        logger.info("\(tr("now-playing provider {rule} ({url}): {reason}", ["rule": rule.name, "url": url.absoluteString, "reason": reason]))")
    }

    private func run(_ step: StationStatusLookup.Step) {
        guard !stopped, let active, let rule = active.rule else { return }
        switch step {
        case let .ask(afterSeconds, round):
            pollTimer?.cancel()
            liveRound.withLock { $0 = round }
            // A live push channel says each change: no polls beside it.
            guard livePush.withLock({ $0 }) == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            // Never more than one request per poll interval, whatever the stream does.
            timer.schedule(deadline: .now() + .milliseconds(Int(max(afterSeconds, rule.pollSeconds) * 1000)))
            timer.setEventHandler { [weak self] in self?.ask(round: round) }
            timer.resume()
            pollTimer = timer
        case let .use(status):
            use(status, .provider(rule.name))
        case .gaveUp, .stale:
            break
        }
    }

    private func ask(round: UInt64) {
        guard !stopped, let poller = active else { return }
        poller.poll(isCancelled: { [weak self] in self?.liveRound.withLock { $0 } != round }) { [weak self] result in
            guard let self else { return }
            queue.async { [self] in
                guard !stopped, liveRound.withLock({ $0 }) == round, active === poller else { return }
                switch result {
                case let .success(status):
                    for step in lookup.answered(status, round: round) { run(step) }
                case let .failure(error):
                    // Re-checked on failure: forget the rule; the rules are tried again at the next quiet spell.
                    if let rule = poller.rule { tell(rule, "\(error)", url: poller.statusURL) }
                    store.set(nil, for: streamURL.absoluteString)
                    active = nil
                    pollTimer?.cancel()
                    pollTimer = nil
                    restartQuiet()
                }
            }
        }
    }
}

/// Whether a push channel said its first event (read by its transfer's cancel check).
private final class PushHeard: Sendable {
    let flag = Mutex(false)
}

/// What the player asks of whoever follows a station's titles outside the stream.
package protocol StationTitleFollowing: AnyObject {
    func connected()
    func heardTrackChanged(_ heard: StationStatusLookup.Heard)
    func stop()
}
