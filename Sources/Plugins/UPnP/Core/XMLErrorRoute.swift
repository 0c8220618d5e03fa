import CGUPnP
import Foundation
import UPnPLogic

/// Where libxml2's errors in the plugin's process go instead of stderr: ``PeerXMLErrors`` makes
/// them lines for the running instance's log. libxml2 keeps the handler for the whole process
/// (and for threads started later), so it is one for the process; an instance sets its log on
/// start and clears it on shutdown (errors then are dropped). Guarded by `lock`.
final class XMLErrorRoute: @unchecked Sendable {
    static let shared = XMLErrorRoute()

    private let lock = NSLock()
    private var errors = PeerXMLErrors()
    private var log: (@Sendable (String) -> Void)?

    /// Called on the GLib thread, where GUPnP parses descriptions and SOAP replies.
    func install(log: @escaping @Sendable (String) -> Void) {
        lock.withLock { self.log = log }
        oton_upnp_route_xml_errors(
            { _, error in
                guard let text = oton_upnp_xml_error_message(error) else { return }
                XMLErrorRoute.shared.report(String(cString: text))
            }, nil)
    }

    func uninstall() {
        lock.withLock { log = nil }
    }

    private func report(_ message: String) {
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        let said: (line: String, to: @Sendable (String) -> Void)? = lock.withLock {
            guard let sink = log, let line = errors.line(for: message, now: now) else { return nil }
            return (line, sink)
        }
        if let said { said.to(said.line) }
    }
}
