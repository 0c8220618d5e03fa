import Foundation
import OtonJSON

/// The messages a person reads, in their language. Every such message is written
/// in the code as English in `tr("…")` (the convention the catalogue-completeness
/// test looks for); the English text is the key (gettext's msgid) into the
/// catalogues `locale/<language>.po`, which a translator edits without touching Swift.
///
/// Values go in by name — `tr("HTTP {status}", ["status": "404"])` — so a
/// translation can put them in any order. A translation whose placeholders differ
/// from its msgid's is not used (the next language in the chain, or English, is).
///
/// A missing or damaged catalogue is never fatal: that language is skipped and the
/// reason is kept in ``problems`` for one debug log line.
public struct MessageCatalogue: Sendable {
    /// The catalogues in the order they are asked (e.g. Sakha, then Russian); English after them all.
    private let layers: [[String: String]]
    /// Why a catalogue that was wanted is not used (for a debug log line, never shown otherwise).
    public let problems: [String]
    /// The languages of `layers`, in the same order (e.g. `["sah", "ru"]`); empty for English.
    public let languages: [String]

    public init(layers: [[String: String]], problems: [String] = [], languages: [String] = []) {
        self.layers = layers
        self.problems = problems
        self.languages = languages
    }

    /// English: the messages as the code writes them.
    public static let english = MessageCatalogue(layers: [])

    /// The catalogue for this process's environment (`LC_ALL`, `LC_MESSAGES`, `LANG`, `LANGUAGE`), loaded once.
    public static let current = MessageCatalogue.load(
        languages: MessageLanguage.chain(environment: ProcessInfo.processInfo.environment),
        directories: CatalogueDirectories.search())

    /// The catalogues for `languages` from the first of `directories` that has each.
    public static func load(languages: [String], directories: [String]) -> MessageCatalogue {
        var layers: [[String: String]] = []
        var problems: [String] = []
        var loaded: [String] = []
        for language in languages {
            let candidates = directories.map { $0 + "/\(language).po" }
            guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
                problems.append("no \(language).po in \(directories.joined(separator: ", ")); messages in that language fall back")
                continue
            }
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                problems.append("\(path): not readable as UTF-8 text; not used")
                continue
            }
            do {
                let entries = try POFileReader.translations(in: text)
                var usable: [String: String] = [:]
                for (id, string) in entries {
                    if placeholders(in: id) == placeholders(in: string) {
                        usable[id] = string
                    } else {
                        problems.append("\(path): the translation of \"\(id.prefix(50))\" does not use the same {placeholders}; not used")
                    }
                }
                layers.append(usable)
                loaded.append(language)
            } catch {
                problems.append("\(path): \(error.description); this catalogue is not used")
            }
        }
        return MessageCatalogue(layers: layers, problems: problems, languages: loaded)
    }

    /// The languages as plugins read them (ABI 1.4 `oton_host.language`): `"ru"`, `"sah:ru"`, or `"en"`.
    public var languageList: String { languages.isEmpty ? "en" : languages.joined(separator: ":") }

    /// `msgid`'s translation with its placeholders unfilled, or nil when no catalogue has one.
    public func template(for msgid: String) -> String? {
        layers.lazy.compactMap { $0[msgid] }.first
    }

    /// `msgid` in this catalogue's language, its `{name}` placeholders replaced by `values`.
    public func tr(_ msgid: String, _ values: [String: String] = [:]) -> String {
        let template = template(for: msgid) ?? msgid
        return Self.filled(template, values)
    }

    /// Whether `msgid` has a translation in the first catalogue (for the tests and translators).
    public func translates(_ msgid: String) -> Bool { layers.first?[msgid] != nil }

    package static func filled(_ template: String, _ values: [String: String]) -> String {
        MessageTemplate.filled(template, values)
    }

    /// The `{name}` placeholders in `text` (a name is letters, digits and `_`).
    public static func placeholders(in text: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            rest = rest[rest.index(after: open)...]
            let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if !name.isEmpty, rest.dropFirst(name.count).first == "}" { names.insert(String(name)) }
        }
        return names
    }
}

/// `msgid` in the user's language (``MessageCatalogue/current``), its `{name}` placeholders filled from `values`.
public func tr(_ msgid: String, _ values: [String: String] = [:]) -> String {
    MessageCatalogue.current.tr(msgid, values)
}

/// Marks `message` for the catalogues without translating it (gettext's `N_`): for a text kept in
/// English where it is stored or sent (a command's help in the control JSON) and translated with
/// `tr(text)` where a person reads it. The completeness test and scripts/update-catalogues find
/// `N_("…")` as they find `tr("…")`.
public func N_(_ message: String) -> String { message }

/// Where the catalogues are looked for, first match wins per language.
public enum CatalogueDirectories {
    /// `$OTON_LOCALE_DIR` (a translator trying an edited file), then beside the executable as
    /// `swift build` puts them (`Oton_OtonHost.resources/locale`), then `<prefix>/share/oton/locale`
    /// for an installed `<prefix>/bin/oton`.
    public static func search(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var directories: [String] = []
        if let explicit = environment["OTON_LOCALE_DIR"], !explicit.isEmpty { directories.append(explicit) }
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
            directories.append(folder.appendingPathComponent("Oton_OtonHost.resources/locale").path)
            directories.append(folder.deletingLastPathComponent().appendingPathComponent("share/oton/locale").path)
        }
        return directories
    }
}
