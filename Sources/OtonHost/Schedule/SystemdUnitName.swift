/// Names → unit names by systemd's escaping rules (as `systemd-escape NAME` prints them): ASCII
/// letters, digits, `:`, `_` and `.` stay (a leading `.` does not), `/` becomes `-`, every other
/// byte becomes `\xNN`. oton's units are `oton-schedule-<escaped>.timer` and `.service` (recordings)
/// and `oton-alarm-<N>.timer` and `.service` (alarms).
public enum SystemdUnitName {
    public static let prefix = "oton-schedule-"
    public static let alarmPrefix = "oton-alarm-"
    /// Unit names are at most 255 bytes; leave room for the prefix and ".service".
    public static let maximumEscapedBytes = 255 - 14 - 8

    public static func escape(_ text: String) -> String {
        var out = ""
        for (index, byte) in text.utf8.enumerated() {
            let character = Character(Unicode.Scalar(byte))
            if byte == UInt8(ascii: "/") {
                out.append("-")
            } else if byte < 0x80
                && (character.isLetter || character.isNumber || character == ":" || character == "_"
                    || (character == "." && index > 0))
            {
                out.append(character)
            } else {
                out += "\\x" + String(byte, radix: 16).leftPadded(to: 2)
            }
        }
        return out
    }

    /// The reverse of `escape` (nil when the text is not an escaped name).
    public static func unescape(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var rest = Substring(text).utf8[...]
        while let byte = rest.first {
            if byte == UInt8(ascii: "\\") {
                let hex = rest.dropFirst(2).prefix(2)
                guard rest.dropFirst().first == UInt8(ascii: "x"), hex.count == 2,
                    let value = UInt8(String(decoding: hex, as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
                rest = rest.dropFirst(4)
            } else {
                bytes.append(byte == UInt8(ascii: "-") ? UInt8(ascii: "/") : byte)
                rest = rest.dropFirst()
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    public static func timer(for show: String) -> String { prefix + escape(show) + ".timer" }
    public static func service(for show: String) -> String { prefix + escape(show) + ".service" }

    /// Alarm N's units: `oton-alarm-N.timer` and `.service`.
    public static func alarmTimer(_ number: Int) -> String { alarmPrefix + "\(number).timer" }
    public static func alarmService(_ number: Int) -> String { alarmPrefix + "\(number).service" }
}

extension String {
    package func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
