import Dispatch
import OtonPluginKit
import PluginAPI
import SleepTimerLogic

/// One sleep timer. Everything runs on its private serial queue: commands and
/// events arrive from the host's mailbox and wait for it, the timer fires on it.
/// Time is DispatchTime, which counts monotonic time: changing the wall clock
/// neither advances nor delays it.
final class SleepTimerInstance: @unchecked Sendable {
    private let host: HostHandle
    private let queue = DispatchQueue(label: "org.oton.sleep-timer")
    private var model: SleepTimerModel
    private var timer: DispatchSourceTimer?
    private var fadeTimer: DispatchSourceTimer?

    init(host: HostHandle, settings: SleepTimerModel.Settings) {
        self.host = host
        model = SleepTimerModel(settings: settings)
    }

    func shutdown() {
        queue.sync {
            timer?.cancel()
            fadeTimer?.cancel()
            timer = nil
            fadeTimer = nil
        }
    }

    func handle(_ event: EventView.Snapshot) {
        queue.sync {
            switch event.kind {
            case OTON_EVENT_TRACK:
                apply(model.trackChanged(fields: event.fields))
            case OTON_EVENT_VOLUME:
                if let volume = event["volume"].flatMap(Double.init) { model.volumeChanged(volume) }
            default:
                break
            }
        }
    }

    /// `sleep`, `sleep 30m`, `sleep after-track`, `sleep next`, `sleep cancel`.
    func command(_ arguments: [String]) -> (Bool, String) {
        queue.sync {
            let now = Self.now()
            switch arguments.first?.lowercased() {
            case nil, "status":
                return (true, status(now: now))
            case "cancel", "off":
                let wasActive = model.isActive
                apply(model.cancel())
                return (true, wasActive ? "Sleep timer cancelled" : "No sleep timer was set")
            case "after-track", "track", "end":
                apply(model.setAfterTrack())
                return (true, "Sleep timer: \(model.settings.action.rawValue) after this track")
            case "next", "cycle":
                apply(model.cycle(now: now))
                return (true, status(now: now))
            case let text?:
                do {
                    let seconds = try SleepDuration.parse(text)
                    apply(model.set(seconds: seconds, now: now))
                    return (true, status(now: now))
                } catch {
                    return (false, "\(error)")
                }
            }
        }
    }

    private func status(now: Int64) -> String {
        let fade = model.settings.fadeMilliseconds / 1000
        switch model.mode {
        case .off: return "No sleep timer set"
        case .afterTrack: return "Sleep timer: \(model.settings.action.rawValue) after this track"
        case .fading: return "Sleep timer fired: fading out"
        case .duration:
            let remaining = SleepDuration.format(model.remainingSeconds(now: now) ?? 0)
            return "Sleep timer: \(model.settings.action.rawValue) in \(remaining) (fade \(fade) s)"
        }
    }

    private static func now() -> Int64 {
        Int64(DispatchTime.now().uptimeNanoseconds)
    }

    /// Carries out the model's decisions. Runs on `queue`.
    private func apply(_ effects: [SleepTimerModel.Effect]) {
        for effect in effects {
            switch effect {
            case let .arm(nanoseconds):
                timer?.cancel()
                timer = nil
                if let nanoseconds { timer = schedule(after: nanoseconds) { [weak self] in self?.timerFired() } }
            case let .announceSet(seconds, mode):
                host.publish(OTON_EVENT_NAME_SLEEP_SET, [("seconds", seconds.map(String.init) ?? ""), ("mode", mode),
                                                         ("action", model.settings.action.rawValue)])
            case .announceCancelled:
                host.publish(OTON_EVENT_NAME_SLEEP_CANCELLED)
            case .announceFired:
                host.publish(OTON_EVENT_NAME_SLEEP_FIRED, [("action", model.settings.action.rawValue)])
                host.log(OTON_LOG_INFO, "sleep timer fired: fading out over \(model.settings.fadeMilliseconds) ms")
            case let .fadeOut(milliseconds):
                host.request(OTON_REQUEST_FADE_VOLUME, volume: 0, durationMilliseconds: UInt32(milliseconds))
                fadeTimer = schedule(after: Int64(milliseconds) * 1_000_000) { [weak self] in
                    guard let self else { return }
                    apply(model.fadeFinished())
                }
            case let .finish(action, restoreVolume):
                switch action {
                case .stop:
                    host.request(OTON_REQUEST_STOP)
                    host.request(OTON_REQUEST_SET_VOLUME, volume: restoreVolume)
                case .pause:
                    host.request(OTON_REQUEST_PAUSE)
                    host.request(OTON_REQUEST_SET_VOLUME, volume: restoreVolume)
                case .quit:
                    host.request(OTON_REQUEST_SET_VOLUME, volume: restoreVolume)
                    host.request(OTON_REQUEST_QUIT) // oton ends as on Ctrl-C, exit 0
                }
            case let .restoreVolume(volume):
                fadeTimer?.cancel()
                fadeTimer = nil
                host.request(OTON_REQUEST_SET_VOLUME, volume: volume)
            }
        }
    }

    private func timerFired() {
        apply(model.timerFired(now: Self.now()))
    }

    private func schedule(after nanoseconds: Int64, _ work: @escaping () -> Void) -> DispatchSourceTimer {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), leeway: .milliseconds(5))
        source.setEventHandler(handler: work)
        source.resume()
        return source
    }
}
