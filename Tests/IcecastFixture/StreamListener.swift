import Foundation

/// One message reported by a `StreamListener`.
public struct ListenerEvent: Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable { case tag, playing, error, eos }
    public let kind: Kind
    /// Seconds since the listener's pipeline was created (measured by the script).
    public let scriptTime: Double
    /// When the Swift side received the event.
    public let receivedAt: Date
    /// GStreamer tags (`title`, `artist`, `organization`, `genre`, ...), stringified.
    public let tags: [String: String]
    /// Error text for `.error`.
    public let message: String?

    /// "artist - title" when both tags are present, else `title`.
    public var displayTitle: String? {
        guard let title = tags["title"] else { return nil }
        if let artist = tags["artist"] { return "\(artist) - \(title)" }
        return title
    }

    /// True when this tag event carries `title`, either as one ICY-style string
    /// ("Artist - Song" in `title`) or split into `artist` + `title` (Vorbis comments).
    public func hasTitle(_ wanted: String) -> Bool {
        kind == .tag && (tags["title"] == wanted || displayTitle == wanted)
    }

    public var description: String {
        "\(kind.rawValue)@\(String(format: "%.3f", scriptTime)) \(message ?? "") \(tags)"
    }
}

/// A GStreamer listener (souphttpsrc iradio-mode=true ! decodebin ! fakesink per
/// pad) run by a small python3-gi script, which prints every bus TAG/ERROR/EOS
/// message as a JSON line. Handles chained Ogg (a new decoder pad per chain).
public final class StreamListener: @unchecked Sendable {
    public let url: URL
    private let process: ManagedProcess
    private let collected = LockedValue<[ListenerEvent]>([])
    private let stderrText = LockedValue("")

    /// Interpreter with the `gi` module (Debian's, not a pyenv/venv one).
    /// Override with the environment variable OTON_GST_PYTHON.
    public static var python: String {
        ProcessInfo.processInfo.environment["OTON_GST_PYTHON"] ?? "/usr/bin/python3"
    }

    private init(url: URL, process: ManagedProcess) {
        self.url = url
        self.process = process
    }

    /// Starts listening. Call `stop()` when done (also done in deinit).
    public static func start(url: URL) throws -> StreamListener {
        let out = Pipe()
        let err = Pipe()
        let process = ManagedProcess(
            name: "listener \(url)", executable: python,
            arguments: ["-u", "-c", script, url.absoluteString],
            stdout: out.fileHandleForWriting, stderr: err.fileHandleForWriting)
        let listener = StreamListener(url: url, process: process)
        try process.start()
        // Close our copies of the write ends so the readers see EOF when the child exits.
        try? out.fileHandleForWriting.close()
        try? err.fileHandleForWriting.close()
        listener.startReader(out.fileHandleForReading) { [weak listener] line in listener?.handle(line) }
        listener.startReader(err.fileHandleForReading) { [weak listener] line in
            listener?.stderrText.mutate { $0 += line + "\n" }
        }
        return listener
    }

    public func stop() { process.stop(grace: 1) }
    deinit { process.kill() }

    public var events: [ListenerEvent] { collected.get() }
    public var tagEvents: [ListenerEvent] { events.filter { $0.kind == .tag } }
    /// Distinct consecutive display titles seen so far.
    public var titles: [String] {
        var result: [String] = []
        for e in tagEvents { if let t = e.displayTitle, result.last != t { result.append(t) } }
        return result
    }
    public var stderr: String { stderrText.get() }

    /// Waits for the first event (received at or after `since`) matching `predicate`.
    @discardableResult
    public func waitForEvent(
        timeout: TimeInterval, since: Date = .distantPast, _ what: String = "event",
        where predicate: @escaping @Sendable (ListenerEvent) -> Bool
    ) async throws -> ListenerEvent {
        try await pollUntil(timeout: timeout, interval: 0.02, "\(what) from \(url); got: \(events.suffix(6)) stderr: \(stderr.suffix(300))") {
            self.events.first { $0.receivedAt >= since && predicate($0) }
        }
    }

    /// Waits for a tag event carrying `title` (see `ListenerEvent.hasTitle`).
    @discardableResult
    public func waitForTitle(_ title: String, timeout: TimeInterval, since: Date = .distantPast) async throws -> ListenerEvent {
        try await waitForEvent(timeout: timeout, since: since, "title \"\(title)\"") { $0.hasTitle(title) }
    }

    /// Waits for an ERROR message (e.g. 404, HTML instead of audio) and returns its text.
    public func waitForError(timeout: TimeInterval) async throws -> String {
        try await waitForEvent(timeout: timeout, "error") { $0.kind == .error }.message ?? ""
    }

    private func startReader(_ handle: FileHandle, _ onLine: @escaping @Sendable (String) -> Void) {
        let box = UncheckedBox(handle)
        let thread = Thread {
            var pending = Data()
            while true {
                let chunk = box.value.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let nl = pending.firstIndex(of: 0x0A) {
                    onLine(String(decoding: pending[pending.startIndex..<nl], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...nl)
                }
            }
            try? box.value.close()
        }
        thread.name = "StreamListener.reader"
        thread.start()
    }

    private func handle(_ line: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let type = object["type"] as? String, let kind = ListenerEvent.Kind(rawValue: type)
        else { return }
        var tags: [String: String] = [:]
        for (k, v) in (object["tags"] as? [String: Any]) ?? [:] { tags[k] = "\(v)" }
        let event = ListenerEvent(
            kind: kind, scriptTime: (object["t"] as? Double) ?? 0, receivedAt: Date(),
            tags: tags, message: object["message"] as? String)
        collected.mutate { $0.append(event) }
    }

    static let script = #"""
        import sys, json, time
        import gi
        gi.require_version('Gst', '1.0')
        from gi.repository import Gst, GLib
        Gst.init(None)
        t0 = time.monotonic()
        def out(d):
            d["t"] = round(time.monotonic() - t0, 3)
            sys.stdout.write(json.dumps(d) + "\n")
            sys.stdout.flush()
        p = Gst.Pipeline.new("listener")
        src = Gst.ElementFactory.make("souphttpsrc", "src")
        src.set_property("location", sys.argv[1])
        src.set_property("iradio-mode", True)
        src.set_property("user-agent", "OtonTestListener/1.0")
        dec = Gst.ElementFactory.make("decodebin", "dec")
        p.add(src); p.add(dec); src.link(dec)
        def pad_added(_, pad):
            # one fakesink per pad: chained Ogg streams produce a new pad per chain
            sink = Gst.ElementFactory.make("fakesink", None)
            sink.set_property("sync", False)
            p.add(sink); sink.sync_state_with_parent()
            pad.link(sink.get_static_pad("sink"))
        dec.connect("pad-added", pad_added)
        loop = GLib.MainLoop()
        def on_msg(bus, m):
            if m.type == Gst.MessageType.TAG:
                tl = m.parse_tag(); tags = {}
                for i in range(tl.n_tags()):
                    n = tl.nth_tag_name(i); v = tl.get_value_index(n, 0)
                    if isinstance(v, (str, int, float, bool)): tags[n] = v
                out({"type": "tag", "tags": tags})
            elif m.type == Gst.MessageType.ERROR:
                e, dbg = m.parse_error(); out({"type": "error", "message": e.message + " | " + (dbg or "")}); loop.quit()
            elif m.type == Gst.MessageType.EOS:
                out({"type": "eos"}); loop.quit()
            elif m.type == Gst.MessageType.STATE_CHANGED and m.src == p:
                if m.parse_state_changed()[1] == Gst.State.PLAYING: out({"type": "playing"})
        bus = p.get_bus(); bus.add_signal_watch(); bus.connect("message", on_msg)
        p.set_state(Gst.State.PLAYING)
        try:
            loop.run()
        finally:
            p.set_state(Gst.State.NULL)
        """#
}
