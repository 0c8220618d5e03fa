import Foundation

/// One org.freedesktop.Notifications.Notify call the server received.
public struct NotifyCall: Sendable, Equatable {
    public var appName: String
    public var replacesID: UInt32
    public var summary: String
    public var body: String
    public var hints: [String: String]
    public var timeout: Int32
    /// The action keys and labels, in pairs, as sent.
    public var actions: [String] = []
}

/// A notification server on a private bus: python3-dbusmock's `notification_daemon`
/// template, which answers Notify with increasing ids (keeping replaces_id when
/// given) and logs every call, which `calls` reads back.
public final class NotificationServer: @unchecked Sendable {
    private let process: ManagedProcess
    private let log: URL
    private let directory: URL

    private init(process: ManagedProcess, log: URL, directory: URL) {
        self.process = process
        self.log = log
        self.directory = directory
    }

    public static func start(on bus: PrivateSessionBus) async throws -> NotificationServer {
        let directory = try makeTemporaryDirectory(prefix: "oton-notify")
        let log = directory.appendingPathComponent("calls.log")
        // The system python: the dbusmock module is a Debian package (python3-dbusmock).
        let process = ManagedProcess(
            name: "dbusmock", executable: "/usr/bin/python3",
            arguments: ["-m", "dbusmock", "--template", "notification_daemon", "-l", log.path],
            environment: bus.environment,
            stderr: try logFileHandle(directory.appendingPathComponent("stderr.log")))
        try process.start()
        let server = NotificationServer(process: process, log: log, directory: directory)
        do {
            try await pollUntilTrue(timeout: 15, "org.freedesktop.Notifications on the private bus") {
                guard process.isRunning else { throw FixtureError("dbusmock exited: \(server.stderr)") }
                return try bus.hasOwner("org.freedesktop.Notifications")
            }
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    var stderr: String {
        (try? String(contentsOf: directory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
    }

    /// Every Notify call so far, in order.
    public var calls: [NotifyCall] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { Self.parse(String($0)) }
    }

    /// Waits until `count` calls arrived (or one matching `predicate` among them).
    @discardableResult
    public func waitForCall(timeout: TimeInterval = 10, where predicate: @escaping @Sendable (NotifyCall) -> Bool) async throws -> NotifyCall {
        try await pollUntil(timeout: timeout, "a Notify call; got \(calls)") { self.calls.first(where: predicate) }
    }

    /// The id the server gave the newest notification (it counts from 1 and keeps a replaced one's id).
    public var lastID: UInt32? {
        let fresh = calls.filter { $0.replacesID == 0 }.count
        return calls.last.map { $0.replacesID != 0 ? $0.replacesID : UInt32(fresh) }
    }

    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// A log line: `1795237385.127 Notify "oton" 0 "" "Sum" "Body" [] {"image-path": "/tmp/a.png"} 5000`.
    static func parse(_ line: String) -> NotifyCall? {
        let tokens = tokenize(line)
        guard tokens.count == 10, tokens[1] == "Notify" else { return nil }
        func json(_ token: String) -> Any? {
            try? JSONSerialization.jsonObject(with: Data(token.utf8), options: [.fragmentsAllowed])
        }
        guard let app = json(tokens[2]) as? String, let replaces = UInt32(tokens[3]), let actions = json(tokens[7]) as? [String],
            let summary = json(tokens[5]) as? String, let body = json(tokens[6]) as? String,
            let hints = json(tokens[8]) as? [String: Any], let timeout = Int32(tokens[9])
        else { return nil }
        return NotifyCall(
            appName: app, replacesID: replaces, summary: summary, body: body,
            hints: hints.mapValues { "\($0)" }, timeout: timeout, actions: actions)
    }

    /// Splits on spaces outside quoted strings, brackets and braces.
    private static func tokenize(_ line: String) -> [String] {
        var tokens: [String] = [], current = "", depth = 0, quoted = false, escaped = false
        for character in line {
            if quoted {
                current.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { quoted = false }
                continue
            }
            switch character {
            case "\"": quoted = true; current.append(character)
            case "[", "{": depth += 1; current.append(character)
            case "]", "}": depth -= 1; current.append(character)
            case " " where depth == 0:
                if !current.isEmpty { tokens.append(current); current = "" }
            default: current.append(character)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}
