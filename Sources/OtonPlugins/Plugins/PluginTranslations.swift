import Foundation
import OtonSupport
import Synchronization

/// What ABI 1.4 gives plugins of the user's language: `oton_host.language` and the C strings
/// `oton_host.translate` returns. One per catalogue (``shared`` for the process's own), handed to
/// every plugin instance's host table, so bundled plugins speak the language the host does.
///
/// The strings it hands out are never freed: a plugin may keep them as long as its host table,
/// and a table is never freed either (PluginHostContext). They are bounded all the same: one
/// per catalogue entry asked for, since an untranslated message is answered with the plugin's
/// own pointer, not a copy.
///
/// Threading: any thread (translate is ANY THREAD in the header).
public final class PluginTranslations: Sendable {
    public let catalogue: MessageCatalogue
    /// `oton_host.language`: "ru", "sah:ru", or "en".
    package var language: UnsafePointer<CChar> { languageString.pointer }
    private let languageString: UnsafeSendableCString
    /// msgid → its translation as a C string, made the first time a plugin asks.
    private let made = Mutex<[String: UnsafeSendableCString]>([:])

    public init(catalogue: MessageCatalogue) {
        self.catalogue = catalogue
        languageString = UnsafeSendableCString(pointer: UnsafePointer(strdup(catalogue.languageList)!))
    }

    /// The process's own language (``MessageCatalogue/current``), shared by every plugin instance.
    public static let shared = PluginTranslations(catalogue: .current)

    /// The translation of `message` as a C string that lives for the rest of the process, or nil
    /// when the catalogue has none (the caller then hands back the plugin's own pointer).
    package func translation(of message: String) -> UnsafePointer<CChar>? {
        guard let template = catalogue.template(for: message) else { return nil }
        return made.withLock { strings in
            if let known = strings[message] { return known.pointer }
            let copy = UnsafePointer(strdup(template)!)
            strings[message] = UnsafeSendableCString(pointer: copy)
            return copy
        }
    }
}

/// A C string that is never freed nor written after it is made, so any thread may read it.
/// Concurrency: immutable (see above).
private struct UnsafeSendableCString: @unchecked Sendable {
    let pointer: UnsafePointer<CChar>
}
