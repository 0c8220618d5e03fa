import Foundation

/// Parses the durations a listener types: "90s", "30m", "1h15m", "1h 15m 30s", or "mm:ss" / "h:mm:ss".
/// A bare number is refused with a hint: it meant minutes here and seconds in `oton record --duration`,
/// so every duration oton reads now says its unit (docs/configuration.md, "Durations").
public enum SleepDuration {
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let input: String
        public let reason: String
        public var description: String {
            "\"\(input)\" is not a duration (\(reason)); try 90s, 30m, 1h15m or 45:00"
        }
    }

    /// The longest timer accepted: one day.
    public static let maximumSeconds = 24 * 3600

    /// Seconds, at least 1 and at most one day.
    public static func parse(_ text: String) throws(ParseError) -> Int {
        let input = text.trimmingCharacters(in: .whitespaces)
        func fail(_ reason: String) -> ParseError { ParseError(input: text, reason: reason) }
        guard !input.isEmpty else { throw fail("empty") }
        let seconds: Int
        if input.allSatisfy(\.isASCIIDigit) {
            let shown = input.count > 6 ? String(input.prefix(6)) + "…" : input
            throw fail("a number needs its unit: \(shown)m for minutes, \(shown)s for seconds; from 1 second to 24 hours")
        } else if input.contains(":") {
            seconds = try clock(input, fail: fail)
        } else {
            seconds = try units(input.lowercased(), fail: fail)
        }
        guard seconds >= 1 else { throw fail("must be from 1 second to 24 hours") }
        guard seconds <= maximumSeconds else { throw fail("longer than 24 hours; must be from 1 second to 24 hours") }
        return seconds
    }

    private static func units(_ input: String, fail: (String) -> ParseError) throws(ParseError) -> Int {
        var total = 0
        var digits = ""
        var seen = Set<Character>()
        for character in input {
            if character.isASCIIDigit {
                digits.append(character)
            } else if character == " " {
                continue
            } else if "hms".contains(character) {
                guard !digits.isEmpty else { throw fail("a number must come before \(character)") }
                // Six digits of hours are far beyond the 24-hour limit and cannot overflow the sum.
                guard digits.count <= 6, let value = Int(digits) else { throw fail("longer than 24 hours; must be from 1 second to 24 hours") }
                guard seen.insert(character).inserted else { throw fail("\(character) given twice") }
                total += value * (character == "h" ? 3600 : character == "m" ? 60 : 1)
                digits = ""
            } else {
                throw fail("unexpected \"\(character)\"")
            }
        }
        guard digits.isEmpty else { throw fail("a number without a unit (h, m or s) at the end") }
        return total
    }

    private static func clock(_ input: String, fail: (String) -> ParseError) throws(ParseError) -> Int {
        let parts = input.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy(\.isASCIIDigit) }) else {
            throw fail("expected mm:ss or h:mm:ss")
        }
        let values = parts.map { Int($0)! }
        guard values.dropFirst().allSatisfy({ $0 < 60 }) else { throw fail("minutes and seconds must be below 60") }
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

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
