import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// Every message the code hands to `tr("…")` has its Russian translation, and every catalogue lists it,
/// so a new English message cannot silently miss its translation. (The convention: a message a person
/// reads is a single-line string literal right after `tr(`; `scripts/update-catalogues` adds new ones
/// to the catalogues.)
final class CatalogueCompletenessTests: XCTestCase {
    private static let locale = TestPaths.root + "/Sources/OtonHost/Resources/locale"

    func testEveryMessageInTheCodeIsTranslatedIntoRussian() throws {
        let used = try Self.msgidsInCode()
        XCTAssertGreaterThan(used.count, 50, "the scan finds the messages (status line, errors, abstracts)")
        for expected in [
            "playing", "reconnecting in {seconds} s (attempt {attempt}/{max})", "? keys",
            "Can't reach the station. The network seems to be unavailable.", "cannot play {url}: {message}",
            // The bundled plugins' replies (ABI 1.4: host.tr in OtonPluginKit reads the same catalogues).
            "Sleep timer: stop in {time} (fade {fade} s)", "Nothing is playing right now: there is no track to share",
            "a number needs its unit: {number}m for minutes, {number}s for seconds; from 1 second to 24 hours",
        ] {
            XCTAssertNotNil(used[expected], "the scan misses \(expected)")
        }
        let russian = try POFileReader.translations(in: String(contentsOfFile: Self.locale + "/ru.po", encoding: .utf8))
        for (msgid, file) in used.sorted(by: { $0.key < $1.key }) {
            guard let translation = russian[msgid] else {
                XCTFail("\(file): \"\(msgid)\" has no Russian translation in ru.po (run scripts/update-catalogues, then translate it)")
                continue
            }
            XCTAssertEqual(
                MessageCatalogue.placeholders(in: translation), MessageCatalogue.placeholders(in: msgid),
                "ru.po: the translation of \"\(msgid)\" must use the same {placeholders}")
        }
        let catalogue = MessageCatalogue.load(languages: ["ru"], directories: [Self.locale])
        XCTAssertEqual(catalogue.problems, [])
    }

    /// Russian quotes a value named in prose with «…» (issue 39 §4: "…", «…» and '…' were mixed); ASCII
    /// quotes stay only inside what a person types (JSON, a shell argument), never around a {placeholder}.
    func testRussianQuotesAValueInProseWithGuillemets() throws {
        let russian = try POFileReader.translations(in: String(contentsOfFile: Self.locale + "/ru.po", encoding: .utf8))
        let asciiQuoted = try NSRegularExpression(pattern: #""\{[a-z_]+\}:?"|'[^' ]{1,3}'"#)
        let mixed = russian.filter { _, text in
            asciiQuoted.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        XCTAssertEqual(mixed.keys.sorted(), [], "use «…» for these in ru.po")
        XCTAssertGreaterThan(russian.values.filter { $0.contains("«{name}»") }.count, 3, "the scan reads the translations")
    }

    func testEveryCatalogueListsEveryMessageAndReadsCleanly() throws {
        let used = try Self.msgidsInCode()
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.locale).filter { $0.hasSuffix(".po") }
        XCTAssertEqual(Set(files), ["ru.po", "sah.po"])
        for file in files {
            let text = try String(contentsOfFile: Self.locale + "/" + file, encoding: .utf8)
            XCTAssertNoThrow(try POFileReader.translations(in: text), file)
            // Untranslated entries (empty msgstr) are listed too, so a volunteer sees every message.
            let listed = Set(
                text.split(separator: "\n").filter { $0.hasPrefix("msgid \"") }.map { line in
                    Self.unescaped(String(line.dropFirst(7).dropLast()))
                })
            for msgid in used.keys.sorted() where !listed.contains(msgid) {
                XCTFail("\(file) does not list \"\(msgid)\" (run scripts/update-catalogues)")
            }
        }
    }

    /// A plugin's reply is what `oton ctl` prints to a person: never a bare English literal, always
    /// `host.tr("…")` (or JSON, built from values). Looks at the plugins' C glue, where replies are made.
    func testPluginRepliesGoThroughTheCatalogue() throws {
        let plugins = TestPaths.root + "/Sources/Plugins"
        let bare = try NSRegularExpression(pattern: #"return \((true|false), "|\(ok: (true|false), text: ""#)
        var checked = 0
        guard let walker = FileManager.default.enumerator(atPath: plugins) else { return XCTFail("no Sources/Plugins") }
        for case let relative as String in walker where relative.hasSuffix(".swift") && relative.contains("/Plugin/") {
            let text = try Self.source(plugins + "/" + relative)
            checked += 1
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if bare.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    XCTFail("Sources/Plugins/\(relative):\(number + 1): a reply in English only; write host.tr(\"…\"): \(line)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 20, "the scan reads the plugins")
    }

    /// `--help` is read by a person too: every abstract, discussion and option help in the command line
    /// goes through `tr("…")` (ArgumentParser's own frame, USAGE/OPTIONS, is its own and stays English).
    func testHelpTextsGoThroughTheCatalogue() throws {
        let folder = TestPaths.root + "/Sources/oton"
        let bare = try NSRegularExpression(pattern: #"(abstract|help|discussion): "|ArgumentHelp\("|discussion: \"\"\""#)
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".swift") {
            let text = try Self.source(folder + "/" + name)
            checked += 1
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if bare.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    XCTFail("Sources/oton/\(name):\(number + 1): help in English only; write tr(\"…\"): \(line)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 20, "the scan reads the command line")
    }

    /// Warnings and errors the host logs reach a person too (under the status line, on stderr): each is a
    /// `tr("…")` message, or only values (a URL, a message GStreamer or a plugin wrote) around punctuation.
    func testWarningsAndErrorsGoThroughTheCatalogue() throws {
        // The host's logger, a plugin's host.log and the file sink's notices.
        let logged = try NSRegularExpression(
            pattern: #"(?:logger\.(?:warning|error)\(|host\.log\(OTON_LOG_(?:WARNING|ERROR), |\.log\(level: \.(?:warning|error), message: )"(.*)"\)+\s*$"#)
        // What is left of a logged literal once its interpolations are taken out.
        let interpolation = try NSRegularExpression(pattern: #"\\\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)"#)
        var checked = 0
        // The host's layers (every Sources/Oton* target), the command line and the plugins.
        let layers = try FileManager.default.contentsOfDirectory(atPath: TestPaths.root + "/Sources").filter { $0.hasPrefix("Oton") }.sorted()
        for folder in layers + ["oton", "Plugins"] {
            let root = TestPaths.root + "/Sources/" + folder
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let text = try Self.source(root + "/" + relative)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let line = String(line)
                    guard let match = logged.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                        let range = Range(match.range(at: 1), in: line)
                    else { continue }
                    checked += 1
                    let literal = String(line[range])
                    if literal.contains("tr(\"") { continue }
                    let words = interpolation.stringByReplacingMatches(in: literal, range: NSRange(literal.startIndex..., in: literal), withTemplate: "")
                    if words.range(of: "[A-Za-z]{3,}", options: .regularExpression) != nil {
                        XCTFail("Sources/\(folder)/\(relative):\(number + 1): a warning in English only; write tr(\"…\"): \(line)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 20, "the scan finds the host's warnings")
    }

    /// A source file's text with each call the formatter broke after its "(" joined again
    /// ("tr(\n        \"…\"" reads "tr(\"…\""; a lone ")" rejoins its line), so every scan here reads a call on
    /// one line, as scripts/update-catalogues does.
    static func source(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: #"\(\n\s*"#, with: "(", options: .regularExpression)
            .replacingOccurrences(of: #"\n\s*\)"#, with: ")", options: .regularExpression)
    }

    /// msgid → the first file using it: every `tr("…")` literal in Sources (comment lines skipped).
    /// An interpolation in a msgid would make a key that no catalogue can hold, so it fails here.
    static func msgidsInCode() throws -> [String: String] {
        var found: [String: String] = [:]
        let sources = TestPaths.root + "/Sources"
        let call = try NSRegularExpression(pattern: #"\b(?:tr|N_)\("((?:[^"\\]|\\.)*)""#)
        guard let walker = FileManager.default.enumerator(atPath: sources) else { return [:] }
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let text = try Self.source(sources + "/" + relative)
            for line in text.split(separator: "\n") where !line.drop(while: { $0 == " " }).hasPrefix("//") {
                let line = String(line)
                for match in call.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    guard let range = Range(match.range(at: 1), in: line) else { continue }
                    let literal = String(line[range])
                    XCTAssertFalse(literal.contains("\\("), "Sources/\(relative): interpolation inside tr(\"…\"); use a {placeholder}: \(literal)")
                    let msgid = unescaped(literal)
                    if found[msgid] == nil { found[msgid] = "Sources/" + relative }
                }
            }
        }
        return found
    }

    /// The escapes a Swift literal and a .po string share (\n \t \" \\).
    static func unescaped(_ literal: String) -> String {
        var result = ""
        var escaping = false
        for character in literal {
            if escaping {
                result.append(["n": "\n", "t": "\t"][character] ?? character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
