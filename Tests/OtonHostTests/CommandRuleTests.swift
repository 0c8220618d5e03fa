import Foundation
import Logging
import XCTest

@testable import OtonHost

/// One rule for every command registration, in-process or from an isolated plugin's process:
/// the name rule, no control characters, 1 KiB of usage and help, 64 commands per plugin.
final class CommandRuleTests: XCTestCase {
    private func command(_ name: String, help: String = "h", usage: String? = nil) -> PluginManifest.Command {
        PluginManifest.Command(name: name, usage: usage ?? name, help: help)
    }

    func testNamesWithControlCharactersOrTooLongAreRefused() {
        let registry = CommandRegistry()
        for name in ["bad\u{0}name", "bad\u{1B}[31mname", String(repeating: "a", count: 2048), "", "Upper", "a b"] {
            guard case .refused = registry.register(command(name), for: "org.x") else { return XCTFail("\(name.debugDescription) was accepted") }
        }
        XCTAssertEqual(registry.register(command("good-name-1"), for: "org.x"), .registered)
        XCTAssertEqual(registry.all.map(\.command.name), ["good-name-1"])
    }

    func testHelpAndUsageAreBoundedAndPrintable() {
        let registry = CommandRegistry()
        XCTAssertEqual(registry.register(command("a", help: String(repeating: "h", count: 1024)), for: "org.x"), .registered)
        XCTAssertEqual(
            registry.register(command("b", help: String(repeating: "h", count: 1025)), for: "org.x"),
            .refused("its help is 1025 bytes (at most 1024)"))
        XCTAssertEqual(registry.register(command("c", help: "red \u{1B}[31m"), for: "org.x"), .refused("its help contains control characters"))
        XCTAssertEqual(registry.register(command("d", usage: "d\u{9B}2J"), for: "org.x"), .refused("its usage contains control characters"))
        XCTAssertEqual(registry.register(command("e", help: "Песня «ü»"), for: "org.x"), .registered)
    }

    func testAPluginHasAtMost64CommandsAndOthersAreNotAffected() {
        let registry = CommandRegistry()
        for index in 0..<CommandRule.maximumPerPlugin {
            XCTAssertEqual(registry.register(command("c-\(index)"), for: "org.x"), .registered)
        }
        guard case .refused = registry.register(command("one-more"), for: "org.x") else { return XCTFail("the 65th command") }
        XCTAssertEqual(registry.register(command("c-3", help: "again"), for: "org.x"), .registered, "re-registering its own name is no new command")
        XCTAssertEqual(registry.register(command("other"), for: "org.y"), .registered)
        XCTAssertEqual(registry.register(command("c-1"), for: "org.y"), .taken(by: "org.x"))
        registry.removeAll(of: "org.x")
        XCTAssertEqual(registry.all.map(\.command.name), ["other"])
        XCTAssertEqual(registry.register(command("one-more"), for: "org.x"), .registered, "its commands went with it")
    }

    func testARefusalIsLoggedOncePerPluginUntilItsCommandsAreRemoved() {
        let registry = CommandRegistry()
        XCTAssertTrue(registry.shouldLogRefusal(for: "org.x"))
        XCTAssertFalse(registry.shouldLogRefusal(for: "org.x"))
        XCTAssertTrue(registry.shouldLogRefusal(for: "org.y"))
        registry.removeAll(of: "org.x")
        XCTAssertTrue(registry.shouldLogRefusal(for: "org.x"))
    }

    func testTheLoggedNameShowsControlCharactersEscaped() {
        XCTAssertEqual(CommandRule.quoted("a\u{1B}b\u{0}"), #""a\u{1b}b\u{0}""#)
        XCTAssertEqual(CommandRule.quoted(String(repeating: "x", count: 100)), "\"" + String(repeating: "x", count: 64) + "…\"")
    }
}
