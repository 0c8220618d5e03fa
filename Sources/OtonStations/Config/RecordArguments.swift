import OtonSupport

/// Parses `oton record`'s --duration and --max-size. Only plain decimal numbers with a unit are
/// taken (no exponents, hex, inf or nan), and each result is checked against its range before
/// anything converts it, so no input can trap.
public enum RecordArguments {
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// --duration at most: 365 days.
    public static let maximumSeconds = 365.0 * 86400
    /// --max-size from 1 KiB to 1 TiB.
    public static let minimumBytes = 1024.0
    public static let maximumBytes = 1_099_511_627_776.0

    /// A duration in oton's one grammar (``DurationText``: "90s", "30m", "2h", "1h30m", "1.5h",
    /// "4:30"): seconds, more than 0 and at most 365 days.
    public static func seconds(_ text: String) throws(Invalid) -> Double {
        let total: Double
        do {
            total = try DurationText.seconds(text)
        } catch {
            switch error {
            case .empty:
                throw Invalid(description: tr("--duration is empty; use 90s, 30m, 2h or 1h30m (more than 0, at most 365 days)"))
            case let .bareNumber(number):
                let shown = number.count > 12 ? String(number.prefix(12)) + "…" : number
                throw Invalid(
                    description: tr(
                        "--duration {value}: a number needs its unit: {number}s for seconds, {number}m for minutes, {number}h for hours (more than 0, at most 365 days)",
                        ["value": text, "number": shown]))
            case .unitWithoutNumber, .unitTwice, .unexpected, .numberWithoutUnit, .clockShape, .clockFieldTooLarge, .tooLong:
                throw Invalid(description: tr("--duration {value}: use 90s, 30m, 2h or 1h30m (more than 0, at most 365 days)", ["value": text]))
            }
        }
        guard total > 0, total <= maximumSeconds else {
            throw Invalid(description: tr("--duration {value}: must be more than 0 s and at most 365 days", ["value": text]))
        }
        return total
    }

    /// "500M", "2G", "800K", "1T", "1.5G", "500MB" or bytes: from 1 KiB to 1 TiB (K, M, G, T are powers of 1024).
    public static func bytes(_ text: String) throws(Invalid) -> Double {
        let units: [Character: Double] = ["k": 1024, "m": 1_048_576, "g": 1_073_741_824, "t": 1_099_511_627_776]
        var digits = Substring(text.lowercased())
        var multiplier = 1.0
        if digits.hasSuffix("ib") { digits = digits.dropLast(2) } else if digits.hasSuffix("b") { digits = digits.dropLast() }
        if let last = digits.last, let unit = units[last] {
            multiplier = unit
            digits = digits.dropLast()
        }
        guard let value = decimal(String(digits)) else {
            throw Invalid(description: tr("--max-size {value}: use 500M, 2G, 800K or a number of bytes (from 1K to 1T)", ["value": text]))
        }
        let bytes = value * multiplier
        guard bytes >= minimumBytes, bytes <= maximumBytes else {
            throw Invalid(description: tr("--max-size {value}: must be between 1K and 1T (1 KiB to 1 TiB)", ["value": text]))
        }
        return bytes
    }

    /// A plain decimal: digits with at most one point, at least one digit, at most 32 characters
    /// (so the Double is finite and the check above is meaningful).
    package static func decimal(_ text: String) -> Double? {
        guard !text.isEmpty, text.count <= 32,
            text.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }),
            text.filter({ $0 == "." }).count <= 1, text.contains(where: { ("0"..."9").contains($0) })
        else { return nil }
        return Double(text)
    }
}
