import OtonSupport

/// Why a plugin was not loaded or created. Each says which file, why, and what to do.
public enum PluginLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    case unsafeFile(path: String, reason: String)
    case notRegularFile(path: String, type: String)
    case notFound(path: String, searched: [String])
    case openFailed(path: String, reason: String)
    case missingEntry(path: String)
    case nullDescriptor(path: String)
    case descriptorTooSmall(path: String, size: Int, required: Int)
    case majorMismatch(path: String, plugin: String, host: String)
    case newerMinor(path: String, plugin: String, host: String)
    case missingField(path: String, field: String)
    case invalidField(path: String, field: String, reason: String)
    case duplicateID(path: String, id: String, loadedFrom: String)
    case idMismatch(path: String, configured: String, declared: String)
    case createFailed(path: String, id: String, reason: String)
    /// The config in plugins.json does not fit the settings the plugin declares (ABI 1.6); create() was not called.
    case settingsRefused(path: String, id: String, problems: [String])
    /// An isolated plugin's process died of `signal` before create() returned: not restarted.
    case crashedStarting(path: String, id: String, signal: String)

    public var path: String {
        switch self {
        case let .unsafeFile(path, _), let .notRegularFile(path, _), let .notFound(path, _), let .openFailed(path, _), let .missingEntry(path),
            let .nullDescriptor(path), let .descriptorTooSmall(path, _, _), let .majorMismatch(path, _, _),
            let .newerMinor(path, _, _), let .missingField(path, _), let .invalidField(path, _, _),
            let .duplicateID(path, _, _), let .idMismatch(path, _, _), let .createFailed(path, _, _),
            let .crashedStarting(path, _, _), let .settingsRefused(path, _, _):
            path
        }
    }

    /// In English (reports, JSON); ``description(in:)`` for a person.
    public var description: String { description(in: .english) }
    public var reason: String { reason(in: .english) }
    public var hint: String { hint(in: .english) }

    /// The path, the reason and the hint in `catalogue`'s language (``MessageCatalogue/current`` for people).
    public func description(in catalogue: MessageCatalogue) -> String {
        "\(path): \(reason(in: catalogue))\n  \(catalogue.tr("hint: {hint}", ["hint": hint(in: catalogue)]))"
    }

    public func reason(in catalogue: MessageCatalogue) -> String {
        func tr(_ message: String, _ values: [String: String] = [:]) -> String { catalogue.tr(message, values) }
        return switch self {
        case let .unsafeFile(_, reason): tr("refused: {reason}", ["reason": reason])
        case let .notRegularFile(_, type): tr("refused: it is {type}, not a regular file", ["type": type])
        case let .notFound(_, searched): tr("no such file (looked in {folders})", ["folders": searched.joined(separator: ", ")])
        case let .openFailed(_, reason): tr("cannot be loaded: {reason}", ["reason": reason])
        case .missingEntry: tr("is not an Oton plugin: it exports no function named oton_plugin_entry")
        case .nullDescriptor: tr("oton_plugin_entry() returned NULL")
        case let .descriptorTooSmall(_, size, required):
            tr("its descriptor is {size} bytes, smaller than the {required} bytes of ABI 1.0", ["size": String(size), "required": String(required)])
        case let .majorMismatch(_, plugin, host):
            tr("built for plugin ABI {plugin}, but this oton speaks ABI {host}; the major versions must match", ["plugin": plugin, "host": host])
        case let .newerMinor(_, plugin, host): tr("built for plugin ABI {plugin}, newer than this oton's ABI {host}", ["plugin": plugin, "host": host])
        case let .missingField(_, field): tr("its descriptor lacks the required field {field}", ["field": field])
        case let .invalidField(_, field, reason): tr("its descriptor field {field} is invalid: {reason}", ["field": field, "reason": reason])
        case let .duplicateID(_, id, loadedFrom): tr("declares id \"{id}\", already taken by {path}", ["id": id, "path": loadedFrom])
        case let .idMismatch(_, configured, declared):
            tr("plugins.json says id \"{configured}\" but the library declares \"{declared}\"", ["configured": configured, "declared": declared])
        case let .createFailed(_, id, reason): tr("{plugin} failed to start: {reason}", ["plugin": id, "reason": reason])
        case let .settingsRefused(_, id, problems):
            tr(
                "{plugin} was not started: its config does not match the settings it declares: {problems}",
                ["plugin": id, "problems": problems.joined(separator: "; ")])
        case let .crashedStarting(_, id, signal):
            tr("{plugin} crashed while starting ({signal}) in its isolated process; oton goes on without it", ["plugin": id, "signal": signal])
        }
    }

    public func hint(in catalogue: MessageCatalogue) -> String {
        func tr(_ message: String, _ values: [String: String] = [:]) -> String { catalogue.tr(message, values) }
        return switch self {
        case .unsafeFile:
            tr(
                "make the file and every directory above it yours (or root's) and writable by you only (chmod go-w FILE DIR); in a shared directory such as /tmp, use a subdirectory you own"
            )
        case .notRegularFile: tr("point \"path\" at the plugin's shared library file itself")
        case .notFound: tr("build it (swift build -c release) or fix \"path\" in plugins.json")
        case .openFailed: tr("check that it is a shared library for this machine and that its own libraries are installed (ldd FILE)")
        case .missingEntry, .nullDescriptor, .descriptorTooSmall, .missingField, .invalidField:
            tr("rebuild the plugin against Sources/PluginAPI/include/oton_plugin.h (docs/plugin-guide.md)")
        case .majorMismatch, .newerMinor: tr("rebuild the plugin against this oton's oton_plugin.h, or upgrade oton")
        case .duplicateID: tr("enable only one of the two in plugins.json")
        case .idMismatch: tr("correct \"id\" in plugins.json to the id the plugin declares (oton plugins inspect FILE)")
        case let .createFailed(_, _, reason) where reason == PluginLoadError.noReasonGiven:
            tr(
                "the plugin refused to start without saying why: look for its own lines in the log (--log-level debug), ask its author, or disable it in plugins.json"
            )
        case let .createFailed(_, _, reason) where reason.hasPrefix(PluginLoadError.directoryReasonPrefix):
            tr("make the directory's parent writable by you (or set XDG_DATA_HOME / XDG_CACHE_HOME to a directory you own), or disable the plugin")
        case .createFailed: tr("fix the plugin's \"config\" in plugins.json as the reason says, or disable it")
        case .settingsRefused:
            tr(
                "fix its \"config\" in plugins.json as each problem says: oton plugins inspect FILE lists the settings, oton plugins set ID KEY VALUE writes one"
            )
        case .crashedStarting:
            tr(
                "the crash is in the plugin, not in its config: report it to its author with the crash line above, or disable it in plugins.json; it is not restarted"
            )
        }
    }

    /// The reason given when create() returned NULL and left its error buffer empty.
    package static let noReasonGiven = "create() returned NULL without a reason"
    /// How the reason starts when the host could not make a plugin's data or cache directory.
    package static let directoryReasonPrefix = "cannot create "
}
