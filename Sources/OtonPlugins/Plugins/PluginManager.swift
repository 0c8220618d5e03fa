import Foundation
import Logging
import OtonEvents
import OtonMedia
import OtonStations
import OtonSupport
import PluginAPI
import Synchronization

/// Loads the plugins plugins.json names, creates them, subscribes them to
/// the bus, routes their commands, and destroys them in order at the end.
/// A plugin that fails is reported and skipped; the others go on.
/// Thread-safe: control clients and the status line's keys run commands while
/// the main thread starts or shuts down; the list of instances is behind a Mutex.
public final class PluginManager: @unchecked Sendable {
    public enum Status: Equatable, Sendable {
        case running(PluginManifest)
        case disabled
        case failed(PluginLoadError)
    }

    public struct Report: Equatable, Sendable {
        public var id: String
        public var path: String
        public var status: Status

        public init(id: String, path: String, status: Status) {
            self.id = id
            self.path = path
            self.status = status
        }
    }

    /// Where plugins' own directories go ($XDG_DATA_HOME/oton/plugins/<id>, $XDG_CACHE_HOME/…).
    public struct Directories: Sendable {
        public var dataHome: String
        public var cacheHome: String

        public init(dataHome: String, cacheHome: String) {
            self.dataHome = dataHome
            self.cacheHome = cacheHome
        }

        public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Directories {
            let paths = XDGPaths(environment: environment)
            // Without HOME (a bare service environment) plugins still get folders: under the temporary one.
            let fallback = NSTemporaryDirectory() + "oton-\(getuid())"
            return Directories(dataHome: paths.otonData ?? fallback + "/data", cacheHome: paths.otonCache ?? fallback + "/cache")
        }
    }

    public let bus: PluginBus
    public let commands = CommandRegistry()
    /// Where plugins' run_command (ABI 1.3) goes; the host session connects it to the control commands.
    package let gateway = PluginCommandGateway()
    private let requests: any PlayerRequestSink
    private let directories: Directories
    private let logger: Logger
    private let mailboxLimits: Mailbox.Limits
    private let searchDirectories: [String]
    /// The shutdown deadline T in seconds: T/2 for the queues, then T/2 per plugin for the final event and destroy().
    public let shutdownTimeout: Double
    private let holding = Mutex<String?>(nil)
    /// The user's language as plugins receive it (ABI 1.4); the process's own unless a test chooses.
    private let translations: PluginTranslations

    /// What start() built and shutdown() takes down; read by any thread.
    private struct Loaded {
        var instances: [PluginInstance] = []
        /// Plugins with `"isolation": "process"`, each in a child process of its own.
        var isolated: [IsolatedPlugin] = []
        var reports: [Report] = []
    }
    private let loaded = Mutex(Loaded())

    /// The running instances, a snapshot: it may change once the lock is released.
    private var instances: [PluginInstance] { loaded.withLock { $0.instances } }
    private var isolated: [IsolatedPlugin] { loaded.withLock { $0.isolated } }

    /// What start() did with each entry, in order.
    public var reports: [Report] { loaded.withLock { $0.reports } }

    public init(
        bus: PluginBus, requests: any PlayerRequestSink, directories: Directories = .fromEnvironment(),
        logger: Logger = Logger(label: "oton.plugins"), mailboxLimits: Mailbox.Limits = Mailbox.Limits(),
        searchDirectories: [String] = PluginSearchPath.standard,
        shutdownTimeout: Double = OtonConfig.defaultShutdownTimeout,
        translations: PluginTranslations = .shared
    ) {
        self.translations = translations
        // A plugin that writes to a socket or pipe whose reader left (an HTTP server that hung up,
        // a closed D-Bus connection, TLS over a reset socket) gets EPIPE, an error it can handle;
        // SIGPIPE's default would end the whole process, and the player with it.
        signal(SIGPIPE, SIG_IGN)
        self.shutdownTimeout = shutdownTimeout
        self.bus = bus
        self.requests = requests
        self.directories = directories
        self.logger = logger
        self.mailboxLimits = mailboxLimits
        self.searchDirectories = searchDirectories
    }

    /// The directory of the running executable: where `swift build` puts the plugins too.
    public static var executableDirectory: String? {
        guard let path = PluginLibrary.realPath("/proc/self/exe") else { return nil }
        return (path as NSString).deletingLastPathComponent
    }

    /// Loads and creates every enabled plugin, in the order given. Returns the reports.
    /// `announcing`: log "plugin ID started" for each; an isolated plugin's child process does not,
    /// since oton itself says it once ("started in its own process").
    /// `crashRecord`: an in-process plugin that crashed oton before (its line is there) is not
    /// started, and this says so each time until `oton plugins enable ID`; crashes from now on are written there.
    @discardableResult
    public func start(
        _ entries: [PluginEntry], configDirectory: String? = nil, announcing: Bool = true, crashRecord: PluginCrashRecord? = nil
    ) -> [Report] {
        let crashed = crashRecord?.crashed() ?? [:]
        crashRecord?.activate()
        for entry in entries {
            let crashedOton = entry.isolation != .process ? crashed[entry.id] : nil
            guard entry.enabled, crashedOton == nil else {
                loaded.withLock { $0.reports.append(Report(id: entry.id, path: entry.path, status: .disabled)) }
                if let crashedOton {
                    logger.warning(
                        "\(tr("plugin {plugin} is off: it crashed oton before ({line}); `oton plugins enable {plugin}` turns it back on", ["plugin": entry.id, "line": crashedOton]))"
                    )
                }
                continue
            }
            do throws(PluginLoadError) {
                let path = try resolve(entry.path, configDirectory: configDirectory)
                if entry.isolation == .process {
                    if let other = isolated.first(where: { $0.id == entry.id }) {
                        throw .duplicateID(path: path, id: entry.id, loadedFrom: other.path)
                    }
                    let plugin = try IsolatedPlugin(
                        entry: entry, path: path, bus: bus, requests: requests, commands: commands,
                        gateway: gateway, logger: logger, directories: directories, mailboxLimits: mailboxLimits)
                    loaded.withLock {
                        $0.isolated.append(plugin)
                        $0.reports.append(Report(id: entry.id, path: path, status: .running(plugin.manifest)))
                    }
                    logger.info("plugin \(entry.id) \(plugin.manifest.version) started in its own process")
                    if plugin.manifest.hasFilter {
                        logger.warning(
                            "\(tr("plugin {plugin}: its audio filter cannot run isolated (the audio thread cannot wait for another process), so it runs without it; \"isolation\": \"in-process\" in plugins.json lets it filter", ["plugin": entry.id]))"
                        )
                    }
                    continue
                }
                let instance = try load(entry: entry, path: path)
                loaded.withLock {
                    $0.instances.append(instance)
                    $0.reports.append(Report(id: entry.id, path: path, status: .running(instance.library.manifest)))
                }
                if announcing { logger.info("plugin \(entry.id) \(instance.library.manifest.version) started") }
            } catch {
                loaded.withLock { $0.reports.append(Report(id: entry.id, path: error.path, status: .failed(error))) }
                logger.error("\(tr("plugin {plugin} skipped: {reason}", ["plugin": entry.id, "reason": error.description(in: .current)]))")
            }
        }
        return reports
    }

    /// The running instances' in-place filters (ABI 1.6), in plugins.json's order. Isolated plugins
    /// have none here (see ``start(_:configDirectory:announcing:)``).
    public var filters: [AudioFilter] { instances.compactMap(\.filter) }

    /// Finds a bare file name beside plugins.json, then in PluginSearchPath's directories.
    public func resolve(_ path: String, configDirectory: String?) throws(PluginLoadError) -> String {
        if path.contains("/") {
            guard FileManager.default.fileExists(atPath: path) else { throw .notFound(path: path, searched: [path]) }
            return path
        }
        let directories = [configDirectory].compactMap { $0 } + searchDirectories
        for directory in directories {
            let candidate = (directory as NSString).appendingPathComponent(path)
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        throw .notFound(path: path, searched: directories)
    }

    private func load(entry: PluginEntry, path: String) throws(PluginLoadError) -> PluginInstance {
        let library = try PluginLibrary(path: path)
        let manifest = library.manifest
        guard manifest.id == entry.id else { throw .idMismatch(path: path, configured: entry.id, declared: manifest.id) }
        let problems = PluginSettingsCheck.problems(config: entry.config, settings: manifest.settings)
        guard problems.isEmpty else { throw .settingsRefused(path: path, id: manifest.id, problems: problems) }
        if let other = instances.first(where: { $0.id == manifest.id }) {
            throw .duplicateID(path: path, id: manifest.id, loadedFrom: other.library.path)
        }
        // Directories made here for a plugin that then fails to start are removed again (when still empty).
        var madeDirectories: [String] = []
        defer { for directory in madeDirectories.reversed() { rmdir(directory) } }
        let dataDirectory = try makeDirectory(directories.dataHome, manifest.id, path: path, made: &madeDirectories)
        let cacheDirectory = try makeDirectory(directories.cacheHome, manifest.id, path: path, made: &madeDirectories)
        let mailbox = bus.makeMailbox(for: manifest.id, limits: mailboxLimits)
        let context = PluginHostContext(
            pluginID: manifest.id, bus: bus, requests: requests, commands: commands,
            logger: logger, dataDirectory: dataDirectory, cacheDirectory: cacheDirectory,
            declaredTaps: manifest.mediaTaps, gateway: gateway, replies: mailbox, translations: translations
        )
        for command in manifest.commands { commands.register(command, for: manifest.id, logger: logger) }
        let instance: PluginInstance
        do throws(PluginLoadError) {
            instance = try PluginInstance(library: library, context: context, configJSON: entry.config.jsonText, mailbox: mailbox)
        } catch {
            context.deactivate()
            commands.removeAll(of: manifest.id)
            throw error
        }
        bus.subscribe(id: manifest.id, kinds: kindFilter(for: manifest), taps: context.selectedTaps, pcm: context.selectedPCMFormat, mailbox: mailbox)
        madeDirectories = []
        return instance
    }

    private func kindFilter(for manifest: PluginManifest) -> PluginBus.KindFilter {
        guard manifest.hasOnEvent else { return .only([]) }
        if manifest.consumes.contains("*") { return .all }
        var kinds = Set(manifest.consumes.compactMap { bus.registry.kind(for: $0) })
        kinds.insert(OTON_EVENT_DROPPED)  // losses are announced to everyone
        return .only(kinds)
    }

    /// Creates base/plugins/id (0700); appends to `made` each directory this call created.
    private func makeDirectory(_ base: String, _ id: String, path: String, made: inout [String]) throws(PluginLoadError) -> String {
        let directory = base + "/plugins/" + id
        var missing: [String] = []
        var probe = directory
        while !probe.isEmpty, probe != "/", !FileManager.default.fileExists(atPath: probe) {
            missing.append(probe)
            probe = (probe as NSString).deletingLastPathComponent
        }
        defer { made += missing.reversed() }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .createFailed(path: path, id: id, reason: PluginLoadError.directoryReasonPrefix + "\(directory): \(error.localizedDescription)")
        }
        return directory
    }

    /// Runs a control command a plugin registered.
    /// `output` receives a long reply in pieces as it is written (see PluginInstance.run); an
    /// isolated plugin's reply comes whole.
    public func run(command name: String, arguments: [String], timeout: Double = 10, output: (@Sendable (String) -> Void)? = nil) -> CommandReply? {
        guard let entry = commands.entry(named: name) else { return nil }
        if let plugin = isolated.first(where: { $0.id == entry.pluginID }) {
            return plugin.run(command: name, arguments: arguments, timeout: timeout)
        }
        guard let instance = instances.first(where: { $0.id == entry.pluginID }) else { return nil }
        return instance.run(command: name, arguments: arguments, timeout: timeout, output: output)
    }

    /// The taps and PCM format an instance's create() chose (`oton plugin-host` reports them to oton).
    package func selection(of id: String) -> (taps: UInt32, pcm: PCMFormatChoice)? {
        instances.first { $0.id == id }.map { ($0.context.selectedTaps, $0.context.selectedPCMFormat) }
    }

    /// Runs `work` on an instance's mailbox, after what is queued there (the isolated child's ping).
    package func enqueue(on id: String, _ work: @escaping () -> Void) -> Bool {
        instances.first { $0.id == id }?.mailbox.perform(work) ?? false
    }

    /// Waits until every plugin has handled everything queued so far.
    public func drain() {
        for instance in instances { instance.mailbox.drain() }
        for plugin in isolated { plugin.mailbox.drain() }
    }

    /// Dropped counts of one plugin's mailbox.
    public func dropCounts(of id: String) -> Mailbox.DropCounts? {
        instances.first { $0.id == id }?.mailbox.dropCounts ?? isolated.first { $0.id == id }?.mailbox.dropCounts
    }

    /// Shuts every instance down within `shutdownTimeout` (T) per plugin:
    /// 1. all plugins together get up to T/2 to handle what was queued when shutdown began (a plugin
    ///    that keeps up loses nothing: a recorder writes its last buffers);
    /// 2. what is still queued then is dropped, counted and logged;
    /// 3. `finalState`, if given, is published, so plugins that consume `state` see it before destroy;
    /// 4. in the order they were created, each plugin gets T/2 to finish its current call, that event
    ///    and destroy(). One that overruns is logged by id and abandoned.
    /// Returns the ids of the abandoned plugins.
    @discardableResult
    public func shutdown(finalState: StateInfo? = nil) -> [String] {
        let instances = self.instances
        holding.withLock { $0 = instances.first?.id }
        let half = shutdownTimeout / 2
        let drainDeadline = Date().addingTimeInterval(half)
        for instance in instances {
            _ = instance.mailbox.drain(timeout: max(0, drainDeadline.timeIntervalSinceNow))
        }
        for instance in instances {
            let dropped = instance.mailbox.discardPending()
            if dropped > 0 {
                logger.info("plugin \(instance.id): \(dropped) queued events and media buffers dropped at shutdown")
            }
        }
        if let finalState { bus.publish(.state(finalState)) }
        var abandoned: [String] = []
        for instance in instances {
            bus.unsubscribe(id: instance.id)
            holding.withLock { $0 = instance.id }
            if instance.destroy(timeout: half) {
                logger.debug("plugin \(instance.id) destroyed")
            } else {
                let call = instance.currentCall?.name ?? "its queue"
                logger.error(
                    "\(tr("plugin {plugin} did not finish within {seconds} s at shutdown (still in {call}); abandoned: its thread is left behind and oton exits without it", ["plugin": instance.id, "seconds": Self.seconds(shutdownTimeout), "call": call]))"
                )
                abandoned.append(instance.id)
            }
            commands.removeAll(of: instance.id)
        }
        for plugin in isolated {
            bus.unsubscribe(id: plugin.id)
            holding.withLock { $0 = plugin.id }
            if !plugin.destroy(timeout: half) {
                logger.error(
                    "\(tr("plugin {plugin} did not finish within {seconds} s at shutdown; its process was killed", ["plugin": plugin.id, "seconds": Self.seconds(shutdownTimeout)]))"
                )
                abandoned.append(plugin.id)
            }
            commands.removeAll(of: plugin.id)
        }
        holding.withLock { $0 = nil }
        let isolatedNow = isolated
        loaded.withLock { state in
            state.instances.removeAll { instance in instances.contains { $0 === instance } }
            state.isolated.removeAll { plugin in isolatedNow.contains { $0 === plugin } }
        }
        return abandoned
    }

    /// The plugin shutdown is waiting for right now, if any (for the message of a second Ctrl-C).
    public var pluginHoldingShutdown: String? {
        holding.withLock { $0 }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
