import FileSinkLogic
import FoundationEssentials
import OtonPluginKit
import PluginAPI

/// One recording. Every call comes on the plugin's mailbox worker (the
/// contract: one thread, one call at a time), so the Recorder does its file
/// work right there: the mailbox is the queue. If the disk is slower than the
/// stream for long, the host's bounded mailbox drops buffers and flags the
/// next one DISCONT, and the recording starts a new file after the gap
/// (never glued).
final class FileSinkInstance: @unchecked Sendable {

    private let host: HostHandle
    /// Per-track files (nil with `tracks: false`: archive only).
    private let recorder: Recorder?
    /// Archive mode: segments at wall-clock boundaries.
    private let archive: ArchiveRecorder?
    /// The air watch: level, dead air, title stalls, format changes (nil: not asked for).
    private let air: AirWatcher?
    /// Reads each stream buffer into units once, for the tracks and the archive.
    private var reader = StreamUnitReader()
    /// The tap this instance records from.
    private let tap: oton_media_tap
    /// Stream mode with a silence search also takes the PCM tap, for its loudness only.
    private let listens: Bool
    /// The warning about an Ogg comment over the bound is given once per recording, not per chain.
    private var saidCommentBound = false

    init(host: HostHandle, settings: FileSinkSettings) throws {
        self.host = host
        tap = settings.format == .wav ? OTON_TAP_PCM : OTON_TAP_STREAM
        listens = settings.listensToDecodedAudio
        host.selectMediaTaps(tap | (listens ? OTON_TAP_PCM : 0))
        let announce: (Recorder.Notice) -> Void = { [host, settings] notice in Self.announce(notice, host: host, settings: settings) }
        recorder = settings.tracks ? try Recorder(settings: settings, translate: host.tr, notify: announce) : nil
        archive = try settings.archive.map { try ArchiveRecorder(settings: settings, archive: $0, translate: host.tr, notify: announce) }
        air = settings.airWatch.map { AirWatcher(settings: $0, host: host, station: settings.station ?? "") }
    }

    func media(_ buffer: UnsafePointer<oton_media_buffer>) {
        let raw = buffer.pointee
        guard hasField(buffer, \oton_media_buffer.connection), let format = raw.format else { return }
        if format.pointee.tap == OTON_TAP_PCM && format.pointee.sample_format != OTON_SAMPLE_S16LE { return }
        if listens && format.pointee.tap == OTON_TAP_PCM, let data = raw.data {
            let pcm = PCMFormat(rate: Int(format.pointee.rate), channels: Int(format.pointee.channels))
            recorder?.hear(Array(UnsafeBufferPointer(start: data, count: raw.size)), format: pcm, pts: raw.pts_ns, connection: raw.connection)
            return
        }
        guard format.pointee.tap == tap else { return }
        let bytes = raw.data.map { Array(UnsafeBufferPointer(start: $0, count: raw.size)) } ?? []
        let caps = format.pointee.caps.map { String(cString: $0) } ?? "application/octet-stream"
        let flags = raw.flags
        let readings = reader.readings(
            TrackSplitter.Buffer(
                bytes: bytes, caps: caps,
                newConnection: flags & OTON_MEDIA_FLAG_NEW_CONNECTION != 0,
                discontinuity: flags & OTON_MEDIA_FLAG_DISCONT != 0,
                formatChanged: flags & OTON_MEDIA_FLAG_FORMAT_CHANGED != 0,
                offset: raw.offset, connection: raw.connection, monotonicNanoseconds: raw.mono_ns))
        for reading in readings { receive(reading, monotonicNanoseconds: raw.mono_ns) }
    }

    /// Said for the first few changes of codec within a connection; a server that changes all the time is not a flood of lines.
    private var saidSwitches = 0
    private static let switchesSaid = 3

    private func receive(_ reading: StreamUnitReader.Reading, monotonicNanoseconds: Int64) {
        if let before = reading.switchedFrom, saidSwitches < Self.switchesSaid {
            saidSwitches += 1
            host.log(
                OTON_LOG_WARNING,
                host.tr(
                    "the stream changed from {before} to {after} within the connection; a new file begins in the new format",
                    ["before": before.name, "after": reading.container.name])
                    + (saidSwitches == Self.switchesSaid ? host.tr(" (further changes are not logged)") : ""))
        }
        if reading.replacedComments > 0 && !saidCommentBound {
            saidCommentBound = true
            host.log(
                OTON_LOG_WARNING,
                host.tr(
                    "the stream sent an Ogg comment header larger than {limit}; it is recorded as an empty one (the file's tags are written when it is finished)",
                    ["limit": formatBytes(UInt64(OggHeaderBound.maximumComment))]))
        }
        recorder?.receive(reading, monotonicNanoseconds: monotonicNanoseconds)
        archive?.receive(reading, arrival: WallClock.wall(atMonotonic: monotonicNanoseconds))
        air?.receive(reading, now: monotonicNanoseconds > 0 ? monotonicNanoseconds : WallClock.monotonicNow())
    }

    func event(_ event: EventView.Snapshot) {
        if event.kind == OTON_EVENT_TRACK {
            guard let metadata = TrackMetadata(fields: event.fields) else { return }
            recorder?.track(metadata)
            archive?.track(metadata)
            let heard = [metadata.artist, metadata.title].compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: " - ")
            if !heard.isEmpty { air?.title(heard, now: WallClock.monotonicNow()) }
        } else if event.kind == OTON_EVENT_STATE {
            if event[OTON_FIELD_STATE] == "error", let kind = event[OTON_FIELD_ERROR_KIND] { archive?.playerError(kind: kind) }
        } else if event.name == OTON_EVENT_NAME_WISH_HEARD {
            guard let sequence = event[OTON_FIELD_SEQUENCE].flatMap(UInt64.init) else { return }
            recorder?.wish(
                sequence: sequence, WishDecision(keep: event[OTON_FIELD_KEEP], why: event[OTON_FIELD_WHY]), fromStart: event[OTON_FIELD_FROM_START] != "false")
        } else if event.name == OTON_EVENT_NAME_ARTWORK_READY {
            guard let path = event[OTON_FIELD_PATH], event[OTON_FIELD_TYPE] == nil || event[OTON_FIELD_TYPE] == "cover" else { return }
            recorder?.artwork(path: path, title: event[OTON_FIELD_TITLE])
        }
    }

    func command(_ name: String, _ arguments: [String]) -> (Bool, String) {
        guard name == "record-current" else { return (false, host.tr("unknown command {name}", ["name": name])) }
        guard arguments.isEmpty else { return (false, host.tr("usage: record-current")) }
        guard let recorder else { return (false, host.tr("this recording writes archive segments only, not tracks")) }
        return recorder.recordCurrent()
    }

    /// Ends the current file (incomplete).
    func shutdown() {
        recorder?.finish()
        archive?.finish()
        archive?.close()
    }

    private static func announce(_ notice: Recorder.Notice, host: HostHandle, settings: FileSinkSettings) {
        switch notice {
        case let .started(path, metadata):
            host.publish(
                OTON_EVENT_NAME_RECORDING_STARTED,
                [(OTON_FIELD_PATH, path), (OTON_FIELD_TITLE, metadata?.title ?? ""), (OTON_FIELD_ARTIST, metadata?.artist ?? "")]
                    + (metadata?.titleSource.map { [(OTON_FIELD_TITLE_SOURCE, $0)] } ?? []))
        case let .finished(path, name, seconds, bytes, complete, status, reason, reasonCode, sequence):
            host.publish(
                OTON_EVENT_NAME_RECORDING_DONE,
                [
                    (OTON_FIELD_PATH, path ?? ""), (OTON_FIELD_SECONDS, String(format: "%.3f", seconds)), (OTON_FIELD_BYTES, String(bytes)),
                    (OTON_FIELD_COMPLETE, complete ? "true" : "false"), (OTON_FIELD_STATUS, status.rawValue), (OTON_FIELD_REASON, reason ?? ""),
                    (OTON_FIELD_NAME, name),
                    (OTON_FIELD_REASON_CODE, reasonCode ?? ""), (OTON_FIELD_MIN_SECONDS, String(format: "%.1f", settings.minimumSeconds)),
                ] + (sequence.map { [(OTON_FIELD_SEQUENCE, String($0))] } ?? []))
            // The event is the announcement: `oton record` (and `oton play` without a status line) print it
            // as one line on standard output, so the log has it only at debug level, not a second time.
            let what = path ?? name
            host.log(OTON_LOG_DEBUG, "\(status.rawValue): \(what) (\(formatSeconds(seconds)), \(formatBytes(bytes)))\(reason.map { ": \($0)" } ?? "")")
        case let .archived(path, seconds, bytes, status):
            host.publish(
                OTON_EVENT_NAME_RECORDING_DONE,
                [
                    (OTON_FIELD_PATH, path), (OTON_FIELD_SECONDS, String(format: "%.3f", seconds)), (OTON_FIELD_BYTES, String(bytes)),
                    (OTON_FIELD_STATUS, "archive"), (OTON_FIELD_REASON_CODE, status), (OTON_FIELD_NAME, String(path.split(separator: "/").last ?? "")),
                ])
            host.log(OTON_LOG_DEBUG, "archive: \(path) (\(formatSeconds(seconds)), \(formatBytes(bytes))): \(status)")
        case let .stopped(reason, message, isError):
            // An error stays in the log (a status line shows only warnings and errors); an ordinary end
            // (--duration, --max-size) is said once, by whoever prints the event.
            host.log(isError ? OTON_LOG_ERROR : OTON_LOG_DEBUG, message)
            host.publish(
                OTON_EVENT_NAME_RECORDING_STOPPED,
                [(OTON_FIELD_REASON, reason.rawValue), (OTON_FIELD_MESSAGE, message), (OTON_FIELD_ERROR, isError ? "true" : "false")])
            if settings.quitOnError { host.request(OTON_REQUEST_QUIT) }
        case let .log(level, message):
            host.log(level.abiLevel, message)
        }
    }
}
