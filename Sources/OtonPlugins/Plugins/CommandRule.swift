/// What a plugin's control command must be to be registered, in-process or isolated alike (one
/// rule, checked by ``CommandRegistry/register(_:for:)``): a name of [a-z0-9-], at most 64 bytes;
/// usage and help without control characters (they reach `oton ctl commands` on a terminal) and
/// at most ``maximumTextBytes`` each; at most ``maximumPerPlugin`` commands per plugin.
public enum CommandRule {
    public static let maximumPerPlugin = 64
    public static let maximumTextBytes = 1024

    /// Why `command` is refused, or nil when it may be registered.
    public static func refusal(of command: PluginManifest.Command) -> String? {
        guard CommandName.isValid(command.name) else {
            return "its name is not [a-z0-9-]+ of at most 64 bytes"
        }
        for (field, text) in [("usage", command.usage), ("help", command.help)] {
            if text.utf8.count > maximumTextBytes {
                return "its \(field) is \(text.utf8.count) bytes (at most \(maximumTextBytes))"
            }
            if text.unicodeScalars.contains(where: isControl) {
                return "its \(field) contains control characters"
            }
        }
        return nil
    }

    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The name as it may be logged: at most 64 characters, control characters as \u{…}.
    package static func quoted(_ name: String) -> String {
        let shown = name.unicodeScalars.prefix(64).map { isControl($0) ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
        return "\"" + shown + (name.unicodeScalars.count > 64 ? "…" : "") + "\""
    }
}
