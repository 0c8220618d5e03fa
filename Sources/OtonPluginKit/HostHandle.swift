import PluginAPI

#if canImport(Glibc)
    import Glibc
#endif

/// A reply callback of run_command, kept alive (retained) until the host calls it.
/// Concurrency: immutable; `done` is itself @Sendable.
private final class CommandDoneBox: @unchecked Sendable {
    let done: @Sendable (Bool, String) -> Void
    init(_ done: @escaping @Sendable (Bool, String) -> Void) { self.done = done }
}

/// A Swift view of the `oton_host` table a plugin received in create().
/// Valid until the plugin's destroy() returns. Every method may be called from any thread.
/// Concurrency: immutable; the table is the host's and its functions are documented ANY THREAD in the header.
public struct HostHandle: @unchecked Sendable {
    public let table: UnsafePointer<oton_host>

    public init(_ table: UnsafePointer<oton_host>) {
        self.table = table
    }

    public var dataDirectory: String { table.pointee.data_dir.map { String(cString: $0) } ?? "" }
    public var cacheDirectory: String { table.pointee.cache_dir.map { String(cString: $0) } ?? "" }

    /// From inside create() only: the media taps this instance receives (ABI 1.1). False when the
    /// host table has no such field (every declared tap then arrives: check each buffer's tap).
    @discardableResult
    public func selectMediaTaps(_ taps: oton_media_tap) -> Bool {
        guard hasField(table, \oton_host.select_media_taps), let select = table.pointee.select_media_taps else { return false }
        return select(table, taps) == OTON_OK
    }

    public func log(_ level: oton_log_level, _ message: String) {
        table.pointee.log?(table, level, message)
    }

    /// Publishes a namespaced event with text fields to the other plugins.
    @discardableResult
    public func publish(_ name: String, _ fields: [(String, String)] = []) -> oton_status {
        guard let kind = table.pointee.event_kind?(table, name), kind != 0 else { return OTON_ERR_INVALID }
        let storage = fields.map { (strdup($0.0)!, strdup($0.1)!) }
        defer { for (key, value) in storage { free(key); free(value) } }
        var cFields = storage.map { oton_field(key: UnsafePointer($0.0), value: UnsafePointer($0.1)) }
        return cFields.withUnsafeMutableBufferPointer { buffer in
            var event = oton_event()
            event.struct_size = UInt32(MemoryLayout<oton_event>.size)
            event.kind = kind
            event.field_count = UInt32(buffer.count)
            event.fields = UnsafePointer(buffer.baseAddress)
            return table.pointee.publish?(table, &event) ?? OTON_ERR_UNSUPPORTED
        }
    }

    @discardableResult
    public func request(_ kind: oton_request_kind, volume: Double = 0, durationMilliseconds: UInt32 = 0, station: String? = nil) -> oton_status {
        func send(_ pointer: UnsafePointer<CChar>?) -> oton_status {
            var request = oton_request(
                struct_size: UInt32(MemoryLayout<oton_request>.size), kind: kind,
                volume: volume, duration_ms: durationMilliseconds, reserved: 0, station: pointer)
            return table.pointee.request?(table, &request) ?? OTON_ERR_UNSUPPORTED
        }
        guard let station else { return send(nil) }
        return station.withCString { send($0) }  // borrowed for the call: the host copies it
    }

    /// Runs a control command as `oton ctl NAME ARGS…` would (ABI 1.3). Returns at once; `done`
    /// gets the reply object's JSON text later, on this instance's mailbox (never after destroy()).
    /// OTON_ERR_UNSUPPORTED from a host older than 1.3, which has no run_command.
    @discardableResult
    public func runCommand(
        _ name: String, _ arguments: [String] = [],
        done: (@Sendable (_ ok: Bool, _ replyJSON: String) -> Void)? = nil
    ) -> oton_status {
        guard hasField(table, \oton_host.run_command), let run = table.pointee.run_command else { return OTON_ERR_UNSUPPORTED }
        let argumentsJSON = JSONValue.strings(arguments).jsonText
        guard let done else { return run(table, name, argumentsJSON, nil, nil) }
        let box = Unmanaged.passRetained(CommandDoneBox(done)).toOpaque()
        let status = run(
            table, name, argumentsJSON,
            { user, status, reply in
                guard let user else { return }
                let box = Unmanaged<CommandDoneBox>.fromOpaque(user).takeRetainedValue()
                box.done(status == OTON_OK, reply.map { String(cString: $0) } ?? "")
            }, box)
        if status != OTON_OK { Unmanaged<CommandDoneBox>.fromOpaque(box).release() }
        return status
    }

    /// The fields of the latest event of `kind` (e.g. OTON_EVENT_TRACK), or nil.
    public func current(_ kind: oton_event_kind) -> EventView.Snapshot? {
        final class Box { var snapshot: EventView.Snapshot? }
        let box = Box()
        let status = table.pointee.current?(
            table, kind,
            { user, event in
                guard let user, let event else { return }
                Unmanaged<Box>.fromOpaque(user).takeUnretainedValue().snapshot = EventView(event).snapshot
            }, Unmanaged.passUnretained(box).toOpaque())
        return status == OTON_OK ? box.snapshot : nil
    }
}
