import Foundation
import OtonJSON

/// The sleep timer's durations: oton's one grammar (``DurationText``: "90s", "30m", "1h15m",
/// "1h 15m 30s", "1.5h", "mm:ss", "h:mm:ss"), from 1 second to one day, with the timer's messages.
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
            translate(
                N_("\"{input}\" is not a duration ({reason}); try 90s, 30m, 1h15m or 45:00"),
                ["input": input, "reason": translate(reasonMessage, values)])
        }
    }

    /// The longest timer accepted: one day.
    public static let maximumSeconds = 24 * 3600

    /// Seconds, at least 1 and at most one day, in oton's one grammar of durations (``DurationText``).
    public static func parse(_ text: String) throws(ParseError) -> Int {
        func fail(_ reason: String, _ values: [String: String] = [:]) -> ParseError {
            ParseError(input: text, reasonMessage: reason, values: values)
        }
        let seconds: Double
        do {
            seconds = try DurationText.seconds(text)
        } catch {
            switch error {
            case .empty: throw fail(N_("empty"))
            case let .bareNumber(number):
                let shown = number.count > 6 ? String(number.prefix(6)) + "…" : number
                throw fail(N_("a number needs its unit: {number}m for minutes, {number}s for seconds; from 1 second to 24 hours"), ["number": shown])
            case let .unitWithoutNumber(unit): throw fail(N_("a number must come before {unit}"), ["unit": String(unit)])
            case let .unitTwice(unit): throw fail(N_("{unit} given twice"), ["unit": String(unit)])
            case let .unexpected(character): throw fail(N_("unexpected \"{character}\""), ["character": String(character)])
            case .numberWithoutUnit: throw fail(N_("a number without a unit (h, m or s) at the end"))
            case .clockShape: throw fail(N_("expected mm:ss or h:mm:ss"))
            case .clockFieldTooLarge: throw fail(N_("minutes and seconds must be below 60"))
            case .tooLong: throw fail(N_("longer than 24 hours; must be from 1 second to 24 hours"))
            }
        }
        guard seconds <= Double(maximumSeconds) else { throw fail(N_("longer than 24 hours; must be from 1 second to 24 hours")) }
        let whole = Int(seconds.rounded())
        guard whole >= 1 else { throw fail(N_("must be from 1 second to 24 hours")) }
        return whole
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
