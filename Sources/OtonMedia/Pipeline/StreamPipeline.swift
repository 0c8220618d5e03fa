import CGStreamer
import Foundation
import OtonEvents
import OtonHTTPSource
import OtonSupport
import PluginAPI

/// One GStreamer pipeline for one connection:
///
///     souphttpsrc | filesrc → decodebin → [queue2] → audioconvert → audioresample → [tee → pcm tap]
///         → [audioconvert → F32 → effects] → [audioconvert → F32 → leveller] → volume → [audioconvert] → autoaudiosink | fakesink
///
/// with the encoded-stream tap as a buffer probe (after icydemux when the
/// stream carries ICY metadata; for HLS, whose source delivers the playlist,
/// after the audio parser that follows the HLS and TS demuxers) and the PCM tap as a tee branch ending in an
/// appsink, each only when a plugin asked for it. Bus messages become
/// PipelineEvents on the GLib main-loop thread. Tags are read from the tag
/// events leaving the source and the decoder, so a new title is reported as
/// soon as it is decoded rather than after the buffer. The leveller (docs/levelling.md), when the
/// description asks for one and the sound is heard, is a probe on the volume element's sink pad:
/// after the PCM tap (plugins and WAV files keep the stream's level), before the listener's volume.
/// A reconnect builds a new one.
/// Concurrency: the lets are immutable after init; `autoSink`, `watch` and `stopped` are guarded by `lock`;
/// GStreamer objects are thread-safe by their own refcounts and locks.
public final class StreamPipeline: @unchecked Sendable {
    public let description: PipelineDescription
    public let connection: UInt64
    private let context: PipelineContext
    let pipeline: UnsafeMutablePointer<GstElement>
    /// nil when the stream is only parsed (nothing is heard, so there is nothing to turn down).
    private let volume: UnsafeMutablePointer<GstElement>?
    /// nil when nothing is heard or levelling was not asked for.
    let leveller: Leveller?
    /// nil when nothing is heard or no effect was asked for (docs/effects.md).
    private let effects: EffectChain?
    /// autoaudiosink, when it chose the output (nil: headless, recording, or --audio-sink).
    var autoSink: UnsafeMutablePointer<GstElement>?
    private var watch: OpaquePointer?
    let lock = NSLock()
    var stopped = false
    /// Fades asked for so far (guarded by `lock`): a fade-out's end acts only if none came after it.
    var fades = 0

    /// Builds the pipeline (state NULL). `onEvent` is called on the GLib thread. With a `feeder`
    /// the source is an appsrc it fills from a timeshift ring, and `heard` gets the ring offsets
    /// its marks carry as they reach the volume element (on the streaming thread).
    init(
        _ description: PipelineDescription, connection: UInt64, bus: PluginBus,
        feeder: TimeshiftFeeder?, heard: (@Sendable (UInt64) -> Void)? = nil,
        onEvent: @escaping @Sendable (PipelineEvent) -> Void
    ) throws(PipelineBuildError) {
        _ = GLibMainLoop.shared
        self.description = description
        self.connection = connection
        let taps = MediaTapSource(bus: bus, connection: connection)
        guard let pipeline = gst_pipeline_new("oton") else { throw .missing("pipeline", package: "libgstreamer1.0-0") }
        self.pipeline = pipeline
        let builder = ElementBuilder(bin: pipeline)

        if description.isHLS, !Self.hasElement(AdaptiveDemuxerChoice.requiredHLS) {
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
            throw .missing(AdaptiveDemuxerChoice.requiredHLS, package: AdaptiveDemuxerChoice.package)
        }
        if description.isDASH, !Self.hasElement(AdaptiveDemuxerChoice.requiredDASH) {
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
            throw .missing(AdaptiveDemuxerChoice.requiredDASH, package: AdaptiveDemuxerChoice.package)
        }
        let source: UnsafeMutablePointer<GstElement>
        if let feeder {
            source = try builder.make("appsrc", "source", package: "gstreamer1.0-plugins-base")
            feeder.attach(to: source)
        } else {
            switch description.source {
            case let .http(url):
                // Its User-Agent and certificate authorities come from the pipeline's identity, as for
                // every source GStreamer makes below it (RequestIdentity, applied before it starts).
                source = try builder.make(RequestIdentity.sourceFactory, "source", package: "gstreamer1.0-plugins-good")
                otgst_set_string(source, "location", url)
                otgst_set_bool(source, "iradio-mode", description.isAdaptive ? 0 : 1)
                otgst_set_uint(source, "timeout", guint(PipelineDescription.sourceTimeoutSeconds))
                if description.isHLS, let body = description.playlistBody {
                    _ = body.withUnsafeBytes { oton_http_source_preload(source, $0.bindMemory(to: guint8.self).baseAddress, gsize($0.count)) }
                }
            case let .file(path):
                source = try builder.make("filesrc", "source", package: "libgstreamer1.0-0")
                otgst_set_string(source, "location", path)
            case .tone:
                // The alarm that needs no network: 880 Hz beeps of 250 ms, two a second, ramped in and out
                // (no click), at 0.7 of full scale — about −6 dBFS while a beep sounds, a broadcast's level.
                // (The default ticks were 14 ms at −21 dBFS: a faint clicking nobody wakes to.)
                source = try builder.make("audiotestsrc", "source", package: "gstreamer1.0-plugins-base")
                otgst_set_bool(source, "is-live", 1)
                gst_util_set_object_arg(UnsafeMutableRawPointer(source).assumingMemoryBound(to: GObject.self), "wave", "ticks")  // GstAudioTestSrcWave by nick
                otgst_set_double(source, "freq", PipelineDescription.Tone.frequency)
                otgst_set_uint64(source, "tick-interval", guint64(PipelineDescription.Tone.periodNanoseconds))
                otgst_set_uint(source, "sine-periods-per-tick", guint(PipelineDescription.Tone.sinePeriodsPerBeep))
                otgst_set_bool(source, "apply-tick-ramp", 1)
                otgst_set_double(source, "volume", PipelineDescription.Tone.amplitude)
            }
        }
        // What the decoder reads: the source, or for DASH the source typed as a manifest.
        var feed = source
        if description.isDASH {
            feed = try builder.make("capsfilter", "manifest-type", package: "libgstreamer1.0-0")
            let caps = gst_caps_from_string("application/dash+xml")
            otgst_set_caps(feed, "caps", caps)
            otgst_caps_unref(caps)
            try builder.link(source, feed)
        }
        if !description.decodes && description.taps & OTON_TAP_PCM == 0 {
            // Parse only: source → parsebin → a fakesink per elementary stream, no audio path.
            let parse = try builder.make("parsebin", "parse", package: "gstreamer1.0-plugins-base")
            try builder.link(feed, parse)
            volume = nil
            leveller = nil
            effects = nil
            context = PipelineContext(onEvent: onEvent, decoded: parse, taps: taps, pipeline: pipeline, startsOnFirstBuffer: true)
            context.titleEncoding = description.titleEncoding
            if description.isLive, !description.isAdaptive, feeder == nil { context.httpSource = source }
            PipelineCallbacks.connectParser(parse, context: context)
            watch = Self.watch(source: source, output: nil, decoder: parse, pipeline: pipeline, description: description, context: context)
            return
        }
        let decode = try builder.make("decodebin", "decode", package: "gstreamer1.0-plugins-base")
        let convert = try builder.make("audioconvert", "convert", package: "gstreamer1.0-plugins-base")
        let resample = try builder.make("audioresample", "resample", package: "gstreamer1.0-plugins-base")
        let volume = try builder.make("volume", "volume", package: "gstreamer1.0-plugins-base")
        otgst_set_double(volume, "volume", OutputVolume.gain(of: description.volume))
        self.volume = volume
        if let heard {
            let box = Unmanaged.passRetained(HeardBox(heard)).toOpaque()
            otgst_watch_ring_marks(
                volume,
                { offset, data in
                    guard let data else { return 0 }
                    Unmanaged<HeardBox>.fromOpaque(data).takeUnretainedValue().heard(UInt64(offset))
                    return 1
                }, box, { data in if let data { Unmanaged<HeardBox>.fromOpaque(data).release() } })
        }
        // Decoding although nobody listens (a recording that asked for the PCM tap): no sound, no
        // clock, and no network buffer to wait for: buffering pauses would only hold the recording up.
        let listened = description.decodes
        let sink: UnsafeMutablePointer<GstElement>
        if !listened {
            sink = try builder.make("fakesink", "sink", package: "libgstreamer1.0-0")
            otgst_set_bool(sink, "sync", 0)
            otgst_set_bool(sink, "async", 0)
        } else if description.headless {
            sink = try builder.make("fakesink", "sink", package: "libgstreamer1.0-0")
            otgst_set_bool(sink, "sync", 1)  // real time without a sound device
        } else if let chosen = description.audioSink {
            sink = try builder.make(chosen, "sink", package: "the GStreamer plugin that provides \(chosen)")
            // Every sink keeps time: fakesink does not by default, and played as fast as it could
            // (the network buffer flipped between buffering and playing four times a second).
            if otgst_has_property(sink, "sync") != 0 { otgst_set_bool(sink, "sync", 1) }
        } else {
            sink = try builder.make("autoaudiosink", "sink", package: "gstreamer1.0-plugins-good")
            autoSink = sink
        }
        otgst_bound_tags_into(sink)  // a title of 68 KB made PulseAudio drop the sink's connection

        try builder.link(feed, decode)
        // decodebin's pads link to `decoded`: a buffer of decoded audio for live streams
        // (BUFFERING messages come from it), else straight to the converter.
        var decoded = convert
        if description.isLive && listened {
            let buffer = try builder.make("queue2", "network-buffer", package: "libgstreamer1.0-0")
            otgst_set_bool(buffer, "use-buffering", 1)
            otgst_set_uint(buffer, "max-size-buffers", 0)
            otgst_set_uint(buffer, "max-size-bytes", 0)
            otgst_set_uint64(buffer, "max-size-time", guint64(description.networkBufferMilliseconds) * 1_000_000)
            try builder.link(buffer, convert)
            decoded = buffer
        }
        try builder.link(convert, resample)
        // What feeds the volume: the volume itself, or the leveller's float conversion before it.
        let levelled = listened ? description.levelling.flatMap(Leveller.init) : nil
        leveller = levelled
        var output = volume
        if let levelled {
            output = try Self.level(into: volume, sink: sink, with: levelled, builder: builder)
        } else {
            try builder.link(volume, sink)
        }
        // The effects: after the PCM tap (plugins and WAV files keep the stream's own sound), before
        // the leveller (it levels what the effects made) and the volume.
        let chain =
            listened && !(description.effects.isEmpty && description.filters.isEmpty)
            ? EffectChain(effects: description.effects, filters: description.filters) : nil
        if let chain, !chain.isEmpty { output = try chain.build(before: output, builder: builder) }
        effects = chain
        if description.taps & OTON_TAP_PCM != 0 {
            // The tap sits before the volume element: plugins see the stream's level, not the listener's.
            let tee = try builder.make("tee", "pcm-tee", package: "libgstreamer1.0-0")
            let audioQueue = try builder.make("queue", "audio-queue", package: "libgstreamer1.0-0")
            try builder.link(resample, tee)
            try builder.link(tee, audioQueue)
            try builder.link(audioQueue, output)
            // One branch per distinct format the instances chose: converted once, however many share it.
            let formats = description.pcmFormats.isEmpty ? [PCMFormatChoice.standard] : description.pcmFormats
            for (index, choice) in formats.enumerated() {
                let tapQueue = try builder.make("queue", "pcm-queue-\(index)", package: "libgstreamer1.0-0")
                let tapConvert = try builder.make("audioconvert", "pcm-convert-\(index)", package: "gstreamer1.0-plugins-base")
                let tapResample = try builder.make("audioresample", "pcm-resample-\(index)", package: "gstreamer1.0-plugins-base")
                let tapFilter = try builder.make("capsfilter", "pcm-format-\(index)", package: "libgstreamer1.0-0")
                let tapSink = try builder.make("appsink", "pcm-sink-\(index)", package: "gstreamer1.0-plugins-base")
                let caps = gst_caps_from_string(choice.caps)
                otgst_set_caps(tapFilter, "caps", caps)
                otgst_caps_unref(caps)
                otgst_set_bool(tapSink, "sync", 0)
                // Nor does it hold a pause up: PLAYING → PAUSED waits for every sink to preroll, and this
                // one, having taken every buffer at once, would wait for a buffer the tee cannot send while
                // the audio branch is full and its sink prerolled: the pause never completed, nor the
                // PLAYING asked after it (a timeshift pause, or a buffering pause).
                otgst_set_bool(tapSink, "async", 0)
                for (from, to) in [
                    (tee, tapQueue), (tapQueue, tapConvert), (tapConvert, tapResample),
                    (tapResample, tapFilter), (tapFilter, tapSink),
                ] {
                    try builder.link(from, to)
                }
                PipelineCallbacks.connectPCM(otgst_app_sink(tapSink), taps: taps, choice: choice)
            }
        } else {
            try builder.link(resample, output)
        }

        context = PipelineContext(onEvent: onEvent, decoded: decoded, taps: taps, pipeline: pipeline, startsOnFirstBuffer: !listened)
        context.titleEncoding = description.titleEncoding
        if description.isLive, !description.isAdaptive, feeder == nil { context.httpSource = source }
        if listened {
            otgst_play_first_buffer_at_once(convert)
        } else {
            PipelineCallbacks.reportStartOnFirstBuffer(into: convert, context: context)
        }
        PipelineCallbacks.connectDecoder(decode, context: context)
        watch = Self.watch(source: source, output: sink, decoder: decode, pipeline: pipeline, description: description, context: context)
    }

    /// The leveller's stretch: audioconvert → capsfilter (F32LE interleaved, what the leveller works
    /// in) → volume (the probe on its sink pad) → audioconvert (whatever the sink takes) → sink.
    /// Returns the element the audio enters it at.
    private static func level(
        into volume: UnsafeMutablePointer<GstElement>, sink: UnsafeMutablePointer<GstElement>,
        with leveller: Leveller, builder: ElementBuilder
    ) throws(PipelineBuildError) -> UnsafeMutablePointer<GstElement> {
        let toFloat = try builder.make("audioconvert", "level-convert", package: "gstreamer1.0-plugins-base")
        let format = try builder.make("capsfilter", "level-format", package: "libgstreamer1.0-0")
        let caps = gst_caps_from_string("audio/x-raw,format=F32LE,layout=interleaved")
        otgst_set_caps(format, "caps", caps)
        otgst_caps_unref(caps)
        let toSink = try builder.make("audioconvert", "output-convert", package: "gstreamer1.0-plugins-base")
        for (from, to) in [(toFloat, format), (format, volume), (volume, toSink), (toSink, sink)] { try builder.link(from, to) }
        leveller.attach(before: volume)
        return toFloat
    }

    /// What both pipelines (playing and record-only) watch: the bytes flowing, the stream's tags and
    /// empty ICY titles, the stream tap when a plugin asked for it, and the bus. Returns the bus watch.
    private static func watch(
        source: UnsafeMutablePointer<GstElement>, output: UnsafeMutablePointer<GstElement>?,
        decoder: UnsafeMutablePointer<GstElement>, pipeline: UnsafeMutablePointer<GstElement>,
        description: PipelineDescription, context: PipelineContext
    ) -> OpaquePointer {
        PipelineCallbacks.countFlow(source: source, output: output, context: context)
        PipelineCallbacks.watchTags(on: source, context: context)
        PipelineCallbacks.watchEmptyIcyTitles(in: decoder, context: context)
        RequestIdentity.apply(to: pipeline, description: description)
        if description.isAdaptive {
            let manifest: String? = if description.isDASH, case let .http(url) = description.source { url } else { nil }
            HLSSegmentTagFilter.apply(below: decoder, context: context, manifestURL: manifest)
        }
        if description.taps & OTON_TAP_STREAM != 0 {
            PipelineCallbacks.connectStreamTap(source: source, decoder: decoder, context: context, afterParser: description.isAdaptive)
        }
        return watchBus(of: pipeline, context: context)
    }

    private static func watchBus(of pipeline: UnsafeMutablePointer<GstElement>, context: PipelineContext) -> OpaquePointer {
        let bus = gst_pipeline_get_bus(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstPipeline.self))!
        defer { gst_object_unref(bus) }
        return GLibMainLoop.shared.watch(bus, handler: PipelineCallbacks.busHandler, data: Unmanaged.passRetained(context).toOpaque())
    }

    /// Builds the pipeline (state NULL). `onEvent` is called on the GLib thread.
    public convenience init(
        _ description: PipelineDescription, connection: UInt64, bus: PluginBus,
        onEvent: @escaping @Sendable (PipelineEvent) -> Void
    ) throws(PipelineBuildError) {
        try self.init(description, connection: connection, bus: bus, feeder: nil, onEvent: onEvent)
    }

    deinit {
        stop()
        gst_object_unref(pipeline)
    }

    /// Whether autoaudiosink found no device it could open and fell back to its silent fake sink
    /// (meaningful once the pipeline started).
    public var playsSilently: Bool {
        guard let autoSink, let fake = gst_bin_get_by_name(otgst_bin(autoSink), "fake-audio-sink") else { return false }
        gst_object_unref(UnsafeMutableRawPointer(fake))
        return true
    }

    /// Whether this GStreamer has an element factory of that name (for `--audio-sink`).
    public static func hasElement(_ name: String) -> Bool {
        _ = GLibMainLoop.shared
        guard let factory = gst_element_factory_find(name) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(factory))
        return true
    }

    /// What has flowed so far (read from any thread).
    public var flow: PipelineFlow { context.flow }

    /// Starts the connection (asynchronously: `.started` or `.error` follow).
    public func start() {
        context.states.request(GST_STATE_PLAYING)
    }

    /// PAUSED while a buffer refills, PLAYING again after (once a state change under way is done:
    /// see ``PipelineStateRequests``).
    public func setPlaying(_ playing: Bool) {
        context.states.request(playing ? GST_STATE_PLAYING : GST_STATE_PAUSED)
    }

    public func setVolume(_ value: Double) {
        if let volume { otgst_set_double(volume, "volume", OutputVolume.gain(of: value)) }
    }

    /// What the leveller does now; nil when this connection has none.
    public var levelling: LevellingReading? { leveller?.reading }

    /// Turns the leveller on or off (the gain ramps over one buffer; the limiter's delay stays).
    public func setLevelling(enabled: Bool) {
        leveller?.setEnabled(enabled)
    }

    /// Sets the effects' parameters and bypasses (matched by name) without a gap; the chain's shape stays.
    public func setEffects(_ settings: [EffectSettings]) {
        effects?.apply(settings)
    }

    /// What each effect of this connection does now (empty: none runs).
    public var effectReadings: [EffectReading] { effects?.readings ?? [] }

    /// How long stop() waits for the streaming threads to end.
    public static let stopTimeout: DispatchTimeInterval = .seconds(2)

    /// Drops the connection. Afterwards no event and no media is reported. Safe to call twice.
    /// Returns false when a streaming thread did not end within ``stopTimeout`` (a source blocked
    /// in a read that cannot be interrupted, such as a FIFO whose writer went quiet): the pipeline
    /// is then left to finish stopping on its own thread, and the caller goes on.
    @discardableResult
    public func stop() -> Bool {
        lock.lock()
        let alreadyStopped = stopped
        stopped = true
        lock.unlock()
        guard !alreadyStopped else { return true }
        context.states.close()
        context.silence()
        if let watch { GLibMainLoop.shared.remove(watch) }
        watch = nil
        let done = DispatchSemaphore(value: 0)
        // The stopping thread's own reference, in case it outlives this object (an address: Sendable).
        let held = UInt(bitPattern: gst_object_ref(UnsafeMutableRawPointer(pipeline)))
        let stopper = Thread {
            guard let raw = UnsafeMutableRawPointer(bitPattern: held) else { done.signal(); return }
            _ = gst_element_set_state(raw.assumingMemoryBound(to: GstElement.self), GST_STATE_NULL)
            gst_object_unref(raw)
            done.signal()
        }
        stopper.name = "oton.pipeline.stop"
        stopper.start()
        return done.wait(timeout: .now() + Self.stopTimeout) == .success
    }
}

/// The timeshift marks' receiver, kept alive by the probe that calls it.
private final class HeardBox: Sendable {
    let heard: @Sendable (UInt64) -> Void
    init(_ heard: @escaping @Sendable (UInt64) -> Void) { self.heard = heard }
}

/// Creates elements inside a bin and links them, with errors that say what to install.
struct ElementBuilder {
    let bin: UnsafeMutablePointer<GstElement>

    func make(_ factory: String, _ name: String, package: String) throws(PipelineBuildError) -> UnsafeMutablePointer<GstElement> {
        guard let element = gst_element_factory_make(factory, name) else { throw .missing(factory, package: package) }
        _ = gst_bin_add(otgst_bin(bin), element)
        return element
    }

    func link(_ from: UnsafeMutablePointer<GstElement>, _ to: UnsafeMutablePointer<GstElement>) throws(PipelineBuildError) {
        guard gst_element_link(from, to) != 0 else {
            throw .link(String(cString: otgst_object_name(otgst_object(from))), String(cString: otgst_object_name(otgst_object(to))))
        }
    }
}
