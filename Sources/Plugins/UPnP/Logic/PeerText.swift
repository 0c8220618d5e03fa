/// Text a renderer chose (its friendly name, model, a SOAP fault's description) made fit for one
/// line of a reply: control characters (ESC sequences, newlines, the C1 range, bidi overrides)
/// dropped, runs of white space made one space, and at most `limit` characters kept (an ellipsis
/// says so). Anything on the network can announce itself as a renderer; its name is never trusted.
public enum PeerText {
    public static let nameLimit = 64
    public static let messageLimit = 200

    public static func clean(_ text: String, limit: Int = nameLimit) -> String {
        var out = ""
        var count = 0
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if isDropped(scalar) { continue }
            if scalar.properties.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.unicodeScalars.append(" ")
                count += 1
                pendingSpace = false
            }
            if count >= limit {
                out.unicodeScalars.append("…")
                return out
            }
            out.unicodeScalars.append(scalar)
            count += 1
        }
        return out
    }

    /// Control characters (but tabs and newlines, which read as white space) and the format
    /// characters that reorder or hide text.
    private static func isDropped(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\t" || scalar == "\n" || scalar == "\r" { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned: return true
        default: return false
        }
    }
}
