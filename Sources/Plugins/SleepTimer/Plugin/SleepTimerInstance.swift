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
                if let volume = event.volume { model.volumeChanged(volume.volume) }
            default:
                break
            }
        }
    }

    /// `sleep`, `sleep 30m`, `sleep after-track`, `sleep next`, `sleep cancel`.
    func command(_ arguments: [String]) -> (Bool, String) {
        queue.sync { () -> (Bool, String) in
            let now = Self.now()
            switch arguments.first?.lowercased() {
            case nil, "status":
                return (true, status(now: now))
            case "cancel", "off":
                let wasActive = model.isActive
                apply(model.cancel())
                return (true, wasActive ? host.tr("Sleep timer cancelled") : host.tr("No sleep timer was set"))
            case "after-track", "track", "end":
                apply(model.setAfterTrack())
                return (true, afterTrack())
            case "next", "cycle":
                apply(model.cycle(now: now))
                return (true, status(now: now))
            case let text?:
                do throws(SleepDuration.ParseError) {
                    let seconds = try SleepDuration.parse(text)
                    apply(model.set(seconds: seconds, now: now))
                    return (true, status(now: now))
                } catch {
                    return (false, error.message { host.tr($0, $1) })
                }
            }
        }
    }

    /// The reply a person reads, in their language (ABI 1.4; English from an older host).
    private func status(now: Int64) -> String {
        switch model.mode {
        case .off: return host.tr("No sleep timer set")
        case .afterTrack: return afterTrack()
        case .fading: return host.tr("Sleep timer fired: fading out")
        case .duration:
            let values = [
                "time": SleepDuration.format(model.remainingSeconds(now: now) ?? 0),
                "fade": String(model.settings.fadeMilliseconds / 1000),
            ]
            // One sentence per action, so that a translation can word each as its language needs.
            switch model.settings.action {
            case .stop: return host.tr("Sleep timer: stop in {time} (fade {fade} s)", values)
            case .pause: return host.tr("Sleep timer: pause in {time} (fade {fade} s)", values)
            case .quit: return host.tr("Sleep timer: quit in {time} (fade {fade} s)", values)
            }
        }
    }

    private func afterTrack() -> String {
        switch model.settings.action {
        case .stop: host.tr("Sleep timer: stop after this track")
        case .pause: host.tr("Sleep timer: pause after this track")
        case .quit: host.tr("Sleep timer: quit after this track")
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
                host.publish(
                    OTON_EVENT_NAME_SLEEP_SET,
                    [
                        (OTON_FIELD_SECONDS, seconds.map(String.init) ?? ""), (OTON_FIELD_MODE, mode),
                        (OTON_FIELD_ACTION, model.settings.action.rawValue),
                    ])
            case .announceCancelled:
                host.publish(OTON_EVENT_NAME_SLEEP_CANCELLED)
            case .announceFired:
                host.publish(OTON_EVENT_NAME_SLEEP_FIRED, [(OTON_FIELD_ACTION, model.settings.action.rawValue)])
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
                    host.request(OTON_REQUEST_QUIT)  // oton ends as on Ctrl-C, exit 0
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
