import CGStreamer
import OtonSupport

/// Sees `StreamTitle='';` (an ad break, a gap), which would otherwise be lost.
///
/// icydemux turns each ICY metadata block into a tag event on its source pad, but an
/// empty StreamTitle gives an event without a title, and the parser and decoder merge
/// that with their own tags (codec, bitrate), so what leaves decodebin cannot be told
/// from a bitrate update and the previous title seems to go on. On icydemux's source
/// pad itself the only other tag events are the HTTP header tags (icy-name → organization,
/// icy-genre → genre, icy-url → location), which souphttpsrc sends only when it has one.
/// So a tag event there with no title and nothing but `homepage` (StreamUrl) is an
/// ICY block whose title was empty: it is reported as the stream title "". One event
/// probe per metadata change; no bytes are read.
extension PipelineCallbacks {
    package static func watchEmptyIcyTitles(in bin: UnsafeMutablePointer<GstElement>, context: PipelineContext) {
        g_signal_connect_data(
            bin, "deep-element-added", unsafeBitCast(demuxerAdded, to: GCallback.self), context.retained(),
            releaseClosure, GConnectFlags(rawValue: 0))
    }

    /// The tag names an ICY metadata block can produce besides the title.
    package static let icyOnlyTags: Set<String> = ["homepage"]

    /// Whether a tag list on icydemux's source pad says "empty title" (see the type's note).
    package static func isEmptyIcyTitle(_ tags: UnsafePointer<GstTagList>) -> Bool {
        guard gst_tag_list_get_tag_size(tags, "title") == 0 else { return false }
        for index in 0..<max(0, gst_tag_list_n_tags(tags)) {
            guard let name = gst_tag_list_nth_tag_name(tags, guint(index)), icyOnlyTags.contains(String(cString: name)) else { return false }
        }
        return true
    }

    private static let demuxerAdded:
        @convention(c) (UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = {
            _, _, element, data in
            guard let element, let factory = gst_element_get_factory(element),
                String(cString: otgst_object_name(otgst_object(UnsafeMutableRawPointer(factory)))) == "icydemux"
            else { return }
            g_signal_connect_data(
                element, "pad-added", unsafeBitCast(demuxerPadAdded, to: GCallback.self), PipelineContext.from(data).retained(),
                releaseClosure, GConnectFlags(rawValue: 0))
        }

    private static let demuxerPadAdded: @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstPad>?, gpointer?) -> Void = { _, pad, data in
        guard let pad else { return }
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, emptyTitleProbe, PipelineContext.from(data).retained(), release)
    }

    private static let emptyTitleProbe: GstPadProbeCallback = { _, info, data in
        guard let info, let event = otgst_probe_event(info), otgst_event_type(event) == GST_EVENT_TAG else { return GST_PAD_PROBE_OK }
        var tags: UnsafeMutablePointer<GstTagList>?
        gst_event_parse_tag(event, &tags)
        if let tags, isEmptyIcyTitle(tags) {  // the tag list belongs to the event
            PipelineContext.from(data).report(.tags(TagSet(origin: .stream, title: ""), monotonicNanoseconds: Clock.monotonicNanoseconds()))
        }
        return GST_PAD_PROBE_OK
    }
}
