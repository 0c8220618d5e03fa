import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// Files planted in the output folder by someone who can write there (a gap ledger, a marker of a
/// dead recorder) that name files outside it, directly (`../outside/…`) or through symbolic links:
/// `oton record --archive … --keep-size 1K --upload … --upload-delete` against a real Icecast and
/// moto's S3 leaves every outside file as it was and sends none of them to the store.
final class ArchivePlantedFilesTests: XCTestCase {
    private let bucket = "radio-archive"

    func testRetentionAndUploadNeverTouchAFileOutsideTheFolder() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/p.mp3", format: .mp3, initialTitle: "Artist P - One")
        let store = try S3Lab(self, bucket: bucket)
        try store.waitUntilReady()
        let lab = try TemporaryDirectory(self)
        let out = lab.file("out")
        let outside = lab.file("outside")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        // Outside files, each with bytes of its own.
        for name in ["ledgered.mp3", "through-folder-link.mp3", "through-link.mp3", "marked.mp3.part", "marked.jsonl", "linked-part.mp3"] {
            try lab.write("outside/" + name, "outside file \(name) \(UInt32.random(in: 0 ... .max))\n")
        }
        func segmentLine(_ file: String) -> String {
            #"{"type":"segment","file":"\#(file)","start_unix":1000,"codec":"mp3"}"# + "\n"
        }
        // Ledgers the retention reads: one names ../outside/…, one a file in a folder that is a link
        // to the outside one, one a file that is a link to an outside file.
        try lab.write("out/planted.jsonl", segmentLine("../outside/ledgered.mp3"))
        try FileManager.default.createSymbolicLink(atPath: out + "/elsewhere", withDestinationPath: outside)
        try lab.write("out/folder-link.jsonl", segmentLine("elsewhere/through-folder-link.mp3"))
        try FileManager.default.createSymbolicLink(atPath: out + "/link.mp3", withDestinationPath: outside + "/through-link.mp3")
        try lab.write("out/link.jsonl", segmentLine("link.mp3"))
        // Markers of a dead recorder (no process has these pids): one names an outside .part and
        // ledger, one a .part in the folder that is a link to an outside file.
        try lab.write(
            "out/.archive-open-2147480001.json", #"{"part":"\#(out)/../outside/marked.mp3.part","ledger":"\#(out)/../outside/marked.jsonl"}"#)
        try FileManager.default.createSymbolicLink(atPath: out + "/sym.mp3.part", withDestinationPath: outside + "/linked-part.mp3")
        try lab.write("out/.archive-open-2147480002.json", #"{"part":"\#(out)/sym.mp3.part","ledger":"\#(out)/sym.jsonl"}"#)
        let before = try snapshot(outside)

        let recorder = try RecordHarness(
            self, url: server.url(mount: "/p.mp3").absoluteString,
            extra: [
                "--archive", "5s", "--keep-size", "1K", "--upload", "s3://\(bucket)/radio", "--upload-endpoint", store.endpoint,
                "--upload-delete",
            ], out: out, environment: store.credentials)
        try recorder.start()
        // Two of its own segments uploaded: the start's retention, the markers and the uploads of what they named are past.
        let uploaded = await poll(timeout: 120) { store.segmentKeys().filter { $0.hasPrefix("radio/") }.count >= 2 }
        XCTAssertTrue(uploaded, "objects: \(store.objects().keys.sorted())\n\(recorder.stderr)")
        let said = await poll(timeout: 30) { recorder.stderr.components(separatedBy: "only files inside the archive folder").count - 1 >= 5 }
        XCTAssertTrue(said, "each planted name is logged as ignored:\n\(recorder.stderr)")
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)

        XCTAssertEqual(try snapshot(outside), before, "the outside folder is as it was")
        let objects = store.objects()
        XCTAssertTrue(objects.keys.allSatisfy { $0.hasPrefix("radio/") && !$0.contains("..") }, "every object is under the prefix: \(objects.keys.sorted())")
        let outsideBytes = Set(before.values)
        for key in objects.keys {
            XCTAssertFalse(outsideBytes.contains(Data(try store.bytes(key))), "\(key) holds an outside file's bytes")
        }
        XCTAssertFalse(objects.keys.contains { $0.contains("link") || $0.contains("sym") || $0.contains("marked") }, "\(objects.keys.sorted())")
    }

    /// Every file under `folder` with its bytes.
    private func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            files[name] = FileManager.default.contents(atPath: folder + "/" + name)
        }
        return files
    }

    private func poll(timeout: TimeInterval, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 500_000_000)
        }
        return condition()
    }
}
