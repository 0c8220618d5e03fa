import Foundation
import OtonJSON

/// Parses the durations a listener types: "90s", "30m", "1h15m", "1h 15m 30s", or "mm:ss" / "h:mm:ss".
/// A bare number is refused with a hint: it meant minutes here and seconds in `oton record --duration`,
/// so every duration oton reads now says its unit (docs/configuration.md, "Durations").
public enum SleepDuration {
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let input: String
        /// Why, as an English message of the catalogues with `{placeholders}`, and their values.
        public let reasonMessage: String
        public let values: [String: String]

        public init(input: String, reasonMessage: String, values: [String: String] = [:]) {
            self.input = input
            self.reasonMessage = reasonMessage
            self.values = values
        }

        /// Why, in English.
        public var reason: String { MessageTemplate.filled(reasonMessage, values) }
        public var description: String { message(MessageTemplate.filled) }

        /// The whole message through `translate` (the plugin's `HostHandle.tr`: a catalogue message and its values).
        public func message(_ translate: (String, [String: String]) -> String) -> String {
            translate(N_("\"{input}\" is not a duration ({reason}); try 90s, 30m, 1h15m or 45:00"),
                      ["input": input, "reason": translate(reasonMessage, values)])
        }
    }

    /// The longest timer accepted: one day.
    public static let maximumSeconds = 24 * 3600

    /// Seconds, at least 1 and at most one day.
    public static func parse(_ text: String) throws(ParseError) -> Int {
        let input = text.trimmingCharacters(in: .whitespaces)
        func fail(_ reason: String, _ values: [String: String] = [:]) -> ParseError {
            ParseError(input: text, reasonMessage: reason, values: values)
        }
        guard !input.isEmpty else { throw fail(N_("empty")) }
        let seconds: Int
        if input.allSatisfy(\.isASCIIDigit) {
            let shown = input.count > 6 ? String(input.prefix(6)) + "…" : input
            throw fail(N_("a number needs its unit: {number}m for minutes, {number}s for seconds; from 1 second to 24 hours"), ["number": shown])
        } else if input.contains(":") {
            seconds = try clock(input, fail: fail)
        } else {
            seconds = try units(input.lowercased(), fail: fail)
        }
        guard seconds >= 1 else { throw fail(N_("must be from 1 second to 24 hours")) }
        guard seconds <= maximumSeconds else { throw fail(N_("longer than 24 hours; must be from 1 second to 24 hours")) }
        return seconds
    }

    private static func units(_ input: String, fail: (String, [String: String]) -> ParseError) throws(ParseError) -> Int {
        var total = 0
        var digits = ""
        var seen = Set<Character>()
        for character in input {
            if character.isASCIIDigit {
                digits.append(character)
            } else if character == " " {
                continue
            } else if "hms".contains(character) {
                guard !digits.isEmpty else { throw fail(N_("a number must come before {unit}"), ["unit": String(character)]) }
                // Six digits of hours are far beyond the 24-hour limit and cannot overflow the sum.
                guard digits.count <= 6, let value = Int(digits) else { throw fail(N_("longer than 24 hours; must be from 1 second to 24 hours"), [:]) }
                guard seen.insert(character).inserted else { throw fail(N_("{unit} given twice"), ["unit": String(character)]) }
                total += value * (character == "h" ? 3600 : character == "m" ? 60 : 1)
                digits = ""
            } else {
                throw fail(N_("unexpected \"{character}\""), ["character": String(character)])
            }
        }
        guard digits.isEmpty else { throw fail(N_("a number without a unit (h, m or s) at the end"), [:]) }
        return total
    }

    private static func clock(_ input: String, fail: (String, [String: String]) -> ParseError) throws(ParseError) -> Int {
        let parts = input.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy(\.isASCIIDigit) }) else {
            throw fail(N_("expected mm:ss or h:mm:ss"), [:])
        }
        let values = parts.map { Int($0)! }
        guard values.dropFirst().allSatisfy({ $0 < 60 }) else { throw fail(N_("minutes and seconds must be below 60"), [:]) }
        return values.reduce(0) { $0 * 60 + $1 }
    }

    /// "1:05:00", "30:00", "0:09".
    public static func format(_ seconds: Int) -> String {
        let s = max(seconds, 0)
        let (hours, minutes, rest) = (s / 3600, s / 60 % 60, s % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }
}

/// Marks an English message for the catalogues (the completeness test and scripts/update-catalogues
/// find `N_("…")`); it is translated where the plugin shows it, through ``SleepDuration/ParseError/message(_:)``.
func N_(_ message: String) -> String { message }

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
