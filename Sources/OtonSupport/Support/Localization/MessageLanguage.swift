/// Which languages oton speaks to this user, from the environment, as POSIX and
/// gettext choose: the first non-empty of `LC_ALL`, `LC_MESSAGES`, `LANG` names the
/// locale; `C`, `POSIX` or nothing means English. Unless the locale is `C`/`POSIX`,
/// a `LANGUAGE` list (`sah:ru`) comes first, as GNU gettext reads it.
///
/// The result is the chain of catalogues to try, most wanted first; English (the
/// msgids themselves) always ends it. Sakha (`sah`) falls back to Russian, which
/// Sakha speakers read, before English.
public enum MessageLanguage {
    /// The languages that have a catalogue, and the language each falls back to.
    public static let fallbacks: [String: String?] = ["ru": nil, "sah": "ru"]

    /// The catalogue languages to try for `environment`, e.g. `["sah", "ru"]`; empty for English.
    public static func chain(environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let base = language(of: locale)
        if base == nil || base == "c" || base == "posix" { return [] }
        var wanted = (environment["LANGUAGE"] ?? "").split(separator: ":").compactMap { language(of: String($0)) }
        wanted.append(base!)
        var chain: [String] = []
        for name in wanted {
            // English is the msgids themselves: nothing after it is ever used.
            if name == "en" { break }
            var next: String? = name
            while let language = next, fallbacks[language] != nil {
                if !chain.contains(language) { chain.append(language) }
                next = fallbacks[language] ?? nil
            }
        }
        return chain
    }

    /// `ru_RU.UTF-8@latin` → `ru`; nil for an empty name.
    package static func language(of locale: String) -> String? {
        let name = locale.prefix { $0 != "_" && $0 != "." && $0 != "@" && $0 != "-" }.lowercased()
        return name.isEmpty ? nil : name
    }
}
