import Foundation
import OtonEffects
import OtonHost
import OtonTestSupport
import XCTest

/// A chain's LV2 plugin is read from the one bundle that holds it (``LV2BundleIndex``), so that an
/// installed collection (lsp-plugins-lv2: hundreds of plugins) costs a start nothing; `oton effects list`
/// summarises and filters. Issue 53 §6. Runs on LV2_PATH folders made here: swh-lv2's `amp` bundle
/// (scripts/bootstrap installs swh-lv2) among fake bundles whose plugin data is broken Turtle, and one
/// bundle whose manifest is broken.
final class LV2LazyLoadingTests: XCTestCase {
    static let ampURI = "http://plugin.org.uk/swh-plugins/amp"
    static let system = "/usr/lib/lv2"

    /// LV2_PATH's folder: amp, `fakes` fake bundles, a broken manifest.
    private func makeFolder(_ temporary: TemporaryDirectory, fakes: Int) throws -> String {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.system + "/amp-swh.lv2/manifest.ttl"), "swh-lv2 (scripts/bootstrap installs it)")
        let folder = temporary.file("lv2")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/amp-swh.lv2", withDestinationPath: Self.system + "/amp-swh.lv2")
        for number in 0..<fakes {
            let bundle = folder + "/fake-\(number).lv2"
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: false)
            try """
            @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
            @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
            <urn:oton-test:fake-\(number)> a lv2:Plugin ; lv2:binary <fake.so> ; rdfs:seeAlso <plugin.ttl> .
            """.write(toFile: bundle + "/manifest.ttl", atomically: true, encoding: .utf8)
            try "this is { not turtle".write(toFile: bundle + "/plugin.ttl", atomically: true, encoding: .utf8)
        }
        try FileManager.default.createDirectory(atPath: folder + "/broken.lv2", withIntermediateDirectories: false)
        try "@prefix lv2: <http://lv2plug.in/ns/lv2core#> .\n<urn:oton-test:broken> a lv2:Plugin ; ; ; <".write(
            toFile: folder + "/broken.lv2/manifest.ttl", atomically: true, encoding: .utf8)
        return folder
    }

    func testOnlyTheBundleHoldingThePluginIsLoadedAndTheIndexFollowsNewBundles() throws {
        let temporary = try TemporaryDirectory(self)
        let folder = try makeFolder(temporary, fakes: 40)
        let environment = ["LV2_PATH": folder, "XDG_CACHE_HOME": temporary.file("cache"), "HOME": temporary.path]

        let bundle = try XCTUnwrap(LV2BundleIndex.bundle(for: Self.ampURI, environment: environment))
        XCTAssertEqual(bundle, folder + "/amp-swh.lv2")
        XCTAssertEqual(LV2BundleIndex.bundle(for: "urn:oton-test:fake-7", environment: environment), folder + "/fake-7.lv2", "every manifest indexed")
        XCTAssertNil(LV2BundleIndex.bundle(for: "urn:oton-test:nothing", environment: environment))
        let cache = try String(contentsOfFile: temporary.file("cache/oton/lv2-bundles.json"), encoding: .utf8)
        XCTAssertTrue(cache.contains("urn:oton-test:fake-39") && cache.contains(Self.ampURI), "the index is kept in the cache folder")

        let before = oton_lv2_loaded_bundle_count()
        let index = oton_lv2_find_in_bundle(Self.ampURI, bundle)
        XCTAssertGreaterThanOrEqual(index, 0)
        var info = oton_lv2_plugin_info()
        XCTAssertEqual(oton_lv2_plugin(UInt32(index), &info), 1)
        XCTAssertEqual(String(cString: info.uri), Self.ampURI)
        XCTAssertEqual(info.controls, 1, "amp's gain, read from its own bundle")
        let loaded = (before..<oton_lv2_loaded_bundle_count()).map { String(cString: oton_lv2_loaded_bundle($0)) }
        XCTAssertTrue(loaded.allSatisfy { !$0.hasPrefix(folder) || $0 == bundle }, "only amp's bundle of \(folder): \(loaded)")
        XCTAssertEqual(oton_lv2_find_in_bundle("urn:oton-test:fake-3", bundle), -1, "amp's bundle does not hold a fake")

        // A bundle installed later is found: the stamp (the bundles and their times) changed.
        let delay = "http://plugin.org.uk/swh-plugins/delay_n"
        XCTAssertNil(LV2BundleIndex.bundle(for: delay, environment: environment))
        try FileManager.default.createSymbolicLink(atPath: folder + "/delay-swh.lv2", withDestinationPath: Self.system + "/delay-swh.lv2")
        XCTAssertEqual(LV2BundleIndex.bundle(for: delay, environment: environment), folder + "/delay-swh.lv2")
    }

    func testEffectsListSummarisesFiltersAndDetailsOnRequest() throws {
        let temporary = try TemporaryDirectory(self)
        let folder = try makeFolder(temporary, fakes: 5)
        var environment = ProcessInfo.processInfo.environment
        environment["LV2_PATH"] = folder
        environment["XDG_CACHE_HOME"] = temporary.file("cache")
        environment["LC_ALL"] = "C"
        environment["LANGUAGE"] = nil

        let summary = try runProcess(TestPaths.oton, ["effects", "list"], environment: environment)
        XCTAssertEqual(summary.status, 0, summary.stderr)
        let ampLine = try XCTUnwrap(summary.stdout.split(separator: "\n").first { $0.hasPrefix(Self.ampURI + " ") }, summary.stdout)
        XCTAssertTrue(ampLine.contains("1 in, 1 out, 1 parameters"), String(ampLine))
        XCTAssertFalse(summary.stdout.contains("    gain"), "no parameters without --all: \(summary.stdout)")
        XCTAssertTrue(summary.stdout.contains("--all"), "says how to see them")

        let filtered = try runProcess(TestPaths.oton, ["effects", "list", "AMP", "--all"], environment: environment)
        XCTAssertEqual(filtered.status, 0, filtered.stderr)
        XCTAssertTrue(filtered.stdout.contains("1 LV2 plugins"), filtered.stdout)
        XCTAssertTrue(filtered.stdout.contains("    gain"), "--all shows the parameters: \(filtered.stdout)")
        XCTAssertFalse(filtered.stdout.contains("urn:oton-test:fake"), "the filter leaves the others out")

        let one = try runProcess(TestPaths.oton, ["effects", "list", "--lv2", Self.ampURI, "--json"], environment: environment)
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertTrue(one.stdout.contains("\"gain\""), one.stdout)
        XCTAssertFalse(one.stdout.contains("urn:oton-test:fake"), one.stdout)
    }
}
