import CGStreamer
import Foundation
import OtonEvents
import OtonSupport

/// What the C callbacks of one pipeline reach. Each registration (bus watch,
/// signal, probe, appsink callbacks) holds a reference and releases it in its
/// destroy notify, so no callback can outlive it.
/// Concurrency: the lets are immutable after init; `titleEncoding` is set before the pipeline starts and
/// only read after; `silenced` and `started` are guarded by `lock` (streaming threads and the GLib loop both reach them).
package final class PipelineContext: @unchecked Sendable {
    package let onEvent: @Sendable (PipelineEvent) -> Void
    /// Where decodebin's audio pads are linked.
    package let decoded: UnsafeMutablePointer<GstElement>
    package let taps: MediaTapSource
    package let pipeline: UnsafeMutablePointer<GstElement>
    /// Parse-only pipelines have no sink at start, so PLAYING says nothing: the first buffer does.
    package let startsOnFirstBuffer: Bool
    package let flow = PipelineFlow()
    /// The player's PLAYING/PAUSED requests, held back while a state change is under way.
    package let states: PipelineStateRequests
    /// The station's `title_encoding`; set before any callback is registered, read-only after.
    package var titleEncoding: TitleEncodingSetting = .auto
    /// The HTTP source of a plain station (not HLS or DASH, not a timeshift ring); set like `titleEncoding`.
    /// At the end of the stream it says whether the body had a length: a programme that ended (issue 54 §9).
    package var httpSource: UnsafeMutablePointer<GstElement>?
    private let lock = NSLock()
    private var silenced = false
    private var started = false
    private var streamTitled = false

    /// Whether a title came in the stream itself (ID3, ICY, Vorbis comments): then the playlist's
    /// `#EXTINF` titles are not used (``HLSSegmentTitles``).
    package var hasStreamTitle: Bool {
        lock.lock(); defer { lock.unlock() }
        return streamTitled
    }

    package init(
        onEvent: @escaping @Sendable (PipelineEvent) -> Void, decoded: UnsafeMutablePointer<GstElement>,
        taps: MediaTapSource, pipeline: UnsafeMutablePointer<GstElement>, startsOnFirstBuffer: Bool = false
    ) {
        self.onEvent = onEvent
        self.decoded = decoded
        self.taps = taps
        self.pipeline = pipeline
        self.startsOnFirstBuffer = startsOnFirstBuffer
        self.states = PipelineStateRequests(pipeline: pipeline)
    }

    /// Reports `.started` once.
    package func reportStarted() {
        lock.lock()
        let first = !started
        started = true
        lock.unlock()
        if first { report(.started) }
    }

    package func markStreamTitle() {
        lock.lock(); streamTitled = true; lock.unlock()
    }

    /// After stop(): late messages are not reported.
    package func silence() {
        lock.lock(); silenced = true; lock.unlock()
        taps.silence()
    }

    package func report(_ event: PipelineEvent) {
        lock.lock()
        let quiet = silenced
        lock.unlock()
        if !quiet { onEvent(event) }
    }

    package func retained() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    package static func from(_ data: UnsafeMutableRawPointer?) -> PipelineContext {
        Unmanaged<PipelineContext>.fromOpaque(data!).takeUnretainedValue()
    }
}

/// The C callbacks GStreamer calls. They capture nothing; the context comes through user data.
package enum PipelineCallbacks {
    package static let release: GDestroyNotify = { data in
        guard let data else { return }
        Unmanaged<PipelineContext>.fromOpaque(data).release()
    }

    package static let releaseClosure: GClosureNotify = { data, _ in
        guard let data else { return }
        Unmanaged<PipelineContext>.fromOpaque(data).release()
    }

    // MARK: bus messages (GLib main-loop thread)

    package static let busHandler: GstBusFunc = { _, message, data in
        guard let message else { return 1 }
        let context = PipelineContext.from(data)
        switch otgst_message_type(message) {
        case GST_MESSAGE_ERROR:
            context.report(.error(errorReport(message)))
        case GST_MESSAGE_WARNING:
            var error: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            gst_message_parse_warning(message, &error, &debug)
            if let error { context.report(.warning(String(cString: error.pointee.message))) }
            g_error_free(error)
            g_free(debug)
        case GST_MESSAGE_EOS:
            // souphttpsrc knows the size in bytes only from a Content-Length: a finite programme played whole.
            var size: gint64 = 0
            let finite = context.httpSource.map { gst_element_query_duration($0, GST_FORMAT_BYTES, &size) != 0 && size > 0 } ?? false
            context.report(finite ? .programmeEnded : .endOfStream)
        case GST_MESSAGE_ELEMENT:
            if let notice = EffectChain.overrunNotice(message) { context.report(.notice(notice)) }
        case GST_MESSAGE_BUFFERING:
            var percent: gint = 0
            gst_message_parse_buffering(message, &percent)
            context.report(.buffering(percent: Int(percent)))
        case GST_MESSAGE_STATE_CHANGED:
            guard otgst_message_source(message) == otgst_object(context.pipeline) else { break }
            var old = GST_STATE_NULL
            var new = GST_STATE_NULL
            var pending = GST_STATE_NULL
            gst_message_parse_state_changed(message, &old, &new, &pending)
            if pending == GST_STATE_VOID_PENDING { context.states.settled() }
            if new == GST_STATE_PLAYING, !context.startsOnFirstBuffer { context.report(.started) }
        default:
            break
        }
        return 1  // keep the watch
    }

    private static func errorReport(_ message: UnsafeMutablePointer<GstMessage>) -> GStreamerErrorReport {
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        gst_message_parse_error(message, &error, &debug)
        defer {
            g_error_free(error)
            g_free(debug)
        }
        var details: UnsafePointer<GstStructure>?
        gst_message_parse_error_details(message, &details)
        var status: guint = 0
        let httpStatus: Int? = if let details, gst_structure_get_uint(details, "http-status-code", &status) != 0 { Int(status) } else { nil }
        let sourceName = otgst_object_name(otgst_message_source(message)).map { String(cString: $0) }
        return GStreamerErrorReport(
            domain: error.map { String(cString: g_quark_to_string($0.pointee.domain)) } ?? "",
            code: Int(error?.pointee.code ?? 0),
            message: error.map { String(cString: $0.pointee.message) } ?? "unknown error",
            debug: debug.map { String(cString: $0) },
            httpStatus: httpStatus,
            sourceElement: sourceName
        )
    }

    // MARK: decodebin → audioconvert (streaming thread: links pads only)

    package static func connectDecoder(_ decoder: UnsafeMutablePointer<GstElement>, context: PipelineContext) {
        g_signal_connect_data(decoder, "pad-added", unsafeBitCast(padAdded, to: GCallback.self), context.retained(), releaseClosure, GConnectFlags(rawValue: 0))
    }

    private static let padAdded: @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstPad>?, gpointer?) -> Void = { _, pad, data in
        guard let pad else { return }
        let context = PipelineContext.from(data)
        guard let caps = gst_pad_get_current_caps(pad) ?? gst_pad_query_caps(pad, nil) else { return }
        defer { otgst_caps_unref(caps) }
        guard let structure = gst_caps_get_structure(caps, 0),
            String(cString: gst_structure_get_name(structure)).hasPrefix("audio/x-raw")
        else { return }
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, tagProbe, context.retained(), release)
        guard let sinkPad = gst_element_get_static_pad(context.decoded, "sink") else { return }
        defer { gst_object_unref(sinkPad) }
        // A chained Ogg stream (a new logical stream per title) brings a new pad while the
        // old one may still be exposed: the drained old one gives way to the new one.
        if let peer = gst_pad_get_peer(sinkPad) {
            _ = gst_pad_unlink(peer, sinkPad)
            gst_object_unref(peer)
        }
        _ = gst_pad_link(pad, sinkPad)
    }

    // MARK: parse-only: parsebin → a fakesink per stream (streaming thread: links pads only)

    package static func connectParser(_ parser: UnsafeMutablePointer<GstElement>, context: PipelineContext) {
        g_signal_connect_data(
            parser, "pad-added", unsafeBitCast(parsedPadAdded, to: GCallback.self), context.retained(), releaseClosure, GConnectFlags(rawValue: 0))
    }

    private static let parsedPadAdded: @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstPad>?, gpointer?) -> Void = { _, pad, data in
        guard let pad, let sink = gst_element_factory_make("fakesink", nil) else { return }
        let context = PipelineContext.from(data)
        otgst_set_bool(sink, "sync", 0)
        otgst_set_bool(sink, "async", 0)
        _ = gst_bin_add(otgst_bin(context.pipeline), sink)
        _ = gst_element_sync_state_with_parent(sink)
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, tagProbe, context.retained(), release)
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, firstBufferProbe, context.retained(), release)
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, outputBufferProbe, context.retained(), release)
        if let sinkPad = gst_element_get_static_pad(sink, "sink") {
            _ = gst_pad_link(pad, sinkPad)
            gst_object_unref(sinkPad)
        }
    }

    /// Reports `.started` when the first buffer reaches `element` (a pipeline that never buffers).
    package static func reportStartOnFirstBuffer(into element: UnsafeMutablePointer<GstElement>, context: PipelineContext) {
        guard let pad = gst_element_get_static_pad(element, "sink") else { return }
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, firstBufferProbe, context.retained(), release)
        gst_object_unref(pad)
    }

    private static let firstBufferProbe: GstPadProbeCallback = { _, _, data in
        PipelineContext.from(data).reportStarted()
        return GST_PAD_PROBE_REMOVE
    }

    // MARK: flow counters (streaming threads: one atomic add each)

    /// Counts the bytes leaving `source` and the buffers reaching `output`'s sink pad (nil: a
    /// parse-only pipeline, whose parsed buffers are counted as they leave the parser instead).
    package static func countFlow(source: UnsafeMutablePointer<GstElement>, output: UnsafeMutablePointer<GstElement>?, context: PipelineContext) {
        if let pad = gst_element_get_static_pad(source, "src") {
            gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, sourceBytesProbe, context.retained(), release)
            gst_object_unref(pad)
        }
        if let output, let pad = gst_element_get_static_pad(output, "sink") {
            gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, outputBufferProbe, context.retained(), release)
            gst_object_unref(pad)
        }
    }

    private static let sourceBytesProbe: GstPadProbeCallback = { _, info, data in
        if let info, let buffer = otgst_probe_buffer(info) {
            PipelineContext.from(data).flow.addSourceBytes(Int(gst_buffer_get_size(buffer)))
        }
        return GST_PAD_PROBE_OK
    }

    private static let outputBufferProbe: GstPadProbeCallback = { _, _, data in
        PipelineContext.from(data).flow.addOutputBuffer()
        return GST_PAD_PROBE_OK
    }

    // MARK: tags (streaming threads: read and hand over only)

    /// The source's own tags (icy-name, icy-genre from the HTTP headers), which demuxers such as
    /// oggdemux do not pass on. The decoder's output pads get the same probe when they appear.
    package static func watchTags(on source: UnsafeMutablePointer<GstElement>, context: PipelineContext) {
        guard let pad = gst_element_get_static_pad(source, "src") else { return }
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, tagProbe, context.retained(), release)
        gst_object_unref(pad)
    }

    private static let tagProbe: GstPadProbeCallback = { _, info, data in
        guard let info, let event = otgst_probe_event(info), otgst_event_type(event) == GST_EVENT_TAG else { return GST_PAD_PROBE_OK }
        var tags: UnsafeMutablePointer<GstTagList>?
        gst_event_parse_tag(event, &tags)
        if let tags {  // the tag list belongs to the event
            let context = PipelineContext.from(data)
            var set = TagReader.read(tags, encoding: context.titleEncoding)
            if set.title != nil { context.markStreamTitle() }
            switch EmbeddedCover.read(tags) {
            case let .file(url): set.artworkURL = url
            case let .tooLarge(size):
                context.report(
                    .notice(
                        tr(
                            "the cover inside the stream is {size} MiB, over the {limit} MiB an image may have; it is not shown",
                            ["size": String(size >> 20), "limit": String(EmbeddedCover.maxBytes >> 20)])))
            case let .unwritable(reason):
                context.report(.notice(tr("the cover inside the stream is not shown: {reason}", ["reason": reason])))
            case .none: break
            }
            context.report(.tags(set, monotonicNanoseconds: Clock.monotonicNanoseconds()))
        }
        return GST_PAD_PROBE_OK
    }

    // MARK: encoded-stream tap (streaming threads: copy and enqueue only)

    /// The bytes as received: on the source's pad when the stream has no ICY
    /// metadata, else on icydemux's output (metadata removed). `afterParser` (HLS):
    /// the source delivers only the playlist, so the tap is the output of the audio
    /// parser (ADTS AAC or MPEG audio frames, ID3 and MPEG-TS already removed).
    package static func connectStreamTap(
        source: UnsafeMutablePointer<GstElement>, decoder: UnsafeMutablePointer<GstElement>, context: PipelineContext,
        afterParser: Bool = false
    ) {
        if afterParser {
            g_signal_connect_data(
                decoder, "deep-element-added", unsafeBitCast(parserAdded, to: GCallback.self), context.retained(), releaseClosure, GConnectFlags(rawValue: 0))
            return
        }
        if let pad = gst_element_get_static_pad(source, "src") {
            gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, sourceProbe, context.retained(), release)
            gst_object_unref(pad)
        }
        g_signal_connect_data(
            decoder, "deep-element-added", unsafeBitCast(elementAdded, to: GCallback.self), context.retained(), releaseClosure, GConnectFlags(rawValue: 0))
        // decodebin's own typefinder exists from the start, before any deep-element-added.
        if let typefind = gst_bin_get_by_name(otgst_bin(decoder), "typefind") {
            g_signal_connect_data(
                typefind, "have-type", unsafeBitCast(haveType, to: GCallback.self), context.retained(), releaseClosure, GConnectFlags(rawValue: 0))
            gst_object_unref(typefind)
        }
    }

    private static let sourceProbe: GstPadProbeCallback = { pad, info, data in
        guard let pad, let info, let buffer = otgst_probe_buffer(info) else { return GST_PAD_PROBE_OK }
        if let caps = gst_pad_get_current_caps(pad) {
            defer { otgst_caps_unref(caps) }
            if let structure = gst_caps_get_structure(caps, 0),
                String(cString: gst_structure_get_name(structure)) == "application/x-icy"
            {
                return GST_PAD_PROBE_REMOVE  // icydemux's output is tapped instead
            }
        }
        PipelineContext.from(data).taps.stream(buffer)
        return GST_PAD_PROBE_OK
    }

    private static let elementAdded:
        @convention(c) (UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = {
            _, _, element, data in
            guard let element, let factory = gst_element_get_factory(element) else { return }
            let name = String(cString: otgst_object_name(otgst_object(UnsafeMutableRawPointer(factory))))
            let context = PipelineContext.from(data)
            if name == "icydemux" {
                g_signal_connect_data(
                    element, "pad-added", unsafeBitCast(icyPadAdded, to: GCallback.self), context.retained(), releaseClosure, GConnectFlags(rawValue: 0))
            }
        }

    private static let icyPadAdded: @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstPad>?, gpointer?) -> Void = { _, pad, data in
        guard let pad else { return }
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, demuxedStreamProbe, PipelineContext.from(data).retained(), release)
    }

    private static let demuxedStreamProbe: GstPadProbeCallback = { pad, info, data in
        guard let pad, let info, let buffer = otgst_probe_buffer(info) else { return GST_PAD_PROBE_OK }
        let taps = PipelineContext.from(data).taps
        // icydemux typefinds what it carries and puts that on its pad (a parser, its output format).
        if !taps.hasStreamCaps, let caps = gst_pad_get_current_caps(pad) {
            if let text = gst_caps_to_string(caps) {
                taps.setStreamCaps(String(cString: text))
                g_free(text)
            }
            otgst_caps_unref(caps)
        }
        taps.stream(buffer)
        return GST_PAD_PROBE_OK
    }

    /// The audio parsers whose output is a stream a recording can cut (HLS).
    private static let tappedParsers: Set<String> = ["aacparse", "mpegaudioparse"]

    private static let parserAdded:
        @convention(c) (UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = {
            _, _, element, data in
            guard let element, let factory = gst_element_get_factory(element),
                tappedParsers.contains(String(cString: otgst_object_name(otgst_object(UnsafeMutableRawPointer(factory))))),
                let pad = gst_element_get_static_pad(element, "src")
            else { return }
            let mask = GstPadProbeType(rawValue: GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue)
            gst_pad_add_probe(pad, mask, parsedStreamProbe, PipelineContext.from(data).retained(), release)
            gst_object_unref(pad)
        }

    /// The parser's output (HLS, DASH): whole frames. Every caps event sets the stream's caps, so
    /// new codec parameters after a discontinuity (an ad in another rate) begin a new file, while
    /// the same caps again change nothing. A buffer's DISCONT flag there marks a jump in time — an
    /// `#EXT-X-DISCONTINUITY`, a variant switch — not bytes lost inside a frame, so it is not passed
    /// on: the recording keeps going across it (issue 39 §3).
    private static let parsedStreamProbe: GstPadProbeCallback = { _, info, data in
        guard let info else { return GST_PAD_PROBE_OK }
        let taps = PipelineContext.from(data).taps
        if info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue != 0 {
            guard let event = otgst_probe_event(info), otgst_event_type(event) == GST_EVENT_CAPS else { return GST_PAD_PROBE_OK }
            var caps: UnsafeMutablePointer<GstCaps>?
            gst_event_parse_caps(event, &caps)
            if let caps, let text = gst_caps_to_string(caps) {
                taps.setStreamCaps(String(cString: text))
                g_free(text)
            }
            return GST_PAD_PROBE_OK
        }
        if let buffer = otgst_probe_buffer(info) { taps.stream(buffer, wholeFrames: true) }
        return GST_PAD_PROBE_OK
    }

    /// decodebin's typefinder names what the stream is (for ICY streams, icydemux's pad does).
    private static let haveType: @convention(c) (UnsafeMutablePointer<GstElement>?, guint, UnsafeMutablePointer<GstCaps>?, gpointer?) -> Void = {
        _, _, caps, data in
        guard let caps, let text = gst_caps_to_string(caps) else { return }
        defer { g_free(text) }
        let string = String(cString: text)
        if !string.hasPrefix("application/x-icy") { PipelineContext.from(data).taps.setStreamCaps(string) }
    }

    // MARK: PCM tap (appsink streaming thread)

    package static func connectPCM(_ sink: UnsafeMutablePointer<GstAppSink>, taps: MediaTapSource, choice: PCMFormatChoice) {
        var callbacks = GstAppSinkCallbacks()
        callbacks.new_sample = newSample
        let holder = Unmanaged.passRetained(TapHolder(taps, choice)).toOpaque()
        gst_app_sink_set_callbacks(sink, &callbacks, holder) { data in
            guard let data else { return }
            Unmanaged<TapHolder>.fromOpaque(data).release()
        }
    }

    private final class TapHolder {
        let taps: MediaTapSource
        let choice: PCMFormatChoice
        init(_ taps: MediaTapSource, _ choice: PCMFormatChoice) {
            self.taps = taps
            self.choice = choice
        }
    }

    private static let newSample: @convention(c) (UnsafeMutablePointer<GstAppSink>?, gpointer?) -> GstFlowReturn = { sink, data in
        guard let sink, let data, let sample = gst_app_sink_pull_sample(sink) else { return GST_FLOW_OK }
        defer { otgst_sample_unref(sample) }
        if let buffer = gst_sample_get_buffer(sample) {
            let holder = Unmanaged<TapHolder>.fromOpaque(data).takeUnretainedValue()
            holder.taps.pcm(buffer, caps: gst_sample_get_caps(sample), choice: holder.choice)
        }
        return GST_FLOW_OK
    }
}
