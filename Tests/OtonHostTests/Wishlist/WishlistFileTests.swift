import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// wishlist.json: where it lives, edits that land, and damaged files left as they are.
final class WishlistFileTests: XCTestCase {
    func testTheWishlistLivesBesidePluginsJSON() throws {
        XCTAssertEqual(try WishlistFile.path(explicitConfig: "/etc/x/plugins.json", environment: [:]), "/etc/x/wishlist.json")
        XCTAssertEqual(
            try WishlistFile.path(explicitConfig: nil, environment: ["OTON_CONFIG": "/srv/o/p.json", "XDG_CONFIG_HOME": "/c"]),
            "/srv/o/wishlist.json")
        XCTAssertEqual(try WishlistFile.path(explicitConfig: nil, environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"]), "/c/oton/wishlist.json")
        XCTAssertEqual(try WishlistFile.path(explicitConfig: nil, environment: ["HOME": "/h"]), "/h/.config/oton/wishlist.json")
        XCTAssertThrowsError(try WishlistFile.path(explicitConfig: nil, environment: [:]))
    }

    func testEditsAreKeptInOrderAndReadBack() throws {
        let directory = try TemporaryDirectory(self)
        let path = directory.file("cfg/wishlist.json")
        XCTAssertEqual(try WishlistFile.load(path).wishes, [], "a missing file is an empty list")
        try WishlistFile.edit(path) { (file: inout WishlistFile) throws(WishlistFile.Failure) in
            file.wishes.append(try! Wish(pattern: "Кино - *", field: .track))
            file.wishes.append(try! Wish(pattern: "Beyoncé", field: .artist))
        }
        let loaded = try WishlistFile.load(path)
        XCTAssertEqual(loaded.wishes.map(\.pattern), ["Кино - *", "Beyoncé"])
        XCTAssertEqual(loaded.wishes.map(\.field), [.track, .artist])
        XCTAssertTrue(directory.read("cfg/wishlist.json").contains("Кино - *"), "written as UTF-8 text a person can read")
    }

    func testADamagedWishlistIsReportedWithItsPositionAndNeverWritten() throws {
        let directory = try TemporaryDirectory(self)
        for damaged in [
            #"{"wishes": [ {"pattern": "a"}, "#, #"{"wishes": [{"pattern": "*"}]}"#, #"{"list": []}"#,
            #"{"wishes": [{"pattern": "x", "field": "album"}]}"#,
        ] {
            let path = try directory.write("wishlist.json", damaged)
            XCTAssertThrowsError(
                try WishlistFile.edit(path) { (file: inout WishlistFile) throws(WishlistFile.Failure) in
                    file.wishes.append(try! Wish(pattern: "new", field: .track))
                }
            ) { error in
                XCTAssertTrue("\(error)".contains("left as it is"), "\(error)")
            }
            XCTAssertEqual(directory.read("wishlist.json"), damaged, "the file is untouched")
        }
        _ = try directory.write("wishlist.json", #"{"wishes": [ {"pattern": "a"}, "#)
        XCTAssertThrowsError(try WishlistFile.load(directory.file("wishlist.json"))) { XCTAssertTrue("\($0)".contains("1:"), "line:column: \($0)") }
    }

    func testKeptWishesAreRememberedAcrossRecordersAndADamagedStoreIsRefused() throws {
        let directory = try TemporaryDirectory(self)
        let path = directory.file("data/oton/wishes-kept.json")
        let first = try KeptWishes(path: path)
        XCTAssertFalse(first.contains("кино - кукушка"))
        try first.add("кино - кукушка", station: "FM 1", file: "/out/FM 1/Кино - Кукушка.mp3")
        let second = try KeptWishes(path: path)
        XCTAssertTrue(second.contains("кино - кукушка"), "read back by the next recorder")
        try second.add("queen - bohemian rhapsody", station: "FM 2", file: "/x.mp3")
        try first.add("abba - sos", station: "FM 3", file: "/y.mp3")
        let third = try KeptWishes(path: path)
        XCTAssertTrue(third.contains("queen - bohemian rhapsody"), "one recorder's addition does not erase another's")
        XCTAssertTrue(third.contains("abba - sos"))

        let damaged = try directory.write("kept.json", "{\"kept\": ")
        XCTAssertThrowsError(try KeptWishes(path: damaged)) { XCTAssertTrue("\($0)".contains("left as it is"), "\($0)") }
        XCTAssertEqual(directory.read("kept.json"), "{\"kept\": ")
    }
}

/// `"watch_wishes"` in plugins.json: off unless set, and only a boolean.
final class WatchWishesConfigTests: XCTestCase {
    func testWatchWishesIsOffByDefaultAndTakesOnlyABoolean() throws {
        XCTAssertFalse(try ConfigLoader.parse(Data(#"{"stations": [], "plugins": []}"#.utf8), file: "p.json").watchWishes)
        XCTAssertTrue(try ConfigLoader.parse(Data(#"{"watch_wishes": true, "stations": [], "plugins": []}"#.utf8), file: "p.json").watchWishes)
        XCTAssertThrowsError(try ConfigLoader.parse(Data(#"{"watch_wishes": "yes", "stations": [], "plugins": []}"#.utf8), file: "p.json")) {
            XCTAssertTrue("\($0)".contains("watch_wishes"), "\($0)")
        }
    }
}
