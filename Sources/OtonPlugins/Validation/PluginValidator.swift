import Foundation
import PluginAPI

/// Runs one check of `oton plugins validate` in this process (the validator starts one child
/// process per check). `phase` is called before each step, so that the parent can say where a
/// crash happened.
public struct PluginValidator {
    public let path: String
    /// The config for the checks that need a running instance; "{}" unless the user gave one.
    public let config: String
    /// The time limit for one call into the plugin, in seconds.
    public let limit: Double
    public let phase: (String) -> Void
    /// Where the temporary data and cache directories go.
    public let scratchParent: String

    public init(
        path: String, config: String = "{}", limit: Double = 2, scratchParent: String = NSTemporaryDirectory(),
        phase: @escaping (String) -> Void = { _ in }
    ) {
        self.path = path
        self.scratchParent = scratchParent
        self.config = config
        self.limit = limit
        self.phase = phase
    }

    public func run(_ check: ValidationCheck) -> ValidationOutcome {
        do throws(ValidationFailure) {
            phase("loading the library")
            let host = try ValidationHost(path: path, limit: limit, scratchParent: scratchParent)
            switch check {
            case .descriptor: return try descriptor(host)
            case .createEmpty: return try cycles(host, [("{}", "{}"), ("{}", "{}"), ("{}", "{}")])
            case .createHostile: return try cycles(host, HostileConfigs.all.map { ($0.json, $0.name) })
            case .createHuge: return try cycles(host, [(HostileConfigs.huge, "4 MiB, 20,000 keys")])
            case .commands: return try commands(host)
            case .eventStorm: return try eventStorm(host)
            case .leak: return try leak(host)
            case .media: return try media(host)
            case .filter: return try filterCheck(host)
            case .destroyPending: return try destroyPending(host)
            case .afterDestroy: return try afterDestroy(host)
            }
        } catch {
            return .fail(error.reason)
        }
    }

    // MARK: the checks

    /// The loader's checks ran in ValidationHost; these are the ones it leaves to the plugin's honesty.
    private func descriptor(_ host: ValidationHost) throws(ValidationFailure) -> ValidationOutcome {
        let manifest = host.manifest
        var names = Set<String>()
        for command in manifest.commands where !names.insert(command.name).inserted {
            throw ValidationFailure(reason: "the command \"\(command.name)\" is declared twice")
        }
        for name in manifest.consumes where name != "*" && host.bus.registry.kind(for: name) == nil {
            throw ValidationFailure(reason: "consumes \"\(name)\", which is neither a core kind nor a reverse-DNS name")
        }
        if !manifest.consumes.isEmpty && !manifest.hasOnEvent {
            throw ValidationFailure(reason: "consumes \(manifest.consumes.joined(separator: ", ")) but has no on_event, so it receives nothing")
        }
        let expected = PluginLibrary.descriptorSize(abiMinor: manifest.abiMinor)
        if manifest.descriptorSize > expected {
            return .warn(
                "the descriptor's struct_size is \(manifest.descriptorSize) bytes, larger than the \(expected) of an ABI \(manifest.abiMajor).\(manifest.abiMinor) descriptor (its declared abi_minor); "
                    + "the host ignores the bytes beyond. Set struct_size to sizeof(oton_plugin_descriptor) and abi_minor to OTON_ABI_MINOR from the same header"
            )
        }
        return .pass(note: nil)
    }

    /// create() then destroy() for each config: a refusal with a reason is fine, a crash or hang is not.
    private func cycles(_ host: ValidationHost, _ configs: [(json: String, name: String)]) throws(ValidationFailure) -> ValidationOutcome {
        var refused: [String] = []
        for config in configs {
            phase("create() with \(config.name)")
            switch try host.create(config: config.json) {
            case let .instance(instance):
                phase("destroy() after create() with \(config.name)")
                try host.destroy(instance)
            case let .refused(reason):
                refused.append(reason)
            }
        }
        if refused.count == configs.count, let first = refused.first {
            return .pass(note: "refused with a reason: \(first)")
        }
        return .pass(note: nil)
    }

    /// How a skip for a refused config begins (the validator runs such a check again, alone).
    public static let refusalPrefix = "create() refused"

    enum Running {
        case instance(PluginInstance)
        case skipped(ValidationOutcome)
    }

    /// An instance made with the user's config, or why there is none.
    func running(_ host: ValidationHost) throws(ValidationFailure) -> Running {
        // As oton would: a config that does not fit the declared settings never reaches create().
        let problems = host.settingsProblems(config: config)
        if !problems.isEmpty {
            return .skipped(
                .skip(
                    "the config does not match the settings the plugin declares (oton would not start it): \(problems.joined(separator: "; ")); give one that does with --plugin-config"
                ))
        }
        phase("create() with the config")
        switch try host.create(config: config) {
        case let .instance(instance): return .instance(instance)
        case let .refused(reason):
            return .skipped(
                .skip(Self.refusalPrefix + " the config \(config.count > 60 ? "given" : config): \(reason); give one it accepts with --plugin-config"))
        }
    }

    private func commands(_ host: ValidationHost) throws(ValidationFailure) -> ValidationOutcome {
        guard !host.manifest.commands.isEmpty else { return .pass(note: "declares no commands") }
        let instance: PluginInstance
        switch try running(host) {
        case let .instance(made): instance = made
        case let .skipped(outcome): return outcome
        }
        for command in host.manifest.commands {
            for arguments in ValidationStorms.badArguments {
                let shown = arguments.count > 3 ? "\(arguments.count) arguments" : arguments.map { $0.count > 20 ? "\($0.prefix(20))…" : $0 }.description
                phase("on_command \"\(command.name)\" with \(shown)")
                let started = DispatchTime.now()
                let reply = instance.run(command: command.name, arguments: arguments, timeout: limit)
                if Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 >= limit {
                    throw ValidationFailure(reason: "on_command \"\(command.name)\" with \(shown) blocked for more than \(ValidationHost.seconds(limit))")
                }
                if !reply.ok && reply.text.isEmpty {
                    throw ValidationFailure(reason: "\"\(command.name)\" with \(shown) failed without a message (the reply text is the user's error message)")
                }
            }
        }
        phase("destroy()")
        try host.destroy(instance)
        return .pass(note: nil)
    }

    private func eventStorm(_ host: ValidationHost) throws(ValidationFailure) -> ValidationOutcome {
        guard host.manifest.hasOnEvent else { return .pass(note: "has no on_event") }
        let instance: PluginInstance
        switch try running(host) {
        case let .instance(made): instance = made
        case let .skipped(outcome): return outcome
        }
        phase("on_event storm")
        let progress = ProgressCounter()
        var published = 0
        var round = 0
        while published < 10_000 {
            let events = ValidationStorms.events(for: host.manifest, bus: host.bus, round: round)
            if events.isEmpty { break }
            for event in events {
                host.enqueue(instance, progress) { host.bus.publish(event) }
            }
            published += events.count
            round += 1
        }
        try host.awaitProgress(of: instance, progress, what: "during the storm")
        phase("destroy() after the storm")
        try host.destroy(instance)
        return .pass(
            note: published == 0
                ? "consumes no kind"
                : "\(published) events" + (instance.mailbox.dropCounts.events > 0 ? ", \(instance.mailbox.dropCounts.events) dropped for falling behind" : ""))
    }

    private func media(_ host: ValidationHost) throws(ValidationFailure) -> ValidationOutcome {
        guard host.manifest.mediaTaps != 0 else { return .pass(note: "declares no media taps") }
        let instance: PluginInstance
        switch try running(host) {
        case let .instance(made): instance = made
        case let .skipped(outcome): return outcome
        }
        let taps = instance.context.selectedTaps
        let progress = ProgressCounter()
        for tap in [OTON_TAP_STREAM, OTON_TAP_PCM] where taps & tap != 0 {
            phase("on_media at the \(tap == OTON_TAP_PCM ? "PCM" : "stream") tap")
            for packet in ValidationStorms.media(tap: tap, pcm: instance.context.selectedPCMFormat) {
                host.enqueue(instance, progress) { host.bus.publish(media: packet) }
            }
            try host.awaitProgress(of: instance, progress, what: "on_media")
        }
        phase("destroy() after media")
        try host.destroy(instance)
        return .pass(note: taps == 0 ? "the config selected no tap" : nil)
    }

    private func destroyPending(_ host: ValidationHost) throws(ValidationFailure) -> ValidationOutcome {
        let instance: PluginInstance
        switch try running(host) {
        case let .instance(made): instance = made
        case let .skipped(outcome): return outcome
        }
        phase("destroy() with events queued")
        for round in 0..<200 {
            for event in ValidationStorms.events(for: host.manifest, bus: host.bus, round: round) { host.bus.publish(event) }
        }
        for tap in [OTON_TAP_STREAM, OTON_TAP_PCM] where instance.context.selectedTaps & tap != 0 {
            for packet in ValidationStorms.media(tap: tap, pcm: instance.context.selectedPCMFormat) { host.bus.publish(media: packet) }
        }
        // As at shutdown: what is still queued is dropped, then the call in progress and destroy() get the limit.
        try host.destroy(instance, discardingPending: true)
        return .pass(note: nil)
    }

    private func afterDestroy(_ host: ValidationHost) throws(ValidationFailure) -> ValidationOutcome {
        let instance: PluginInstance
        switch try running(host) {
        case let .instance(made): instance = made
        case let .skipped(outcome): return outcome
        }
        phase("events, media and commands before destroy()")
        let progress = ProgressCounter()
        for round in 0..<3 {
            for event in ValidationStorms.events(for: host.manifest, bus: host.bus, round: round) {
                host.enqueue(instance, progress) { host.bus.publish(event) }
            }
        }
        for tap in [OTON_TAP_STREAM, OTON_TAP_PCM] where instance.context.selectedTaps & tap != 0 {
            for packet in ValidationStorms.media(tap: tap, pcm: instance.context.selectedPCMFormat) {
                host.enqueue(instance, progress) { host.bus.publish(media: packet) }
            }
        }
        try host.awaitProgress(of: instance, progress, what: "before destroy")
        phase("destroy()")
        try host.destroy(instance)
        // Watch the dead table for a while: a thread the plugin left running shows up here.
        phase("watching the host table after destroy()")
        let window = min(max(limit / 2, 0.5), 2)
        let deadline = DispatchTime.now() + window
        while DispatchTime.now() < deadline, instance.context.lateCalls == 0 { usleep(10_000) }
        guard instance.context.lateCalls == 0 else {
            throw ValidationFailure(reason: "a thread of the plugin called the host after destroy() returned; stop and join every thread in destroy()")
        }
        return .pass(note: nil)
    }
}
