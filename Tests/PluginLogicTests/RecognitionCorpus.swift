import Foundation
import OtonTestSupport
import RecognitionLogic
import RecognitionStore
import XCTest

/// The recognition tests' songs, made once per test run: ten synthetic melodies of 45 s heard
/// through MP3 at 128 kbit/s (what the index learns), and what is heard later: excerpts of 12 s
/// starting between frames, through Ogg Vorbis at 64 kbit/s or AAC at 96 kbit/s; the same
/// excerpts played 2 % fast; and 50 excerpts of other melodies. Every fingerprint is Chromaprint's.
final class RecognitionCorpus: @unchecked Sendable {
    /// Enough for the melodies' highest harmonic (3.3 kHz), and half the work of 22050 Hz in a debug build.
    static let rate = 11025
    static let songSeeds: [UInt64] = Array(1...10)
    static let unrelatedSeeds: [UInt64] = Array(101...150)

    let learned: [Int64: [UInt32]]
    let excerpts: [Int64: [UInt32]]
    let spedUp: [Int64: [UInt32]]
    let unrelated: [[UInt32]]

    nonisolated(unsafe) private static var made: RecognitionCorpus?
    private static let lock = NSLock()

    static func shared() throws -> RecognitionCorpus {
        try lock.withLock {
            if let made { return made }
            let corpus = try RecognitionCorpus()
            made = corpus
            return corpus
        }
    }

    /// Where the excerpt of song `seed` starts: never on a frame boundary (a frame is 1365 samples at 11025 Hz).
    static func excerptStart(_ seed: UInt64) -> Double { 5.37 + Double(seed) * 2.3 }

    private init() throws {
        let directory = NSTemporaryDirectory() + "oton-recognition-corpus-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fingerprinter = Fingerprinter()
        // As stations send it: 44.1 kHz stereo.
        let station = ["-ar", "44100", "-ac", "2"]
        let mp3 = station + ["-c:a", "libmp3lame", "-b:a", "128k"]
        let vorbis = station + ["-c:a", "libvorbis", "-b:a", "64k"]
        let aac = station + ["-c:a", "aac", "-b:a", "96k"]
        var learned: [Int64: [UInt32]] = [:]
        var excerpts: [Int64: [UInt32]] = [:]
        var spedUp: [Int64: [UInt32]] = [:]
        for seed in Self.songSeeds {
            let song = SyntheticMelody.samples(seed: seed, seconds: 45, rate: Self.rate)
            learned[Int64(seed)] = fingerprinter.fingerprint(
                try SyntheticMelody.throughCodec(song, rate: Self.rate, codec: mp3, ext: "mp3", name: "song\(seed)", in: directory))
            let first = Int(Self.excerptStart(seed) * Double(Self.rate))
            let excerpt = Array(song[first..<(first + 12 * Self.rate)])
            let (codec, ext) = seed % 2 == 0 ? (vorbis, "ogg") : (aac, "m4a")
            excerpts[Int64(seed)] = fingerprinter.fingerprint(
                try SyntheticMelody.throughCodec(excerpt, rate: Self.rate, codec: codec, ext: ext, name: "excerpt\(seed)", in: directory))
            let fast = SyntheticMelody.spedUp(Array(song[first..<(first + 13 * Self.rate)]), by: 1.02)
            spedUp[Int64(seed)] = fingerprinter.fingerprint(
                try SyntheticMelody.throughCodec(
                    Array(fast.prefix(12 * Self.rate)), rate: Self.rate, codec: vorbis, ext: "ogg", name: "fast\(seed)", in: directory))
        }
        // The 50 unrelated excerpts through one encoding: 12 s each, one after another, cut apart after decoding.
        let pieces = Self.unrelatedSeeds.map { SyntheticMelody.samples(seed: $0, seconds: 12, rate: Self.rate) }
        let heard = try SyntheticMelody.throughCodec(pieces.flatMap { $0 }, rate: Self.rate, codec: vorbis, ext: "ogg", name: "unrelated", in: directory)
        let pieceLength = 12 * Fingerprinter.rate
        unrelated = (0..<pieces.count).map { index in
            let first = index * pieceLength
            return fingerprinter.fingerprint(Array(heard[min(first, heard.count)..<min(first + pieceLength, heard.count)]))
        }
        self.learned = learned
        self.excerpts = excerpts
        self.spedUp = spedUp
    }
}

/// The learned songs as a FingerprintSource held in memory (the SQLite one is RecognitionIndexTests').
struct MemorySource: FingerprintSource {
    let songs: [Int64: [UInt32]]

    func hits(for keys: Set<UInt32>, limit: Int) -> [UInt32: [IndexHit]] {
        var found: [UInt32: [IndexHit]] = [:]
        for (song, frames) in songs.sorted(by: { $0.key < $1.key }) {
            for (position, frame) in frames.enumerated() where keys.contains(FingerprintMatcher.key(frame)) {
                let key = FingerprintMatcher.key(frame)
                if found[key, default: []].count < limit { found[key, default: []].append(IndexHit(song: song, position: position)) }
            }
        }
        return found
    }

    func frames(of song: Int64) -> [UInt32]? { songs[song] }
}
