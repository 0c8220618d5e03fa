import OtonHost
import OtonTestSupport
import XCTest

/// Which language oton speaks, and what happens when a catalogue is missing, damaged or wrong.
final class MessageCatalogueTests: XCTestCase {
    func testTheLocaleIsChosenInPOSIXOrderWithSakhaFallingBackToRussian() {
        let cases: [([String: String], [String])] = [
            (["LANG": "ru_RU.UTF-8"], ["ru"]),
            (["LANG": "ru_UA"], ["ru"]),
            (["LANG": "sah_RU.UTF-8"], ["sah", "ru"]),
            (["LANG": "en_US.UTF-8"], []),
            (["LANG": "de_DE.UTF-8"], []),
            (["LANG": "C.UTF-8"], []),
            (["LANG": "POSIX"], []),
            ([:], []),
            (["LANG": "ru_RU.UTF-8", "LC_MESSAGES": "C"], []),
            (["LANG": "en_US.UTF-8", "LC_MESSAGES": "ru_RU.UTF-8"], ["ru"]),
            (["LANG": "ru_RU.UTF-8", "LC_MESSAGES": "ru_RU.UTF-8", "LC_ALL": "C"], []),
            (["LANG": "C", "LC_ALL": "", "LC_MESSAGES": "ru_RU"], ["ru"]),
            // LANGUAGE is a list that comes first, unless the locale is C.
            (["LANG": "ru_RU.UTF-8", "LANGUAGE": "sah:ru"], ["sah", "ru"]),
            (["LANG": "ru_RU.UTF-8", "LANGUAGE": "en"], []),
            (["LANG": "de_DE.UTF-8", "LANGUAGE": "fr:ru"], ["ru"]),
            (["LANG": "C", "LANGUAGE": "ru"], []),
        ]
        for (environment, chain) in cases {
            XCTAssertEqual(MessageLanguage.chain(environment: environment), chain, "\(environment)")
        }
    }

    func testSakhaFallsBackPerMessageToRussianThenEnglish() throws {
        let directory = try TemporaryDirectory(self)
        try directory.write("ru.po", "msgid \"playing\"\nmsgstr \"воспроизведение\"\n\nmsgid \"paused\"\nmsgstr \"пауза\"\n")
        try directory.write("sah.po", "msgid \"playing\"\nmsgstr \"(sah) playing\"\n\nmsgid \"paused\"\nmsgstr \"\"\n")
        let catalogue = MessageCatalogue.load(languages: ["sah", "ru"], directories: [directory.path])
        XCTAssertEqual(catalogue.tr("playing"), "(sah) playing")
        XCTAssertEqual(catalogue.tr("paused"), "пауза", "untranslated in Sakha: Russian")
        XCTAssertEqual(catalogue.tr("idle"), "idle", "in neither: English")
        XCTAssertEqual(catalogue.problems, [])
    }

    func testPlaceholdersAreFilledByNameInTheTranslatorsOrder() throws {
        let directory = try TemporaryDirectory(self)
        try directory.write(
            "ru.po",
            """
            msgid "reconnecting in {seconds} s (attempt {attempt})"
            msgstr "попытка {attempt} через {seconds} с"
            """)
        let catalogue = MessageCatalogue.load(languages: ["ru"], directories: [directory.path])
        XCTAssertEqual(catalogue.tr("reconnecting in {seconds} s (attempt {attempt})", ["seconds": "4", "attempt": "2"]), "попытка 2 через 4 с")
        // A value is never read again as a template; braces that name no value stay.
        XCTAssertEqual(
            MessageCatalogue.english.tr("cannot play {url}: {message}", ["url": "http://h/{message}", "message": "x"]),
            "cannot play http://h/{message}: x")
        XCTAssertEqual(MessageCatalogue.english.tr("{not a name} {x", ["x": "1"]), "{not a name} {x")
    }

    func testATranslationWithOtherPlaceholdersIsNotUsed() throws {
        let directory = try TemporaryDirectory(self)
        try directory.write(
            "ru.po",
            """
            msgid "HTTP {status}"
            msgstr "HTTP {статус}"

            msgid "sleep {time}"
            msgstr "таймер сна {time}"
            """)
        let catalogue = MessageCatalogue.load(languages: ["ru"], directories: [directory.path])
        XCTAssertEqual(catalogue.tr("HTTP {status}", ["status": "404"]), "HTTP 404", "English, not a blank placeholder")
        XCTAssertEqual(catalogue.tr("sleep {time}", ["time": "4:59"]), "таймер сна 4:59")
        XCTAssertEqual(catalogue.problems.count, 1)
        XCTAssertTrue(catalogue.problems[0].contains("HTTP {status}"), catalogue.problems[0])
    }

    func testMissingOrDamagedCataloguesFallBackAndSayWhy() throws {
        let directory = try TemporaryDirectory(self)
        try directory.write("ru.po", "msgid \"playing\"\nmsgstr \"воспроизведение\n")
        let damaged = MessageCatalogue.load(languages: ["ru"], directories: [directory.path])
        XCTAssertEqual(damaged.tr("playing"), "playing")
        XCTAssertEqual(damaged.problems.count, 1)
        XCTAssertTrue(damaged.problems[0].contains("ru.po: line 2"), damaged.problems[0])

        try Data([0x6D, 0x73, 0x67, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: directory.file("sah.po")))
        let binary = MessageCatalogue.load(languages: ["sah"], directories: [directory.path])
        XCTAssertEqual(binary.tr("playing"), "playing")
        XCTAssertTrue(binary.problems.first?.contains("UTF-8") == true, "\(binary.problems)")

        let missing = MessageCatalogue.load(languages: ["ru"], directories: [directory.file("nowhere")])
        XCTAssertEqual(missing.tr("playing"), "playing")
        XCTAssertTrue(missing.problems.first?.contains("no ru.po") == true, "\(missing.problems)")
    }

    func testTheFirstDirectoryHoldingACatalogueWins() throws {
        let first = try TemporaryDirectory(self)
        let second = try TemporaryDirectory(self)
        try second.write("ru.po", "msgid \"paused\"\nmsgstr \"пауза\"\n")
        try first.write("ru.po", "msgid \"paused\"\nmsgstr \"на паузе\"\n")
        XCTAssertEqual(MessageCatalogue.load(languages: ["ru"], directories: [first.path, second.path]).tr("paused"), "на паузе")
        XCTAssertEqual(MessageCatalogue.load(languages: ["ru"], directories: [first.file("none"), second.path]).tr("paused"), "пауза")
        XCTAssertEqual(CatalogueDirectories.search(environment: ["OTON_LOCALE_DIR": first.path]).first, first.path)
    }

    func testPlaybackErrorsStayEnglishForEventsAndSpeakRussianForPeople() throws {
        let catalogue = MessageCatalogue.load(languages: ["ru"], directories: [TestPaths.root + "/Sources/OtonHost/Resources/locale"])
        XCTAssertEqual(catalogue.problems, [])
        let kind = PlaybackErrorKind.streamUnavailable(reason: .serverError(status: 503))
        XCTAssertEqual(kind.message, "The station's server is having problems (HTTP 503).")
        XCTAssertEqual(kind.message(in: catalogue), "На сервере станции неполадки (HTTP 503).")
        XCTAssertEqual(kind.recoverySuggestion(in: catalogue), "Обычно это ненадолго. Попробуйте через несколько минут.")
        XCTAssertEqual(VolumeArgument.text(percent: 120, in: catalogue), "120% с усилением")
        XCTAssertEqual(VolumeArgument.text(percent: 120), "120% amplified")
    }
}
