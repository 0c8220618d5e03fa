import Foundation
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// ABI 1.4: plugins learn the user's language (`oton_host.language`) and reach the host's catalogues
/// (`oton_host.translate`): a C plugin built by cc against the header alone, and the bundled Swift
/// sleep timer and share plugins through the kit's `host.tr`, loaded by the real loader.
final class PluginLanguageTests: XCTestCase {
    private static let locale = TestPaths.root + "/Sources/OtonHost/Resources/locale"
    private static let russian = PluginTranslations(catalogue: MessageCatalogue.load(languages: ["ru"], directories: [locale]))
    private static let sakha = PluginTranslations(catalogue: MessageCatalogue.load(languages: ["sah", "ru"], directories: [locale]))

    private func start(_ path: String, id: String, translations: PluginTranslations, in directory: TemporaryDirectory) throws -> PluginManager {
        let manager = PluginManager(
            bus: PluginBus(), requests: RecordingRequests(),
            directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")),
            translations: translations)
        let reports = manager.start([PluginEntry(id: id, path: path, enabled: true, config: .object([:]), location: "plugins[0]")])
        guard case .running = reports.first?.status else {
            manager.shutdown()
            throw NSError(domain: "plugin", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(reports)"])
        }
        return manager
    }

    func testACPluginReadsTheLanguageAndTranslatesThroughTheHostTable() throws {
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(TestPaths.root + "/Tests/Fixtures/language_plugin.c", into: directory, name: "language")

        let russian = try start(library, id: "org.oton.test.language", translations: Self.russian, in: directory)
        XCTAssertEqual(
            russian.run(command: "lang-say", arguments: [])?.text,
            "language=ru translated=Таймер сна отменён same=0 unknown-same=1 null=1")
        XCTAssertEqual(
            russian.run(command: "lang-fill", arguments: [])?.text,
            "Таймер сна: остановка через {time} (затухание {fade} с)", "the plugin fills the placeholders after translating")
        russian.shutdown()

        // Sakha has no translations yet: its chain names Russian after it, and the Russian text is what comes back.
        let sakha = try start(library, id: "org.oton.test.language", translations: Self.sakha, in: directory)
        XCTAssertEqual(
            sakha.run(command: "lang-say", arguments: [])?.text,
            "language=sah:ru translated=Таймер сна отменён same=0 unknown-same=1 null=1")
        sakha.shutdown()

        let english = try start(library, id: "org.oton.test.language", translations: PluginTranslations(catalogue: .english), in: directory)
        XCTAssertEqual(
            english.run(command: "lang-say", arguments: [])?.text,
            "language=en translated=Sleep timer cancelled same=1 unknown-same=1 null=1")
        english.shutdown()
    }

    /// The same binary handed a table as a 1.3 host fills it (struct_size ends at select_pcm_format) reads
    /// no language: it checks OTON_HAS_FIELD, so a 1.4 plugin still works with an older host.
    func testThePluginLeavesTheFieldsAloneWhenTheTableIsFromABI13() throws {
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(TestPaths.root + "/Tests/Fixtures/language_plugin.c", into: directory, name: "language13")
        let handle = try XCTUnwrap(dlopen(library, RTLD_NOW | RTLD_LOCAL))
        let symbol = try XCTUnwrap(dlsym(handle, OTON_PLUGIN_ENTRY_SYMBOL))
        let descriptor = try XCTUnwrap(unsafeBitCast(symbol, to: oton_plugin_entry_fn.self)()).pointee

        var table = oton_host()
        table.struct_size = UInt32(MemoryLayout<oton_host>.offset(of: \oton_host.language)!)
        table.abi_major = OTON_ABI_MAJOR
        table.abi_minor = 3
        // Past struct_size: a plugin that read these anyway would answer "WRONG".
        table.translate = { _, _ in UnsafePointer(strdup("WRONG")) }
        var error = [CChar](repeating: 0, count: 256)
        let instance = try XCTUnwrap(descriptor.create(&table, "{}", &error, error.count))
        defer { descriptor.destroy(instance) }

        final class Reply { var text = "" }
        let reply = Reply()
        let status = descriptor.on_command(
            instance, "lang-say", "[]",
            { context, text in
                guard let context, let text else { return }
                Unmanaged<Reply>.fromOpaque(context).takeUnretainedValue().text += String(cString: text)
            }, Unmanaged.passUnretained(reply).toOpaque())
        XCTAssertEqual(status, OTON_OK)
        XCTAssertEqual(reply.text, "language=- (the host is older than ABI 1.4)")
    }

    func testTheHostTableOfABI14EndsWithLanguageAndTranslate() {
        XCTAssertGreaterThanOrEqual(OTON_ABI_MINOR, 4)
        XCTAssertEqual(MemoryLayout<oton_host>.offset(of: \oton_host.language), 120)
        XCTAssertEqual(MemoryLayout<oton_host>.offset(of: \oton_host.translate), 128)
        XCTAssertEqual(MemoryLayout<oton_host>.offset(of: \oton_host.read_json), 136, "1.5 appended right after translate")
    }

    /// The bundled Swift plugins answer through the kit's `host.tr`: their replies come from ru.po.
    func testTheSleepTimerAndShareAnswerInRussian() throws {
        let directory = try TemporaryDirectory(self)
        let sleep = try start(TestPaths.pluginLibrary("OtonSleepTimer"), id: "org.oton.sleep-timer", translations: Self.russian, in: directory)
        defer { sleep.shutdown() }
        XCTAssertEqual(sleep.run(command: "sleep", arguments: []), CommandReply(ok: true, text: "Таймер сна не установлен"))
        let set = try XCTUnwrap(sleep.run(command: "sleep", arguments: ["30m"]))
        XCTAssertTrue(set.ok)
        XCTAssertTrue(set.text.hasPrefix("Таймер сна: остановка через 29:5") || set.text.hasPrefix("Таймер сна: остановка через 30:00"), set.text)
        XCTAssertTrue(set.text.hasSuffix("(затухание 10 с)"), set.text)
        XCTAssertEqual(sleep.run(command: "sleep", arguments: ["after-track"])?.text, "Таймер сна: остановка после этого трека")
        XCTAssertEqual(sleep.run(command: "sleep", arguments: ["cancel"])?.text, "Таймер сна отменён")
        XCTAssertEqual(sleep.run(command: "sleep", arguments: ["cancel"])?.text, "Таймер сна не был установлен")
        XCTAssertEqual(
            sleep.run(command: "sleep", arguments: ["45"]),
            CommandReply(
                ok: false,
                text:
                    "«45» — не длительность (у числа нужна единица: 45m — минуты, 45s — секунды; от 1 секунды до 24 часов); попробуйте 90s, 30m, 1h15m или 45:00"
            ))

        let share = try start(TestPaths.pluginLibrary("OtonShare"), id: "org.oton.share", translations: Self.russian, in: directory)
        defer { share.shutdown() }
        XCTAssertEqual(share.run(command: "share", arguments: []), CommandReply(ok: false, text: "Сейчас ничего не играет: делиться нечем"))
        XCTAssertEqual(
            share.run(command: "share", arguments: ["--bogus"]),
            CommandReply(ok: false, text: "неизвестный аргумент «--bogus»; использование: share [--format text|json]"))
    }

    /// A config the plugin refuses is explained in the user's language too (the kit's create translates
    /// the config reader's refusal); English stays what it was.
    func testAConfigRefusalIsInRussian() throws {
        let directory = try TemporaryDirectory(self)
        func reason(_ translations: PluginTranslations) -> String {
            let manager = PluginManager(
                bus: PluginBus(), requests: RecordingRequests(),
                directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")),
                translations: translations)
            defer { manager.shutdown() }
            let reports = manager.start([
                PluginEntry(
                    id: "org.oton.sleep-timer", path: TestPaths.pluginLibrary("OtonSleepTimer"), enabled: true,
                    config: .object(["fade_seconds": .bool(true)]), location: "plugins[0]")
            ])
            guard case let .failed(.createFailed(_, _, reason))? = reports.first?.status else { return "\(reports)" }
            return reason
        }
        XCTAssertEqual(reason(Self.russian), "config.fade_seconds должно быть числом от 0 до 600, а не true")
        XCTAssertEqual(reason(PluginTranslations(catalogue: .english)), "config.fade_seconds must be a number from 0 to 600, not true")
    }

    func testTheSameRepliesStayEnglishForAnEnglishUser() throws {
        let directory = try TemporaryDirectory(self)
        let sleep = try start(
            TestPaths.pluginLibrary("OtonSleepTimer"), id: "org.oton.sleep-timer",
            translations: PluginTranslations(catalogue: .english), in: directory)
        defer { sleep.shutdown() }
        XCTAssertEqual(sleep.run(command: "sleep", arguments: []), CommandReply(ok: true, text: "No sleep timer set"))
        XCTAssertEqual(
            sleep.run(command: "sleep", arguments: ["45"])?.text,
            "\"45\" is not a duration (a number needs its unit: 45m for minutes, 45s for seconds; from 1 second to 24 hours); try 90s, 30m, 1h15m or 45:00")
    }
}
