import Foundation
import IcecastFixture
import OtonTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An Icecast-style MP3 stream on 127.0.0.1 that sends as fast as the socket
/// takes it: real MP3 frames (encoded once by lamemp3enc) in a loop, ICY
/// metadata every `metaint` bytes and a new title every `blocksPerTitle`
/// metadata blocks, so a recorder gets a flood of short tracks. One client at
/// a time; `stop()` ends the stream and the accept loop.
final class FloodStreamServer: @unchecked Sendable {
    let port: UInt16
    let metaint = 16_000
    let blocksPerTitle: Int
    private let listenFD: Int32
    private let audio: [UInt8]
    private let lock = NSLock()
    private var running = true
    private var sentBytes: UInt64 = 0
    private var titles = 0
    private let acceptDone = DispatchSemaphore(value: 0)

    var url: String { "http://127.0.0.1:\(port)/flood.mp3" }
    var bytesSent: UInt64 { lock.withLock { sentBytes } }
    var titlesSent: Int { lock.withLock { titles } }

    /// Encodes `seconds` of a test tone to MP3 in `directory`, then listens.
    init(directory: TemporaryDirectory, seconds: Int = 5, blocksPerTitle: Int = 4) throws {
        self.blocksPerTitle = blocksPerTitle
        let file = directory.file("flood-source.mp3")
        let encoded = try runProcess(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "audiotestsrc", "num-buffers=\(seconds * 44100 / 1024)", "samplesperbuffer=1024", "!",
                "audio/x-raw,rate=44100,channels=2", "!", "lamemp3enc", "target=bitrate", "bitrate=128", "cbr=true", "!",
                "filesink", "location=\(file)",
            ])
        guard encoded.status == 0, let data = FileManager.default.contents(atPath: file), data.count > 20_000 else {
            throw NSError(domain: "FloodStreamServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "lamemp3enc failed: \(encoded.stderr)"])
        }
        audio = [UInt8](data)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, bound else { close(fd); throw NSError(domain: "FloodStreamServer", code: 2) }
        listenFD = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "FloodStreamServer.accept"
        thread.start()
    }

    func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { running = false }; return running
        }
        guard wasRunning else { return }
        _ = acceptDone.wait(timeout: .now() + 2)
        close(listenFD)
    }

    private var isRunning: Bool { lock.withLock { running } }

    private func acceptLoop() {
        defer { acceptDone.signal() }
        while isRunning {
            var poller = pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let client = accept(listenFD, nil, nil)
            guard client >= 0 else { continue }
            serve(client)
            close(client)
        }
    }

    private func serve(_ client: Int32) {
        // Read the request head (up to the blank line); its content does not matter.
        var head = [UInt8]()
        var byte: UInt8 = 0
        while head.count < 16_384, read(client, &byte, 1) == 1 {
            head.append(byte)
            if head.suffix(4) == [13, 10, 13, 10] { break }
        }
        let response = "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-name: Flood FM\r\nicy-metaint: \(metaint)\r\n\r\n"
        guard send(Array(response.utf8), to: client) else { return }
        var position = 0
        var block = 0
        while isRunning {
            var chunk = [UInt8]()
            chunk.reserveCapacity(metaint)
            while chunk.count < metaint {
                let take = min(metaint - chunk.count, audio.count - position)
                chunk += audio[position..<position + take]
                position = (position + take) % audio.count
            }
            chunk += metadata(block)
            block += 1
            guard send(chunk, to: client) else { return }
            lock.withLock { sentBytes += UInt64(metaint) }
        }
    }

    /// A title every `blocksPerTitle` blocks, an empty block otherwise.
    private func metadata(_ block: Int) -> [UInt8] {
        guard block % blocksPerTitle == 0 else { return [0] }
        let number = lock.withLock { () -> Int in
            titles += 1; return titles
        }
        var text = Array("StreamTitle='Flood Artist - Flood Song \(number)';".utf8)
        let blocks = (text.count + 15) / 16
        text += [UInt8](repeating: 0, count: blocks * 16 - text.count)
        return [UInt8(blocks)] + text
    }

    private func send(_ bytes: [UInt8], to client: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
