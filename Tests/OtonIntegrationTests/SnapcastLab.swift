import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// A real snapserver 0.26 on loopback (its own ports, config file and data folder in a temporary
/// directory, no Avahi publishing needed) with a TCP source in server mode whose control script is
/// the plugin's oton-snapcast-control, and a real snapclient whose file player appends what it would
/// play to a raw file (48 kHz S16LE stereo; appended, since the player reopens the file on every reconnection). snapserver can be stopped and started again on the
/// same ports, as a restart does.
final class SnapcastLab {
    let directory: TemporaryDirectory
    let sourcePort: UInt16
    let metadataPort: UInt16
    let clientPort: UInt16
    let controlPort: UInt16
    let httpPort: UInt16
    private(set) var server: ManagedProcess?
    private var client: ManagedProcess?
    private var serverStarts = 0

    var clientOutput: String { directory.file("snapclient.raw") }
    static let controlScript = TestPaths.root + "/Sources/Plugins/Snapcast/oton-snapcast-control"

    init(_ testCase: XCTestCase) throws {
        directory = try TemporaryDirectory(testCase)
        sourcePort = try FreePort.allocate()
        metadataPort = try FreePort.allocate()
        clientPort = try FreePort.allocate()
        controlPort = try FreePort.allocate()
        httpPort = try FreePort.allocate()
        try FileManager.default.createDirectory(atPath: directory.file("snapserver-data"), withIntermediateDirectories: true)
        // snapserver 0.26 cuts a query value at its first '/', so the script's path is percent-encoded.
        let script = Self.controlScript.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? Self.controlScript
        _ = try directory.write(
            "snapserver.conf",
            """
            [server]
            datadir = \(directory.file("snapserver-data"))
            [http]
            enabled = true
            bind_to_address = 127.0.0.1
            port = \(httpPort)
            [tcp]
            enabled = true
            bind_to_address = 127.0.0.1
            port = \(controlPort)
            [stream]
            bind_to_address = 127.0.0.1
            port = \(clientPort)
            source = tcp://127.0.0.1:\(sourcePort)?name=Oton&mode=server&controlscript=\(script)
            [logging]
            sink = stderr
            filter = *:info
            """)
        testCase.addTeardownBlock { [self] in
            client?.stop()
            server?.stop()
        }
    }

    /// Starts snapserver and waits until its JSON-RPC port answers.
    func startServer() async throws {
        serverStarts += 1
        let log = try logHandle("snapserver-\(serverStarts).log")
        var environment = ProcessInfo.processInfo.environment
        // snapserver 0.26 passes no controlscriptparams: the script finds the plugin through this.
        environment["OTON_SNAPCAST_ADDRESS"] = "127.0.0.1:\(metadataPort)"
        let process = ManagedProcess(
            name: "snapserver", executable: "snapserver", arguments: ["-c", directory.file("snapserver.conf")],
            environment: environment, stdout: log, stderr: log)
        try process.start()
        server = process
        try await pollUntilTrue(timeout: 30, "snapserver's JSON-RPC on port \(controlPort). \(serverLog)") {
            guard process.isRunning else { throw FixtureError("snapserver exited: \(serverLog)") }
            return (try? status()) != nil
        }
    }

    func stopServer() {
        server?.stop(grace: 5)
        server = nil
    }

    func startClient() throws {
        let log = try logHandle("snapclient.log")
        let process = ManagedProcess(
            name: "snapclient", executable: "snapclient",
            arguments: [
                "-h", "127.0.0.1", "-p", String(clientPort), "--hostID", "oton-test-room",
                "--player", "file:filename=\(clientOutput),mode=a", "--logsink", "stderr",
            ],
            stdout: log, stderr: log)
        try process.start()
        client = process
    }

    var serverLog: String { (1...max(1, serverStarts)).map { directory.read("snapserver-\($0).log") }.joined(separator: "\n---\n") }
    var clientLog: String { directory.read("snapclient.log") }

    private func logHandle(_ name: String) throws -> FileHandle {
        _ = FileManager.default.createFile(atPath: directory.file(name), contents: nil)
        return try XCTUnwrap(FileHandle(forWritingAtPath: directory.file(name)))
    }

    /// Server.GetStatus over snapserver's TCP JSON-RPC: the result's `server` object.
    func status() throws -> JSONValue {
        let reply = try SnapcastRPC.call(port: controlPort, method: "Server.GetStatus")
        guard let server = reply["result"]?["server"] else { throw FixtureError("no result.server in \(reply.jsonText)") }
        return server
    }

    /// The stream named `name` of Server.GetStatus.
    func stream(_ name: String = "Oton") throws -> JSONValue? {
        guard case let .array(streams)? = try status()["streams"] else { return nil }
        return streams.first { $0["id"]?.stringValue == name }
    }

    /// The client's file as 16-bit samples of its left channel, from `fromSecond` on.
    func clientSamples(fromSecond: Double = 0) -> [Int16] {
        guard let data = FileManager.default.contents(atPath: clientOutput) else { return [] }
        let start = min(data.count, Int(fromSecond * 48000) * 4)
        return data[data.startIndex + start..<data.startIndex + data.count - (data.count - start) % 4].withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: Int16.self)
            return stride(from: 0, to: samples.count, by: 2).map { Int16(littleEndian: samples[$0]) }
        }
    }

    /// Seconds of sound in the client's file (it writes in real time, silence included).
    var clientSeconds: Double {
        let size = (try? FileManager.default.attributesOfItem(atPath: clientOutput))?[.size] as? Int ?? 0
        return Double(size) / (48000 * 4)
    }
}

/// Tone measurement on the client's samples: 0.1 s windows, the loud ones' zero crossings.
enum ToneMeter {
    static let window = 4800

    /// The frequency of each window whose peak is above `threshold` (a window with a gap in it
    /// counts fewer crossings, so callers take the median).
    static func frequencies(_ samples: [Int16], threshold: Int16 = 2000) -> [Double] {
        stride(from: 0, to: samples.count - window, by: window).compactMap { start in
            let slice = samples[start..<start + window]
            guard slice.contains(where: { abs(Int32($0)) > Int32(threshold) }) else { return nil }
            var crossings = 0
            var previous = slice.first! < 0
            for sample in slice.dropFirst() {
                let negative = sample < 0
                if negative != previous { crossings += 1 }
                previous = negative
            }
            return Double(crossings) / 2 / (Double(window) / 48000)
        }
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        return values.sorted()[values.count / 2]
    }
}

/// One JSON-RPC request on snapserver's TCP control port (one object a line, CRLF).
enum SnapcastRPC {
    static func call(port: UInt16, method: String, timeout: TimeInterval = 5) throws -> JSONValue {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw FixtureError("connect to \(port): errno \(errno)") }
        let request = Array(#"{"id":1,"jsonrpc":"2.0","method":"\#(method)"}"#.utf8) + [13, 10]
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { throw FixtureError("send: errno \(errno)") }
        // snapserver also sends notifications (Stream.OnProperties, …) on this connection: the
        // reply is the line with our id.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, received.count < 4 << 20 {
            while let end = received.firstIndex(of: 10) {
                let line = received[..<end]
                received.removeSubrange(...end)
                if let value = try? JSONValue.parse(Data(line)), value["id"]?.int64Value == 1 { return value }
            }
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 500) >= 0 else { break }
            guard waiting.revents != 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        throw FixtureError("no reply to \(method) from snapserver on \(port)")
    }
}
