import Foundation
import OtonTestSupport
import XCTest

/// An HTTPS front on loopback for a plain HTTP server (Tests/Fixtures/tls_proxy.py) with a throwaway
/// self-signed certificate for 127.0.0.1 made by openssl for this test only.
final class TLSProxy: @unchecked Sendable {
    private let server: ScriptServer
    var port: UInt16 { server.port }
    /// The certificate, PEM: what a client must trust (SSL_CERT_FILE).
    let certificate: String

    init(_ testCase: XCTestCase, upstreamPort: UInt16) throws {
        let directory = try TemporaryDirectory(testCase)
        certificate = directory.file("cert.pem")
        let key = directory.file("key.pem")
        let made = try runProcess(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ])
        guard made.status == 0 else { throw XCTSkip("openssl could not make a certificate: \(made.stderr)") }
        // Its first line is "PORT n"; later lines report each handshake.
        server = try ScriptServer(testCase, script: "tls_proxy.py", arguments: [certificate, key, String(upstreamPort)])
    }

    func url(mount: String) -> String { "https://127.0.0.1:\(port)\(mount)" }

    /// "HANDSHAKE ok" / "HANDSHAKE failed …" lines so far.
    var handshakes: [String] {
        server.printed.filter { $0.hasPrefix("HANDSHAKE") }
    }
}
