/// The one volume grammar for people, in percent, wherever a volume is typed: `oton play --volume`,
/// `oton ctl volume` and the control socket. "50" and "50%" set it (0–100, up to 150 amplified);
/// "+5" and "-5" change it. MPRIS keeps its own 0.0–1.0 scale, as its specification says.
public enum VolumeArgument: Equatable, Sendable {
    case absolute(Int)
    case relative(Int)

    /// The loudest volume: 150 %, above 100 the signal is amplified and may clip.
    public static let maximumPercent = Int((OutputVolume.maximum * 100).rounded())

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        /// What was typed.
        public let input: String
        /// What is wrong with it and what is accepted.
        public let reason: String
        public var description: String { tr("volume \"{input}\"{reason}", ["input": input, "reason": reason]) }
    }

    /// "30", "30%", "+5", "-5": an absolute volume from 0 to 150, or a change from -150 to +150.
    /// Anything else (too many digits, 1e3, 0x10, 5.5) is an error that names the value and the range;
    /// a fraction such as 0.5 is answered with the percentage it probably meant.
    public static func parse(_ text: String) -> Result<VolumeArgument, Invalid> {
        var digits = Substring(text)
        if digits.hasSuffix("%") { digits = digits.dropLast() }
        let sign = digits.first.flatMap { $0 == "+" || $0 == "-" ? $0 : nil }
        if sign != nil { digits = digits.dropFirst() }
        let range = sign == nil ? tr("from 0 to 150") : tr("a change from -150 to +150")
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            var hint = ""
            if sign == nil, let fraction = Double(digits), fraction.isFinite, fraction > 0, fraction <= OutputVolume.maximum, digits.contains(".") {
                hint = tr("; volume is in percent: {percent} means {fraction}", ["percent": "\(Int((fraction * 100).rounded()))", "fraction": String(digits)])
            }
            return .failure(Invalid(input: text, reason: tr(": takes a whole percentage {range} (or +N / -N){hint}", ["range": range, "hint": hint])))
        }
        // At most three significant digits are in range; longer numbers are refused without converting them.
        let significant = digits.drop { $0 == "0" }
        guard significant.count <= 3, let magnitude = Int(significant.isEmpty ? "0" : significant), magnitude <= maximumPercent else {
            return .failure(Invalid(input: text, reason: tr(" is out of range: {range}", ["range": range])))
        }
        switch sign {
        case "+": return .success(.relative(magnitude))
        case "-": return .success(.relative(-magnitude))
        default: return .success(.absolute(magnitude))
        }
    }

    /// The volume this argument makes of `current` percent, kept within 0–150.
    public func applied(to current: Int) -> Int {
        switch self {
        case let .absolute(percent): return percent
        case let .relative(change): return min(max(current + change, 0), Self.maximumPercent)
        }
    }

    /// How a volume is shown to people: "70%", and "120% amplified" above 100 (from `catalogue`: English unless the terminal asks).
    public static func text(percent: Int, in catalogue: MessageCatalogue = .english) -> String {
        percent > 100 ? catalogue.tr("{percent}% amplified", ["percent": "\(percent)"]) : "\(percent)%"
    }

    /// A player volume (1.0 is full) as a whole percentage; anything not finite is 100.
    public static func percent(of fraction: Double) -> Int {
        guard fraction.isFinite else { return 100 }
        return Int((min(max(fraction, 0), Double(maximumPercent) / 100) * 100).rounded())
    }
}
