import Foundation
import OtonHost
import PluginAPI
import XCTest

/// The PCM formats instances choose (ABI 1.3 select_pcm_format): the range checks, the caps each
/// pipeline branch is built with, one branch per distinct choice, and packets that reach only the
/// instances that chose their format.
final class PCMFormatChoiceRoutingTests: XCTestCase {
    func testChoicesAreCheckedAndZeroMeansAsTheStreamIs() {
        XCTAssertEqual(PCMFormatChoice.validated(sampleFormat: 0, rate: 0, channels: 0), .standard)
        XCTAssertEqual(
            PCMFormatChoice.validated(sampleFormat: OTON_SAMPLE_F32LE, rate: 8000, channels: 8)?.caps,
            "audio/x-raw,format=F32LE,layout=interleaved,rate=8000,channels=8")
        XCTAssertEqual(PCMFormatChoice.standard.caps, "audio/x-raw,format=S16LE,layout=interleaved")
        XCTAssertNotNil(PCMFormatChoice.validated(sampleFormat: OTON_SAMPLE_S16LE, rate: 192_000, channels: 1))
        for (format, rate, channels) in [
            (OTON_SAMPLE_NONE + 3, 0, 0), (OTON_SAMPLE_S16LE, 7999, 0), (OTON_SAMPLE_S16LE, 192_001, 0),
            (OTON_SAMPLE_S16LE, 0, 9), (OTON_SAMPLE_F32LE, UInt32.max, UInt32.max),
        ] as [(UInt32, UInt32, UInt32)] {
            XCTAssertNil(PCMFormatChoice.validated(sampleFormat: format, rate: rate, channels: channels), "\(format) \(rate) \(channels)")
        }
    }

    func testOneBranchPerDistinctChoiceAndPacketsOnlyForThoseWhoChoseThem() {
        let bus = PluginBus()
        let mono = PCMFormatChoice(sampleFormat: OTON_SAMPLE_F32LE, rate: 16000, channels: 1)
        let boxes = (0..<4).map { _ in bus.makeMailbox(for: "x") }
        bus.subscribe(id: "a", kinds: .only([]), taps: OTON_TAP_PCM, pcm: mono, mailbox: boxes[0])
        bus.subscribe(id: "b", kinds: .only([]), taps: OTON_TAP_PCM, pcm: mono, mailbox: boxes[1])
        bus.subscribe(id: "c", kinds: .only([]), taps: OTON_TAP_PCM, mailbox: boxes[2])
        bus.subscribe(id: "d", kinds: .only([]), taps: OTON_TAP_STREAM, pcm: mono, mailbox: boxes[3])
        XCTAssertEqual(bus.requestedPCMFormats, [.standard, mono], "two branches for three PCM subscribers; the stream-only one asks for none")

        let collectors = boxes.map { box -> Collector in
            let collector = Collector()
            box.start(consumer: collector)
            return collector
        }
        bus.publish(
            media: MediaPacket(
                format: MediaFormat(
                    tap: OTON_TAP_PCM, caps: mono.caps, sampleFormat: OTON_SAMPLE_F32LE,
                    rate: 16000, channels: 1, pcmChoice: mono), bytes: [0, 0, 0, 0]))
        bus.publish(
            media: MediaPacket(
                format: MediaFormat(
                    tap: OTON_TAP_PCM, caps: "audio/x-raw", sampleFormat: OTON_SAMPLE_S16LE,
                    rate: 44100, channels: 2), bytes: [0, 0, 0, 0]))
        for box in boxes { box.drain() }
        XCTAssertEqual(collectors.map(\.rates), [[16000], [16000], [44100], []])
    }
}

private final class Collector: MailboxConsumer, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [UInt32] = []
    var rates: [UInt32] { lock.lock(); defer { lock.unlock() }; return seen }
    func deliver(event: FrozenEvent) {}
    func deliver(media: MediaPacket, extraFlags: UInt32) { lock.lock(); seen.append(media.format.rate); lock.unlock() }
    func deliverDropNotice(_ counts: Mailbox.DropCounts) {}
}
