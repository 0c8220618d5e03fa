import MetricsHTTP
import MetricsLogic
import OtonPluginKit
import PluginAPI

/// One session's metrics: its events and its stream tap feed a StationMeter, which the process's
/// exporter serves with every other session's. The stream bytes are only counted, never kept.
final class MetricsInstance: SwiftPluginInstance, Sendable {
    private let host: HostHandle
    private let meter: StationMeter
    private let exporter: MetricsExporter
    private let attachment: MetricsExporter.Attachment

    init(host: HostHandle, config: MetricsConfig, exporter: MetricsExporter = .shared) throws {
        self.host = host
        self.exporter = exporter
        meter = StationMeter(station: config.station, startedMonotonicNanoseconds: MetricsExporter.monotonicNow())
        host.selectMediaTaps(OTON_TAP_STREAM)
        // What happened before we were enabled names the station and the state; it starts nothing.
        for kind in [OTON_EVENT_STATE, OTON_EVENT_TRACK] {
            if let event = host.current(kind) { meter.apply(name: Self.name(of: event), fields: event.fields, isReplay: true) }
        }
        let version = host.table.pointee.host_version.map { String(cString: $0) }
        attachment = try exporter.attach(meter, address: config.listen, hostVersion: version, rules: config.health)
        let url = "http://\(config.listen.host):\(attachment.port)/metrics"
        host.log(OTON_LOG_INFO, attachment.startedListener ? "metrics on \(url)" : "metrics on \(url) (shared with other sessions)")
        if config.listen.isEveryInterface {
            host.log(
                OTON_LOG_WARNING,
                host.tr(
                    "metrics listen on every interface (0.0.0.0): anyone on the network can read station names and figures; use 127.0.0.1 unless a scraper elsewhere needs them"
                ))
        }
    }

    func receive(_ event: EventView.Snapshot) {
        meter.apply(name: Self.name(of: event), fields: event.fields, isReplay: event.flags & OTON_EVENT_FLAG_REPLAY != 0)
    }

    func receive(media buffer: UnsafePointer<oton_media_buffer>) {
        let raw = buffer.pointee
        guard hasField(buffer, \oton_media_buffer.mono_ns), let format = raw.format, format.pointee.tap == OTON_TAP_STREAM else { return }
        meter.receive(
            size: raw.size, connection: raw.connection,
            monotonicNanoseconds: raw.mono_ns > 0 ? raw.mono_ns : MetricsExporter.monotonicNow())
    }

    func shutdown() {
        exporter.detach(attachment)
    }

    /// The core kinds by number (their names are fixed), others by name.
    private static func name(of event: EventView.Snapshot) -> String {
        switch event.kind {
        case OTON_EVENT_TRACK: "track"
        case OTON_EVENT_STATE: "state"
        case OTON_EVENT_DROPPED: "dropped"
        default: event.name
        }
    }
}
