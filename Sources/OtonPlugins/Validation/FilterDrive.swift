import Foundation

/// `oton plugins run --filtered`: the plugin's filter over a WAV file's sound, in buffers of 1024
/// frames as 32-bit floats, on a thread of its own as on the audio thread; each call is timed
/// against the host's budget. The result is 16-bit again, clipped at full scale.
package struct FilterDrive {
    package static let frames = 1024

    /// What the calls took.
    package struct Report: Sendable {
        package let buffers: Int
        package let frames: Int
        package let medianNanoseconds: UInt64
        package let worstNanoseconds: UInt64
        /// The budget of a whole buffer (the last, shorter one has a smaller budget).
        package let budgetNanoseconds: UInt64
        /// Calls that took longer than their buffer's budget.
        package let overBudget: Int
    }

    /// Runs the filter of `instance` over `audio`; returns the filtered sound (S16LE interleaved) and the times.
    package static func run(_ instance: PluginInstance, audio: WAVAudio, limit: Double) throws(ValidationFailure) -> (samples: [UInt8], report: Report) {
        let channels = Int(audio.channels)
        let count = audio.samples.count / 2
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1))
        // A filter stuck in a call keeps the buffer: it is left to it, not freed under it.
        var returned = false
        defer { if returned { floats.deallocate() } }
        for index in 0..<count {
            floats[index] = Float(Int16(bitPattern: UInt16(audio.samples[2 * index]) | UInt16(audio.samples[2 * index + 1]) << 8)) / 32768
        }
        let totalFrames = count / max(channels, 1)
        let buffers = (totalFrames + frames - 1) / frames
        let times = Times(count: buffers)
        let progress = ProgressCounter()
        let pointer = SendablePointer(floats)
        let thread = Thread {
            for buffer in 0..<buffers {
                let first = buffer * frames
                let length = min(frames, totalFrames - first)
                let spent = instance.runFilter(pointer.value + first * channels, frames: length, channels: audio.channels, rate: audio.rate)
                times.set(buffer, spent: spent, budget: FilterBudget.nanoseconds(frames: length, rate: audio.rate))
                progress.step()
            }
        }
        thread.stackSize = 8 << 20
        thread.start()
        guard progress.wait(for: buffers, stall: limit) else {
            throw ValidationFailure(reason: "filter() did not return within \(ValidationHost.seconds(limit)) (buffer \(progress.passed + 1) of \(buffers))")
        }
        returned = true
        var samples = [UInt8]()
        samples.reserveCapacity(count * 2)
        for index in 0..<count {
            let value = floats[index].isFinite ? max(-1, min(1, floats[index])) : 0
            let sample = UInt16(bitPattern: Int16((value * 32767).rounded()))
            samples.append(UInt8(sample & 0xFF))
            samples.append(UInt8(sample >> 8))
        }
        let sorted = times.spent.sorted()
        let report = Report(
            buffers: buffers, frames: frames, medianNanoseconds: sorted.isEmpty ? 0 : sorted[sorted.count / 2], worstNanoseconds: sorted.last ?? 0,
            budgetNanoseconds: FilterBudget.nanoseconds(frames: frames, rate: audio.rate),
            overBudget: zip(times.spent, times.budgets).filter { $0 > $1 }.count)
        return (samples, report)
    }
}

/// The time of each call, written by the filter's thread before its marker passes and read after
/// the last one (ProgressCounter's lock orders them). Concurrency: one writer, then one reader.
private final class Times: @unchecked Sendable {
    var spent: [UInt64]
    var budgets: [UInt64]

    init(count: Int) {
        spent = [UInt64](repeating: 0, count: count)
        budgets = [UInt64](repeating: 0, count: count)
    }

    func set(_ index: Int, spent: UInt64, budget: UInt64) {
        self.spent[index] = spent
        budgets[index] = budget
    }
}

/// The float buffer handed to the filter's thread, which alone touches it until its last marker.
private struct SendablePointer: @unchecked Sendable {
    let value: UnsafeMutablePointer<Float>
    init(_ value: UnsafeMutablePointer<Float>) { self.value = value }
}
