/// SHOUTcast v1 servers answer `ICY 200 OK` with a header block that is not HTTP; libcurl passes
/// the whole answer on as an HTTP/0.9 body, so neither the metadata interval nor the station's name
/// reached the light engine, and `StreamTitle='…'` blocks were recorded inside the audio. This reads
/// that block off the front of the body, bounded, and hands back its lines and what follows it.
package struct IcyPreamble {
    /// A header block longer than this is not a SHOUTcast answer: the bytes go on as they came.
    package static let maximumBytes = 16 * 1024
    private static let statusPrefix = Array("ICY ".utf8)

    package enum Step {
        /// Not yet decided: keep the bytes back.
        case needMore
        /// A SHOUTcast header block: its lines (status line first, without line ends) and the body after it.
        case headers(lines: [[UInt8]], body: [UInt8])
        /// Not a SHOUTcast answer: every byte so far is body.
        case body([UInt8])
    }

    private var held: [UInt8] = []

    package init() {}

    package mutating func push(_ bytes: UnsafeRawBufferPointer) -> Step {
        held.append(contentsOf: bytes)
        let prefix = min(held.count, Self.statusPrefix.count)
        guard held.prefix(prefix).elementsEqual(Self.statusPrefix.prefix(prefix)) else { return .body(held) }
        guard held.count >= Self.statusPrefix.count else { return .needMore }
        guard let end = Self.endOfBlock(held) else {
            return held.count > Self.maximumBytes ? .body(held) : .needMore
        }
        let lines = held[..<end.headerEnd].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
            .map { line in Array(line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]) }
        return .headers(lines: lines, body: Array(held[end.bodyStart...]))
    }

    /// Where the block ends: a blank line, CRLF CRLF or LF LF (some servers send bare LFs).
    private static func endOfBlock(_ bytes: [UInt8]) -> (headerEnd: Int, bodyStart: Int)? {
        var index = 0
        while index + 1 < min(bytes.count, maximumBytes) {
            if bytes[index] == 0x0A {
                if bytes[index + 1] == 0x0A { return (index, index + 2) }
                if bytes[index + 1] == 0x0D, index + 2 < bytes.count, bytes[index + 2] == 0x0A { return (index, index + 3) }
            }
            index += 1
        }
        return nil
    }
}
