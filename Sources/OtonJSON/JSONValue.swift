#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A parsed JSON value, used where the shape is open (a plugin's config object, status APIs,
/// control requests). Read with `JSONParser`; numbers keep their literal text.
public indirect enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A number from a Double; inf and nan, which JSON cannot hold, become null.
    public static func number(_ value: Double) -> JSONValue {
        JSONNumber(value).map(JSONValue.number) ?? .null
    }

    /// Compact JSON text with sorted keys; numbers as they were written.
    public var jsonText: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Indented JSON text for people (`history --format json`): two spaces a level, `"key" : value`,
    /// sorted keys, numbers as they were written.
    public var prettyJSONText: String {
        var out = ""
        writePretty(to: &out, indent: "")
        return out
    }

    private func writePretty(to out: inout String, indent: String) {
        let inner = indent + "  "
        switch self {
        case let .array(values) where !values.isEmpty:
            out += "[\n"
            for (index, value) in values.enumerated() {
                out += inner
                value.writePretty(to: &out, indent: inner)
                out += index == values.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case let .object(members) where !members.isEmpty:
            out += "{\n"
            for (index, key) in members.keys.sorted().enumerated() {
                out += inner + JSONText.quoted(key) + " : "
                members[key]!.writePretty(to: &out, indent: inner)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        default:
            write(to: &out)
        }
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case let .bool(value): out += value ? "true" : "false"
        case let .number(value): out += value.literal
        case let .string(value): out += JSONText.quoted(value)
        case let .array(values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case let .object(members):
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                out += JSONText.quoted(key) + ":"
                members[key]!.write(to: &out)
            }
            out += "}"
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case let .object(values) = self { return values[key] }
        return nil
    }

    /// The value as text: strings as-is, numbers as written; `nil` for everything else.
    public var text: String? {
        switch self {
        case let .string(value): value
        case let .number(value): value.literal
        default: nil
        }
    }

    public var stringValue: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }

    /// The number's nearest Double (always finite: the parser refuses larger literals).
    public var numberValue: Double? {
        if case let .number(value) = self { return value.double }
        return nil
    }

    /// The number when it is a whole number that fits an Int64; nil otherwise (never traps).
    public var int64Value: Int64? {
        if case let .number(value) = self { return value.int64 }
        return nil
    }

    /// The number when it is a whole number from 0 that fits a UInt64; nil otherwise (never traps).
    public var uint64Value: UInt64? {
        if case let .number(value) = self { return value.uint64 }
        return nil
    }

    /// The largest text `parse` reads unless told otherwise (plugins.json and other local files).
    public static let defaultMaxBytes = 1 << 20

    /// Parses JSON text; an error names the line and column (see JSONParser for the limits).
    public static func parse(_ data: Data, maxBytes: Int = defaultMaxBytes) throws(JSONSyntaxError) -> JSONValue {
        try JSONParser(maxBytes: maxBytes).parse(data)
    }
}
