import CGStreamer
import Foundation
import OtonHTTPSource
import OtonSupport

/// Watches every segment source an HLS or DASH demuxer creates below the decoder: puts an
/// ``ID3TagSlimmer`` on it, so an oversized ID3 tag is cut down as it arrives, before the demuxer
/// buffers it (issue 27.4); reads the titles the demuxers do not pass on: a segment's `#EXTINF`
/// title (``HLSSegmentTitles``), the timed ID3 in fMP4 `emsg` boxes (``SegmentEventTitles``) and a
/// DASH manifest's EventStream titles (``DASHEventStreams``), issue 52.
///
/// Each segment source's output pad gets a probe with its own slimmer and box scanner, reset when a
/// new download starts (the source sends STREAM_START and SEGMENT before a download's first bytes).
package enum HLSSegmentTagFilter {
    /// `context`: where titles are reported; `manifestURL`: a DASH pipeline's MPD (nil for HLS).
    package static func apply(below bin: UnsafeMutablePointer<GstElement>, context: PipelineContext, manifestURL: String? = nil) {
        let pipeline = Pipeline(context: context, manifestURL: manifestURL)
        g_signal_connect_data(
            bin, "deep-element-added", unsafeBitCast(elementAdded, to: GCallback.self), Unmanaged.passRetained(pipeline).toOpaque(),
            releasePipeline, GConnectFlags(rawValue: 0))
    }

    /// What the segment sources of one pipeline share.
    private final class Pipeline: @unchecked Sendable {
        let context: PipelineContext
        let manifestURL: String?
        let notices = SegmentEventTitles.Notices()
        /// When the first segment download began (CLOCK_MONOTONIC), and the last EventStream event reported.
        let lock = NSLock()
        var firstDownload: Int64?
        var lastEvent: DASHEventStreams.Event?
        init(context: PipelineContext, manifestURL: String?) {
            self.context = context
            self.manifestURL = manifestURL
        }
    }

    private static let releasePipeline: GClosureNotify = { data, _ in
        guard let data else { return }
        Unmanaged<Pipeline>.fromOpaque(data).release()
    }

    /// One segment source's slimmer. The probe runs on that source's streaming thread; `lock`
    /// guards `slimmer` against the rare overlap of a stopping and a starting download.
    private final class Source: @unchecked Sendable {
        let lock = NSLock()
        var slimmer = ID3TagSlimmer()
        var events = SegmentEventTitles()
        let pipeline: Pipeline
        var context: PipelineContext { pipeline.context }
        /// A download began and its first bytes have not come yet.
        var awaitingFirstBytes = true
        /// The last `#EXTINF` title reported from this source (the same again is not reported).
        var lastTitle: String?
        var lastReport: Int64 = .min / 2
        init(pipeline: Pipeline) { self.pipeline = pipeline }
    }

    private static let elementAdded:
        @convention(c) (UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = {
            _, _, element, data in
            guard let element, oton_is_http_source(element) != 0, let pad = gst_element_get_static_pad(element, "src") else { return }
            let mask = GstPadProbeType(rawValue: GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue)
            let source = Source(pipeline: Unmanaged<Pipeline>.fromOpaque(data!).takeUnretainedValue())
            gst_pad_add_probe(pad, mask, probe, Unmanaged.passRetained(source).toOpaque(), release)
            gst_object_unref(pad)
        }

    private static let release: GDestroyNotify = { data in
        guard let data else { return }
        Unmanaged<Source>.fromOpaque(data).release()
    }

    private static let probe: GstPadProbeCallback = { pad, info, data in
        guard let info, let data else { return GST_PAD_PROBE_OK }
        let source = Unmanaged<Source>.fromOpaque(data).takeUnretainedValue()
        let isEvent = info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue != 0
        if isEvent, let event = otgst_probe_event(info) {
            switch otgst_event_type(event) {
            case GST_EVENT_STREAM_START, GST_EVENT_SEGMENT, GST_EVENT_FLUSH_STOP:
                source.lock.lock(); source.slimmer.reset(); source.events.reset(); source.awaitingFirstBytes = true; source.lock.unlock()
            default: break
            }
            return GST_PAD_PROBE_OK
        }
        guard info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0, let buffer = otgst_probe_buffer(info) else { return GST_PAD_PROBE_OK }
        source.lock.lock()
        let titles = source.events.isDone ? [] : source.events.read(buffer, context: source.context, notices: source.pipeline.notices)
        source.lock.unlock()
        SegmentEventTitles.send(titles, from: pad, context: source.context)  // not under the lock: a push may wait
        source.lock.lock(); defer { source.lock.unlock() }
        if source.awaitingFirstBytes {
            source.awaitingFirstBytes = false
            reportPlaylistTitle(of: buffer, from: pad, source: source)
            reportManifestEvent(source.pipeline)
        }
        if source.slimmer.isPassingThrough { return GST_PAD_PROBE_OK }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return GST_PAD_PROBE_OK }
        let size = Int(map.size)
        let input = UnsafeRawBufferPointer(start: map.data, count: size)
        let output = source.slimmer.push(input)
        let unchanged = output.count == size && output.elementsEqual(input)  // a segment without a tag to change
        gst_buffer_unmap(buffer, &map)
        if output.isEmpty { return GST_PAD_PROBE_DROP }
        if unchanged { return GST_PAD_PROBE_OK }
        output.withUnsafeBytes { otgst_probe_replace_buffer(info, $0.baseAddress, gsize($0.count)) }
        return GST_PAD_PROBE_OK
    }

    /// A segment's first bytes: when they are not a timed ID3 tag (which carries the stream's own
    /// title) and the stream never titled itself, the playlist's `#EXTINF` title of this segment is
    /// reported, as a stream tag, when it differs from the last one reported.
    private static func reportPlaylistTitle(of buffer: UnsafeMutablePointer<GstBuffer>, from pad: UnsafeMutablePointer<GstPad>?, source: Source) {
        guard !source.context.hasStreamTitle, let pad, let element = gst_pad_get_parent_element(pad) else { return }
        defer { gst_object_unref(element) }
        var head = [UInt8](repeating: 0, count: 3)
        let copied = gst_buffer_extract(buffer, 0, &head, 3)
        if copied == 3 && head == Array("ID3".utf8) { return }
        guard let location = otgst_dup_string(element, "location") else { return }
        let url = String(cString: location)
        g_free(location)
        guard let track = HLSSegmentTitles.title(forSegment: url) else { return }
        let key = track.title + "\u{0}" + (track.artist ?? "")
        guard key != source.lastTitle else { return }
        // The light engine's rate for titles (one owner): a playlist of tiny segments, each with its own
        // title, gives at most one a 200 ms; one skipped is reported with a later segment that has it.
        let now = Clock.monotonicNanoseconds()
        guard now - source.lastReport >= LightStream.titleInterval else { return }
        source.lastTitle = key
        source.lastReport = now
        source.context.report(.tags(TagSet(title: track.title, artist: track.artist), monotonicNanoseconds: now))
    }

    /// A DASH segment's first bytes: the manifest's EventStream event current now, when it is another one.
    private static func reportManifestEvent(_ pipeline: Pipeline) {
        guard let url = pipeline.manifestURL else { return }
        let now = Clock.monotonicNanoseconds()
        pipeline.lock.lock()
        let first = pipeline.firstDownload ?? now
        pipeline.firstDownload = first
        let event = DASHEventStreams.current(manifest: url, secondsPlayed: Double(now - first) / 1e9)
        let changed = event != nil && event != pipeline.lastEvent
        if changed { pipeline.lastEvent = event }
        pipeline.lock.unlock()
        guard changed, let event else { return }
        pipeline.context.markStreamTitle()
        pipeline.context.report(.tags(event.tags, monotonicNanoseconds: now))
    }
}
