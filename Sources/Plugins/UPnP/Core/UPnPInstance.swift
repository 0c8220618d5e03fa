import CGUPnP
import CGUPnPAV
import Dispatch
import Foundation
import OtonGLibThread
import OtonPluginKit
import PluginAPI
import UPnPLogic

/// One UPnP casting session: the renderer directory on a GLib thread of its own, and the `cast`
/// commands and bus events, which arrive on the host's mailbox for this instance, one at a time
/// (so `casting` and `latestTrack` need no lock: only the mailbox touches them).
final class UPnPInstance: SwiftPluginInstance, @unchecked Sendable {
    private struct Casting {
        var udn: String
        var name: String
        var target: CastTarget
    }

    private let host: HostHandle
    private let config: UPnPConfig
    private let glib = GLibThread()
    private let directory: RendererDirectory
    private var casting: Casting?
    private var latestTrack: TrackFields?

    init(host: HostHandle, config: UPnPConfig) throws {
        self.host = host
        self.config = config
        directory = RendererDirectory(log: { host.log(OTON_LOG_INFO, $0) })
        if let track = host.current(OTON_EVENT_TRACK) { latestTrack = track.track }
        let started = DispatchSemaphore(value: 0)
        let failure = LockedText()
        let directory = self.directory
        let interface = config.interface
        glib.start(name: "oton-upnp") {
            XMLErrorRoute.shared.install(log: { host.log(OTON_LOG_WARNING, $0) })
            let reason = directory.start(interface: interface)
            failure.set(reason)
            started.signal()
            return reason == nil
        }
        started.wait()
        if let reason = failure.get() {
            throw PluginConfigError(
                message: N_(
                    "cannot search for UPnP renderers on interface {interface}: {reason}; name another interface in the plugin's config (`ip link` lists them)"),
                values: ["interface": interface ?? "*", "reason": reason])
        }
        host.log(OTON_LOG_INFO, "searching for UPnP renderers on \(interface.map { "interface \($0)" } ?? "every IPv4 interface")")
    }

    func shutdown() {
        let directory = self.directory
        glib.stop { directory.stop() }
        XMLErrorRoute.shared.uninstall()
    }

    func receive(_ event: EventView.Snapshot) {
        guard event.kind == OTON_EVENT_TRACK else { return }
        latestTrack = event.track
        guard let casting, let target = CastTarget(track: event.track), target.url != casting.target.url,
            target.format != nil || target.codec != nil
        else { return }
        // The player moved to another station (or another stream of the playlist) while casting:
        // the renderer takes the new stream, and local playback, which the switch started, pauses again.
        // It waits for the track event that names the codec (every stream's, titleless ones too:
        // see TrackAccumulator), so the renderer's formats are checked first.
        let deadline = DispatchTime.now() + .seconds(UPnPConfig.commandBudgetSeconds)
        switch handOver(target, to: casting.udn, name: casting.name, deadline: deadline) {
        case .success:
            self.casting?.target = target
            host.request(OTON_REQUEST_PAUSE)
            host.publish(CastState.eventName, CastState.fields(.casting, renderer: casting.name, url: target.url))
            host.log(OTON_LOG_INFO, "cast: \(casting.name) now plays \(target.url)")
        case let .failure(failure):
            host.log(OTON_LOG_WARNING, failure.message)
            self.casting = nil
            host.publish(CastState.eventName, CastState.fields(.failed, renderer: casting.name, url: target.url, message: failure.message))
        }
    }

    func command(_ name: String, _ arguments: [String]) -> (Bool, String) {
        switch CastCommand.parse(arguments) {
        case .failure(.missingName):
            return (false, host.tr("name the renderer: oton ctl cast to NAME (`oton ctl cast list` shows them)"))
        case let .failure(.unknown(word)):
            return (false, host.tr("unknown cast command \"{command}\"; usage: oton ctl cast list|to NAME|stop|status", ["command": word]))
        case .success(.list): return list()
        case let .success(.to(wanted)): return castTo(wanted)
        case .success(.stop): return stop()
        case .success(.status): return status()
        }
    }

    // MARK: commands

    private func list() -> (Bool, String) {
        let directory = self.directory
        glib.invoke { directory.rescan() }
        let entries = directory.entries()
        guard !entries.isEmpty else {
            return (
                true,
                host.tr(
                    "no UPnP renderers found yet on {interface}; a renderer answers within a few seconds of being switched on",
                    ["interface": config.interface ?? "the network"])
            )
        }
        let lines = entries.map { entry in
            [entry.name, entry.model.isEmpty ? "-" : entry.model, entry.address].joined(separator: "\t")
        }
        return (true, lines.joined(separator: "\n"))
    }

    private func castTo(_ wanted: String) -> (Bool, String) {
        let entries = directory.entries()
        let renderer: RendererEntry
        switch RendererEntry.find(wanted, in: entries) {
        case let .found(entry): renderer = entry
        case .none:
            return (
                false, host.tr("no UPnP renderer named \"{name}\" found; `oton ctl cast list` shows those on the network", ["name": PeerText.clean(wanted)])
            )
        case let .ambiguous(matches):
            return (
                false,
                host.tr(
                    "several renderers are named \"{name}\"; name one by its UDN: {udns}",
                    ["name": PeerText.clean(wanted), "udns": matches.map(\.udn).joined(separator: ", ")])
            )
        }
        guard let target = CastTarget(track: latestTrack) else {
            return (false, host.tr("nothing to cast: no station is playing; start one, then cast it"))
        }
        let deadline = DispatchTime.now() + .seconds(UPnPConfig.commandBudgetSeconds)
        if let casting, casting.udn != renderer.udn {
            _ = call(casting.udn, name: casting.name, "Stop", service: \.avTransport, deadline: deadline) { oton_upnp_action_instance("Stop") }
        }
        switch handOver(target, to: renderer.udn, name: renderer.name, deadline: deadline) {
        case let .success(mime):
            casting = Casting(udn: renderer.udn, name: renderer.name, target: target)
            host.request(OTON_REQUEST_PAUSE)
            host.publish(CastState.eventName, CastState.fields(.casting, renderer: renderer.name, url: target.url))
            var reply = host.tr(
                "casting {station} to {renderer} ({type}): {url}; local playback paused",
                ["station": target.station ?? target.displayTitle, "renderer": renderer.name, "type": mime, "url": target.url])
            if target.format == nil {
                reply += "\n" + host.tr("the stream's format is not known yet; if the renderer stays silent it cannot play it")
            }
            return (true, reply)
        case let .failure(failure):
            casting = nil
            host.publish(CastState.eventName, CastState.fields(.failed, renderer: renderer.name, url: target.url, message: failure.message))
            return (false, failure.message)
        }
    }

    private func stop() -> (Bool, String) {
        guard let casting else { return (true, host.tr("not casting")) }
        self.casting = nil
        let deadline = DispatchTime.now() + .seconds(UPnPConfig.commandBudgetSeconds)
        let stopped = call(casting.udn, name: casting.name, "Stop", service: \.avTransport, deadline: deadline) { oton_upnp_action_instance("Stop") }
        host.request(OTON_REQUEST_PLAY)
        host.publish(CastState.eventName, CastState.fields(.stopped, renderer: casting.name, url: casting.target.url))
        if case let .failure(failure) = stopped {
            return (false, failure.message + "\n" + host.tr("local playback resumed"))
        }
        return (true, host.tr("stopped casting to {renderer}; local playback resumed", ["renderer": casting.name]))
    }

    private func status() -> (Bool, String) {
        guard let casting else { return (true, host.tr("not casting")) }
        let deadline = DispatchTime.now() + .seconds(UPnPConfig.commandBudgetSeconds)
        switch call(
            casting.udn, name: casting.name, "GetTransportInfo", service: \.avTransport, outputs: ["CurrentTransportState"],
            deadline: deadline, action: { oton_upnp_action_instance("GetTransportInfo") })
        {
        case let .success(values):
            return (
                true,
                host.tr(
                    "casting to {renderer} ({state}): {url}",
                    [
                        "renderer": casting.name, "state": PeerText.clean(values["CurrentTransportState"] ?? "", limit: 32),
                        "url": casting.target.url,
                    ])
            )
        case let .failure(failure):
            return (false, failure.message)
        }
    }

    // MARK: talking to a renderer

    /// Checks that the renderer plays the stream's format, then hands it the stream with its
    /// metadata and starts it. The MIME type offered, or the reason (a sentence for the user).
    private func handOver(_ target: CastTarget, to udn: String, name: String, deadline: DispatchTime) -> Result<String, CastFailure> {
        var mime = "*"
        if let format = target.format {
            switch call(
                udn, name: name, "GetProtocolInfo", service: \.connectionManager, outputs: ["Sink"], deadline: deadline,
                action: { oton_upnp_action_plain("GetProtocolInfo") })
            {
            case let .success(values):
                let sink = StreamFormat.sinkEntries(values["Sink"] ?? "")
                guard
                    let accepted = format.mimeTypes.first(where: { type in
                        sink.contains { oton_upnp_protocol_accepts($0, StreamFormat.protocolInfo(type)) != 0 }
                    })
                else {
                    let offered = Set(sink.compactMap { $0.split(separator: ":").dropFirst(2).first.map(String.init) }).sorted()
                    return .failure(
                        CastFailure(
                            host.tr(
                                "{renderer} cannot play this station's stream ({format}); it plays {types}. Choose another station or renderer.",
                                [
                                    "renderer": name, "format": format.name,
                                    "types": PeerText.clean(offered.prefix(12).joined(separator: ", "), limit: PeerText.messageLimit),
                                ])))
                }
                mime = accepted
            case let .failure(failure) where failure.isMissingService:
                break  // no ConnectionManager: the renderer will say itself whether it plays the stream
            case let .failure(message):
                return .failure(message)
            }
        }
        let didl = Self.didl(target, mime: mime)
        if case let .failure(message) = call(
            udn, name: name, "SetAVTransportURI", service: \.avTransport, deadline: deadline,
            action: { oton_upnp_action_set_uri(target.url, didl) })
        {
            return .failure(message)
        }
        if case let .failure(message) = call(
            udn, name: name, "Play", service: \.avTransport, deadline: deadline,
            action: { oton_upnp_action_play() })
        {
            return .failure(message)
        }
        return .success(mime == "*" ? host.tr("format unknown") : mime)
    }

    private static func didl(_ target: CastTarget, mime: String) -> String {
        guard
            let xml = oton_upnp_didl(
                target.displayTitle, target.artist, target.station, target.artworkURL, target.url,
                StreamFormat.protocolInfo(mime))
        else { return "" }
        defer { g_free(xml) }
        return String(cString: xml)
    }

    /// One SOAP call within what is left of the command's budget, its failure said for the user.
    private func call(
        _ udn: String, name: String, _ actionName: String,
        service: KeyPath<RendererDirectory.Renderer, UnsafeMutableRawPointer?>, outputs: [String] = [],
        deadline: DispatchTime, action: @escaping () -> OpaquePointer?
    ) -> Result<[String: String], CastFailure> {
        let left = Double(Int64(deadline.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9
        let seconds = min(Double(config.timeoutSeconds), left)
        guard seconds > 0 else {
            return .failure(
                CastFailure(
                    host.tr(
                        "{renderer} did not answer {action} in time (the command's {seconds} s were spent); is it still on?",
                        ["renderer": name, "action": actionName, "seconds": String(UPnPConfig.commandBudgetSeconds)])))
        }
        let result = SoapCall.run(
            on: glib, directory: directory, udn: udn, service: { $0[keyPath: service] },
            action: action, outputs: outputs, seconds: seconds)
        switch result {
        case let .success(values): return .success(values)
        case let .failure(.timeout(seconds)):
            return .failure(
                CastFailure(
                    host.tr(
                        "{renderer} did not answer {action} within {seconds} s; is it still on and reachable? (`oton ctl cast list`)",
                        ["renderer": name, "action": actionName, "seconds": String(seconds)])))
        case let .failure(.fault(code, description)):
            return .failure(
                CastFailure(
                    host.tr(
                        "{renderer} refused {action}: UPnP error {code} ({description})",
                        ["renderer": name, "action": actionName, "code": String(code), "description": description])))
        case let .failure(.failed(reason)):
            return .failure(
                CastFailure(
                    host.tr(
                        "{renderer} could not be reached for {action}: {reason}",
                        ["renderer": name, "action": actionName, "reason": reason])))
        case .failure(.gone):
            return .failure(
                CastFailure(
                    host.tr(
                        "{renderer} has left the network or has no service for {action}; `oton ctl cast list` shows the renderers found",
                        ["renderer": name, "action": actionName]), isMissingService: true))
        }
    }
}

/// A failed cast, said for the user (already translated).
struct CastFailure: Error, Equatable {
    var message: String
    var isMissingService = false
    init(_ message: String, isMissingService: Bool = false) {
        self.message = message
        self.isMissingService = isMissingService
    }
}

/// A text handed from the GLib thread to the mailbox once, guarded by `lock`.
private final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var text: String?
    func set(_ value: String?) { lock.withLock { text = value } }
    func get() -> String? { lock.withLock { text } }
}
