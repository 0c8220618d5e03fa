import FoundationEssentials

/// Bytes of one HTTP/1.1 response. Every response closes its connection (no keep-alive), carries
/// no CORS header (so no other origin may read it) and forbids framing, sniffing and referrers
/// (the page's URL holds the token).
enum HTTPResponse {
    static let securityHeaders = [
        "Cache-Control: no-store",
        "X-Content-Type-Options: nosniff",
        "X-Frame-Options: DENY",
        "Referrer-Policy: no-referrer",
        "Content-Security-Policy: default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ]

    static func bytes(status: Int, contentType: String, body: [UInt8], extraHeaders: [String] = []) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason(status))\r\n"
        head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for header in securityHeaders + extraHeaders { head += header + "\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    static func text(status: Int, _ message: String) -> [UInt8] {
        bytes(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
    }

    static func json(status: Int, _ text: String) -> [UInt8] {
        bytes(status: status, contentType: "application/json", body: Array(text.utf8))
    }

    /// The head of an event stream; events follow as `data:` lines.
    static let eventStreamHead = Array(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n"
        + securityHeaders.joined(separator: "\r\n") + "\r\n\r\n").utf8)

    static func event(_ json: String) -> [UInt8] {
        Array("data: \(json)\n\n".utf8)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 202: "Accepted"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }

    /// The image type from the file's first bytes, never from its name.
    static func imageType(_ data: [UInt8]) -> String {
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if data.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if data.count >= 12, data.starts(with: Array("RIFF".utf8)), Array(data[8 ..< 12]) == Array("WEBP".utf8) { return "image/webp" }
        return "application/octet-stream"
    }
}
