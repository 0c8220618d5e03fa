import OtonSupport

/// Why plugins.json could not be used. Each case says where and what to do;
/// `oton` exits with code 2 on any of them.
public enum ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound(tried: [String])
    case unreadable(file: String, reason: String)
    case syntax(file: String, line: Int, column: Int, reason: String)
    case invalid(file: String, location: String, problem: String)

    /// For a person, in their language (``MessageCatalogue/current``).
    public var description: String { message + "\n  " + tr("hint: {hint}", ["hint": hint]) }

    public var message: String {
        switch self {
        case let .notFound(tried):
            tr("no plugins.json found (looked at: {files})", ["files": tried.joined(separator: ", ")])
        case let .unreadable(file, reason):
            "\(file): " + tr("cannot read: {reason}", ["reason": reason])
        case let .syntax(file, line, column, reason):
            "\(file):\(line):\(column): \(reason)"
        case let .invalid(file, location, problem):
            "\(file): \(location): \(problem)"
        }
    }

    public var hint: String {
        switch self {
        case .notFound:
            tr("pass --config FILE, set OTON_CONFIG, or copy the repository's plugins.json to ~/.config/oton/plugins.json")
        case .unreadable:
            tr("check that the file exists and that you may read it")
        case .syntax:
            tr("fix the JSON at that line and column (a missing comma or quote is the usual cause); `python3 -m json.tool FILE` shows it too")
        case .invalid:
            tr("see docs/configuration.md for the shape of plugins.json")
        }
    }
}
