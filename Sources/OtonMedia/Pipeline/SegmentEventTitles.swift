import CGStreamer
import Foundation
import OtonSupport

/// The timed ID3 titles of fMP4/CMAF segments (HLS and DASH): the `emsg` boxes of one segment
/// source's downloads (``FragmentBoxScanner``), each ID3 one read with libgsttag
/// (`gst_tag_list_from_id3v2_tag`, the reader GStreamer's own ID3 demuxer uses) and sent on as a tag
/// event from the demuxer's output pad that the source feeds — pushed on the source's streaming thread,
/// which is the one that pushes that pad's buffers, so the event goes just before the fragment's data
/// (1.22's adaptive demuxers drop tag events that come from a segment source). It leaves the decoder
/// with the audio it belongs to and is reported like every other stream tag (``PipelineCallbacks``:
/// title source `stream`). Where no such pad is found it is reported at once instead.
///
/// An event repeated in later segments (the same scheme, value and id, ISO/IEC 23009-1 §5.10.3.3) is
/// sent once. A box over ``FragmentBoxScanner/maxMessageBytes`` or one whose fields do not fit is
/// skipped with one notice per pipeline (``Notices``); an ID3 tag libgsttag cannot read, or one with
/// no title, is skipped silently: playback goes on either way.
///
/// One instance per segment source, read on its streaming thread under ``HLSSegmentTagFilter``'s lock; what it
/// found is sent after that lock is let go (a push may wait for room downstream).
package struct SegmentEventTitles {
    /// What a pipeline has said about skipped boxes already (one notice each per pipeline).
    final class Notices: @unchecked Sendable {
        private let lock = NSLock()
        private var said: Set<String> = []

        func first(_ kind: String) -> Bool {
            lock.lock(); defer { lock.unlock() }
            return said.insert(kind).inserted
        }
    }

    private static let rememberedEvents = 64

    private var scanner = FragmentBoxScanner()
    private var seen: [String] = []

    /// A new download begins.
    mutating func reset() { scanner.reset() }

    var isDone: Bool { scanner.isDone }

    /// Reads `buffer`'s bytes: the tag lists of the new ID3 events they complete (the caller owns
    /// them: ``send(_:from:context:)`` them, outside any lock).
    mutating func read(_ buffer: UnsafeMutablePointer<GstBuffer>, context: PipelineContext, notices: Notices) -> [UnsafeMutablePointer<GstTagList>] {
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return [] }
        let found = scanner.push(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
        gst_buffer_unmap(buffer, &map)
        var titles: [UnsafeMutablePointer<GstTagList>] = []
        for item in found {
            switch item {
            case let .message(message):
                guard message.carriesID3, isNew(message),
                    let list = message.data.withUnsafeBytes({ otgst_tag_list_from_id3($0.baseAddress, gsize($0.count)) })
                else { continue }
                let tags = TagReader.read(list, encoding: context.titleEncoding)
                guard tags.title != nil || tags.artist != nil else {
                    otgst_tag_list_unref(list)
                    continue
                }
                titles.append(list)
            case let .oversized(bytes):
                guard notices.first("oversized") else { continue }
                context.report(
                    .notice(
                        tr(
                            "a segment's event message (emsg) of {size} KiB is over the {limit} KiB oton reads; it is skipped",
                            ["size": String(bytes >> 10), "limit": String(FragmentBoxScanner.maxMessageBytes >> 10)])))
            case .malformed:
                guard notices.first("malformed") else { continue }
                context.report(.notice(tr("a segment's event message (emsg) is cut short or malformed; it is skipped")))
            }
        }
        return titles
    }

    /// Sends each of `titles` (and releases it) from the demuxer output fed by segment source pad `pad`.
    static func send(_ titles: [UnsafeMutablePointer<GstTagList>], from pad: UnsafeMutablePointer<GstPad>?, context: PipelineContext) {
        guard !titles.isEmpty else { return }
        context.markStreamTitle()
        let output = pad.flatMap { otgst_adaptive_demux_output($0) }
        defer { if let output { gst_object_unref(output) } }
        for list in titles {
            if let output {
                // This thread pushes that pad's buffers too: the event goes just before the fragment's data.
                _ = otgst_push_tag_event(output, list)
            } else {
                let tags = TagReader.read(list, encoding: context.titleEncoding)
                context.report(.tags(TagSet(title: tags.title, artist: tags.artist), monotonicNanoseconds: Clock.monotonicNanoseconds()))
            }
            otgst_tag_list_unref(list)
        }
    }

    private mutating func isNew(_ message: EventMessage) -> Bool {
        let key = "\(message.scheme)\u{0}\(message.value)\u{0}\(message.id)"
        guard !seen.contains(key) else { return false }
        seen.append(key)
        if seen.count > Self.rememberedEvents { seen.removeFirst() }
        return true
    }

    /// The title and artist of an ID3v2 tag (libgsttag reads it; nil when it cannot, or the tag has neither).
    package static func tags(ofID3 data: [UInt8]) -> TagSet? {
        guard data.count >= 10, let list = data.withUnsafeBytes({ otgst_tag_list_from_id3($0.baseAddress, gsize($0.count)) }) else { return nil }
        defer { otgst_tag_list_unref(list) }
        let tags = TagReader.read(list)
        return tags.title != nil || tags.artist != nil ? TagSet(title: tags.title, artist: tags.artist) : nil
    }
}
