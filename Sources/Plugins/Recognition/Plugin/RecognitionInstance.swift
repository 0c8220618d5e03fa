import Foundation
import OtonJSON
import OtonPluginKit
import PluginAPI
import RecognitionLogic
import RecognitionStore

/// One session's recognition. While a track event names the song (the stream's title or the
/// station's API), the sound is fingerprinted into the index; when the song is over (another track,
/// a new connection, the end) it is kept if it lasted ``CaptureSpan/minimumSeconds``. While nothing
/// names it, the last 12 s are looked up every 10 s and a song recognised is suggested to the host
/// (OTON_EVENT_NAME_TITLE_SUGGESTED), which shows it only while the stream has no title of its own.
///
/// `@unchecked Sendable`: every method runs on this instance's mailbox, one call at a time (the
/// kit's contract), so the state needs no lock; `host` and `config` are immutable.
final class RecognitionInstance: SwiftPluginInstance, @unchecked Sendable {
    private let host: HostHandle
    private let config: RecognitionConfig
    private let index: FingerprintIndex
    private let matcher = FingerprintMatcher()
    private let learner = Fingerprinter()
    private let looker = Fingerprinter()
    private var role = RecognitionRole.listen
    private var station: String?
    private var learning: (song: TitledSong, span: CaptureSpan)?
    private var window = ListeningWindow(rate: Fingerprinter.rate)
    private var tracker = SuggestionTracker()
    private var formatRefused = false
    private var figures = (learned: 0, looks: 0, recognised: 0)

    init(host: HostHandle, config: RecognitionConfig) throws {
        self.host = host
        self.config = config
        host.selectMediaTaps(OTON_TAP_PCM)
        guard hasField(host.table, \oton_host.select_pcm_format), let select = host.table.pointee.select_pcm_format else {
            throw PluginConfigError("this oton is older than ABI 1.3 and cannot give the recognition plugin mono sound at 11025 Hz; update oton")
        }
        var request = oton_pcm_format_request(
            struct_size: UInt32(MemoryLayout<oton_pcm_format_request>.size), sample_format: OTON_SAMPLE_S16LE,
            rate: UInt32(Fingerprinter.rate), channels: 1)
        guard select(host.table, &request) == OTON_OK else { throw PluginConfigError("the host refused mono sound at 11025 Hz") }
        let path = config.database.map(Self.expandingTilde) ?? host.dataDirectory + "/recognition.sqlite"
        do {
            index = try FingerprintIndex(path: path, maxFrames: config.maxFrames)
        } catch {
            throw PluginConfigError("cannot open the recognition index \(path): \(error); check that its folder is writable, or move the file aside")
        }
        if let track = host.current(OTON_EVENT_TRACK) { follow(track.fields) }
    }

    private static func expandingTilde(_ path: String) -> String {
        path == "~" || path.hasPrefix("~/") ? NSHomeDirectory() + path.dropFirst() : path
    }

    func receive(_ event: EventView.Snapshot) {
        if event.kind == OTON_EVENT_TRACK {
            follow(event.fields)
        } else if event.kind == OTON_EVENT_STATE, let state = event.state?.state, state == "stopped" || state == "idle" {
            finishLearning()
        }
    }

    /// A track event: what to do with the sound from now on.
    private func follow(_ fields: [String: String]) {
        let next = RecognitionRole.of(fields)
        let nextStation = fields[OTON_FIELD_STATION]
        if nextStation != station {
            forgetListening()  // withdraws a suggestion under the station it was made for
            station = nextStation
        }
        switch next {
        case let .index(song):
            if learning?.song != song {
                finishLearning()
                learning = (song, CaptureSpan(rate: Fingerprinter.rate, maximumSeconds: config.maxTrackSeconds))
                learner.start()
            }
            forgetListening()
        case .listen:
            finishLearning()
        case .pause:
            finishLearning()
            forgetListening()
        }
        role = next
    }

    func receive(media buffer: UnsafePointer<oton_media_buffer>) {
        let raw = buffer.pointee
        guard let format = raw.format, format.pointee.tap == OTON_TAP_PCM, let data = raw.data, raw.size >= 2 else { return }
        guard format.pointee.sample_format == OTON_SAMPLE_S16LE, format.pointee.rate == UInt32(Fingerprinter.rate), format.pointee.channels == 1 else {
            if !formatRefused {
                formatRefused = true
                host.log(
                    OTON_LOG_ERROR,
                    host.tr(
                        "recognition: the host sent {rate} Hz, {channels} channels instead of mono 11025 Hz; recognising nothing",
                        ["rate": String(format.pointee.rate), "channels": String(format.pointee.channels)]))
            }
            return
        }
        if raw.flags & OTON_MEDIA_FLAG_NEW_CONNECTION != 0 { forgetListening() }
        let samples = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: Int16.self), count: raw.size / 2)
        switch role {
        case .index:
            guard var current = learning else { return }
            let taken = current.span.take(samples.count)
            learning = current
            if taken > 0 { learner.feed(UnsafeBufferPointer(rebasing: samples[..<taken])) }
        case .listen:
            if window.append(samples) { look() }
        case .pause:
            break
        }
    }

    /// Looks the last 12 s up in the index and tells the host what changed.
    private func look() {
        figures.looks += 1
        let query = looker.fingerprint(window.samples)
        let found: FingerprintMatch?
        do {
            found = try matcher.match(query, in: index)
        } catch {
            host.log(OTON_LOG_WARNING, host.tr("recognition: cannot read the index: {reason}", ["reason": "\(error)"]))
            return
        }
        switch tracker.looked(found?.song) {
        case let .suggest(id)?:
            guard let song = try? index.song(id) else { return }
            figures.recognised += 1
            host.log(
                OTON_LOG_INFO,
                host.tr(
                    "recognition: probably {song} (recognised, {percent} % of bits differ)",
                    [
                        "song": [song.artist, song.title].compactMap { $0 }.joined(separator: " – "),
                        "percent": String(format: "%.0f", (found?.bitErrorRate ?? 0) * 100),
                    ]))
            suggest(song)
        case .withdraw?:
            suggest(nil)
        case nil:
            break
        }
    }

    /// Publishes a suggestion for the station heard, or its withdrawal (an empty title).
    private func suggest(_ song: TitledSong?) {
        var fields = [
            (OTON_FIELD_STATION, station ?? ""), (OTON_FIELD_TITLE, song?.title ?? ""), (OTON_FIELD_TITLE_SOURCE, RecognitionRole.recognisedSource),
        ]
        if let artist = song?.artist { fields.append((OTON_FIELD_ARTIST, artist)) }
        host.publish(OTON_EVENT_NAME_TITLE_SUGGESTED, fields)
    }

    private func forgetListening() {
        window.clear()
        if tracker.suggested != nil { suggest(nil) }
        tracker.reset()
    }

    /// Keeps the titled song fingerprinted so far, if it lasted long enough.
    private func finishLearning() {
        guard let current = learning else { return }
        learning = nil
        let frames = learner.finish()
        guard current.span.isWorthKeeping, !frames.isEmpty else { return }
        do {
            try index.add(current.song, frames: frames)
            figures.learned += 1
        } catch {
            host.log(OTON_LOG_WARNING, host.tr("recognition: cannot write the index: {reason}", ["reason": "\(error)"]))
        }
    }

    func command(_ name: String, _ arguments: [String]) -> (Bool, String) {
        let kept = (try? index.figures()) ?? (songs: 0, frames: 0)
        let values = [
            "songs": String(kept.songs), "minutes": String(kept.frames * 1365 / Fingerprinter.rate / 60), "learned": String(figures.learned),
            "looks": String(figures.looks), "recognised": String(figures.recognised),
        ]
        if arguments == ["--format", "json"] {
            var members: [String: JSONValue] = values.mapValues { JSONValue.number(Double($0) ?? 0) }
            members["database"] = .string(index.path)
            let object: JSONValue = .object(members)
            return (true, object.jsonText)
        }
        guard arguments.isEmpty else { return (false, host.tr("usage: recognition [--format json]")) }
        return (
            true,
            host.tr(
                "{songs} songs in the index ({minutes} min of sound); this session learned {learned}, looked {looks} times, recognised {recognised}",
                values)
        )
    }

    func shutdown() { finishLearning() }
}
