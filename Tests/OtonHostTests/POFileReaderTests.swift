import OtonHost
import XCTest

/// The .po reader: what gettext writes is read the way gettext reads it, and a damaged file is refused with its line.
final class POFileReaderTests: XCTestCase {
    func testEntriesEscapesAndContinuedStrings() throws {
        let text = """
            # A translator's comment.
            msgid ""
            msgstr ""
            "Language: ru\\n"
            "Content-Type: text/plain; charset=UTF-8\\n"

            #: Sources/oton/StatusLine.swift
            msgid "playing"
            msgstr "воспроизведение"

            msgid "say \\"{name}\\"\\tthen\\\\\\n"
            msgstr "скажите «{name}»\\t\\\\\\n"

            msgid ""
            "a long message "
            "in two parts"
            msgstr ""
            "длинное сообщение "
            "из двух частей"
            """
        let entries = try POFileReader.translations(in: text)
        XCTAssertEqual(
            entries,
            [
                "playing": "воспроизведение",
                "say \"{name}\"\tthen\\\n": "скажите «{name}»\t\\\n",
                "a long message in two parts": "длинное сообщение из двух частей",
            ])
    }

    func testUntranslatedFuzzyContextAndPluralEntriesAreSkipped() throws {
        let text = """
            \u{FEFF}msgid "empty"
            msgstr ""

            #, fuzzy
            msgid "unsure"
            msgstr "не уверен"

            msgctxt "menu"
            msgid "open"
            msgstr "открыть"

            msgid "one file"
            msgid_plural "{count} files"
            msgstr[0] "файл"
            msgstr[1] "файла"

            msgid "kept"\r
            msgstr "оставлено"\r
            """
        XCTAssertEqual(try POFileReader.translations(in: text), ["kept": "оставлено"])
    }

    func testDamagedFilesAreRefusedWithTheLineToLookAt() {
        let cases: [(text: String, line: Int, says: String)] = [
            ("msgid \"a\"\nmsgstr \"unterminated\n", 2, "double quotes"),
            ("msgid \"a\"\nmsgstr \"b\\q\"\n", 2, "unknown escape"),
            ("msgid \"a\"\nmsgid \"b\"\nmsgstr \"c\"\n", 2, "without a msgstr"),
            ("msgstr \"orphan\"\n", 1, "without a msgid"),
            ("\"stray\"\n", 1, "continues nothing"),
            ("msgid \"a\"\nmsgstr \"x\"\nmsgid \"a\"\nmsgstr \"y\"\n", 3, "appears twice"),
            ("msgid \"a\"\nmsgstr \"x\"\nmsgsrt \"y\"\n", 3, "unknown keyword"),
            ("msgid \"a\"\n", 1, "without a msgstr"),
            ("msgid \"a\" \"b\"\nmsgstr \"c\"\n", 1, "double quote inside"),
        ]
        for (text, line, says) in cases {
            XCTAssertThrowsError(try POFileReader.translations(in: text), text) { error in
                guard let error = error as? POFileReader.SyntaxError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.line, line, "\(text): \(error)")
                XCTAssertTrue(error.description.contains(says), "\(text): \(error)")
            }
        }
    }
}
