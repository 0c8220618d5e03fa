import CCurl
import Foundation
import OtonEvents
import OtonHTTP
import OtonSupport
import PluginAPI

/// One connection of the light engine: an HTTP(S) GET on the shared ``CurlStreamDriver``, the ICY
/// metadata cut out (``IcyDemuxer``), the codec named from the first bytes (``StreamSniffer``),
/// the encoded bytes on the stream tap (``MediaTapSource``, as GStreamer's engine publishes them)
/// and the titles as tags for the Player, which puts them through the same TrackAccumulator.
///
/// Threads: curl's callbacks and `attach`/`detach`/`finished` run on the driver thread, which alone
/// touches the curl handle and the parsing state; `lock` guards `stopped` and `started`.
package final class LightStream: StreamEngine, @unchecked Sendable {
    package let description: PipelineDescription
    package let flow = PipelineFlow()
    package var playsSilently: Bool { false }
    package var kind: EngineKind { .light }

    private let onEvent: @Sendable (PipelineEvent) -> Void
    /// Its stream tap (a timeshift connection publishes the bytes from it as they are heard).
    package let taps: MediaTapSource
    private let wantsStreamTap: Bool
    private let lock = NSLock()
    private var stopped = false

    // Driver thread only:
    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// curl writes its error text here; allocated once, freed in deinit.
    private let errorBuffer: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        return buffer
    }()
    private var headers = LightResponseHeaders()
    /// The response's `icy-metaint` (ICY titles follow every so many bytes); nil without one. On the driver thread.
    package var icyInterval: Int? { headers.metaint }
    private var demuxer: IcyDemuxer?
    /// A SHOUTcast v1 answer's header block, read off the body (nil once decided).
    private var preamble: IcyPreamble? = IcyPreamble()
    private var sniffer: StreamSniffer?
    private var sniffed: StreamSniffer.Kind?
    /// For Ogg streams: the titles are in the stream itself, one comment header per chained track.
    private var oggTags: OggTagWatcher?
    /// Body bytes (metadata removed) held while the sniffer decides; `heldStart` counts those dropped in front.
    private var held: [UInt8] = []
    private var heldStart = 0
    /// The transfer was ended on purpose (unsupported or not audio): its curl error is not news.
    private var abandoned = false
    package private(set) var isReceiving = false
    /// How fast this connection may be read (LightStream+Holding.swift).
    var flood = FloodGuard(now: 0)
    /// Held by the flood guard until it may be read again; held by the driver while others connect.
    var heldByFlood = false
    var heldByDriver = false
    /// What curl was last told (or the write callback returned): reading is paused.
    var holding = false
    private var retained: Unmanaged<LightStream>?

    /// The audio bytes as they arrive, on the driver thread, in order with the titles reported
    /// (a timeshift ring keeps them: docs/timeshift.md).
    private let onAudio: (@Sendable (UnsafeRawBufferPointer) -> Void)?

    /// Runs work on the player's queue, after the events reported before it.
    private let inOrder: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// `onEvent` and `inOrder` run on the player's queue: media is published there too, so a
    /// title reported before some bytes reaches the plugins before those bytes, as a recorder
    /// needs to name the file its bytes go into (GStreamer's engine reads titles before audio).
    package init(
        _ description: PipelineDescription, connection: UInt64, bus: PluginBus, onEvent: @escaping @Sendable (PipelineEvent) -> Void,
        inOrder: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
        onAudio: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil
    ) {
        self.description = description
        self.onEvent = onEvent
        self.onAudio = onAudio
        self.inOrder = inOrder
        taps = MediaTapSource(bus: bus, connection: connection)
        wantsStreamTap = description.taps & OTON_TAP_STREAM != 0
    }

    deinit { errorBuffer.deallocate() }

    package static func from(_ easy: UnsafeMutableRawPointer) -> LightStream? {
        guard let pointer = oton_curl_private(easy) else { return nil }
        return Unmanaged<LightStream>.fromOpaque(pointer).takeUnretainedValue()
    }

    package func start() {
        CurlStreamDriver.shared.add(self)
    }

    package func setPlaying(_ playing: Bool) {}
    package func setVolume(_ value: Double) {}

    @discardableResult
    package func stop() -> Bool {
        lock.lock()
        let already = stopped
        stopped = true
        lock.unlock()
        guard !already else { return true }
        taps.silence()
        return CurlStreamDriver.shared.remove(self, timeout: StreamPipeline.stopTimeout)
    }

    private var isStopped: Bool {
        lock.lock(); defer { lock.unlock() }
        return stopped
    }

    func report(_ event: PipelineEvent) {
        if !isStopped { onEvent(event) }
    }

    // MARK: driver thread

    /// Makes the curl handle and adds it to `multi`; false when stopped before it began.
    package func attach(to multi: UnsafeMutableRawPointer) -> Bool {
        guard !isStopped, let curl = curl_easy_init() else { return false }
        easy = curl
        flood = FloodGuard(now: Clock.monotonicNanoseconds())
        let this = Unmanaged.passRetained(self)
        retained = this
        let context = this.toOpaque()
        oton_curl_set_string(curl, CURLOPT_URL, description.url)
        oton_curl_set_pointer(curl, CURLOPT_PRIVATE, context)
        oton_curl_set_pointer(curl, CURLOPT_ERRORBUFFER, errorBuffer)
        CurlSecurity.apply(to: curl)
        oton_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 1)
        oton_curl_set_long(curl, CURLOPT_MAXREDIRS, Self.maxRedirects)
        oton_curl_set_long(curl, CURLOPT_FAILONERROR, 1)
        oton_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT, PipelineDescription.sourceTimeoutSeconds)
        // A server silent this long ends the connection, as souphttpsrc's timeout does.
        oton_curl_set_long(curl, CURLOPT_LOW_SPEED_LIMIT, 1)
        oton_curl_set_long(curl, CURLOPT_LOW_SPEED_TIME, PipelineDescription.sourceTimeoutSeconds)
        oton_curl_set_string(curl, CURLOPT_USERAGENT, description.userAgent)
        // Shoutcast v1 servers answer "ICY 200 OK" (curl reads it as HTTP/1.0 only when told to).
        oton_curl_set_long(curl, CURLOPT_HTTP09_ALLOWED, 1)
        headerList = curl_slist_append(nil, "Icy-MetaData: 1")
        oton_curl_set_pointer(curl, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))
        oton_curl_set_write_function(curl) { data, size, count, user in
            guard let user else { return 0 }
            let bytes = size * count
            let stream = Unmanaged<LightStream>.fromOpaque(user).takeUnretainedValue()
            if stream.holdsBack(bytes) { return oton_curl_write_pause() }  // handed over again once resumed
            return stream.received(UnsafeRawBufferPointer(start: data, count: bytes)) ? bytes : 0
        }
        oton_curl_set_pointer(curl, CURLOPT_WRITEDATA, context)
        oton_curl_set_header_function(curl) { data, size, count, user in
            guard let user, let data else { return 0 }
            let bytes = size * count
            Unmanaged<LightStream>.fromOpaque(user).takeUnretainedValue().headers.add(UnsafeRawBufferPointer(start: data, count: bytes))
            return bytes
        }
        oton_curl_set_pointer(curl, CURLOPT_HEADERDATA, context)
        curl_multi_add_handle(multi, curl)
        return true
    }

    /// Removes the handle from `multi` and frees it.
    package func detach(from multi: UnsafeMutableRawPointer) {
        guard let curl = easy else { return }
        curl_multi_remove_handle(multi, curl)
        curl_easy_cleanup(curl)
        easy = nil
        curl_slist_free_all(headerList)
        headerList = nil
        retained?.release()
        retained = nil
    }

    package static let maxRedirects = 5

    /// The transfer ended: the server closed the stream (OK) or curl says why it failed.
    /// `osErrno`: the system's error behind a failed connect or read (CURLINFO_OS_ERRNO).
    package func finished(_ code: CURLcode, osErrno: Int32 = 0) {
        guard !abandoned else { return }
        if code == CURLE_OK {
            // curl ends a body shorter than its Content-Length with an error: OK with a length is the whole programme.
            let whole = headers.contentLength.map { $0 > 0 && flow.sourceBytes >= $0 } ?? false
            report(whole ? .programmeEnded : .endOfStream)
            return
        }
        let detail = String(cString: errorBuffer)
        let words = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        report(
            .failure(
                LightFailure.kind(code, httpStatus: headers.status, maxRedirects: Self.maxRedirects, osErrno: osErrno),
                detail: words))
    }

    /// A piece of the body; false ends the transfer.
    private func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !isStopped else { return false }
        flow.addSourceBytes(bytes.count)
        // No HTTP status line came: curl read the answer as HTTP/0.9, which a SHOUTcast v1 `ICY 200 OK` is.
        if headers.status == nil, var reading = preamble {
            let step = reading.push(bytes)
            preamble = reading
            switch step {
            case .needMore:
                return true
            case let .headers(lines, body):
                preamble = nil
                for line in lines { line.withUnsafeBytes { headers.add($0) } }
                return body.isEmpty || body.withUnsafeBytes { receivedBody($0) }
            case let .body(held):
                preamble = nil
                return held.withUnsafeBytes { receivedBody($0) }
            }
        }
        preamble = nil
        return receivedBody(bytes)
    }

    /// The body after any SHOUTcast header block: ICY metadata cut out, the rest sniffed and published.
    private func receivedBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // A compressed body would be sniffed for audio frames that are not there (a false MPEG sync
        // in gzip bytes recorded nothing, silently): refused, saying why (issue 39, N10).
        if demuxer == nil, let encoding = headers.contentEncoding, !encoding.isEmpty, encoding != "identity" {
            abandoned = true
            report(
                .failure(
                    .streamUnavailable(reason: .unsupportedFormat),
                    detail: "the server compressed the stream (Content-Encoding: \(encoding.prefix(40))); a radio stream is sent uncompressed"))
            return false
        }
        if demuxer == nil {
            isReceiving = true
            demuxer = IcyDemuxer(interval: headers.metaint)
            sniffer = StreamSniffer(contentType: headers.contentType)
        }
        var keepGoing = true
        // Audio between metadata blocks is published as one packet per piece curl hands over, not one
        // per range (ICY metadata every byte would otherwise make a packet of every byte).
        var ranges: [Range<Int>] = []
        func flush() {
            guard !ranges.isEmpty else { return }
            if ranges.count == 1 {
                publish(UnsafeRawBufferPointer(rebasing: bytes[ranges[0]]))
            } else {
                var joined: [UInt8] = []
                joined.reserveCapacity(ranges.reduce(0) { $0 + $1.count })
                for range in ranges { joined.append(contentsOf: bytes[range]) }
                joined.withUnsafeBytes { publish($0) }
            }
            ranges.removeAll()
        }
        demuxer!.push(bytes) { output in
            guard keepGoing else { return }
            switch output {
            case let .audio(range):
                if sniffed != nil {
                    ranges.append(range)
                } else {
                    keepGoing = audio(UnsafeRawBufferPointer(rebasing: bytes[range]))
                }
            case let .metadata(block):
                flush()
                metadata(block)
            }
        }
        if keepGoing { flush() }
        if let held = heldTags, titleMayFollow(now: Clock.monotonicNanoseconds()) { reportTitle(held) }
        return keepGoing
    }

    private func audio(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if sniffed != nil {
            publish(bytes)
            return true
        }
        held.append(contentsOf: bytes)
        let verdict = sniffer!.push(bytes)
        switch verdict {
        case .undecided:
            // The sniffer has passed over a leading ID3 tag: those bytes are not kept.
            let drop = min(sniffer!.skippedBytes - heldStart, held.count)
            if drop > 0 {
                held.removeFirst(drop)
                heldStart += drop
            }
            return true
        case let .audio(kind, skip):
            sniffed = kind
            // Only MPEG audio and ADTS declare a rate the flood cap is cut to: an Ogg or FLAC station's
            // icy-br is all it says, and a lossless one that understates it would be held below its rate.
            if kind.caps.hasPrefix("audio/mpeg") { flood.declare(bitsPerSecond: max(headers.bitrate ?? 0, kind.bitrate ?? 0)) }
            if kind.caps.hasPrefix("audio/ogg") { oggTags = OggTagWatcher() }
            taps.setStreamCaps(kind.caps)
            var tags = TagSet(origin: .stream, codec: kind.codec)
            tags.bitrate = kind.bitrate
            tags.nominalBitrate = headers.bitrate
            tags.station = headers.name.map { TitleByteDecoder.decode($0, setting: description.titleEncoding).text }
            tags.genre = headers.genre.map { TitleByteDecoder.decode($0, setting: description.titleEncoding).text }
            report(.tags(tags, monotonicNanoseconds: Clock.monotonicNanoseconds()))
            report(.started)
            let start = min(max(skip - heldStart, 0), held.count)
            let audio = held[start...]
            held = []
            audio.withUnsafeBytes { publish($0) }
            return true
        case let .unsupported(reason):
            abandoned = true
            report(.needsPipeline(reason: reason))
            return false
        case let .notAudio(type):
            abandoned = true
            report(.failure(.streamUnavailable(reason: .notAudio), detail: "the server sent \(type), not audio"))
            return false
        }
    }

    private func publish(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        // Every new track names itself; a chain link without a title is a track with none. Chain links
        // are held to the titles' rate (issue 39, N1: a new link every few KB made 98,511 tracks in
        // 120 s and grew the recorder's memory without bound).
        func named(_ found: OggTagWatcher.Tags) -> TagSet {
            TagSet(origin: .stream, title: found.title ?? "", artist: found.artist, station: found.organization)
        }
        if let onAudio {
            // Into a ring: each title between the bytes before its chain and the chain's own, so it is
            // heard where its song begins (a burst brings several at once).
            var done = 0
            for found in oggTags?.pushLocated(bytes) ?? [] {
                let upTo = min(max(found.at, done), bytes.count)
                passed(UnsafeRawBufferPointer(rebasing: bytes[done..<upTo]), to: onAudio)
                done = upTo
                offer(named(found.tags))
            }
            passed(UnsafeRawBufferPointer(rebasing: bytes[done...]), to: onAudio)
        } else {
            if audioSinceTitle < Int.max - bytes.count { audioSinceTitle += bytes.count }
            for found in oggTags?.push(bytes) ?? [] { offer(named(found)) }
        }
        if wantsStreamTap, let packet = taps.streamPacket(bytes: bytes) {
            let taps = self.taps
            inOrder { taps.publish(packet) }
        }
        flow.addOutputBuffer()
    }

    /// Audio into the ring, counted towards the next title's spacing.
    private func passed(_ bytes: UnsafeRawBufferPointer, to onAudio: @Sendable (UnsafeRawBufferPointer) -> Void) {
        guard bytes.count > 0 else { return }
        if audioSinceTitle < Int.max - bytes.count { audioSinceTitle += bytes.count }
        onAudio(bytes)
    }

    /// A title (ICY or an Ogg chain link) reaches the player when 200 ms or 16 KiB of audio have passed
    /// since the last one; a server that names a new title every few bytes has the last one of each
    /// stretch reported.
    /// Real stations change titles in minutes, and a flood (titles every few seconds of audio,
    /// arriving at once) still has every title reported.
    package static let titleInterval: Int64 = 200_000_000
    package static let titleBytes = 16 * 1024
    /// Into a timeshift ring every title is noted at its byte, whenever it arrived (a server's burst
    /// brings a low-bitrate station's minutes at once: at 6 kbit/s Icecast's 64 KB are 85 s, several
    /// songs, and all but the last were dropped); only a flood, a title in less than 1 KiB of audio
    /// after the last, is held (the latest wins).
    package static let ringTitleBytes = 1024
    private var lastTitleReport: Int64 = 0
    private var audioSinceTitle = Int.max
    private var heldTags: TagSet?

    private func metadata(_ block: [UInt8]) {
        guard let title = IcyMetadata(block: block).title else { return }
        offer(TagSet(origin: .stream, title: TitleByteDecoder.decode(title, setting: description.titleEncoding).text))
    }

    /// Reports a title now, or holds it (the latest wins) until the rate allows.
    private func offer(_ tags: TagSet) {
        if titleMayFollow(now: Clock.monotonicNanoseconds()) {
            reportTitle(tags)
        } else {
            heldTags = tags
        }
    }

    /// Whether a title may be reported now (see ``titleInterval`` and ``ringTitleBytes``).
    private func titleMayFollow(now: Int64) -> Bool {
        if onAudio != nil { return audioSinceTitle >= Self.ringTitleBytes }
        return audioSinceTitle >= Self.titleBytes || now - lastTitleReport >= Self.titleInterval
    }

    private func reportTitle(_ tags: TagSet) {
        heldTags = nil
        audioSinceTitle = 0
        lastTitleReport = Clock.monotonicNanoseconds()
        report(.tags(tags, monotonicNanoseconds: lastTitleReport))
    }
}
