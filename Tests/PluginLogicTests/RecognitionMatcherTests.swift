import Foundation
import OtonTestSupport
import RecognitionLogic
import RecognitionStore
import XCTest

/// The matcher over Chromaprint fingerprints of generated melodies (RecognitionCorpus): the
/// thresholds in FingerprintMatcher are those these tests justify. (One class, so the corpus is made once.)
final class RecognitionMatcherTests: XCTestCase {
    func testTheSameMelodyThroughAnotherCodecIsRecognised() throws {
        let corpus = try RecognitionCorpus.shared()
        let source = MemorySource(songs: corpus.learned)
        for (song, query) in corpus.excerpts.sorted(by: { $0.key < $1.key }) {
            XCTAssertGreaterThan(query.count, 60, "song \(song): 12 s make about 75 frames")
            let match = try FingerprintMatcher().match(query, in: source)
            XCTAssertEqual(match?.song, song, "song \(song) heard through another codec was not recognised")
            // Where it sits: the excerpt's start, in frames of 1365 samples at 11025 Hz (give or take the codec's delay).
            let expected = RecognitionCorpus.excerptStart(UInt64(song)) * 11025 / 1365
            XCTAssertEqual(Double(match?.offset ?? -100), expected, accuracy: 3, "song \(song)")
            XCTAssertLessThan(match?.bitErrorRate ?? 1, 0.10, "song \(song): the margin below the threshold shrank")
        }
    }

    /// No false match over 50 unrelated excerpts, and the threshold's margin: even at the best of
    /// every alignment with every learned song, an unrelated excerpt differs in more bits than the
    /// matcher accepts (and than any true match above differs in).
    func testFiftyUnrelatedExcerptsAreNeverRecognised() throws {
        let corpus = try RecognitionCorpus.shared()
        let source = MemorySource(songs: corpus.learned)
        let matcher = FingerprintMatcher()
        XCTAssertEqual(corpus.unrelated.count, 50)
        var closest = 1.0
        for (index, query) in corpus.unrelated.enumerated() {
            XCTAssertGreaterThan(query.count, 60, "excerpt \(index)")
            XCTAssertNil(try matcher.match(query, in: source), "unrelated excerpt \(index) was taken for a learned song")
            for frames in corpus.learned.values {
                for offset in -query.count / 2..<frames.count {
                    if let rate = FingerprintMatcher.bitErrorRate(query, frames, offset: offset) { closest = min(closest, rate) }
                }
            }
        }
        XCTAssertGreaterThan(closest, matcher.maximumBitErrorRate + 0.03, "an unrelated excerpt came within 3 points of the threshold")
    }

    /// A station playing the song 2 % fast: recognised as that song, or not at all; never as another.
    func testTwoPercentFasterIsTheSameSongOrNone() throws {
        let corpus = try RecognitionCorpus.shared()
        let source = MemorySource(songs: corpus.learned)
        var recognised = 0
        for (song, query) in corpus.spedUp.sorted(by: { $0.key < $1.key }) {
            guard let match = try FingerprintMatcher().match(query, in: source) else { continue }
            XCTAssertEqual(match.song, song, "song \(song) played 2 % fast was taken for song \(match.song)")
            recognised += 1
        }
        print("RecognitionMatcherTests: \(recognised) of \(corpus.spedUp.count) songs played 2 % fast recognised, the rest not recognisable")
    }

    func testTooShortAQueryIsNotLookedUp() throws {
        let corpus = try RecognitionCorpus.shared()
        let query = Array(corpus.excerpts[1]!.prefix(10))
        XCTAssertNil(try FingerprintMatcher().match(query, in: MemorySource(songs: corpus.learned)))
    }

    /// The same, through the SQLite index the plugin keeps.
    func testLearnedSongsAreRecognisedThroughTheIndex() throws {
        let directory = try TemporaryDirectory(self)
        let corpus = try RecognitionCorpus.shared()
        let index = try FingerprintIndex(path: directory.file("recognition.sqlite"), maxFrames: 100_000)
        var ids: [Int64: String] = [:]
        for (seed, learned) in corpus.learned.sorted(by: { $0.key < $1.key }) {
            try index.add(TitledSong(artist: "Artist \(seed)", title: "Song \(seed)", station: "Titled FM"), frames: learned)
            ids[seed] = "Song \(seed)"
        }
        for (seed, query) in corpus.excerpts {
            let match = try XCTUnwrap(try FingerprintMatcher().match(query, in: index), "song \(seed)")
            XCTAssertEqual(try index.song(match.song), TitledSong(artist: "Artist \(seed)", title: "Song \(seed)", station: "Titled FM"))
        }
        for query in corpus.unrelated.prefix(10) { XCTAssertNil(try FingerprintMatcher().match(query, in: index)) }
    }
}
