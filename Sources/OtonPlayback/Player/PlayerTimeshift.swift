import Foundation
import Logging
import OtonEvents
import OtonMedia
import OtonSupport
import PluginAPI

/// Timeshift (docs/timeshift.md), on the player's queue: the station's ring (made at its first
/// connection that can have one, dropped at a switch and at the end), pause as a hold, and seeks.
extension Player {
    /// What a seek asks.
    public enum TimeshiftMove: Sendable, Equatable {
        /// By this many ns from what is heard (negative: back).
        case by(Int64)
        /// To this many ns behind live (0: live).
        case behindLive(Int64)
    }

    /// The ring for a connection described so: live ICY over http(s), heard, timeshift on, and a
    /// stream the light engine frames (it receives into the ring). nil otherwise.
    func timeshiftRing(for description: PipelineDescription) -> TimeshiftRing? {
        guard let settings = options.timeshift, settings.isOn, description.decodes, description.isLive, !description.isAdaptive,
            !lightUnsupported, !timeshiftUnavailable, options.engine != .light
        else { return nil }
        if let timeshiftRing { return timeshiftRing }
        do {
            timeshiftRing = try TimeshiftRing(settings: settings)
        } catch {
            logger.warning("\(error.description)")
            timeshiftUnavailable = true
        }
        return timeshiftRing
    }

    /// The ring is let go of (a station switch, the end): its files are deleted.
    func dropTimeshiftRing() {
        timeshiftRing?.close()
        timeshiftRing = nil
    }

    func holdTimeshift() {
        guard let engine = pipeline as? TimeshiftEngine else { return }
        bufferingTimer?.cancel()
        bufferingTimer = nil
        engine.hold()
        holdingTimeshift = true
    }

    /// Play after a pause: the held connection goes on where it was. False when none is held.
    func resumeHeldTimeshift() -> Bool {
        guard holdingTimeshift, let engine = pipeline as? TimeshiftEngine else { return false }
        holdingTimeshift = false
        engine.release()
        return true
    }

    /// Paused, then stopped (or switched): the held connection is dropped.
    func endHeldTimeshift() {
        holdingTimeshift = false
        pipeline?.stop()
        pipeline = nil
        watchdog.cancel()
    }

    /// Moves timeshift playback; nil when this connection has no timeshift.
    func seekNow(_ move: TimeshiftMove) -> TimeshiftSeek? {
        guard !finished, let engine = pipeline as? TimeshiftEngine else { return nil }
        let result =
            switch move {
            case let .by(nanoseconds): engine.seek(by: nanoseconds)
            case let .behindLive(nanoseconds): engine.seek(behindLive: nanoseconds)
            }
        if case let .clampedToStart(held) = result {
            logger.warning("\(Self.clampText(held: held))")
        }
        if let kind = bus.registry.kind(for: OTON_EVENT_NAME_TIMESHIFT_MOVED) {
            let position = engine.position
            // Who shows a position (MPRIS's Seeked, a window) hears of the move, whoever asked for it.
            let fields = TimeshiftMovedFields.fields(
                behindLiveMilliseconds: position.behindLive / 1_000_000, heldMilliseconds: position.held / 1_000_000,
                limitMilliseconds: position.limit / 1_000_000)
            bus.publish(BusEvent(kind: kind, name: OTON_EVENT_NAME_TIMESHIFT_MOVED, source: "host", extraFields: fields))
        }
        return result
    }

    /// A seek from the control socket or the terminal: done on the queue, its outcome returned.
    public func seek(_ move: TimeshiftMove) -> TimeshiftSeek? {
        queue.sync { seekNow(move) }
    }

    /// "The ring holds only 4:12; playing from its start."
    public static func clampText(held: Int64) -> String {
        tr(
            "the timeshift holds only the last {held}; playing from the oldest audio it holds",
            ["held": TimeText.minutesSeconds(Int(held / 1_000_000_000))])
    }
}
