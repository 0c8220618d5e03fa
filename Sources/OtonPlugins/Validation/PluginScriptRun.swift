import Foundation
import OtonEvents
import OtonJSON
import PluginAPI

/// `oton plugins run`: one plugin, no station. Its instance gets the script's events, commands and
/// audio through the real loader, host table, bus and mailbox; what it publishes and answers is
/// written as JSON lines (published events as `--events` prints them; replies as
/// `{"command": …, "ok": …, "text": …}`), in the order it happened.
package struct PluginScriptRun {
    package let path: String
    package let config: String
    package let limit: Double
    package let audio: WAVAudio?
    /// Where the plugin's filter writes `audio` filtered (`--filtered`), after the script; nil: not run.
    package let filtered: String?
    package let output: @Sendable (String) -> Void

    package init(
        path: String, config: String, limit: Double, audio: WAVAudio?, filtered: String? = nil, output: @escaping @Sendable (String) -> Void
    ) {
        self.path = path
        self.config = config
        self.limit = limit
        self.audio = audio
        self.filtered = filtered
        self.output = output
    }

    /// What a run did: the script's steps, and the filter's times when it ran.
    package struct Outcome {
        package let steps: Int
        package let filter: FilterDrive.Report?
    }

    /// Runs `script`, then the filter over the audio when `filtered` names a file. A refused config,
    /// a script line that is not a step, or a plugin that blocks past the limit is the failure's reason.
    package func run(script: String) throws(ValidationFailure) -> Outcome {
        let host = try ValidationHost(path: path, limit: limit)
        let steps = try PluginScriptStep.parse(script, registry: host.bus.registry)
        let problems = host.settingsProblems(config: config)
        guard problems.isEmpty else { throw ValidationFailure(reason: "the config does not match the plugin's settings: " + problems.joined(separator: "; ")) }
        let instance: PluginInstance
        switch try host.create(config: config) {
        case let .instance(made): instance = made
        case let .refused(reason): throw ValidationFailure(reason: "create() refused the config: \(reason)")
        }
        // What the plugin publishes, in the order the bus delivers it.
        let collector = PublishedCollector(pluginID: instance.id, output: output)
        let mailbox = host.bus.makeMailbox(for: "oton.plugins-run", limits: Mailbox.Limits(events: 65_536, mediaBytes: 0))
        host.bus.subscribe(id: "oton.plugins-run", kinds: .all, mailbox: mailbox)
        mailbox.start(consumer: collector)
        defer { host.bus.unsubscribe(id: "oton.plugins-run") }

        let progress = ProgressCounter()
        func drain() throws(ValidationFailure) {
            try host.awaitProgress(of: instance, progress, what: "running the script")
            let flushed = DispatchSemaphore(value: 0)
            if mailbox.perform({ flushed.signal() }) { _ = flushed.wait(timeout: .now() + limit) }
        }
        for step in steps {
            switch step {
            case let .event(event):
                host.enqueue(instance, progress) { host.bus.publish(event) }
            case let .command(name, arguments):
                try drain()
                let reply = instance.run(command: name, arguments: arguments, timeout: limit)
                output(JSONValue.object(["command": .string(name), "ok": .bool(reply.ok), "text": .string(reply.text)]).jsonText)
            case .audio:
                for packet in try packets(for: instance) { host.enqueue(instance, progress) { host.bus.publish(media: packet) } }
            }
        }
        try drain()
        var report: FilterDrive.Report?
        if let filtered {
            guard let audio else { throw ValidationFailure(reason: "--filtered needs the sound to filter: give --audio IN.wav") }
            guard host.manifest.hasFilter else { throw ValidationFailure(reason: "the plugin has no filter (ABI 1.6 filter): --filtered has nothing to run") }
            let result = try FilterDrive.run(instance, audio: audio, limit: limit)
            try WAVAudio.write(path: filtered, rate: audio.rate, channels: audio.channels, samples: result.samples)
            report = result.report
        }
        try host.destroy(instance)
        return Outcome(steps: steps.count, filter: report)
    }

    /// `--audio` as PCM buffers of 4096 frames in the format the instance chose (16-bit or float).
    private func packets(for instance: PluginInstance) throws(ValidationFailure) -> [MediaPacket] {
        guard let audio else { throw ValidationFailure(reason: "the script asks for audio, but no --audio WAV file was given") }
        guard instance.context.selectedTaps & OTON_TAP_PCM != 0 else {
            throw ValidationFailure(
                reason: instance.library.manifest.hasFilter
                    ? "the plugin takes no PCM (its taps do not include pcm); to run its filter over --audio, give --filtered OUT.wav"
                    : "the plugin takes no PCM (its taps do not include pcm): --audio has nowhere to go")
        }
        let choice = instance.context.selectedPCMFormat
        if (choice.rate != 0 && choice.rate != audio.rate) || (choice.channels != 0 && choice.channels != audio.channels) {
            throw ValidationFailure(
                reason: "the plugin asks for PCM at \(choice.rate) Hz, \(choice.channels) channels; give a WAV file of that rate and channel count")
        }
        let float = choice.sampleFormat == OTON_SAMPLE_F32LE
        let format = MediaFormat(
            tap: OTON_TAP_PCM, caps: "audio/x-raw, format=(string)\(float ? "F32LE" : "S16LE"), rate=(int)\(audio.rate), channels=(int)\(audio.channels)",
            sampleFormat: float ? OTON_SAMPLE_F32LE : OTON_SAMPLE_S16LE, rate: audio.rate, channels: audio.channels, pcmChoice: choice)
        let frameBytes = Int(audio.channels) * 2
        let chunk = 4096 * frameBytes
        var packets: [MediaPacket] = []
        var offset: UInt64 = 0
        var start = 0
        while start < audio.samples.count {
            let end = min(audio.samples.count, start + chunk)
            var bytes = Array(audio.samples[start..<end])
            if float {
                var converted = [UInt8]()
                converted.reserveCapacity(bytes.count * 2)
                for index in stride(from: 0, to: bytes.count, by: 2) {
                    let sample = Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
                    withUnsafeBytes(of: (Float(sample) / 32768).bitPattern.littleEndian) { converted.append(contentsOf: $0) }
                }
                bytes = converted
            }
            let timestamp = Int64(Double(start / frameBytes) / Double(audio.rate) * 1e9)
            let flags: UInt32 = start == 0 ? OTON_MEDIA_FLAG_NEW_CONNECTION | OTON_MEDIA_FLAG_FORMAT_CHANGED : 0
            packets.append(
                bytes.withUnsafeBytes { raw in
                    MediaPacket(
                        format: format, copying: raw.baseAddress, count: raw.count, flags: flags,
                        presentationNanoseconds: timestamp, offset: offset, connection: 1)
                })
            offset += UInt64(bytes.count)
            start = end
        }
        return packets
    }
}

/// Writes the events the plugin under test publishes (its own source only).
private final class PublishedCollector: MailboxConsumer, @unchecked Sendable {
    let pluginID: String
    let output: @Sendable (String) -> Void

    init(pluginID: String, output: @escaping @Sendable (String) -> Void) {
        self.pluginID = pluginID
        self.output = output
    }

    func deliver(event: FrozenEvent) {
        guard event.event.source == pluginID else { return }
        var line = EventLineWriter.line(for: event.event)
        if line.hasSuffix("\n") { line.removeLast() }
        output(line)
    }

    func deliver(media: MediaPacket, extraFlags: UInt32) {}
    func deliverDropNotice(_ counts: Mailbox.DropCounts) {}
}
