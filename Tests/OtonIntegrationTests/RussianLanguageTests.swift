import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// oton speaks Russian with LANG=ru_RU.UTF-8 (and Sakha, until a volunteer fills sah.po, falls back to Russian):
/// the real executable, its catalogues found beside it as `swift build` puts them.
final class RussianLanguageTests: XCTestCase {
    /// The environment with only `LANG` choosing the language (no LC_ALL, LC_MESSAGES or LANGUAGE from the test's own).
    static func environment(lang: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["LC_ALL", "LC_MESSAGES", "LANGUAGE", "OTON_LOCALE_DIR", "DISPLAY", "WAYLAND_DISPLAY"] { environment[name] = nil }
        environment["LANG"] = lang
        return environment
    }

    func testAnUnplayableStreamIsExplainedInRussianWithItsSuggestion() throws {
        let http = try LocalHTTPServer.start(routes: [
            "/page": .html("<html><body><h1>Наше радио</h1>" + String(repeating: "<p>text</p>", count: 500) + "</body></html>")
        ])
        defer { http.stop() }
        let directory = try TemporaryDirectory(self)
        let config = try directory.write("plugins.json", #"{"stations": [], "plugins": []}"#)
        let url = http.url("/page").absoluteString
        let arguments = ["play", url, "--headless", "--retries", "0", "--no-control", "--config", config]

        let russian = try runProcess(TestPaths.oton, arguments, environment: Self.environment(lang: "ru_RU.UTF-8"))
        XCTAssertEqual(russian.status, 3, russian.stderr)
        XCTAssertTrue(russian.stderr.contains("oton: не удаётся воспроизвести \(url): По этому адресу нет аудиопотока."), russian.stderr)
        XCTAssertTrue(russian.stderr.contains("Возможно, адрес ведёт на веб-страницу или плейлист, а не на поток."), russian.stderr)
        XCTAssertFalse(russian.stderr.contains("doesn't lead to an audio stream"), "no English left: \(russian.stderr)")

        // Sakha has no translations yet: Russian, which Sakha speakers read.
        let sakha = try runProcess(TestPaths.oton, arguments, environment: Self.environment(lang: "sah_RU.UTF-8"))
        XCTAssertEqual(sakha.status, 3, sakha.stderr)
        XCTAssertTrue(sakha.stderr.contains("По этому адресу нет аудиопотока."), sakha.stderr)

        // The same run in the C locale stays English.
        let english = try runProcess(TestPaths.oton, arguments, environment: Self.environment(lang: "C.UTF-8"))
        XCTAssertEqual(english.status, 3, english.stderr)
        XCTAssertTrue(english.stderr.contains("oton: cannot play \(url): This address doesn't lead to an audio stream."), english.stderr)
    }

    func testHelpAbstractsAreInRussian() throws {
        let help = try runProcess(TestPaths.oton, ["--help"], environment: Self.environment(lang: "ru_RU.UTF-8"))
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertTrue(help.stdout.contains("Проигрыватель и рекордер интернет-радио с плагинами."), help.stdout)
        XCTAssertTrue(help.stdout.contains("Воспроизвести станцию"), help.stdout)
        XCTAssertTrue(help.stdout.contains("Коды выхода: 0\u{A0}— штатно"), help.stdout)
        XCTAssertTrue(help.stdout.contains("Примеры:"), help.stdout)
    }

    /// The longer help of the commands people use most: the discussion and every option, not only the abstract.
    func testHelpBodiesAndOptionsAreInRussian() throws {
        let environment = Self.environment(lang: "ru_RU.UTF-8")
        let expected = [
            "play": ["Клавиши под строкой состояния:", "Начальная громкость в процентах", "Без звукового устройства", "станция по умолчанию"],
            "record": ["Переподключается бесконечно", "Папка для записи", "Шаблон имени файла (по умолчанию {station}/{artist} - {title}.{ext})"],
            "ctl": ["Параметры пишутся перед командой.", "Вывести ответ в виде JSON", "Примеры:"],
        ]
        for (command, phrases) in expected.sorted(by: { $0.key < $1.key }) {
            let help = try runProcess(TestPaths.oton, [command, "--help"], environment: environment)
            XCTAssertEqual(help.status, 0, help.stderr)
            // ArgumentParser wraps to the terminal: compare with the lines joined.
            let text = help.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            for phrase in phrases { XCTAssertTrue(text.contains(phrase), "oton \(command) --help: \(phrase)\n\(help.stdout)") }
            for english in ["Keys under the status line", "Folder to record into", "Print the reply as JSON", "Examples:"] {
                XCTAssertFalse(help.stdout.contains(english), "oton \(command) --help: no English left: \(english)")
            }
        }
    }

    /// `oton play` in a real terminal (tmux, 160 columns so that the reason fits) against a real Icecast mount.
    func testTheStatusLineIsInRussian() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        let source = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let config = try directory.write(
            "plugins.json",
            """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}], "plugins": []}
            """)
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let exitFile = directory.file("exit-status")
        let command = """
            env -u DISPLAY -u WAYLAND_DISPLAY -u LC_ALL -u LC_MESSAGES -u LANGUAGE -u OTON_LOCALE_DIR LANG=ru_RU.UTF-8 \
            XDG_RUNTIME_DIR='\(directory.file("run"))' XDG_DATA_HOME='\(directory.file("data"))' \
            XDG_CACHE_HOME='\(directory.file("cache"))' PULSE_SERVER=unix:/nonexistent \
            '\(TestPaths.oton)' play 'Test FM' --config '\(config)' --instance terminal-ru 2>&1; echo $? > '\(exitFile)'
            """
        let terminal = try TmuxTerminal(self, command: command, columns: 160)
        let status = { (rows: [String]) in rows.last { !$0.isEmpty } ?? "" }

        var rows = try terminal.waitForScreen("playing, in Russian") {
            status($0).contains("▶ воспроизведение") && status($0).contains("Artist A – Song One")
        }
        XCTAssertTrue(status(rows).contains("громкость 100%"), status(rows))
        XCTAssertTrue(status(rows).contains("? клавиши"), status(rows))

        try terminal.type("?")
        rows = try terminal.waitForScreen("the key list in Russian") {
            $0.contains { $0.hasPrefix("клавиши: пробел  пауза / продолжить") } && $0.contains { $0.contains("q    выход (и Ctrl-C)") }
        }
        try terminal.type("+")
        try terminal.waitForScreen("the amplified volume") { status($0).contains("громкость 105% с усилением") }

        // The source goes away: the player waits for it, counting down to the next try, with the reason, all in Russian.
        source.stop()
        rows = try terminal.waitForScreen("the reconnect countdown") {
            status($0).contains("… ждём станцию (следующая попытка через") && status($0).contains(" с) · ")
        }
        let reason = try XCTUnwrap(status(rows).components(separatedBy: " с) · ").last)
        let firstLetter = reason.unicodeScalars.first?.value ?? 0
        XCTAssertTrue((0x0400...0x04FF).contains(firstLetter), "the reason is in Russian: \(status(rows))")

        try terminal.type("q")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: exitFile) && Date() < deadline { usleep(100_000) }
        let screen = try terminal.screen().joined(separator: "\n")
        XCTAssertEqual(directory.read("exit-status").trimmingCharacters(in: .whitespacesAndNewlines), "0", screen)
    }

    /// `oton history`'s table (drawn by the History plugin, its words passed by the CLI) and `oton record`'s lines.
    func testHistoryTablesAndRecordLinesAreInRussian() async throws {
        let directory = try TemporaryDirectory(self)
        var environment = Self.environment(lang: "ru_RU.UTF-8")
        environment["XDG_DATA_HOME"] = directory.file("data")
        let config = try directory.write("plugins.json", #"{"plugins": []}"#)
        let empty = try runProcess(TestPaths.oton, ["history", "--config", config], environment: environment)
        XCTAssertEqual(empty.status, 0, empty.stderr)
        XCTAssertEqual(empty.stdout, "В истории нет подходящих треков.\n")
        let database = directory.file("data") + "/oton/plugins/org.oton.history/history.sqlite"
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let insert = try runProcess(
            "/usr/bin/sqlite3",
            [
                database,
                """
                INSERT INTO plays (station, artist, title, started_at, ended_at, seconds_listened, is_jingle, search_folded)
                VALUES ('Радио', 'Кино', 'Кукушка', \(now - 10_000_000), \(now - 5_000_000), 5, 0, 'кино\nкукушка');
                """,
            ])
        XCTAssertEqual(insert.status, 0, insert.stderr)
        let table = try runProcess(TestPaths.oton, ["history", "--all", "--config", config], environment: environment)
        XCTAssertEqual(table.status, 0, table.stderr)
        for word in ["НАЧАЛО", "СЛУШАЛИ", "СТАНЦИЯ", "ИСПОЛНИТЕЛЬ", "НАЗВАНИЕ", "Кукушка [пропущен]"] {
            XCTAssertTrue(table.stdout.contains(word), "\(word) in\n\(table.stdout)")
        }
        let stats = try runProcess(TestPaths.oton, ["history", "stats", "--config", config], environment: environment)
        XCTAssertTrue(stats.stdout.contains("Часы прослушивания по станциям"), stats.stdout)
        XCTAssertTrue(stats.stdout.contains("(нет)"), "a skipped play is not counted: \(stats.stdout)")

        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/ru.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let record = try runProcess(
            TestPaths.oton,
            [
                "record", server.url(mount: "/ru.mp3").absoluteString, "--out", directory.file("out"),
                "--config", config, "--duration", "3s", "--min-seconds", "1",
            ], environment: environment)
        XCTAssertEqual(record.status, 0, record.stderr)
        XCTAssertTrue(record.stdout.hasPrefix("неполный: \(directory.file("out"))/") && record.stdout.contains("/incomplete/"), record.stdout)
    }

    /// Plugin replies (ABI 1.4: the host passes its language and catalogues) are Russian under a Russian
    /// `oton play`, for a plugin in oton's process (share) and one isolated in a child (the sleep timer);
    /// the events stay English. No stream is needed: the station does not answer, oton keeps retrying.
    func testPluginRepliesAreInRussianInProcessAndIsolated() throws {
        let russian: [String: String?] = ["LANG": "ru_RU.UTF-8", "LC_ALL": nil, "LC_MESSAGES": nil, "LANGUAGE": nil, "OTON_LOCALE_DIR": nil]
        let oton = try OtonProcess(
            self, arguments: ["play", "Радио Один", "--headless"],
            plugins: """
                {"stations": [{"name": "Радио Один", "url": "http://127.0.0.1:9/one.mp3"}],
                 "plugins": [{"id": "org.oton.sleep-timer", "path": "libOtonSleepTimer.so", "isolation": "process"},
                             {"id": "org.oton.share", "path": "libOtonShare.so"}]}
                """, instance: "ru-plugins", environment: russian)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)

        let sleep = try oton.ctl(["sleep", "30m"])
        XCTAssertEqual(sleep.status, 0, sleep.stderr)
        XCTAssertTrue(sleep.stdout.hasPrefix("Таймер сна: остановка через "), sleep.stdout)
        XCTAssertTrue(sleep.stdout.contains("(затухание 10 с)"), sleep.stdout)
        XCTAssertEqual(events.waitForEvent("org.oton.sleep.set")?["mode"], "duration", "events stay English")

        let wrong = try oton.ctl(["sleep", "soon"])
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertTrue(wrong.stderr.contains("«soon» — не длительность (перед s должно стоять число)"), wrong.stderr)
        XCTAssertEqual(try oton.ctl(["sleep", "cancel"]).stdout, "Таймер сна отменён\n")

        let share = try oton.ctl(["share"])
        XCTAssertNotEqual(share.status, 0)
        XCTAssertTrue(share.stderr.contains("Сейчас ничего не играет: делиться нечем"), share.stderr)

        // JSON is an API: the reply object's keys and the event names stay English, its text is the person's.
        let json = try oton.ctl(["--json", "sleep"])
        XCTAssertTrue(json.stdout.contains(#""ok":true"#) && json.stdout.contains("Таймер сна не установлен"), json.stdout)

        // The command list: each help in Russian, the plugins' too (their descriptors are English, the host translates).
        let commands = try oton.ctl(["commands"])
        XCTAssertTrue(commands.stdout.contains("    что играет: состояние, станция, трек, громкость"), commands.stdout)
        XCTAssertTrue(commands.stdout.contains("    установить таймер сна (90s, 30m, 1h15m, 45:00)"), commands.stdout)
        XCTAssertTrue(commands.stdout.contains("    поделиться текущим треком"), commands.stdout)
        // The host's own replies too: the status line of `oton ctl status` and a refusal.
        XCTAssertTrue(try oton.ctl(["status"]).stdout.contains(" · Радио Один · громкость 100%"), "ctl status in Russian")
        XCTAssertTrue(try oton.ctl(["no-such-command"]).stderr.contains("неизвестная команда «no-such-command»"), "a refusal in Russian")
        // Issue 39 §4: the volume's words were English in a Russian oton.
        XCTAssertEqual(try oton.ctl(["volume", "120"]).stdout, "громкость 120% с усилением\n")
        let fraction = try oton.ctl(["volume", "0.5"])
        XCTAssertTrue(fraction.stderr.contains("громкость задаётся в процентах: 50 означает 0.5"), fraction.stderr)
        let commandsJSON = try oton.ctl(["--json", "commands"])
        XCTAssertTrue(commandsJSON.stdout.contains(#""help":"what is playing: state, station, track, volume""#), "JSON stays English: \(commandsJSON.stdout)")
    }

    /// A warning a person reads on stderr: a second `oton play` asking for the instance name the first holds
    /// plays on, without a control socket, and says why in Russian.
    func testAWarningIsInRussian() throws {
        let stations = #"{"stations": [{"name": "Радио Один", "url": "http://127.0.0.1:9/one.mp3"}], "plugins": []}"#
        let russian: [String: String?] = ["LANG": "ru_RU.UTF-8", "LC_ALL": nil, "LC_MESSAGES": nil, "LANGUAGE": nil, "OTON_LOCALE_DIR": nil]
        let first = try OtonProcess(self, arguments: ["play", "Радио Один", "--headless"], plugins: stations, instance: "ru-warn", environment: russian)
        _ = try first.connect()

        let second = Process()
        second.executableURL = URL(fileURLWithPath: TestPaths.oton)
        second.arguments = ["play", "Радио Один", "--headless", "--config", first.directory.file("plugins.json"), "--instance", "ru-warn"]
        second.environment = first.environment  // the same runtime folder: the name is taken
        let log = first.directory.file("second.log")
        FileManager.default.createFile(atPath: log, contents: nil)
        second.standardError = FileHandle(forWritingAtPath: log)
        second.standardOutput = FileHandle.nullDevice
        try second.run()
        addTeardownBlock { if second.isRunning { second.terminate(); second.waitUntilExit() } }

        let expected = [
            "управляющий сокет ru-warn: экземпляр oton «ru-warn» уже запущен",
            "управляющего сокета нет: `oton ctl` не сможет связаться с этим oton",
        ]
        let deadline = Date().addingTimeInterval(30)
        var text = ""
        while Date() < deadline {
            text = first.directory.read("second.log")
            if expected.allSatisfy(text.contains) || !second.isRunning { break }
            usleep(50_000)
        }
        for line in expected { XCTAssertTrue(text.contains(line), "\(line)\n\(text)") }
        XCTAssertFalse(text.contains("no control socket"), "no English left: \(text)")
    }

    /// Usage errors oton words itself (not ArgumentParser's frame) are Russian too, and still exit 2.
    func testAnUnknownStationIsRefusedInRussian() throws {
        let directory = try TemporaryDirectory(self)
        let config = try directory.write("plugins.json", #"{"stations": [{"name": "Радио Один", "url": "http://127.0.0.1:9/one.mp3"}], "plugins": []}"#)
        let result = try runProcess(
            TestPaths.oton, ["play", "Нет такой", "--config", config, "--headless"],
            environment: Self.environment(lang: "ru_RU.UTF-8"))
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("нет станции с именем «Нет такой» (известные: Радио Один)"), result.stderr)
    }
}
