import Foundation
import Logging
import OtonEvents
import OtonSupport
import PluginAPI

/// The host side of one plugin instance: the `oton_host` table handed to its
/// create(), and what the table's functions reach. It outlives the instance
/// (it is never freed), so a plugin thread that calls the host late finds a
/// table that answers with errors instead of freed memory.
/// Concurrency: the lets are immutable after init; every var (`waitingCommands`, `active`, the chosen
/// taps and PCM format, `creating`) is guarded by `lock`, as plugin threads call the table at any time.
package final class PluginHostContext: @unchecked Sendable {
    package let pluginID: String
    package let bus: PluginBus
    package let requests: any PlayerRequestSink
    package let commands: CommandRegistry
    /// Where run_command (ABI 1.3) sends commands, and the mailbox their replies come back on.
    package let gateway: PluginCommandGateway
    package let replies: Mailbox?
    private var waitingCommands = 0
    package let logger: Logger
    package let dataDirectory: String
    package let cacheDirectory: String
    /// The user's language and the catalogue that `translate` (ABI 1.4) reads.
    package let translations: PluginTranslations
    package let table: UnsafeMutablePointer<oton_host>
    private let strings: CStringArena
    private let lock = NSLock()
    private var active = true
    /// The taps the descriptor declares, and those the instance narrowed them to during create().
    package let declaredTaps: UInt32
    private var chosenTaps: UInt32
    private var chosenPCM = PCMFormatChoice.standard
    private var creating = true

    package init(
        pluginID: String, bus: PluginBus, requests: any PlayerRequestSink, commands: CommandRegistry,
        logger: Logger, dataDirectory: String, cacheDirectory: String, declaredTaps: UInt32 = 0,
        gateway: PluginCommandGateway = PluginCommandGateway(), replies: Mailbox? = nil,
        translations: PluginTranslations = .shared
    ) {
        self.gateway = gateway
        self.translations = translations
        self.replies = replies
        self.pluginID = pluginID
        self.declaredTaps = declaredTaps
        chosenTaps = declaredTaps
        self.bus = bus
        self.requests = requests
        self.commands = commands
        self.logger = logger
        self.dataDirectory = dataDirectory
        self.cacheDirectory = cacheDirectory
        var strings = CStringArena()
        let version = strings.add(OtonVersion.current)
        let data = strings.add(dataDirectory)
        let cache = strings.add(cacheDirectory)
        strings.seal()
        self.strings = strings
        table = UnsafeMutablePointer<oton_host>.allocate(capacity: 1)
        table.initialize(
            to: oton_host(
                struct_size: UInt32(MemoryLayout<oton_host>.size),
                abi_major: OTON_ABI_MAJOR, abi_minor: OTON_ABI_MINOR, reserved: 0,
                host_version: strings.pointer(at: version), host_data: nil,
                log: hostLog, event_kind: hostEventKind, publish: hostPublish, request: hostRequest,
                current: hostCurrent, register_command: hostRegisterCommand,
                data_dir: strings.pointer(at: data), cache_dir: strings.pointer(at: cache),
                select_media_taps: hostSelectMediaTaps, run_command: hostRunCommand,
                select_pcm_format: hostSelectPCMFormat,
                language: translations.language, translate: hostTranslate,
                read_json: PluginJSONReading.function, write_json_string: PluginJSONWriting.function
            ))
        table.pointee.host_data = Unmanaged.passRetained(self).toOpaque()  // never released: see above
    }

    /// After this, every host function answers OTON_ERR_FAILED and does nothing.
    package func deactivate() {
        lock.lock(); active = false; lock.unlock()
    }

    /// create() returned: select_media_taps answers OTON_ERR_BUSY from now on.
    package func endCreate() {
        lock.lock(); creating = false; lock.unlock()
    }

    /// The media taps this instance receives.
    package var selectedTaps: UInt32 {
        lock.lock(); defer { lock.unlock() }
        return chosenTaps
    }

    /// The PCM format this instance receives on OTON_TAP_PCM.
    package var selectedPCMFormat: PCMFormatChoice {
        lock.lock(); defer { lock.unlock() }
        return chosenPCM
    }

    package func selectPCMFormat(_ request: UnsafePointer<oton_pcm_format_request>?) -> oton_status {
        guard let request, let wanted = ABIStructReader.read(request, minimum: OTON_PCM_FORMAT_REQUEST_SIZE_1_3),
            let choice = PCMFormatChoice.validated(sampleFormat: wanted.sample_format, rate: wanted.rate, channels: wanted.channels)
        else {
            return OTON_ERR_INVALID
        }
        lock.lock(); defer { lock.unlock() }
        guard creating else { return OTON_ERR_BUSY }
        guard chosenTaps & OTON_TAP_PCM != 0 else { return OTON_ERR_UNSUPPORTED }
        chosenPCM = choice
        return OTON_OK
    }

    package func selectMediaTaps(_ taps: UInt32) -> oton_status {
        lock.lock(); defer { lock.unlock() }
        guard creating else { return OTON_ERR_BUSY }
        guard taps & ~declaredTaps == 0 else { return OTON_ERR_INVALID }
        chosenTaps = taps
        return OTON_OK
    }

    package var isActive: Bool {
        lock.lock(); defer { lock.unlock() }
        return active
    }

    /// How often the plugin called a function of the table after it went dead (`oton plugins validate`).
    package var lateCalls: Int {
        lock.lock(); defer { lock.unlock() }
        return lateCallCount
    }
    private var lateCallCount = 0

    package static func from(_ host: UnsafePointer<oton_host>?) -> PluginHostContext? {
        guard let data = host?.pointee.host_data else { return nil }
        let context = Unmanaged<PluginHostContext>.fromOpaque(data).takeUnretainedValue()
        context.lock.lock(); defer { context.lock.unlock() }
        guard context.active else {
            context.lateCallCount += 1
            return nil
        }
        return context
    }

    package func log(_ level: oton_log_level, _ message: String) {
        let text = "[\(pluginID)] \(message)"
        switch level {
        case OTON_LOG_DEBUG: logger.debug("\(text)")
        case OTON_LOG_INFO: logger.info("\(text)")
        case OTON_LOG_WARNING: logger.warning("\(text)")
        default: logger.error("\(text)")
        }
    }

    /// Copies a plugin's event onto the bus. Only namespaced kinds obtained from event_kind().
    package func publish(_ event: UnsafePointer<oton_event>) -> oton_status {
        guard let header = ABIStructReader.read(event, minimum: OTON_EVENT_SIZE_1_0) else { return OTON_ERR_INVALID }
        guard header.kind >= OTON_EVENT_FIRST_DYNAMIC, let name = bus.registry.name(for: header.kind) else {
            return OTON_ERR_INVALID
        }
        var fields: [(key: String, value: String)] = []
        if header.field_count > 0 {
            guard header.field_count <= 1024, let list = header.fields else { return OTON_ERR_INVALID }
            for index in 0..<Int(header.field_count) {
                guard let key = list[index].key, let value = list[index].value else { return OTON_ERR_INVALID }
                fields.append((String(cString: key), String(cString: value)))
            }
        }
        bus.publish(BusEvent(kind: header.kind, name: name, source: pluginID, flags: 0, extraFields: fields))
        return OTON_OK
    }

    package func request(_ request: UnsafePointer<oton_request>) -> oton_status {
        guard let r = ABIStructReader.read(request, minimum: OTON_REQUEST_SIZE_1_0) else { return OTON_ERR_INVALID }
        func volume() -> Double? { OutputVolume.clampedIfFinite(r.volume) }
        let converted: PlayerRequest
        switch r.kind {
        case OTON_REQUEST_PLAY: converted = .play
        case OTON_REQUEST_PAUSE: converted = .pause
        case OTON_REQUEST_PLAY_PAUSE: converted = .playPause
        case OTON_REQUEST_STOP: converted = .stop
        case OTON_REQUEST_QUIT: converted = .quit
        case OTON_REQUEST_SET_VOLUME:
            guard let volume = volume() else { return OTON_ERR_INVALID }
            converted = .setVolume(volume)
        case OTON_REQUEST_FADE_VOLUME:
            guard let volume = volume() else { return OTON_ERR_INVALID }
            converted = .fadeVolume(to: volume, milliseconds: Int(r.duration_ms))
        case OTON_REQUEST_SWITCH_STATION:
            // A 1.0/1.1 struct has no `station`: the reader zero-fills it, so it reads as NULL.
            guard let pointer = r.station else { return OTON_ERR_INVALID }
            let argument = String(cString: pointer)
            guard !argument.isEmpty, argument.utf8.count <= 8192 else { return OTON_ERR_INVALID }
            converted = .switchStationNamed(argument)
        case OTON_REQUEST_NEXT_STATION: converted = .stepStation(1)
        case OTON_REQUEST_PREV_STATION: converted = .stepStation(-1)
        default:
            return OTON_ERR_UNSUPPORTED
        }
        requests.submit(converted, from: pluginID)
        return OTON_OK
    }
}

extension PluginHostContext {
    /// run_command: at most ``PluginCommandGateway/maximumWaitingPerInstance`` waiting for `done` at
    /// once; the reply is queued on this instance's mailbox (dropped, with `done` uncalled, once it is closed).
    package func runCommand(_ request: ControlRequest, done: oton_command_done_fn?, user: UnsafeMutableRawPointer?) -> oton_status {
        lock.lock()
        guard waitingCommands < PluginCommandGateway.maximumWaitingPerInstance else {
            lock.unlock()
            return OTON_ERR_BUSY
        }
        waitingCommands += 1
        lock.unlock()
        let callback = CommandCallback(done: done, user: user)
        let replies = self.replies
        gateway.run(request) { [self] ok, json in
            let queued =
                replies?.perform { [self] in
                    endWaiting()
                    json.withCString { callback.done?(callback.user, ok ? OTON_OK : OTON_ERR_FAILED, $0) }
                } ?? false
            if !queued {
                endWaiting()
                logger.debug("[\(pluginID)] the reply to \"\(request.name)\" came after the plugin stopped")
            }
        }
        return OTON_OK
    }
}

extension PluginHostContext {
    fileprivate func endWaiting() {
        lock.lock(); waitingCommands -= 1; lock.unlock()
    }
}

/// A plugin's `done` and `user`: handed back on its own mailbox (serial, on a pool worker), never dereferenced by the host.
private struct CommandCallback: @unchecked Sendable {
    let done: oton_command_done_fn?
    let user: UnsafeMutableRawPointer?
}

// The C functions of the table. They capture nothing; the context comes from host_data.

private let hostLog: @convention(c) (UnsafePointer<oton_host>?, oton_log_level, UnsafePointer<CChar>?) -> Void = { host, level, message in
    guard let context = PluginHostContext.from(host), let message else { return }
    context.log(level, String(cString: message))
}

private let hostEventKind: @convention(c) (UnsafePointer<oton_host>?, UnsafePointer<CChar>?) -> oton_event_kind = { host, name in
    guard let context = PluginHostContext.from(host), let name else { return 0 }
    return context.bus.registry.kind(for: String(cString: name)) ?? 0
}

private let hostPublish: @convention(c) (UnsafePointer<oton_host>?, UnsafePointer<oton_event>?) -> oton_status = { host, event in
    guard let context = PluginHostContext.from(host) else { return OTON_ERR_FAILED }
    guard let event else { return OTON_ERR_INVALID }
    return context.publish(event)
}

private let hostRequest: @convention(c) (UnsafePointer<oton_host>?, UnsafePointer<oton_request>?) -> oton_status = { host, request in
    guard let context = PluginHostContext.from(host) else { return OTON_ERR_FAILED }
    guard let request else { return OTON_ERR_INVALID }
    return context.request(request)
}

private let hostCurrent: @convention(c) (UnsafePointer<oton_host>?, oton_event_kind, oton_event_visitor?, UnsafeMutableRawPointer?) -> oton_status = {
    host, kind, visitor, user in
    guard let context = PluginHostContext.from(host) else { return OTON_ERR_FAILED }
    guard let visitor else { return OTON_ERR_INVALID }
    guard let frozen = context.bus.current(kind) else { return OTON_ERR_UNSUPPORTED }
    visitor(user, frozen.pointer)
    return OTON_OK
}

private let hostRegisterCommand: @convention(c) (UnsafePointer<oton_host>?, UnsafePointer<oton_command_decl>?) -> oton_status = { host, decl in
    guard let context = PluginHostContext.from(host) else { return OTON_ERR_FAILED }
    guard let decl, let declared = ABIStructReader.read(decl, minimum: OTON_COMMAND_DECL_SIZE_1_0) else { return OTON_ERR_INVALID }
    guard let name = declared.name else { return OTON_ERR_INVALID }
    let command = PluginManifest.Command(
        name: String(cString: name), usage: declared.usage.map { String(cString: $0) } ?? String(cString: name),
        help: declared.help.map { String(cString: $0) } ?? "")
    // The same rule and caps as for descriptors and isolated plugins (CommandRule).
    switch context.commands.register(command, for: context.pluginID, logger: context.logger) {
    case .registered: return OTON_OK
    case .taken: return OTON_ERR_BUSY
    case .refused: return OTON_ERR_INVALID
    }
}

private let hostSelectMediaTaps: @convention(c) (UnsafePointer<oton_host>?, oton_media_tap) -> oton_status = { host, taps in
    guard let context = PluginHostContext.from(host) else { return OTON_ERR_FAILED }
    return context.selectMediaTaps(taps)
}

private let hostRunCommand:
    @convention(c) (UnsafePointer<oton_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, oton_command_done_fn?, UnsafeMutableRawPointer?) -> oton_status = {
        host, name, arguments, done, user in
        guard let context = PluginHostContext.from(host) else { return OTON_ERR_FAILED }
        switch PluginCommandGateway.request(name: name, argumentsJSON: arguments) {
        case let .success(request): return context.runCommand(request, done: done, user: user)
        case let .failure(error): return error.status
        }
    }

private let hostSelectPCMFormat: @convention(c) (UnsafePointer<oton_host>?, UnsafePointer<oton_pcm_format_request>?) -> oton_status = { host, format in
    guard let context = PluginHostContext.from(host) else { return OTON_ERR_FAILED }
    return context.selectPCMFormat(format)
}

private let hostTranslate: @convention(c) (UnsafePointer<oton_host>?, UnsafePointer<CChar>?) -> UnsafePointer<CChar>? = { host, message in
    guard let message else { return nil }
    // A table that went dead still answers: the message itself, as for a text the catalogue lacks.
    guard let context = PluginHostContext.from(host) else { return message }
    return context.translations.translation(of: String(cString: message)) ?? message
}
