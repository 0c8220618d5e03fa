/// The one grammar of a duration a person types, for every option and command (`--duration`,
/// `--fade-in`, `schedule add --length`, `ctl sleep`, `ctl snooze`, `record --archive`, `--keep`):
/// units — "90s", "30m", "2h", "1d", "1h15m", "1h 15m 30s", "1.5h" (each unit once, any case) — or a
/// clock, "mm:ss" or "h:mm:ss".
/// A bare number is refused: it once meant minutes to the sleep timer and seconds to
/// `--duration`, so every duration says its unit (docs/configuration.md, "Durations").
/// The range is the caller's; each says its own in its messages.
public enum DurationText {
    public enum Problem: Error, Equatable, Sendable {
        case empty
        /// "45": which unit? (the digits, as typed)
        case bareNumber(String)
        /// "m" or "1hm": a unit with no number before it.
        case unitWithoutNumber(Character)
        case unitTwice(Character)
        case unexpected(Character)
        /// "15m30": a number at the end without its unit.
        case numberWithoutUnit
        /// Not mm:ss or h:mm:ss.
        case clockShape
        /// "1:60": minutes and seconds must be below 60.
        case clockFieldTooLarge
        /// More digits than any duration oton takes.
        case tooLong
    }

    /// Digits a number may have (a year in seconds has 8).
    private static let maximumDigits = 12

    /// The duration in seconds (not negative; 0 only when typed so, as "0s").
    public static func seconds(_ text: String) throws(Problem) -> Double {
        let input = String(text.lowercased().drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        guard !input.isEmpty else { throw .empty }
        if input.allSatisfy({ $0.isASCII && $0.isNumber }) {
            throw .bareNumber(input)
        }
        return input.contains(":") ? try clock(input) : try units(input)
    }

    private static func units(_ input: String) throws(Problem) -> Double {
        var total = 0.0
        var number = ""
        var seen = Set<Character>()
        for character in input {
            if character.isASCII && (character.isNumber || character == ".") {
                number.append(character)
                guard number.count <= maximumDigits else { throw .tooLong }
            } else if character == " " {
                continue
            } else if let unit = ["d": 86400.0, "h": 3600, "m": 60, "s": 1][character] {
                guard !number.isEmpty else { throw .unitWithoutNumber(character) }
                guard let value = Double(number), value.isFinite else { throw .unexpected(".") }
                guard seen.insert(character).inserted else { throw .unitTwice(character) }
                total += value * unit
                number = ""
            } else {
                throw .unexpected(character)
            }
        }
        guard number.isEmpty else { throw .numberWithoutUnit }
        return total
    }

    private static func clock(_ input: String) throws(Problem) -> Double {
        let parts = input.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else {
            throw .clockShape
        }
        let values = parts.map { Double(Int($0)!) }
        guard values.dropFirst().allSatisfy({ $0 < 60 }) else { throw .clockFieldTooLarge }
        return values.reduce(0) { $0 * 60 + $1 }
    }
}
