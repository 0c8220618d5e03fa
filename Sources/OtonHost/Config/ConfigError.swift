/// Why plugins.json could not be used. Each case says where and what to do;
/// `oton` exits with code 2 on any of them.
public enum ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound(tried: [String])
    case unreadable(file: String, reason: String)
    case syntax(file: String, line: Int, column: Int, reason: String)
    case invalid(file: String, location: String, problem: String)

    public var description: String { message + "\n  hint: " + hint }

    public var message: String {
        switch self {
        case let .notFound(tried):
            "no plugins.json found (looked at: \(tried.joined(separator: ", ")))"
        case let .unreadable(file, reason):
            "\(file): cannot read: \(reason)"
        case let .syntax(file, line, column, reason):
            "\(file):\(line):\(column): \(reason)"
        case let .invalid(file, location, problem):
            "\(file): \(location): \(problem)"
        }
    }

    public var hint: String {
        switch self {
        case .notFound:
            "pass --config FILE, set OTON_CONFIG, or copy the repository's plugins.json to ~/.config/oton/plugins.json"
        case .unreadable:
            "check that the file exists and that you may read it"
        case .syntax:
            "fix the JSON at that line and column (a missing comma or quote is the usual cause); `python3 -m json.tool FILE` shows it too"
        case .invalid:
            "see docs/configuration.md for the shape of plugins.json"
        }
    }
}
