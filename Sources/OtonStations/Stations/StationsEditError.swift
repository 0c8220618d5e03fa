import OtonSupport

/// Why `oton stations add|remove|move|import` changed nothing. The file is untouched in every case.
public enum StationsEditError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The existing file is not a valid plugins.json (its parser error, with file:line:column).
    case config(ConfigError)
    case write(AtomicFileWriter.Failure)
    case duplicate(name: String, file: String)
    case unknownStation(name: String, known: [String])
    case isDefault(name: String, file: String, other: String?)
    case badPosition(Int, count: Int)
    case noUserFile(reason: String)
    /// `oton plugins set`: no plugin with that id in the file's "plugins".
    case unknownPlugin(id: String, file: String, known: [String])

    public var description: String {
        switch self {
        case let .config(error):
            "\(error.message) — the file was left as it is\n  hint: \(error.hint)"
        case let .write(failure):
            "\(failure)"
        case let .duplicate(name, file):
            "a station named \"\(name)\" is already in \(file)\n  hint: pick another name, or `oton stations remove \"\(name)\"` first"
        case let .unknownStation(name, known):
            "no station named \"\(name)\"; known: \(known.isEmpty ? "none" : known.map { "\"\($0)\"" }.joined(separator: ", "))"
        case let .isDefault(name, file, other):
            "\"\(name)\" is the default_station in \(file); removing it would leave oton without its default\n  hint: "
                + (other.map { "make another station the default first: `oton stations default \"\($0)\"`, then remove \"\(name)\"" }
                    ?? "it is the only station; add another (`oton stations add NAME URL`) and make it the default first")
        case let .badPosition(position, count):
            "position \(position) is outside the list; use 1 to \(count)"
        case let .unknownPlugin(id, file, known):
            "no plugin with id \"\(id)\" in \(file); its plugins: \(known.isEmpty ? "none" : known.joined(separator: ", "))\n  hint: add the plugin to \"plugins\" first (docs/configuration.md)"
        case let .noUserFile(reason):
            "no configuration file to edit: \(reason)\n  hint: pass --config FILE or set XDG_CONFIG_HOME"
        }
    }
}
