import CGStreamer
import Foundation

/// The HTTP requests GStreamer makes on its own inside a pipeline — an HLS demuxer's playlist
/// reloads and segment fetches — go out as oton's own: with the station's User-Agent and checked
/// against the same certificate authorities as the station's connection. Without this they said
/// "GStreamer souphttpsrc 1.22.0 libsoup/2.74.3", and a CDN saw two clients.
///
/// Immutable after init; read on the streaming thread that adds the element.
final class ChildRequestIdentity: @unchecked Sendable {
    let userAgent: String
    let caFile: String?

    private init(userAgent: String, caFile: String?) {
        self.userAgent = userAgent
        self.caFile = caFile
    }

    /// Every souphttpsrc added anywhere below `bin` from now on gets `description`'s identity.
    static func apply(below bin: UnsafeMutablePointer<GstElement>, description: PipelineDescription) {
        guard case .http = description.source else { return }
        let identity = ChildRequestIdentity(userAgent: description.userAgent, caFile: description.caFile)
        g_signal_connect_data(bin, "deep-element-added", unsafeBitCast(elementAdded, to: GCallback.self),
                              Unmanaged.passRetained(identity).toOpaque(), release, GConnectFlags(rawValue: 0))
    }

    private static let elementAdded: @convention(c) (UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = { _, _, element, data in
        guard let element, let data, let factory = gst_element_get_factory(element) else { return }
        guard String(cString: otgst_object_name(otgst_object(UnsafeMutableRawPointer(factory)))) == "souphttpsrc" else { return }
        let identity = Unmanaged<ChildRequestIdentity>.fromOpaque(data).takeUnretainedValue()
        otgst_set_string(element, "user-agent", identity.userAgent)
        if let caFile = identity.caFile { otgst_set_string(element, "ssl-ca-file", caFile) }
    }

    private static let release: GClosureNotify = { data, _ in
        guard let data else { return }
        Unmanaged<ChildRequestIdentity>.fromOpaque(data).release()
    }
}
