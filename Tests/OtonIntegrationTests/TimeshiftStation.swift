import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// A real Icecast mount whose sound can be counted (docs/timeshift.md's tests): a tone whose
/// frequency steps every second (300, 400 … 1000 Hz, then again), MP3 at 128 kbit/s, sent in real
/// time by gst-launch-1.0. In what is heard, every step but the first and last lasts 44,100
/// samples; a lost or doubled MP3 frame (1,152 samples) makes one of them shorter or longer.
struct TimeshiftStation {
    let server: IcecastServer
    let mount = "/steps.mp3"
    let source: ManagedProcess

    static let rate = 44100
    static let steps = 8
    static func frequency(ofStep step: Int) -> Double { 300 + 100 * Double(step % steps) }

    static func start(_ testCase: XCTestCase, seconds: Int = 300) async throws -> TimeshiftStation {
        let server = try await IcecastServer.start()
        let directory = try TemporaryDirectory(testCase)
        let wav = directory.file("steps.wav")
        try steppedTone(seconds: seconds).write(to: URL(fileURLWithPath: wav))
        let c = server.configuration
        let source = ManagedProcess(
            name: "gst-launch steps", executable: "/usr/bin/gst-launch-1.0",
            arguments: [
                "-q", "filesrc", "location=\(wav)", "!", "wavparse", "!", "identity", "sync=true", "!", "audioconvert", "!",
                "lamemp3enc", "target=bitrate", "bitrate=128", "cbr=true", "!",
                "shout2send", "ip=127.0.0.1", "port=\(server.port)", "password=\(c.sourcePassword)", "mount=/steps.mp3",
                "streamname=Steps FM", "public=false",
            ])
        try source.start()
        testCase.addTeardownBlock {
            source.kill(); server.stop()
        }
        let station = TimeshiftStation(server: server, source: source)
        _ = try await server.waitForMount(station.mount, timeout: 20)
        try await station.setTitle("Artist A - Song One")
        return station
    }

    var url: String { server.url(mount: mount).absoluteString }

    func setTitle(_ title: String) async throws {
        try await server.setTitle(mount: mount, title: title)
    }

    /// 16-bit stereo WAV of the stepped tone, phase-continuous (no click at a step).
    static func steppedTone(seconds: Int) -> Data {
        let frames = seconds * rate
        var data = Data()
        func le32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func le16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); le32(UInt32(36 + frames * 4)); data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); le32(16); le16(1); le16(2); le32(UInt32(rate)); le32(UInt32(rate * 4)); le16(4); le16(16)
        data.append(contentsOf: Array("data".utf8)); le32(UInt32(frames * 4))
        var samples = [Int16](repeating: 0, count: frames * 2)
        var phase = 0.0
        for frame in 0..<frames {
            let value = Int16(sin(phase) * 0.3 * 32767)
            samples[frame * 2] = value
            samples[frame * 2 + 1] = value
            phase += 2 * .pi * frequency(ofStep: frame / rate) / Double(rate)
            if phase > 2 * .pi { phase -= 2 * .pi }
        }
        samples.withUnsafeBytes { data.append(contentsOf: $0) }
        return data
    }

    /// The lengths (in samples) of the whole steps heard in S16LE stereo PCM at 44.1 kHz: from each
    /// change of frequency to the next, read from the zero crossings of the left channel.
    static func stepLengths(in pcm: Data) -> [Int] {
        let count = pcm.count / 4
        var crossings: [Double] = []
        pcm.withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: Int16.self)
            var previous = Int(samples[0])
            for frame in 1..<count {
                let value = Int(samples[frame * 2])
                if previous < 0, value >= 0 {
                    crossings.append(Double(frame - 1) + Double(-previous) / Double(value - previous))
                }
                previous = value
            }
        }
        // Each period's step (nil: between steps or damaged).
        var steps: [(at: Double, step: Int?)] = []
        for (a, b) in zip(crossings, crossings.dropFirst()) {
            let frequency = Double(rate) / (b - a)
            let step = Int(((frequency - 300) / 100).rounded())
            let clean = (0..<Self.steps).contains(step) && abs(frequency - Self.frequency(ofStep: step)) < 25
            steps.append((a, clean ? step : nil))
        }
        // A step starts where a frequency begins that then lasts 10 periods.
        var starts: [Double] = []
        var current: Int?
        var index = 0
        while index < steps.count {
            if let step = steps[index].step, step != current, index + 10 <= steps.count,
                steps[index..<(index + 10)].allSatisfy({ $0.step == step })
            {
                current = step
                starts.append(steps[index].at)
                index += 10
                continue
            }
            index += 1
        }
        return zip(starts, starts.dropFirst()).map { Int(($1 - $0).rounded()) }
    }
}
