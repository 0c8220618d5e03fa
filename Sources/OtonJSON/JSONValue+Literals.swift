/// Writing JSON values in Swift as JSON looks: `["ok": true, "volume": 40, "stations": ["A", "B"]]`.
/// (No nil literal: `cond ? value : nil` must stay an Optional, never a JSON null.)
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    /// Later duplicates win, as in a Swift dictionary built from pairs.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue {
    /// A whole number (`JSONNumber`); use `.number(Double)` for fractions.
    public static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }

    /// A string, or null for nil.
    public static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// A list of strings.
    public static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    public var arrayValue: [JSONValue]? {
        if case let .array(values) = self { return values }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case let .object(members) = self { return members }
        return nil
    }

    /// The number when it is a whole number that fits an Int.
    public var intValue: Int? {
        if case let .number(value) = self { return value.int }
        return nil
    }

    /// Every item when this is a list of strings; nil when anything else is in it.
    public var stringsValue: [String]? {
        guard case let .array(values) = self else { return nil }
        var strings: [String] = []
        for value in values {
            guard case let .string(text) = value else { return nil }
            strings.append(text)
        }
        return strings
    }
}
