import CGUPnP
import Foundation
import OtonGLibThread
import UPnPLogic

/// The renderers GUPnP's control points have found by SSDP, by UDN. GUPnP calls in on the plugin's
/// GLib thread (``GLibThread``), where the control points, contexts and proxies live; the mailbox
/// reads the list. `renderers`, `order` and `overLimit` are guarded by `lock`; `points`,
/// `contexts` and `manager` are touched on the GLib thread only.
final class RendererDirectory: @unchecked Sendable {
    /// A renderer's proxies (GObject references this directory holds) and its cleaned texts.
    struct Renderer: @unchecked Sendable {
        var entry: RendererEntry
        /// The device proxy and its AVTransport and ConnectionManager service proxies (nil when the
        /// description lacks one). Used on the GLib thread only.
        var device: UnsafeMutableRawPointer
        var avTransport: UnsafeMutableRawPointer?
        var connectionManager: UnsafeMutableRawPointer?
    }

    private let lock = NSLock()
    private var renderers: [String: Renderer] = [:]
    private var order: [String] = []
    private var overLimit = false
    private let log: @Sendable (String) -> Void

    private var points: [UnsafeMutableRawPointer] = []
    private var contexts: [UnsafeMutableRawPointer] = []
    private var manager: UnsafeMutablePointer<GUPnPContextManager>?

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
    }

    /// GLib thread: starts searching on `interface`, or on every IPv4 interface when nil.
    /// Returns GLib's reason when the interface cannot be used.
    func start(interface: String?) -> String? {
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard let interface else {
            manager = oton_upnp_context_manager(
                { manager, context, user in
                    guard let manager, let context, let user else { return }
                    let directory = Unmanaged<RendererDirectory>.fromOpaque(user).takeUnretainedValue()
                    let point = directory.browse(UnsafeMutableRawPointer(context))
                    oton_upnp_manage(manager, point)
                }, user)
            return nil
        }
        var error: UnsafeMutablePointer<GError>?
        guard let context = oton_upnp_context_on(interface, &error) else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "no IPv4 address"
            g_clear_error(&error)
            return reason
        }
        contexts.append(UnsafeMutableRawPointer(context))
        _ = browse(UnsafeMutableRawPointer(context))
        return nil
    }

    /// GLib thread: a control point for MediaRenderer devices on one context.
    private func browse(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        let user = Unmanaged.passUnretained(self).toOpaque()
        let point = oton_upnp_browse(
            context.assumingMemoryBound(to: GUPnPContext.self),
            { _, device, user in
                guard let device, let user else { return }
                Unmanaged<RendererDirectory>.fromOpaque(user).takeUnretainedValue().add(device)
            },
            { _, device, user in
                guard let device, let user else { return }
                Unmanaged<RendererDirectory>.fromOpaque(user).takeUnretainedValue().remove(device)
            }, user)!
        points.append(point)
        return point
    }

    /// GLib thread: a renderer answered or announced itself (its description read by GUPnP).
    private func add(_ device: UnsafeMutableRawPointer) {
        guard let udnPointer = oton_upnp_udn(device) else { return }
        let udn = PeerText.clean(String(cString: udnPointer), limit: 128)
        let name = Self.take(oton_upnp_friendly_name(device))
        let model = Self.take(oton_upnp_model_name(device))
        let location = oton_upnp_location(device).map { String(cString: $0) } ?? ""
        let entry = RendererEntry(
            udn: udn, name: PeerText.clean(name).isEmpty ? "(unnamed)" : PeerText.clean(name),
            model: PeerText.clean(model), address: RendererEntry.address(ofLocation: location))
        let accepted: Bool = lock.withLock {
            guard renderers[udn] == nil else { return false }
            guard renderers.count < RendererEntry.limit else {
                if !overLimit { overLimit = true; log("UPnP: more than \(RendererEntry.limit) renderers announced; ignoring the rest") }
                return false
            }
            return true
        }
        guard accepted else { return }
        let renderer = Renderer(
            entry: entry, device: oton_upnp_ref(device),
            avTransport: oton_upnp_service(device, OTON_UPNP_AVTRANSPORT),
            connectionManager: oton_upnp_service(device, OTON_UPNP_CONNECTION_MANAGER))
        lock.withLock {
            renderers[udn] = renderer
            order.append(udn)
        }
    }

    /// GLib thread: a renderer said goodbye (ssdp:byebye) or its announcement expired.
    private func remove(_ device: UnsafeMutableRawPointer) {
        guard let udnPointer = oton_upnp_udn(device) else { return }
        let udn = PeerText.clean(String(cString: udnPointer), limit: 128)
        let gone: Renderer? = lock.withLock {
            order.removeAll { $0 == udn }
            return renderers.removeValue(forKey: udn)
        }
        if let gone { Self.release(gone) }
    }

    /// GLib thread: searches again on every control point (`cast list` asks, so a renderer that
    /// was switched on later, and whose announcement went unheard, answers now).
    func rescan() {
        points.forEach { oton_upnp_rescan($0) }
    }

    /// GLib thread, last: drops every proxy, control point and context.
    func stop() {
        let all: [Renderer] = lock.withLock {
            defer { renderers = [:]; order = [] }
            return Array(renderers.values)
        }
        all.forEach(Self.release)
        points.forEach(oton_upnp_unref)
        points = []
        contexts.forEach(oton_upnp_unref)
        contexts = []
        if let manager { oton_upnp_unref(manager) }
        manager = nil
    }

    /// Any thread: the renderers found so far, in the order they were found.
    func entries() -> [RendererEntry] {
        lock.withLock { order.compactMap { renderers[$0]?.entry } }
    }

    /// Any thread: a renderer by UDN (its proxies to be used on the GLib thread only).
    func renderer(_ udn: String) -> Renderer? {
        lock.withLock { renderers[udn] }
    }

    private static func release(_ renderer: Renderer) {
        oton_upnp_unref(renderer.avTransport)
        oton_upnp_unref(renderer.connectionManager)
        oton_upnp_unref(renderer.device)
    }

    /// A GLib string handed over to us: copied, then freed.
    private static func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        defer { g_free(pointer) }
        return String(cString: pointer)
    }
}
