/// The Prometheus text exposition format, version 0.0.4 (what `promtool check metrics` reads):
/// each family once, as `# HELP`, `# TYPE` and then its samples, families in the order they were
/// added, samples in the order given. Pure: it only builds text.
public struct Exposition: Sendable {
    public enum Kind: String, Sendable {
        case counter
        case gauge
    }

    /// One sample: label pairs in the order written, and its value.
    public struct Sample: Sendable, Equatable {
        public var labels: [(String, String)]
        public var value: Double

        public init(_ labels: [(String, String)] = [], _ value: Double) {
            self.labels = labels
            self.value = value
        }

        public static func == (a: Sample, b: Sample) -> Bool {
            a.value == b.value && a.labels.elementsEqual(b.labels) { $0 == $1 }
        }
    }

    /// The Content-Type of the text.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public private(set) var text = ""

    public init() {}

    /// Adds a family. A family without samples writes nothing, so no HELP line stands alone.
    public mutating func family(_ name: String, _ kind: Kind, help: String, _ samples: [Sample]) {
        guard !samples.isEmpty else { return }
        text += "# HELP \(name) \(Self.escapeHelp(help))\n"
        text += "# TYPE \(name) \(kind.rawValue)\n"
        for sample in samples {
            text += name
            if !sample.labels.isEmpty {
                text += "{" + sample.labels.map { "\($0.0)=\"\(Self.escapeLabelValue($0.1))\"" }.joined(separator: ",") + "}"
            }
            text += " " + Self.format(sample.value) + "\n"
        }
    }

    /// A label value: backslash, double quote and line feed are escaped; everything else is UTF-8 as is.
    public static func escapeLabelValue(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// HELP text: backslash and line feed are escaped (a double quote is not).
    public static func escapeHelp(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whole numbers without a fraction (exactly, up to 2^53), +Inf, -Inf and NaN as Prometheus spells them.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return String(value)
    }
}
