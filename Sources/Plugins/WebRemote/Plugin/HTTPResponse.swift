import CMicroHTTPD
import FoundationEssentials

/// One response: status, type and body. Every response closes its connection (no keep-alive),
/// carries no CORS header (so no other origin may read it) and forbids framing, sniffing and
/// referrers (the page's URL holds the token).
struct HTTPResponse: Sendable {
    let status: Int
    let contentType: String
    let body: [UInt8]

    static let securityHeaders: [(String, String)] = [
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        (
            "Content-Security-Policy",
            "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        ),
    ]

    static func bytes(status: Int, contentType: String, body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: body)
    }

    static func text(status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
    }

    static func json(status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: Array(text.utf8))
    }

    /// One Server-Sent Event carrying the page state.
    static func event(_ json: String) -> [UInt8] {
        Array("data: \(json)\n\n".utf8)
    }

    /// Queues this response on a libmicrohttpd connection (it copies the body).
    func queue(on connection: OpaquePointer) -> MHD_Result {
        var bytes = body
        guard
            let response = bytes.withUnsafeMutableBytes({
                MHD_create_response_from_buffer($0.count, $0.baseAddress, .RESPMEM_MUST_COPY)
            })
        else { return .NO }
        defer { MHD_destroy_response(response) }
        return Self.queue(response, status: status, contentType: contentType, on: connection)
    }

    /// Adds the content type and the security headers, makes the response close its connection, and queues it.
    static func queue(_ response: OpaquePointer, status: Int, contentType: String, on connection: OpaquePointer) -> MHD_Result {
        _ = oton_mhd_close_after(response)
        MHD_add_response_header(response, "Content-Type", contentType)
        for (name, value) in securityHeaders { MHD_add_response_header(response, name, value) }
        return MHD_queue_response(connection, UInt32(status), response)
    }

    /// The image type from the file's first bytes, never from its name.
    static func imageType(_ data: [UInt8]) -> String {
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if data.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if data.count >= 12, data.starts(with: Array("RIFF".utf8)), Array(data[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return "application/octet-stream"
    }
}
