import CGUPnP
import Foundation
import OtonGLibThread
import UPnPLogic

/// Why a SOAP call to a renderer did not succeed.
enum SoapFailure: Error, Equatable {
    /// No answer before the deadline (the call was then cancelled).
    case timeout(seconds: Int)
    /// The renderer answered with a UPnP error (a SOAP fault): its code and its words, cleaned.
    case fault(code: Int32, description: String)
    /// The call did not get through (connection refused, a reply GUPnP could not read…).
    case failed(String)
    /// The renderer left the network, or lacks the service.
    case gone
}

/// One SOAP action sent to a renderer's service from the plugin's mailbox, which waits for the
/// answer at most until its deadline. The call itself runs on the GLib thread (GUPnP's async API);
/// on a timeout the mailbox cancels it through the GCancellable, which GLib allows from any thread,
/// and the late callback only releases the call. `outcome` is guarded by `lock`.
final class SoapCall: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: Result<[String: String], SoapFailure>?
    private let done = DispatchSemaphore(value: 0)
    private let cancellable = g_cancellable_new()!
    private let outputs: [String]
    private var service: UnsafeMutableRawPointer?
    private var action: OpaquePointer?

    private init(outputs: [String]) {
        self.outputs = outputs
    }

    deinit {
        g_object_unref(cancellable)
    }

    /// Sends the action `makeAction` builds to the service `pick` chooses from the renderer `udn`,
    /// and returns its `outputs` (string out-arguments) or why not, within `seconds`.
    static func run(
        on glib: GLibThread, directory: RendererDirectory, udn: String,
        service pick: @escaping (RendererDirectory.Renderer) -> UnsafeMutableRawPointer?,
        action makeAction: @escaping () -> OpaquePointer?, outputs: [String] = [],
        seconds: Double
    ) -> Result<[String: String], SoapFailure> {
        let call = SoapCall(outputs: outputs)
        let started = glib.invoke {
            // On the GLib thread, where the directory's proxies are added and released.
            guard let renderer = directory.renderer(udn), let service = pick(renderer), let action = makeAction() else {
                call.finish(.failure(.gone))
                return
            }
            call.service = oton_upnp_ref(service)
            call.action = action
            oton_upnp_call(
                service, action, call.cancellable,
                { _, result, user in
                    guard let user else { return }
                    Unmanaged<SoapCall>.fromOpaque(user).takeRetainedValue().answered(result)
                }, Unmanaged.passRetained(call).toOpaque())
        }
        guard started else { return .failure(.gone) }
        if call.done.wait(timeout: .now() + max(seconds, 0.1)) == .timedOut {
            g_cancellable_cancel(call.cancellable)
            return .failure(.timeout(seconds: Int(seconds.rounded(.up))))
        }
        return call.lock.withLock { call.outcome } ?? .failure(.gone)
    }

    /// GLib thread: GUPnP's callback (also after a cancel, which then changes nothing).
    private func answered(_ result: OpaquePointer?) {
        defer {
            if let action { gupnp_service_proxy_action_unref(action) }
            oton_upnp_unref(service)
            action = nil
            service = nil
        }
        var error: UnsafeMutablePointer<GError>?
        guard let service, let action, oton_upnp_finish(service, result, &error) != 0 else {
            finish(.failure(Self.failure(error)))
            g_clear_error(&error)
            return
        }
        var values: [String: String] = [:]
        for name in outputs {
            guard let value = oton_upnp_result_string(action, name, &error) else {
                finish(.failure(Self.failure(error)))
                g_clear_error(&error)
                return
            }
            values[name] = String(cString: value)
            g_free(value)
        }
        finish(.success(values))
    }

    private func finish(_ result: Result<[String: String], SoapFailure>) {
        lock.withLock { if outcome == nil { outcome = result } }
        done.signal()
    }

    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> SoapFailure {
        guard let error else { return .failed("no reply") }
        let message = PeerText.clean(String(cString: error.pointee.message), limit: PeerText.messageLimit)
        if oton_upnp_is_soap_fault(error) != 0 { return .fault(code: error.pointee.code, description: message) }
        return .failed(message)
    }
}
