/// Minimal, fast JSON text building for the hot paths (event lines, socket replies).
public enum JSONText {
    /// A JSON string literal for `string`, escaping quotes, backslashes and control characters.
    public static func quoted(_ string: String) -> String {
        var out = "\""
        out.reserveCapacity(string.utf8.count + 2)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// {"key":"value",…} in the given order.
    public static func object(_ pairs: [(key: String, value: String)]) -> String {
        "{" + pairs.map { quoted($0.key) + ":" + quoted($0.value) }.joined(separator: ",") + "}"
    }
}
