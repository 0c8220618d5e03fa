import Foundation
import PluginAPI

extension PluginValidator {
    /// What the plugin keeps and never gives back (``LeakCheck``): heap growth per event, per media
    /// buffer and per command after a warm-up of each, and the file descriptors and threads still
    /// there after destroy() that were not there before create().
    func leak(_ host: ValidationHost) throws(ValidationFailure) -> ValidationOutcome {
        let descriptorsBefore = LeakCheck.openDescriptors()
        let threadsBefore = LeakCheck.threads()
        let instance: PluginInstance
        switch try running(host) {
        case let .instance(made): instance = made
        case let .skipped(outcome): return outcome
        }
        var notes: [String] = []
        if host.manifest.hasOnEvent, let note = try eventGrowth(host, instance) { notes.append(note) }
        for tap in [OTON_TAP_STREAM, OTON_TAP_PCM] where instance.context.selectedTaps & tap != 0 {
            notes.append(try mediaGrowth(host, instance, tap: tap))
        }
        if !host.manifest.commands.isEmpty { notes.append(try commandGrowth(host, instance)) }
        phase("destroy() after the leak check")
        try host.destroy(instance)
        // Threads a plugin ends in destroy() may take a moment to go: give them a second.
        let deadline = DispatchTime.now() + 1
        while LeakCheck.threads() > threadsBefore + LeakCheck.spareThreads, DispatchTime.now() < deadline { usleep(10_000) }
        let descriptors = LeakCheck.openDescriptors() - descriptorsBefore
        if descriptors > LeakCheck.spareDescriptors {
            throw ValidationFailure(
                reason:
                    "\(descriptors) file descriptors opened since create() are still open after destroy(): close every file, socket and pipe the instance opened, at the latest in destroy()"
            )
        }
        let threads = LeakCheck.threads() - threadsBefore
        if threads > LeakCheck.spareThreads {
            throw ValidationFailure(
                reason: "\(threads) threads started since create() still run after destroy(): stop and join every thread the instance started in destroy()")
        }
        return .pass(note: notes.isEmpty ? "nothing to measure: no events, taps or commands" : notes.joined(separator: "; "))
    }

    private func growthFailure(_ growth: Int, over count: Int, _ what: String, allowed: Int, _ advice: String) -> ValidationFailure {
        ValidationFailure(
            reason:
                "the heap grew by \(LeakCheck.shown(growth)) over \(count) \(what) (\(growth / max(count, 1)) bytes each; at most \(allowed) allowed): \(advice)"
        )
    }

    /// Events in rounds, each waited for: the mailbox must deliver every event, not drop it for falling behind.
    private func eventGrowth(_ host: ValidationHost, _ instance: PluginInstance) throws(ValidationFailure) -> String? {
        func storm(_ count: Int, _ what: String) throws(ValidationFailure) -> Int {
            let progress = ProgressCounter()
            var published = 0
            var round = 0
            while published < count {
                let events = ValidationStorms.events(for: host.manifest, bus: host.bus, round: round)
                if events.isEmpty { break }
                for event in events { host.enqueue(instance, progress) { host.bus.publish(event) } }
                published += events.count
                round += 1
                if round % 8 == 0 { try host.awaitProgress(of: instance, progress, what: what) }
            }
            try host.awaitProgress(of: instance, progress, what: what)
            return published
        }
        phase("on_event warm-up for the leak check")
        _ = try storm(LeakCheck.warmUpEvents, "during the warm-up")
        // Two storms, each measured: a leak grows the heap in both, a one-off (a cache filling, a
        // thread's first allocation, a busy machine's timing) in one only. The smaller growth counts.
        var growth = Int.max
        var delivered = 0
        for round in 1...2 {
            let dropsBefore = instance.mailbox.dropCounts.events
            let before = LeakCheck.heapInUse()
            phase("on_event storm \(round) of 2 for the leak check")
            let published = try storm(LeakCheck.stormEvents, "during the leak check's storm")
            let grown = LeakCheck.heapInUse() - before
            let count = published - Int(instance.mailbox.dropCounts.events - dropsBefore)
            if grown < growth { (growth, delivered) = (grown, count) }
        }
        guard delivered > 0 else { return nil }
        if growth > delivered * LeakCheck.bytesPerEvent {
            throw growthFailure(
                growth, over: delivered, "events", allowed: LeakCheck.bytesPerEvent,
                "on_event keeps memory it never frees; free what each event allocates, or bound what you keep")
        }
        return "\(LeakCheck.shown(max(growth, 0))) over \(delivered) events"
    }

    private func mediaGrowth(_ host: ValidationHost, _ instance: PluginInstance, tap: UInt32) throws(ValidationFailure) -> String {
        let name = tap == OTON_TAP_PCM ? "PCM" : "stream"
        let buffers = ValidationStorms.steadyMedia(tap: tap, pcm: instance.context.selectedPCMFormat)
        func storm(_ count: Int, _ what: String) throws(ValidationFailure) {
            let progress = ProgressCounter()
            for index in 0..<count {
                let packet = buffers[index % buffers.count]
                host.enqueue(instance, progress) { host.bus.publish(media: packet) }
                if index % 64 == 63 { try host.awaitProgress(of: instance, progress, what: what) }
            }
            try host.awaitProgress(of: instance, progress, what: what)
        }
        phase("on_media warm-up at the \(name) tap for the leak check")
        try storm(LeakCheck.warmUpBuffers, "during the media warm-up")
        let dropsBefore = instance.mailbox.dropCounts.mediaBuffers
        let before = LeakCheck.heapInUse()
        phase("on_media storm at the \(name) tap for the leak check")
        try storm(LeakCheck.stormBuffers, "during the leak check's media storm")
        let growth = LeakCheck.heapInUse() - before
        let delivered = LeakCheck.stormBuffers - Int(instance.mailbox.dropCounts.mediaBuffers - dropsBefore)
        if growth > max(delivered, 1) * LeakCheck.bytesPerBuffer {
            throw growthFailure(
                growth, over: delivered, "\(name) buffers", allowed: LeakCheck.bytesPerBuffer,
                "on_media keeps memory it never frees; copy only what you need, into a buffer of bounded size")
        }
        return "\(LeakCheck.shown(max(growth, 0))) over \(delivered) \(name) buffers"
    }

    private func commandGrowth(_ host: ValidationHost, _ instance: PluginInstance) throws(ValidationFailure) -> String {
        let arguments: [[String]] = [[], [""], ["-1"], [ValidationStorms.hostileText]]
        func storm(_ rounds: Int) throws(ValidationFailure) -> Int {
            var calls = 0
            for _ in 0..<rounds {
                for command in host.manifest.commands {
                    for list in arguments {
                        let reply = instance.run(command: command.name, arguments: list, timeout: limit)
                        if !reply.ok, reply.text.hasSuffix("within \(Int(limit)) s") {
                            throw ValidationFailure(reason: "on_command \"\(command.name)\" blocked for more than \(ValidationHost.seconds(limit))")
                        }
                        calls += 1
                    }
                }
            }
            return calls
        }
        phase("on_command warm-up for the leak check")
        _ = try storm(LeakCheck.warmUpCommandRounds)
        let before = LeakCheck.heapInUse()
        phase("on_command storm for the leak check")
        let calls = try storm(LeakCheck.stormCommandRounds)
        let growth = LeakCheck.heapInUse() - before
        if growth > calls * LeakCheck.bytesPerCommand {
            throw growthFailure(
                growth, over: calls, "commands", allowed: LeakCheck.bytesPerCommand,
                "on_command keeps memory it never frees; free what each command allocates")
        }
        return "\(LeakCheck.shown(max(growth, 0))) over \(calls) commands"
    }
}
