import CGStreamer
import Foundation
import OtonEvents
import PluginAPI

/// Turns buffers seen on the streaming threads into MediaPackets on the bus.
/// Runs on GStreamer streaming threads: it only copies and enqueues (the bus
/// never blocks), so the audio path never waits for a plugin.
package final class MediaTapSource: @unchecked Sendable {
    private let bus: PluginBus
    private let connection: UInt64
    private let lock = NSLock()
    /// Per tap (and per PCM format: each branch counts its own bytes).
    private var offsets: [Key: UInt64] = [:]
    private var formats: [Key: MediaFormat] = [:]

    private struct Key: Hashable {
        let tap: UInt32
        let pcm: PCMFormatChoice?
    }
    private static let streamKey = Key(tap: OTON_TAP_STREAM, pcm: nil)
    private var streamCaps = MediaTapSource.unknownCaps
    /// After the pipeline was told to stop: a buffer still in flight is not published.
    private var silenced = false
    private static let unknownCaps = "application/octet-stream"

    package init(bus: PluginBus, connection: UInt64) {
        self.bus = bus
        self.connection = connection
    }

    package func silence() {
        lock.lock(); silenced = true; lock.unlock()
    }

    package var hasStreamCaps: Bool {
        lock.lock(); defer { lock.unlock() }
        return streamCaps != Self.unknownCaps
    }

    /// The typefinder found what the stream is (e.g. "audio/mpeg, mpegversion=(int)1, …").
    /// Raw AAC (from fMP4) is announced, and published, as ADTS (``RawAACFraming``).
    package func setStreamCaps(_ caps: String) {
        let framing = RawAACFraming(caps: caps)
        lock.lock()
        adts = framing
        streamCaps = framing?.caps ?? caps
        lock.unlock()
    }

    /// When the tapped stream is raw AAC: the ADTS header each frame gets.
    private var adts: RawAACFraming?

    /// An encoded buffer as received (ICY metadata already removed by icydemux). `wholeFrames`: a
    /// parser's output, where the buffer's DISCONT flag is a jump in time between whole frames (an
    /// HLS discontinuity or variant switch), not lost bytes, and is not passed on.
    package func stream(_ buffer: UnsafeMutablePointer<GstBuffer>, wholeFrames: Bool = false) {
        lock.lock()
        let framing = adts
        lock.unlock()
        guard let framing else {
            let format = currentStreamFormat()
            return publish(buffer, format: format.0, extraFlags: format.changed ? OTON_MEDIA_FLAG_FORMAT_CHANGED : 0, passDiscont: !wholeFrames)
        }
        // One raw AAC frame per buffer (aacparse frames it): header + frame, one packet.
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return }
        defer { gst_buffer_unmap(buffer, &map) }
        let size = Int(map.size)
        guard size > 0, size <= RawAACFraming.maxPayloadBytes else { return }
        var bytes = framing.header(payloadBytes: size)
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: map.data, count: size))
        let format = currentStreamFormat()
        let pts = otgst_buffer_pts(buffer)
        bytes.withUnsafeBytes {
            publish(
                $0.baseAddress, count: $0.count, format: format.0, extraFlags: format.changed ? OTON_MEDIA_FLAG_FORMAT_CHANGED : 0,
                discont: !wholeFrames && otgst_buffer_is_discont(buffer) != 0, pts: otgst_clock_time_is_valid(pts) != 0 ? Int64(pts) : -1)
        }
    }

    /// Encoded bytes read by the light engine (ICY metadata already cut out): the same packet
    /// contract as a GStreamer buffer (offsets, NEW_CONNECTION, FORMAT_CHANGED), with no timestamp.
    /// The packet is made (copied, numbered) now and published by `publish(_:)` later, in order with
    /// the title events the light engine reports through the player's queue.
    package func streamPacket(bytes: UnsafeRawBufferPointer) -> MediaPacket? {
        guard bytes.count > 0 else { return nil }
        let (format, changed) = currentStreamFormat()
        return packet(
            bytes.baseAddress, count: bytes.count, format: format, extraFlags: changed ? OTON_MEDIA_FLAG_FORMAT_CHANGED : 0,
            discont: false, pts: -1)
    }

    /// Publishes a packet made by ``streamPacket(bytes:)``, unless the connection was stopped since.
    package func publish(_ packet: MediaPacket) {
        lock.lock()
        let quiet = silenced
        lock.unlock()
        if !quiet { bus.publish(media: packet) }
    }

    /// The stream tap's format for the caps known now, and whether it differs from the last packet's.
    private func currentStreamFormat() -> (MediaFormat, changed: Bool) {
        lock.lock()
        let caps = streamCaps
        var format = formats[Self.streamKey]
        var changed = false
        if format?.caps != caps {
            changed = format != nil
            format = MediaFormat(tap: OTON_TAP_STREAM, caps: caps)
            formats[Self.streamKey] = format
        }
        lock.unlock()
        return (format!, changed)
    }

    /// A decoded PCM sample from the appsink of the branch built for `choice`.
    package func pcm(_ buffer: UnsafeMutablePointer<GstBuffer>, caps: UnsafeMutablePointer<GstCaps>?, choice: PCMFormatChoice) {
        let key = Key(tap: OTON_TAP_PCM, pcm: choice)
        lock.lock()
        var format = formats[key]
        if format == nil, let caps, let parsed = Self.pcmFormat(caps, choice: choice) {
            format = parsed
            formats[key] = parsed
        }
        lock.unlock()
        guard let format else { return }
        publish(buffer, format: format)
    }

    private func publish(_ buffer: UnsafeMutablePointer<GstBuffer>, format: MediaFormat, extraFlags: UInt32 = 0, passDiscont: Bool = true) {
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return }
        defer { gst_buffer_unmap(buffer, &map) }
        let pts = otgst_buffer_pts(buffer)
        publish(
            map.data, count: Int(map.size), format: format, extraFlags: extraFlags, discont: passDiscont && otgst_buffer_is_discont(buffer) != 0,
            pts: otgst_clock_time_is_valid(pts) != 0 ? Int64(pts) : -1)
    }

    private func publish(_ data: UnsafeRawPointer?, count: Int, format: MediaFormat, extraFlags: UInt32, discont: Bool, pts: Int64) {
        if let packet = packet(data, count: count, format: format, extraFlags: extraFlags, discont: discont, pts: pts) {
            bus.publish(media: packet)
        }
    }

    /// Both engines' packets: one offset per tap, NEW_CONNECTION on a connection's first bytes.
    private func packet(_ data: UnsafeRawPointer?, count: Int, format: MediaFormat, extraFlags: UInt32, discont: Bool, pts: Int64) -> MediaPacket? {
        lock.lock()
        guard !silenced else { lock.unlock(); return nil }
        let key = Key(tap: format.tap, pcm: format.pcmChoice)
        let offset = offsets[key] ?? 0
        offsets[key] = offset + UInt64(count)
        lock.unlock()
        var flags: UInt32 = (offset == 0 ? OTON_MEDIA_FLAG_NEW_CONNECTION : 0) | extraFlags
        if discont && offset != 0 { flags |= OTON_MEDIA_FLAG_DISCONT }
        return MediaPacket(
            format: format, copying: data, count: count, flags: flags,
            presentationNanoseconds: pts, offset: offset, connection: connection)
    }

    private static func pcmFormat(_ caps: UnsafeMutablePointer<GstCaps>, choice: PCMFormatChoice) -> MediaFormat? {
        guard let structure = gst_caps_get_structure(caps, 0) else { return nil }
        var rate: gint = 0
        var channels: gint = 0
        gst_structure_get_int(structure, "rate", &rate)
        gst_structure_get_int(structure, "channels", &channels)
        let text =
            gst_caps_to_string(caps).map { pointer in
                defer { g_free(pointer) }
                return String(cString: pointer)
            } ?? "audio/x-raw"
        let sampleFormat = gst_structure_get_string(structure, "format").map { String(cString: $0) } == "F32LE" ? OTON_SAMPLE_F32LE : OTON_SAMPLE_S16LE
        return MediaFormat(
            tap: OTON_TAP_PCM, caps: text, sampleFormat: sampleFormat,
            rate: UInt32(max(rate, 0)), channels: UInt32(max(channels, 0)), pcmChoice: choice)
    }
}
