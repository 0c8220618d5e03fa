import CMpg123
import FileSinkLogic
import Foundation
import OtonPluginKit
import OtonStreamFraming
import PluginAPI

/// The air watch of one station (``AirWatch`` does the judging): every 10 s (or a third of the
/// silence limit) one second of an MP3 stream is decoded by libmpg123 to float samples and its RMS
/// taken; the frames' headers give the format; track events the titles. Alerts and a report after
/// each sample are published on the bus (OTON_EVENT_NAME_ALERT, OTON_EVENT_NAME_AIR). A decoder
/// exists only while a second is being sampled, so 1000 stations hold about 100 at a time.
/// Other codecs (AAC, Ogg) are not sampled: their level stays unknown; titles and formats are watched.
/// Not thread safe: called on the plugin's mailbox worker only.
final class AirWatcher {
    private var watch: AirWatch
    private let host: HostHandle
    private let station: String
    private var decoder: OpaquePointer?
    private var sampledNanoseconds: Int64 = 0
    private var sumOfSquares = 0.0
    private var sampleCount = 0
    private var output = [Float](repeating: 0, count: 1152 * 2 * 4)
    private static let initialised: Void = { _ = mpg123_init() }()

    init(settings: AirWatch.Settings, host: HostHandle, station: String) {
        _ = Self.initialised
        watch = AirWatch(settings: settings)
        self.host = host
        self.station = station
    }

    deinit { endDecoder() }

    func receive(_ reading: StreamUnitReader.Reading, now: Int64) {
        if reading.gap != nil { endDecoder() }  // a sample never spans a gap
        var alerts: [AirWatch.Alert] = []
        if let unit = reading.units.last?.unit, let header = MPEGFrameHeader(unit.bytes, at: 0) {
            // One frame a buffer is enough to see the format; a change must hold for 50 of them.
            let format = header.codec + ", \(header.sampleRate) Hz" + (header.bitrate > 0 ? ", \(header.bitrate / 1000) kbps" : "")
            alerts += watch.frame(format: format)
        }
        if reading.container == .mpegAudio {
            if decoder == nil && watch.levelSampleDue(at: now) { startDecoder() }
            if decoder != nil {
                for (unit, _) in reading.units where decoder != nil {
                    decode(unit.bytes)
                    sampledNanoseconds += unit.durationNanoseconds
                    if sampledNanoseconds >= AirWatch.Settings.sampleNanoseconds {
                        let level = AirWatch.dBFS(sumOfSquares: sumOfSquares, count: sampleCount)
                        endDecoder()
                        alerts += watch.sampled(levelDBFS: level, at: now)
                        report(now: now)
                    }
                }
            }
        } else if watch.levelSampleDue(at: now) {
            report(now: now)  // no level, but the title's age and the silence (none) still go to the metrics
        }
        alerts += watch.check(at: now)
        publish(alerts, now: now)
    }

    func title(_ text: String, now: Int64) {
        watch.title(text, at: now)
        publish(watch.check(at: now), now: now)
    }

    // MARK: -

    private func startDecoder() {
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else { return }
        _ = oton_mpg123_set_flags(handle, Int(MPG123_FORCE_FLOAT.rawValue | MPG123_QUIET.rawValue))
        guard mpg123_open_feed(handle) == MPG123_OK.rawValue else {
            mpg123_delete(handle)
            return
        }
        decoder = handle
        sampledNanoseconds = 0
        sumOfSquares = 0
        sampleCount = 0
    }

    private func endDecoder() {
        if let decoder { mpg123_delete(decoder) }
        decoder = nil
    }

    private func decode(_ bytes: [UInt8]) {
        guard let decoder else { return }
        var fed = false
        while true {
            var done = 0
            let result = bytes.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBytes { out in
                    mpg123_decode(
                        decoder, fed ? nil : input.baseAddress, fed ? 0 : input.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count, &done)
                }
            }
            fed = true
            let samples = done / MemoryLayout<Float>.size
            for index in 0..<samples {
                let value = Double(output[index])
                sumOfSquares += value * value
            }
            sampleCount += samples
            // NEW_FORMAT (the first frame) and OK: more may be ready; NEED_MORE or an error: the next frame.
            guard result == MPG123_NEW_FORMAT.rawValue || (result == MPG123_OK.rawValue && done > 0) else { return }
        }
    }

    private func report(now: Int64) {
        let report = watch.report(at: now)
        var fields: [(String, String)] = [(OTON_FIELD_STATION, station), (OTON_FIELD_SILENCE_SECONDS, String(format: "%.1f", report.silenceSeconds))]
        if let level = report.levelDBFS { fields.append((OTON_FIELD_LEVEL_DBFS, Self.levelText(level))) }
        if let age = report.titleAgeSeconds { fields.append((OTON_FIELD_TITLE_AGE_SECONDS, String(format: "%.1f", age))) }
        host.publish(OTON_EVENT_NAME_AIR, fields)
    }

    private func publish(_ alerts: [AirWatch.Alert], now: Int64) {
        for alert in alerts {
            var fields: [(String, String)] = [(OTON_FIELD_STATION, station), (OTON_FIELD_KIND, alert.kind), (OTON_FIELD_DETAILS, alert.details)]
            switch alert {
            case let .deadAir(seconds, level), let .deadAirOver(seconds, level):
                fields += [(OTON_FIELD_SECONDS, String(format: "%.1f", seconds)), (OTON_FIELD_LEVEL_DBFS, Self.levelText(level))]
            case let .titleStall(_, seconds):
                fields.append((OTON_FIELD_SECONDS, String(format: "%.1f", seconds)))
            case .formatChanged:
                break
            }
            host.log(alert.kind == "dead-air-over" ? OTON_LOG_INFO : OTON_LOG_WARNING, "\(station): \(alert.kind): \(alert.details)")
            host.publish(OTON_EVENT_NAME_ALERT, fields)
        }
    }

    static func levelText(_ level: Double) -> String {
        level.isFinite ? String(format: "%.1f", level) : "-inf"
    }
}
