import Dispatch
import Foundation
import Logging
import OtonEvents
import OtonPlayback
import OtonPlugins

/// The alarm side of a playing session: `snooze` (stop now, ring again later from silence, with the
/// start's fade-in and tone), and the rule that a sleep timer never cuts a ring short: every ring
/// (the start of `oton play --alarm`, each ring after a snooze, an alarm taking over) first cancels
/// the sleep timer, through the same `sleep cancel` command `oton ctl` sends its plugin.
public final class AlarmClock: @unchecked Sendable {
    private let player: Player
    private let plugins: PluginManager
    private let options: Player.Options
    private let logger: Logger
    private let lock = NSLock()
    private var snoozeTimer: DispatchSourceTimer?
    private var ringsAt: Date?

    package init(player: Player, plugins: PluginManager, options: Player.Options, logger: Logger = Logger(label: "oton.alarm")) {
        self.player = player
        self.plugins = plugins
        self.options = options
        self.logger = logger
    }

    /// Cancels a running sleep timer (when a plugin provides `sleep`); waits for its reply, so the
    /// volume it may restore arrives at the player before the ring's own silence and fade.
    public func cancelSleepTimer() {
        guard let reply = plugins.run(command: "sleep", arguments: ["cancel"]), reply.ok, reply.text.contains("cancelled") else { return }
        logger.info("alarm: the sleep timer was cancelled, so it cannot end the alarm")
    }

    /// Stops playback now and rings again after `seconds`: from silence to the alarm's volume (or the
    /// volume playing now, for a plain `oton play`), through the fade-in it started with.
    public func snooze(seconds: Int) -> Date {
        let target = options.wakeUp != nil ? options.volume : player.snapshot.volume
        let wakeUp = options.wakeUp ?? WakeUp(fadeMilliseconds: 0, toneAfter: nil)
        player.submit(.stop, from: "snooze")
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .seconds(seconds))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            lock.withLock { ringsAt = nil }
            cancelSleepTimer()
            logger.info("alarm: snooze over, ringing again")
            player.submit(.wakeUp(wakeUp, volume: target), from: "snooze")
        }
        let at = Date().addingTimeInterval(TimeInterval(seconds))
        lock.withLock {
            snoozeTimer?.cancel()
            snoozeTimer = timer
            ringsAt = at
        }
        timer.resume()
        return at
    }

    /// When a snooze rings again (nil: none pending).
    public var snoozedUntil: Date? { lock.withLock { ringsAt } }

    package func close() {
        lock.withLock {
            snoozeTimer?.cancel()
            snoozeTimer = nil
        }
    }
}
