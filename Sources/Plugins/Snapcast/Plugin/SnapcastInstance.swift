import Foundation
import OtonJSON
import OtonPluginKit
import PluginAPI
import SnapcastLogic

/// One session's Snapcast sink: the PCM tap, converted by the host to the stream's format, goes
/// to the AudioSender; the track and the state go to the MetadataListener, whence the stream's
/// control script hands them to snapserver. Neither ever holds up the host: the media call only
/// copies into a bounded backlog.
///
/// `@unchecked Sendable`: `lock` guards `lastReportedDrops`, `formatRefused` and `mutedOnce`; the
/// rest is immutable after init.
final class SnapcastInstance: SwiftPluginInstance, @unchecked Sendable {
    /// How often dropped sound is reported in the log at most.
    static let dropReportSeconds: Int64 = 10

    private let host: HostHandle
    private let config: SnapcastConfig
    private let sender: AudioSender
    private let listener: MetadataListener
    private let lock = NSLock()
    private var lastReportedDrops: UInt64 = 0
    private var lastReport: Int64 = 0
    private var formatRefused = false
    private var mutedOnce = false

    init(host: HostHandle, config: SnapcastConfig) throws {
        self.host = host
        self.config = config
        host.selectMediaTaps(OTON_TAP_PCM)
        if hasField(host.table, \oton_host.select_pcm_format), let select = host.table.pointee.select_pcm_format {
            var request = oton_pcm_format_request(
                struct_size: UInt32(MemoryLayout<oton_pcm_format_request>.size),
                sample_format: OTON_SAMPLE_S16LE, rate: config.format.rate, channels: config.format.channels)
            let status = select(host.table, &request)
            if status != OTON_OK { throw PluginConfigError("the host refused the PCM format \(config.format) (status \(status))") }
        } else {
            throw PluginConfigError("this oton is older than ABI 1.3 and cannot convert the sound to \(config.format); update oton")
        }
        let target = "\(config.host):\(config.port)"
        let stream = config.stream
        do {
            listener = try MetadataListener(address: config.metadataListen, stream: stream) { change in
                switch change {
                case let .scriptConnected(name):
                    host.log(OTON_LOG_INFO, host.tr("snapcast: the control script of stream {stream} connected; Snapcast shows the track", ["stream": name]))
                case let .wrongStream(name):
                    host.log(
                        OTON_LOG_WARNING,
                        host.tr(
                            "snapcast: a control script for stream {other} connected, but this plugin sends to stream {stream}; set \"stream\" to the source's name=",
                            ["other": name, "stream": stream]))
                case let .scriptRefused(reason):
                    host.log(OTON_LOG_WARNING, host.tr("snapcast: control script disconnected: {reason}", ["reason": reason]))
                }
            }
        } catch {
            throw PluginConfigError("snapcast: \(error); pick another \"metadata_listen\" port in plugins.json")
        }
        do {
            sender = try AudioSender(host: config.host, port: config.port, capacity: config.bufferBytes) { change in
                switch change {
                case .connected:
                    host.log(
                        OTON_LOG_INFO, host.tr("snapcast: sending {format} to snapserver at {address}", ["format": "\(config.format)", "address": target]))
                case let .lost(reason):
                    host.log(
                        OTON_LOG_WARNING,
                        host.tr(
                            "snapcast: lost snapserver at {address} ({reason}); reconnecting every second, local playback goes on",
                            ["address": target, "reason": reason]))
                case let .unreachable(reason):
                    host.log(
                        OTON_LOG_WARNING,
                        host.tr(
                            "snapcast: no snapserver at {address} ({reason}); is its source tcp://…?mode=server on that port? Trying every second",
                            ["address": target, "reason": reason]))
                }
            }
        } catch {
            listener.discard()
            throw error
        }
        if let track = host.current(OTON_EVENT_TRACK) { updateTrack(track.track) }
        if let state = host.current(OTON_EVENT_STATE) { updateState(state.state) }
        sender.start()
        listener.start()
        if config.muteLocal { muteLocal() }
    }

    /// mute_local: the PCM tap sits before the volume element, so volume 0 silences this machine
    /// while Snapcast gets the full sound. A later `oton ctl volume` brings the local sound back.
    private func muteLocal() {
        host.request(OTON_REQUEST_SET_VOLUME, volume: 0)
        host.log(
            OTON_LOG_INFO, host.tr("snapcast: local output muted (volume 0): playing only in the Snapcast rooms; `oton ctl volume 50` brings local sound back"))
    }

    func receive(_ event: EventView.Snapshot) {
        switch event.kind {
        case OTON_EVENT_TRACK:
            updateTrack(event.track)
        case OTON_EVENT_STATE:
            let state = event.state
            updateState(state)
            // The player may set its starting volume after create(): mute again once it plays.
            if config.muteLocal, state?.state == "playing",
                lock.withLock({ () -> Bool in
                    defer { mutedOnce = true }
                    return !mutedOnce
                })
            {
                host.request(OTON_REQUEST_SET_VOLUME, volume: 0)
            }
        default:
            break
        }
    }

    private func updateTrack(_ track: TrackFields?) {
        let metadata = StreamMetadata(track: track)
        listener.update { $0.metadata = metadata }
    }

    private func updateState(_ info: StateFields?) {
        guard let state = info?.state else { return }
        // A buffering pause is still playing to the rooms' apps: they would flicker otherwise.
        listener.update { $0.isPlaying = state == "playing" || state == "buffering" }
    }

    func receive(media buffer: UnsafePointer<oton_media_buffer>) {
        let raw = buffer.pointee
        guard let format = raw.format, format.pointee.tap == OTON_TAP_PCM, let data = raw.data, raw.size > 0 else { return }
        let chosen =
            format.pointee.sample_format == OTON_SAMPLE_S16LE && format.pointee.rate == config.format.rate
            && format.pointee.channels == config.format.channels
        guard chosen else {
            if lock.withLock({ () -> Bool in
                defer { formatRefused = true }; return !formatRefused
            }) {
                host.log(
                    OTON_LOG_ERROR,
                    host.tr(
                        "snapcast: the host sent {rate} Hz, {channels} channels instead of {format}; not sending it",
                        ["rate": String(format.pointee.rate), "channels": String(format.pointee.channels), "format": "\(config.format)"]))
            }
            return
        }
        sender.enqueue(UnsafeRawBufferPointer(start: data, count: raw.size))
        reportDrops(monotonic: raw.mono_ns)
    }

    /// Logs sound lost since the last report, at most every ten seconds.
    private func reportDrops(monotonic: Int64) {
        let seconds = monotonic / 1_000_000_000
        guard lock.withLock({ seconds - lastReport >= Self.dropReportSeconds }) else { return }
        let figures = sender.figures
        let news: UInt64? = lock.withLock {
            lastReport = seconds
            guard figures.droppedBytes > lastReportedDrops else { return nil }
            defer { lastReportedDrops = figures.droppedBytes }
            return figures.droppedBytes - lastReportedDrops
        }
        guard let news, figures.isConnected else { return }
        host.log(
            OTON_LOG_WARNING,
            host.tr(
                "snapcast: snapserver reads too slowly: {seconds} s of sound dropped in the last ten seconds ({total} bytes in all)",
                ["seconds": String(format: "%.1f", Double(news) / Double(config.format.bytesPerSecond)), "total": String(figures.droppedBytes)]))
    }

    func command(_ name: String, _ arguments: [String]) -> (Bool, String) {
        let figures = sender.figures
        if arguments == ["--format", "json"] {
            let object: JSONValue = .object([
                "connected": .bool(figures.isConnected),
                "connections": .number(Double(figures.connections)),
                "sent_bytes": .number(Double(figures.sentBytes)),
                "dropped_bytes": .number(Double(figures.droppedBytes)),
                "dropped_buffers": .number(Double(figures.droppedBuffers)),
                "control_scripts": .number(Double(listener.connectedScripts)),
                "server": .string("\(config.host):\(config.port)"),
                "stream": .string(config.stream),
                "format": .string("\(config.format)"),
            ])
            return (true, object.jsonText)
        }
        guard arguments.isEmpty else { return (false, host.tr("usage: snapcast [--format json]")) }
        let values = [
            "address": "\(config.host):\(config.port)", "stream": config.stream, "format": "\(config.format)",
            "sent": String(figures.sentBytes), "dropped": String(figures.droppedBytes), "scripts": String(listener.connectedScripts),
        ]
        return (
            true,
            figures.isConnected
                ? host.tr(
                    "connected to snapserver at {address}, stream {stream} ({format}); sent {sent} bytes, dropped {dropped} bytes; control scripts connected: {scripts}",
                    values)
                : host.tr(
                    "waiting for snapserver at {address}, stream {stream} ({format}); sent {sent} bytes, dropped {dropped} bytes; control scripts connected: {scripts}",
                    values)
        )
    }

    func shutdown() {
        sender.stop()
        listener.stop()
    }
}
