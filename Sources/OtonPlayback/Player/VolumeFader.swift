import Dispatch
import OtonSupport

/// The player's output volume and its fades: a fade steps the volume linearly, 20 steps a second,
/// each step applied (to the pipeline and as a volume event) through `apply`.
///
/// `@unchecked Sendable`: confined to the player's queue. Every method is called there, and the
/// fade timer fires there.
package final class VolumeFader: @unchecked Sendable {
    /// 0 … OutputVolume.maximum.
    package private(set) var volume: Double
    private let queue: DispatchQueue
    private let clock: any PlayerClock
    private let apply: (Double) -> Void
    private var timer: (any PlayerTimer)?
    private var target: Double?

    package init(volume: Double, queue: DispatchQueue, clock: any PlayerClock = SystemPlayerClock(), apply: @escaping (Double) -> Void) {
        self.volume = OutputVolume.clamped(volume)
        self.queue = queue
        self.clock = clock
        self.apply = apply
    }

    /// Sets the volume at once (clamped); nothing happens when it is already there.
    package func set(_ value: Double) {
        let clamped = OutputVolume.clamped(value)
        guard clamped != volume else { return }
        volume = clamped
        apply(clamped)
    }

    /// Steps the volume linearly to `target` over `milliseconds` (at least one step).
    package func fade(to target: Double, over milliseconds: Int) {
        cancel()
        let steps = max(1, milliseconds / 50)
        let start = volume
        var step = 0
        self.target = target
        timer = clock.schedule(after: .milliseconds(50), repeating: .milliseconds(50), leeway: .zero, on: queue) { [weak self] in
            guard let self else { return }
            step += 1
            set(start + (target - start) * Double(step) / Double(steps))
            if step >= steps { cancel() }
        }
    }

    /// A fade still running ends at its target at once (playback stops).
    package func finish() {
        guard timer != nil, let target else { return }
        cancel()
        set(target)
    }

    /// Stops a fade where it is.
    package func cancel() {
        timer?.cancel()
        timer = nil
    }
}
