import Foundation
import OtonTestSupport
import XCTest

/// An HTTPS front on loopback for a plain HTTP server (Tests/Fixtures/tls_proxy.py) with a throwaway
/// self-signed certificate for 127.0.0.1 made by openssl for this test only.
final class TLSProxy: @unchecked Sendable {
    let port: UInt16
    /// The certificate, PEM: what a client must trust (SSL_CERT_FILE).
    let certificate: String
    private let process = Process()
    private let output = Pipe()
    private let lock = NSLock()
    private var lines: [String] = []

    init(_ testCase: XCTestCase, upstreamPort: UInt16) throws {
        let directory = try TemporaryDirectory(testCase)
        certificate = directory.file("cert.pem")
        let key = directory.file("key.pem")
        let made = try runProcess("/usr/bin/env", [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
        ])
        guard made.status == 0 else { throw XCTSkip("openssl could not make a certificate: \(made.stderr)") }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [TestPaths.root + "/Tests/Fixtures/tls_proxy.py", certificate, key, String(upstreamPort)]
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let process = self.process
        // SIGKILL: the test process may block SIGTERM, and a child inherits that.
        testCase.addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        // The first line is "PORT n"; later lines report each handshake.
        let reader = output.fileHandleForReading
        var buffer = Data()
        var port: UInt16?
        while port == nil {
            let chunk = reader.availableData
            guard !chunk.isEmpty else { throw XCTSkip("tls_proxy.py exited before listening") }
            buffer.append(chunk)
            if let text = String(data: buffer, encoding: .utf8), let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }) {
                port = UInt16(line.dropFirst(5))
            }
        }
        self.port = port!
        reader.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            guard let self else { return }
            self.lock.lock(); self.lines += text.split(separator: "\n").map(String.init); self.lock.unlock()
        }
    }

    func url(mount: String) -> String { "https://127.0.0.1:\(port)\(mount)" }

    /// "HANDSHAKE ok" / "HANDSHAKE failed …" lines so far.
    var handshakes: [String] {
        lock.lock(); defer { lock.unlock() }
        return lines.filter { $0.hasPrefix("HANDSHAKE") }
    }
}
