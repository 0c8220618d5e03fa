import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// Editing plugins.json's stations on real files: only the "stations" array changes,
/// a malformed file is refused untouched, links are written through.
final class StationsFileTests: XCTestCase {
    /// A hand-written file: odd key order, numbers as written, unknown keys, a BOM-free tab indent in places.
    private let original = """
        {
          "shutdown_timeout_ms": 2500,
          "plugins": [
            {"id": "org.example.x", "path": "libX.so", "config": {"big": 12345678901234567890, "ratio": 1.50, "z": 1, "a": [true, null]}}
          ],
          "default_station": "Alpha",
        \t"directory_server": "http://127.0.0.1:9",
          "stations": [
            {"url": "http://127.0.0.1:1/alpha", "name": "Alpha", "x_note": "kept \\u00e9"},
            { "name": "Beta", "url": "http://127.0.0.1:1/beta", "title_encoding": "windows-1251" }
          ],
          "zeta": {"nested": [1, 2, {"deep": "\\"quoted]}\\""}]}
        }

        """

    private func write(_ text: String) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory(self)
        return (directory, try directory.write("plugins.json", text))
    }

    /// Everything but "stations", parsed.
    private func withoutStations(_ data: Data) throws -> JSONValue {
        guard case var .object(members) = try JSONValue.parse(data) else { throw CocoaError(.fileReadCorruptFile) }
        members["stations"] = nil
        return .object(members)
    }

    private func stationNames(_ path: String) throws -> [String] {
        try ConfigLoader.load(file: path).stations.map(\.name)
    }

    func testAddRemoveAndMoveChangeOnlyTheStations() throws {
        let (_, path) = try write(original)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        var file = try StationsFile.load(path)
        try file.add(Station(name: "Gamma \"G\"", url: "https://127.0.0.1:1/gamma", statusURL: "https://127.0.0.1:1/status", homepage: "https://g.example"))
        try file.save()
        XCTAssertEqual(try stationNames(path), ["Alpha", "Beta", "Gamma \"G\""])

        file = try StationsFile.load(path)
        try file.move("gamma \"g\"", to: 1)
        try file.save()
        XCTAssertEqual(try stationNames(path), ["Gamma \"G\"", "Alpha", "Beta"])

        file = try StationsFile.load(path)
        try file.remove("BETA")
        try file.save()
        XCTAssertEqual(try stationNames(path), ["Gamma \"G\"", "Alpha"])

        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(try withoutStations(after), try withoutStations(before), "every other key and value is as it was")
        let text = String(decoding: after, as: UTF8.self)
        for kept in ["12345678901234567890", "1.50", #""x_note": "kept \u00e9""#, "\t\"directory_server\"", #""zeta": {"nested""#] {
            XCTAssertTrue(text.contains(kept), "\(kept) is kept as written:\n\(text)")
        }
        XCTAssertTrue(text.hasPrefix("{\n  \"shutdown_timeout_ms\": 2500,\n  \"plugins\": ["), "key order and spacing kept:\n\(text)")
        let gamma = try ConfigLoader.load(file: path).station(named: "Gamma \"G\"")
        XCTAssertEqual(gamma?.statusURL, "https://127.0.0.1:1/status")
        XCTAssertEqual(gamma?.homepage, "https://g.example")
        XCTAssertEqual(try ConfigLoader.load(file: path).station(named: "Alpha")?.url, "http://127.0.0.1:1/alpha")
    }

    func testTheShippedLayoutStaysByteForByteOutsideTheStations() throws {
        let (_, path) = try write(BuiltInConfig.text)
        var file = try StationsFile.load(path)
        try file.add(Station(name: "Second", url: "http://127.0.0.1:1/second"))
        try file.save()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let expected = BuiltInConfig.text.replacingOccurrences(
            of: """
                      "status_url": "https://public.radio.co/stations/s696f24a77/status"
                    }
                  ],
                """,
            with: """
                      "status_url": "https://public.radio.co/stations/s696f24a77/status"
                    },
                    {
                      "name": "Second",
                      "url": "http://127.0.0.1:1/second"
                    }
                  ],
                """)
        XCTAssertNotEqual(expected, BuiltInConfig.text)
        XCTAssertEqual(text, expected)
    }

    func testAFileWithoutStationsGetsTheKey() throws {
        for text in ["{}", "{\"plugins\": []}\n", "  { \"stations\": [] }"] {
            let (_, path) = try write(text)
            var file = try StationsFile.load(path)
            try file.add(Station(name: "Only", url: "http://127.0.0.1:1/only"))
            try file.save()
            XCTAssertEqual(try stationNames(path), ["Only"], text)
            let saved = try Data(contentsOf: URL(fileURLWithPath: path))
            XCTAssertEqual(try withoutStations(saved), try withoutStations(Data(text.utf8)), text)
        }
    }

    func testAMalformedFileIsRefusedWithItsPositionAndLeftUntouched() throws {
        let broken = "{\n  \"stations\": [\n    {\"name\": \"A\" \"url\": \"http://x\"}\n  ]\n}\n"
        let (_, path) = try write(broken)
        XCTAssertThrowsError(try StationsFile.load(path)) { error in
            guard case let StationsEditError.config(.syntax(file, line, column, _)) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(file, path)
            XCTAssertEqual([line, column], [3, 18])
            XCTAssertTrue("\(error)".contains("left as it is"), "\(error)")
        }
        let duplicate = #"{"stations": [], "stations": []}"#
        let (_, second) = try write(duplicate)
        XCTAssertThrowsError(try StationsFile.load(second)) { error in
            guard case StationsEditError.config(.syntax) = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), broken)
        XCTAssertEqual(try String(contentsOfFile: second, encoding: .utf8), duplicate)
    }

    func testRefusalsSayWhatToDoAndChangeNothing() throws {
        let (_, path) = try write(original)
        var file = try StationsFile.load(path)
        XCTAssertThrowsError(try file.add(Station(name: "alpha", url: "http://127.0.0.1:1/other"))) { error in
            XCTAssertEqual(error as? StationsEditError, .duplicate(name: "alpha", file: path))
        }
        XCTAssertThrowsError(try file.remove("Alpha")) { error in
            XCTAssertEqual(error as? StationsEditError, .isDefault(name: "Alpha", file: path, other: "Beta"))
            XCTAssertTrue("\(error)".contains(#"`oton stations default "Beta"`"#), "the refusal says what to do: \(error)")
        }
        XCTAssertThrowsError(try file.setDefault("Nope")) { error in
            XCTAssertEqual(error as? StationsEditError, .unknownStation(name: "Nope", known: ["Alpha", "Beta"]))
        }
        XCTAssertThrowsError(try file.remove("Nope")) { error in
            XCTAssertEqual(error as? StationsEditError, .unknownStation(name: "Nope", known: ["Alpha", "Beta"]))
        }
        for position in [0, 3, -1] {
            XCTAssertThrowsError(try file.move("Beta", to: position)) { error in
                XCTAssertEqual(error as? StationsEditError, .badPosition(position, count: 2))
            }
        }
        XCTAssertEqual(file.entries.map(\.name), ["Alpha", "Beta"])
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), original)
    }

    /// `oton stations default NAME`: only the value of "default_station" changes; after it the
    /// old default can be removed.
    func testTheDefaultStationChangesInPlaceAndThenTheOldOneCanGo() throws {
        let (_, path) = try write(original)
        var file = try StationsFile.load(path)
        try file.setDefault("beta")
        try file.save()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(
            text, original.replacingOccurrences(of: #""default_station": "Alpha""#, with: #""default_station": "Beta""#),
            "the one value changes, every other byte stays")
        XCTAssertEqual(try ConfigLoader.load(file: path).defaultStation?.name, "Beta")

        file = try StationsFile.load(path)
        try file.remove("Alpha")
        try file.save()
        XCTAssertEqual(try stationNames(path), ["Beta"])
        XCTAssertEqual(try ConfigLoader.load(file: path).defaultStationName, "Beta")
    }

    /// `oton stations rename OLD NEW`: only the station's "name" value changes (its other members and
    /// every other byte stay), the default_station follows it, and a name another station has is refused.
    func testARenameChangesOnlyTheNameAndTheDefaultFollows() throws {
        let (_, path) = try write(original)
        var file = try StationsFile.load(path)
        try file.rename("alpha", to: #"<b>Al</b> "&" ☕"#)
        try file.save()
        let renamed = #""<b>Al</b> \"&\" ☕""#
        XCTAssertEqual(
            try String(contentsOfFile: path, encoding: .utf8),
            original.replacingOccurrences(of: #""name": "Alpha""#, with: #""name": "# + renamed)
                .replacingOccurrences(of: #""default_station": "Alpha""#, with: #""default_station": "# + renamed))
        XCTAssertEqual(try stationNames(path), [#"<b>Al</b> "&" ☕"#, "Beta"])
        XCTAssertEqual(try ConfigLoader.load(file: path).defaultStationName, #"<b>Al</b> "&" ☕"#)

        file = try StationsFile.load(path)
        XCTAssertThrowsError(try file.rename("Beta", to: #"<B>AL</B> "&" ☕"#)) { error in
            XCTAssertTrue("\(error)".contains("already in"), "\(error)")
        }
        XCTAssertThrowsError(try file.rename("Gamma", to: "Delta")) { error in XCTAssertTrue("\(error)".contains("no station named")) }
        try file.rename("beta", to: "BETA")  // its own name in another case is no clash
        try file.save()
        XCTAssertEqual(try stationNames(path).last, "BETA")
    }

    /// `oton stations set-url NAME URL`: only the station's "url" value changes (its name, other members
    /// and every other byte stay); an unknown name is refused.
    func testASetURLChangesOnlyTheURL() throws {
        let (_, path) = try write(original)
        var file = try StationsFile.load(path)
        try file.setURL("beta", to: #"http://127.0.0.1:2/beta?a="b""#)
        try file.save()
        XCTAssertEqual(
            try String(contentsOfFile: path, encoding: .utf8),
            original.replacingOccurrences(of: #""url": "http://127.0.0.1:1/beta""#, with: #""url": "http://127.0.0.1:2/beta?a=\"b\"""#))
        XCTAssertEqual(try ConfigLoader.load(file: path).stations.map(\.url), ["http://127.0.0.1:1/alpha", #"http://127.0.0.1:2/beta?a="b""#])
        file = try StationsFile.load(path)
        XCTAssertThrowsError(try file.setURL("Gamma", to: "http://127.0.0.1:1/g")) { error in XCTAssertTrue("\(error)".contains("no station named")) }
    }

    /// A file without "default_station" gets the member (first in the object), stations untouched.
    func testAFileWithoutADefaultGetsTheKey() throws {
        for text in [
            #"{"stations": [{"name": "A", "url": "http://127.0.0.1:1/a"}, {"name": "B", "url": "http://127.0.0.1:1/b"}]}"#,
            "{\n  \"plugins\": []\n}\n",
        ] {
            let (_, path) = try write(text)
            var file = try StationsFile.load(path)
            if file.entries.isEmpty { try file.add(Station(name: "B", url: "http://127.0.0.1:1/b")) }
            try file.setDefault("B")
            try file.save()
            let config = try ConfigLoader.load(file: path)
            XCTAssertEqual(config.defaultStationName, "B", text)
            XCTAssertEqual(config.stations.last?.name, "B", text)
        }
    }

    func testALinkIsWrittenThroughAndKeepsItsTargetsMode() throws {
        let (directory, target) = try write(original)
        chmod(target, 0o600)
        let link = directory.file("link.json")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        var file = try StationsFile.load(link)
        try file.move("Beta", to: 1)
        try file.save()
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), target, "the link stays a link")
        XCTAssertEqual(try stationNames(target), ["Beta", "Alpha"])
        var info = stat()
        XCTAssertEqual(stat(target, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "the file keeps its permissions")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".tmp-") }
        XCTAssertEqual(leftovers, [], "no temporary file stays behind")
    }

    func testTheUsersFileIsCreatedFromTheBuiltInDefaultWhenMissing() throws {
        let directory = try TemporaryDirectory(self)
        let environment = ["XDG_CONFIG_HOME": directory.file("config"), "HOME": directory.path]
        let choice = try EditableConfigLocation.choose(explicit: nil, environment: environment, currentDirectory: directory.path)
        XCTAssertEqual(choice.path, directory.file("config") + "/oton/plugins.json")
        XCTAssertTrue(choice.created)
        XCTAssertNil(choice.replacesInUse)
        XCTAssertEqual(try String(contentsOfFile: choice.path, encoding: .utf8), BuiltInConfig.text)
        let again = try EditableConfigLocation.choose(explicit: nil, environment: environment, currentDirectory: directory.path)
        XCTAssertFalse(again.created, "an existing file is edited, never replaced by the default")
        let named = try EditableConfigLocation.choose(
            explicit: nil, environment: environment.merging(["OTON_CONFIG": "/x/y.json"]) { $1 },
            currentDirectory: directory.path)
        XCTAssertEqual(named.path, "/x/y.json")
    }
}
