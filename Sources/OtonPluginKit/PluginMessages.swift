import PluginAPI

/// Marks `message` for the host's catalogues without translating it (gettext's `N_`): for the
/// descriptor's texts (a command's help), which exist before any host table; the host translates
/// them where a person reads them (`oton ctl commands`). A third-party plugin's texts are not in the
/// catalogues and are shown as written.
public func N_(_ message: String) -> String { message }

/// A plugin's messages in the user's language (ABI 1.4): `host.tr("Sleep timer: stop in {time}", ["time": "0:30"])`.
/// The English text is the key into the host's catalogues (Sources/OtonHost/Resources/locale/*.po,
/// docs/translating.md), exactly as the host's own `tr` reads them; values go in by name after the
/// translation, so a translation may put them in any order. Write every message a person reads as a
/// single-line literal right after `tr(` — the catalogue-completeness test finds them that way.
/// Events and JSON are an API: keep them English (do not pass them through `tr`).
public extension HostHandle {
    /// The user's languages as the host resolved them, e.g. "ru" or "sah:ru"; "en" for English,
    /// and from a host older than ABI 1.4 (which does not say).
    var language: String {
        guard hasField(table, \oton_host.language), let language = table.pointee.language else { return "en" }
        return String(cString: language)
    }

    /// `message` in the user's language (English from a host older than 1.4, or when the catalogue
    /// lacks it), its `{name}` placeholders filled from `values`.
    func tr(_ message: String, _ values: [String: String] = [:]) -> String {
        var template = message
        if hasField(table, \oton_host.translate), let translate = table.pointee.translate,
            let translated = message.withCString({ translate(table, $0).map { String(cString: $0) } })
        {
            template = translated
        }
        return MessageTemplate.filled(template, values)
    }
}
