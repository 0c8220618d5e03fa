import Foundation

/// Which libsoup GStreamer's HTTP source (souphttpsrc) runs on.
///
/// GStreamer 1.22's souphttpsrc loads libsoup at run time: the one already in
/// the process, else libsoup 3, else libsoup 2.4. On a machine where both are
/// installed (gstreamer1.0-plugins-bad, GNOME and many desktop packages pull in
/// libsoup 3) it takes libsoup 3, and there a refused certificate ends the
/// stream as if it were empty (no TLS error to report) and a private CA given
/// with SSL_CERT_FILE is not honoured: RecordingOverHTTPSTests fails both ways.
/// Loading libsoup 2.4 first keeps oton on the path its tests cover on every
/// machine; without libsoup 2.4 souphttpsrc goes on as it would.
///
/// Threading: called once, before GStreamer's initialisation (``GLibMainLoop``).
package enum SoupLibraryChoice {
    package static let preferred = "libsoup-2.4.so.1"

    /// Whether libsoup 2.4 is now loaded.
    @discardableResult
    package static func loadPreferred() -> Bool {
        dlopen(preferred, RTLD_NOW | RTLD_GLOBAL) != nil
    }
}
