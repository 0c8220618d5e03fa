import Foundation

/// What the light engine keeps of a response's headers: the ICY fields and the Content-Type.
/// A status line (a redirect's next answer) starts afresh. Values are raw bytes, at most 1 KiB
/// each; curl bounds the size of the whole header block.
package struct LightResponseHeaders {
    package var status: Int?
    package var contentType: String?
    /// Content-Encoding, when the server compressed the body (gzip, br …); nil or "identity" when not.
    package var contentEncoding: String?
    package var metaint: Int?
    package var name: [UInt8]?
    package var genre: [UInt8]?
    /// icy-br in bit/s.
    package var bitrate: Int?
    /// Content-Length: the body is a finite resource (a programme, a file), not a live stream.
    package var contentLength: UInt64?

    package mutating func add(_ line: UnsafeRawBufferPointer) {
        let bytes = Array(line.prefix(4096))
        if bytes.starts(with: Array("HTTP/".utf8)) || bytes.starts(with: Array("ICY ".utf8)) {
            self = LightResponseHeaders()
            let words = String(decoding: bytes, as: UTF8.self).split(separator: " ")
            status = words.count > 1 ? Int(words[1]) : nil
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: bytes[..<colon], as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
        var value = Array(bytes[(colon + 1)...])
        while let first = value.first, first == 0x20 || first == 0x09 { value.removeFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 || last == 0x0D || last == 0x0A { value.removeLast() }
        value = Array(value.prefix(1024))
        let text = String(decoding: value, as: UTF8.self)
        switch name {
        case "content-type": contentType = text
        case "content-encoding": contentEncoding = text.lowercased()
        case "icy-metaint":
            // Not a positive 32-bit number: no metadata is cut (a lie here would cut audio apart).
            metaint = Int(text).flatMap { (1...Int(Int32.max)).contains($0) ? $0 : nil }
        case "content-length": contentLength = UInt64(text)
        case "icy-name": self.name = value
        case "icy-genre": genre = value
        case "icy-br": bitrate = Int(text.split(separator: ",").first ?? "").flatMap { (1...100_000).contains($0) ? $0 * 1000 : nil }
        default: break
        }
    }
}
