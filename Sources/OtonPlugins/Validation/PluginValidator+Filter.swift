import Foundation
import OtonCrashGuard
import OtonEffects

extension PluginValidator {
    /// The formats the host hands a filter (F32 interleaved): mono and stereo at 44.1 and 48 kHz.
    static let filterFormats: [(rate: UInt32, channels: UInt32)] = [(44_100, 1), (44_100, 2), (48_000, 1), (48_000, 2)]
    /// Calls per format: enough for a crash on a later call (the 100th) to show.
    static let filterCallsPerFormat = 150
    /// Calls before the heap is first read (a first allocation is not a leak).
    static let filterWarmUpCalls = 50
    static let bytesPerFilterCall = 256

    /// The filter (ABI 1.6) with a test tone, as the audio thread calls it: each buffer ends at a
    /// PROT_NONE page, each call is timed against the host's budget, the heap is read over the
    /// calls, and what it hands on must be finite and within +18 dBFS.
    func filterCheck(_ host: ValidationHost) throws(ValidationFailure) -> ValidationOutcome {
        guard host.manifest.hasFilter else { return .pass(note: "has no filter") }
        let instance: PluginInstance
        switch try running(host) {
        case let .instance(made): instance = made
        case let .skipped(outcome): return outcome
        }
        let run = FilterCalls(instance: instance, phase: phase)
        guard run.prepare() else { throw ValidationFailure(reason: "cannot map the buffers for the filter's calls") }
        let progress = ProgressCounter()
        let thread = Thread { run.callAll(progress) }
        thread.stackSize = 8 << 20
        thread.start()
        guard progress.wait(for: run.total, stall: limit) else {
            throw ValidationFailure(
                reason: "filter() call \(progress.passed + 1) did not return within \(ValidationHost.seconds(limit)); on the audio thread this stops the sound")
        }
        if let problem = run.problem { throw ValidationFailure(reason: problem) }
        let growth = run.heapGrowth
        let measured = run.total - Self.filterWarmUpCalls
        if growth > measured * Self.bytesPerFilterCall {
            throw ValidationFailure(
                reason:
                    "the heap grew by \(LeakCheck.shown(growth)) over \(measured) filter() calls (\(growth / measured) bytes each; at most \(Self.bytesPerFilterCall) allowed): filter must not allocate; make what it needs in create()"
            )
        }
        let timing = run.timing
        phase("destroy() after the filter's calls")
        try host.destroy(instance)
        let note =
            "\(run.total) calls, median \(timing.shown(timing.median)), worst \(timing.shown(timing.worst)) of a \(timing.shown(timing.worstBudget)) budget"
        if timing.overBudget * 50 > run.total {
            return .warn(
                "\(timing.overBudget) of \(run.total) calls took longer than their budget (\(note)): the host bypasses a filter at its first call over; a loaded machine may cause a few, not this many"
            )
        }
        return .pass(note: note)
    }
}

/// The calls of the filter check, on a thread of their own (as the audio thread): what went wrong
/// first, the time of each call against its budget, and the heap's growth after the warm-up.
/// Concurrency: written by the calling thread only; read after `ProgressCounter` saw every call
/// (its lock orders the writes before the reads). On a stall the fields are not read.
private final class FilterCalls: @unchecked Sendable {
    struct Buffer {
        let memory: GuardedBuffer
        let rate: UInt32
        let channels: UInt32
        let frames: Int
        let tone: [Float]
    }

    struct Timing {
        var median: UInt64 = 0
        var medianBudget: UInt64 = 1
        var worst: UInt64 = 0
        var worstBudget: UInt64 = 1
        var overBudget = 0
        var medianShare: Double { Double(median) / Double(max(medianBudget, 1)) }

        init() {}

        /// Calls ranked by their time's share of their budget: the middle one and the last.
        init(_ spent: [(spent: UInt64, budget: UInt64)]) {
            guard !spent.isEmpty else { return }
            let ratios = spent.map { Double($0.spent) / Double(max($0.budget, 1)) }
            let sorted = ratios.indices.sorted { ratios[$0] < ratios[$1] }
            (median, medianBudget) = spent[sorted[sorted.count / 2]]
            (worst, worstBudget) = spent[sorted[sorted.count - 1]]
            overBudget = spent.filter { $0.spent > $0.budget }.count
        }
        func shown(_ nanoseconds: UInt64) -> String { String(format: "%.3f ms", Double(nanoseconds) / 1e6) }
    }

    let instance: PluginInstance
    let phase: (String) -> Void
    private var buffers: [Buffer] = []
    private(set) var problem: String?
    private(set) var heapGrowth = 0
    private(set) var timing = Timing()
    private var spent: [(spent: UInt64, budget: UInt64)] = []
    /// The line the crash guard writes when a call faults in a buffer's guard page.
    private let pastTheEnd = UnsafePointer(strdup("oton: validate: filter() wrote past the end of its buffer (into the PROT_NONE page right after it)\n")!)
    var total: Int { PluginValidator.filterFormats.count * PluginValidator.filterCallsPerFormat }

    init(instance: PluginInstance, phase: @escaping (String) -> Void) {
        self.instance = instance
        self.phase = phase
    }

    /// Maps a buffer of each size for each format, with its tone (440 Hz at -6 dBFS), before any call.
    func prepare() -> Bool {
        for format in PluginValidator.filterFormats {
            for frames in [1024, Int(format.rate) / 100, 4096] {
                let count = frames * Int(format.channels)
                guard let memory = GuardedBuffer(count: count) else { return false }
                var tone = [Float](repeating: 0, count: count)
                for frame in 0..<frames {
                    let value = Float(0.5 * sin(2 * Double.pi * 440 * Double(frame) / Double(format.rate)))
                    for channel in 0..<Int(format.channels) { tone[frame * Int(format.channels) + channel] = value }
                }
                buffers.append(Buffer(memory: memory, rate: format.rate, channels: format.channels, frames: frames, tone: tone))
            }
        }
        spent.reserveCapacity(total)
        return true
    }

    func callAll(_ progress: ProgressCounter) {
        var heapBefore = 0
        let perFormat = PluginValidator.filterCallsPerFormat
        for index in 0..<total where problem == nil {
            if index == PluginValidator.filterWarmUpCalls { heapBefore = LeakCheck.heapInUse() }
            let formatIndex = index / perFormat
            let buffer = buffers[formatIndex * 3 + index % 3]
            let channelsShown = buffer.channels == 1 ? "1 channel" : "\(buffer.channels) channels"
            phase("filter() call \(index + 1) of \(total) (\(buffer.rate) Hz, \(channelsShown), \(buffer.frames) frames)")
            let samples = buffer.memory.samples
            buffer.tone.withUnsafeBufferPointer { samples.update(from: $0.baseAddress!, count: $0.count) }
            oton_crash_guard_watch(buffer.memory.guardPage, buffer.memory.pageSize, pastTheEnd)
            let took = instance.runFilter(samples, frames: buffer.frames, channels: buffer.channels, rate: buffer.rate)
            oton_crash_guard_watch(nil, 0, nil)
            spent.append((took, oton_effect_budget_ns(buffer.frames, UInt32(buffer.rate))))
            problem = check(buffer, call: index + 1, format: "\(buffer.rate) Hz, \(channelsShown), \(buffer.frames) frames")
            if problem == nil, index == total - 1 { heapGrowth = LeakCheck.heapInUse() - heapBefore }
            // A slow filter is named after its first 20 calls, not after minutes of them.
            if problem == nil, index == 19 || index == total - 1 {
                timing = Timing(spent)
                if timing.medianShare > 1 {
                    problem =
                        "filter() takes \(timing.shown(timing.median)) per buffer (the median of \(index + 1) calls), over its budget (half the buffer's duration, \(timing.shown(timing.medianBudget)) here): the host bypasses it at its first call over"
                }
            }
            progress.step()
        }
        // A problem ends the calls early: the waiter wants them all.
        while progress.passed < total { progress.step() }
    }

    private func check(_ buffer: Buffer, call: Int, format: String) -> String? {
        guard buffer.memory.leadIntact else { return "filter() call \(call) (\(format)) wrote before the start of its buffer" }
        for index in 0..<buffer.memory.count {
            let value = buffer.memory.samples[index]
            if value.isFinite && abs(value) <= OTON_EFFECT_GUARD_LIMIT { continue }
            let what = value.isNaN ? "NaN" : value.isInfinite ? (value > 0 ? "+infinity" : "-infinity") : "\(value) (beyond +18 dBFS, at most 8.0)"
            return
                "filter() call \(call) (\(format)) handed on \(what) at sample \(index): the host silences or clamps such samples; hand on finite samples within ±8.0"
        }
        return nil
    }
}
