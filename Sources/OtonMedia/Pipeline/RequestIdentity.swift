import CGStreamer
import Foundation
import OtonHTTP
import OtonHTTPSource

/// The HTTP requests GStreamer makes on its own for a pipeline — an HLS or DASH demuxer's segment
/// fetches and playlist reloads — go out as oton's own: with the station's User-Agent and checked
/// against the same certificate authorities as the station's connection. Without this they said
/// "GStreamer souphttpsrc 1.22.0 libsoup/2.74.3", and a CDN saw two clients.
///
/// The identity is a context on the pipeline; every source GStreamer makes from a URI is an
/// `otonhttpsrc` (see oton_http_source.h), which takes it from its bin or, for the playlist
/// downloader that sits in no bin, through the demuxer it fetches for.
package enum RequestIdentity {
    /// The factory of a pipeline's own HTTP source: `otonhttpsrc`, registered the first time it is
    /// asked for (souphttpsrc when that failed, i.e. without GStreamer's soup plugin: the build then
    /// names the package to install).
    package static var sourceFactory: String {
        oton_http_source_register() != 0 ? OTON_HTTP_SOURCE_FACTORY : "souphttpsrc"
    }

    /// Every HTTP source in `pipeline`, now and later, gets `description`'s identity.
    package static func apply(to pipeline: UnsafeMutablePointer<GstElement>, description: PipelineDescription) {
        guard case .http = description.source else { return }
        oton_request_identity_set(pipeline, description.userAgent, TrustedAuthorities.caFile)
    }
}
