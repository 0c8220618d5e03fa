import CGtk

/// Connects Swift closures to GObject signals. The closure is kept alive by the signal (released
/// when the instance is finalized), and runs on the main thread, where GTK emits its signals.
@MainActor
enum Signal {
    /// A signal whose handler takes only the instance ("clicked", "value-changed", "startup", "activate").
    static func connect(_ instance: UnsafeMutableRawPointer, _ name: String, _ handler: @escaping @MainActor () -> Void) {
        let box = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
        let callback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            let box = Unmanaged<HandlerBox>.fromOpaque(data!).takeUnretainedValue()
            MainActor.assumeIsolated { box.handler() }
        }
        oton_gtk_connect(instance, name, unsafeBitCast(callback, to: GCallback.self), box, releaseBox)
    }

    /// A signal whose handler takes the instance and an unsigned position (GtkListView's "activate").
    static func connectPosition(_ instance: UnsafeMutableRawPointer, _ name: String, _ handler: @escaping @MainActor (UInt32) -> Void) {
        let box = Unmanaged.passRetained(PositionHandlerBox(handler)).toOpaque()
        let callback: @convention(c) (UnsafeMutableRawPointer?, UInt32, UnsafeMutableRawPointer?) -> Void = { _, position, data in
            let box = Unmanaged<PositionHandlerBox>.fromOpaque(data!).takeUnretainedValue()
            MainActor.assumeIsolated { box.handler(position) }
        }
        oton_gtk_connect(instance, name, unsafeBitCast(callback, to: GCallback.self), box, releasePositionBox)
    }

    /// A signal whose handler takes the instance and an object (GtkSignalListItemFactory's "setup" and "bind").
    static func connectObject(_ instance: UnsafeMutableRawPointer, _ name: String, _ handler: @escaping @MainActor (UnsafeMutableRawPointer) -> Void) {
        let box = Unmanaged.passRetained(ObjectHandlerBox(handler)).toOpaque()
        let callback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, object, data in
            let box = Unmanaged<ObjectHandlerBox>.fromOpaque(data!).takeUnretainedValue()
            MainActor.assumeIsolated { box.handler(object!) }
        }
        oton_gtk_connect(instance, name, unsafeBitCast(callback, to: GCallback.self), box, releaseObjectBox)
    }

    /// A key controller's "key-pressed": the handler gets the key's keyval and modifier state and
    /// answers whether it took the key (then it goes no further).
    static func connectKey(_ controller: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (UInt32, UInt32) -> Bool) {
        let box = Unmanaged.passRetained(KeyHandlerBox(handler)).toOpaque()
        let callback: @convention(c) (UnsafeMutableRawPointer?, UInt32, UInt32, UInt32, UnsafeMutableRawPointer?) -> gboolean = { _, key, _, state, data in
            let box = Unmanaged<KeyHandlerBox>.fromOpaque(data!).takeUnretainedValue()
            return MainActor.assumeIsolated { box.handler(key, state) } ? 1 : 0
        }
        oton_gtk_connect(controller, "key-pressed", unsafeBitCast(callback, to: GCallback.self), box, releaseKeyBox)
    }

    /// A signal whose handler answers a boolean ("close-request": true keeps the window).
    static func connectReturning(_ instance: UnsafeMutableRawPointer, _ name: String, _ handler: @escaping @MainActor () -> Bool) {
        let box = Unmanaged.passRetained(BoolHandlerBox(handler)).toOpaque()
        let callback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
            let box = Unmanaged<BoolHandlerBox>.fromOpaque(data!).takeUnretainedValue()
            return MainActor.assumeIsolated { box.handler() } ? 1 : 0
        }
        oton_gtk_connect(instance, name, unsafeBitCast(callback, to: GCallback.self), box, releaseBoolBox)
    }
}

private final class HandlerBox {
    let handler: @MainActor () -> Void
    init(_ handler: @escaping @MainActor () -> Void) { self.handler = handler }
}

private final class PositionHandlerBox {
    let handler: @MainActor (UInt32) -> Void
    init(_ handler: @escaping @MainActor (UInt32) -> Void) { self.handler = handler }
}

private final class ObjectHandlerBox {
    let handler: @MainActor (UnsafeMutableRawPointer) -> Void
    init(_ handler: @escaping @MainActor (UnsafeMutableRawPointer) -> Void) { self.handler = handler }
}

private final class BoolHandlerBox {
    let handler: @MainActor () -> Bool
    init(_ handler: @escaping @MainActor () -> Bool) { self.handler = handler }
}

private final class KeyHandlerBox {
    let handler: @MainActor (UInt32, UInt32) -> Bool
    init(_ handler: @escaping @MainActor (UInt32, UInt32) -> Bool) { self.handler = handler }
}

private let releaseKeyBox: GClosureNotify = { data, _ in Unmanaged<KeyHandlerBox>.fromOpaque(data!).release() }
private let releaseBox: GClosureNotify = { data, _ in Unmanaged<HandlerBox>.fromOpaque(data!).release() }
private let releasePositionBox: GClosureNotify = { data, _ in Unmanaged<PositionHandlerBox>.fromOpaque(data!).release() }
private let releaseObjectBox: GClosureNotify = { data, _ in Unmanaged<ObjectHandlerBox>.fromOpaque(data!).release() }
private let releaseBoolBox: GClosureNotify = { data, _ in Unmanaged<BoolHandlerBox>.fromOpaque(data!).release() }
