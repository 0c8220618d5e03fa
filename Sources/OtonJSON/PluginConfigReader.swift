#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a plugin's `config` object (the text the host passes to `create`) into typed values.
///
/// One reader for every bundled plugin, so that every setting is refused the same way: the
/// error names the exact key (`config.lastfm.url`, `config.services[2]`), says what it must be,
/// and shows what was written (`not true`). A key that is absent or `null` takes the plugin's
/// default. Numbers are read from the literal the user wrote (see JSONNumber): `true` is
/// never a number, `1e400` never parses, and a whole number is only accepted where it fits.
///
/// Threading: a value type with no shared state; use it from any thread.
public struct PluginConfigReader: Sendable {
    /// Where this object sits, for errors: "config", "config.lastfm", "config.services[0]".
    public let location: String
    public let members: [String: JSONValue]

    /// The largest config text read (the host's limit for the whole plugins.json).
    public static let maxBytes = JSONValue.defaultMaxBytes

    /// Parses `json`, which must be a JSON object. `example` is added to the error for text
    /// that is not an object (for example `{"listen": "127.0.0.1:8765"}`).
    public init(json: String, example: String? = nil) throws(PluginConfigError) {
        let hint = example.map { ", e.g. " + $0 } ?? ""
        let root: JSONValue
        do {
            root = try JSONParser(maxBytes: Self.maxBytes).parse(Data(json.utf8))
        } catch {
            throw PluginConfigError("config is not valid JSON (\(error))\(hint)")
        }
        guard case let .object(members) = root else {
            throw PluginConfigError("config must be a JSON object\(hint), not \(Self.shown(root))")
        }
        self.init(members: members, location: "config")
    }

    public init(members: [String: JSONValue], location: String) {
        self.members = members
        self.location = location
    }

    /// The value of `key`; nil when absent or null.
    public func value(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    /// An error about `key`: "config.KEY " + `message` (no space before a message that starts with ":").
    public func error(_ key: String, _ message: String) -> PluginConfigError {
        PluginConfigError("\(location).\(key)" + (message.hasPrefix(":") ? "" : " ") + message)
    }

    /// Refuses the first key (in sorted order) that `known` does not list, naming the known ones.
    public func refuseUnknownKeys(known: Set<String>, owner: String) throws(PluginConfigError) {
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw error(unknown, "is not \(owner) setting; known: \(known.sorted().joined(separator: ", "))")
        }
    }

    // MARK: Scalars

    public func bool(_ key: String) throws(PluginConfigError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case let .bool(flag) = value else { throw mismatch(key, "true or false", value) }
        return flag
    }

    /// A string; `nonEmpty` refuses "", `maxCount` counts characters.
    public func string(_ key: String, nonEmpty: Bool = false, maxCount: Int = .max,
                       expected: String? = nil) throws(PluginConfigError) -> String? {
        guard let value = value(key) else { return nil }
        guard case let .string(text) = value, !nonEmpty || !text.isEmpty, text.count <= maxCount else {
            throw mismatch(key, expected ?? (nonEmpty ? "a non-empty string" : "a string"), value)
        }
        return text
    }

    /// One of an enumeration's raw values; the error lists them all.
    public func choice<Choice: RawRepresentable & CaseIterable>(
        _ key: String, _ type: Choice.Type, expected: String? = nil
    ) throws(PluginConfigError) -> Choice? where Choice.RawValue == String {
        guard let value = value(key) else { return nil }
        guard case let .string(text) = value, let choice = Choice(rawValue: text) else {
            let names = Choice.allCases.map { "\"\($0.rawValue)\"" }
            throw mismatch(key, expected ?? Self.alternatives(names), value)
        }
        return choice
    }

    /// A number within `range` (fractions allowed).
    public func number(_ key: String, in range: ClosedRange<Double>,
                       expected: String? = nil) throws(PluginConfigError) -> Double? {
        guard let value = value(key) else { return nil }
        guard case let .number(number) = value, range.contains(number.double) else {
            throw mismatch(key, expected ?? "a number from \(Self.shown(range.lowerBound)) to \(Self.shown(range.upperBound))", value)
        }
        return number.double
    }

    /// A whole number within `range` (`1e3` is 1000; `1.5` and `true` are refused).
    public func integer(_ key: String, in range: ClosedRange<Int>,
                        expected: String? = nil) throws(PluginConfigError) -> Int? {
        guard let value = value(key) else { return nil }
        guard case let .number(number) = value, let whole = number.int, range.contains(whole) else {
            throw mismatch(key, expected ?? "a whole number from \(range.lowerBound) to \(range.upperBound)", value)
        }
        return whole
    }

    // MARK: Lists and objects

    /// A list of strings, at most `maxCount` long.
    public func strings(_ key: String, maxCount: Int = .max, expected: String? = nil) throws(PluginConfigError) -> [String]? {
        try list(key, maxCount: maxCount, expected: expected ?? "a list of strings") { item in
            if case let .string(text) = item { text } else { nil }
        }
    }

    /// A list of numbers, each within `range`.
    public func numbers(_ key: String, in range: ClosedRange<Double>, maxCount: Int = .max,
                        expected: String? = nil) throws(PluginConfigError) -> [Double]? {
        let phrase = expected ?? "a list of numbers from \(Self.shown(range.lowerBound)) to \(Self.shown(range.upperBound))"
        return try list(key, maxCount: maxCount, expected: phrase) { item in
            if case let .number(number) = item, range.contains(number.double) { number.double } else { nil }
        }
    }

    /// A list of whole numbers, each within `range`.
    public func integers(_ key: String, in range: ClosedRange<Int>, count: ClosedRange<Int> = 0 ... .max,
                         expected: String? = nil) throws(PluginConfigError) -> [Int]? {
        let phrase = expected ?? "a list of whole numbers from \(range.lowerBound) to \(range.upperBound)"
        guard let values = try list(key, maxCount: count.upperBound, expected: phrase, item: { item -> Int? in
            if case let .number(number) = item, let whole = number.int, range.contains(whole) { whole } else { nil }
        }) else { return nil }
        guard values.count >= count.lowerBound else { throw mismatch(key, phrase, value(key) ?? .null) }
        return values
    }

    /// A list of objects, each read with its own reader (location `config.KEY[i]`).
    public func objects(_ key: String, expected: String? = nil) throws(PluginConfigError) -> [PluginConfigReader]? {
        guard let value = value(key) else { return nil }
        guard case let .array(items) = value else { throw mismatch(key, expected ?? "a list of objects", value) }
        var readers: [PluginConfigReader] = []
        for (index, item) in items.enumerated() {
            guard case let .object(members) = item else {
                throw PluginConfigError("\(location).\(key)[\(index)] must be \(expected ?? "an object"), not \(Self.shown(item))")
            }
            readers.append(PluginConfigReader(members: members, location: "\(location).\(key)[\(index)]"))
        }
        return readers
    }

    /// A nested object (location `config.KEY`).
    public func section(_ key: String) throws(PluginConfigError) -> PluginConfigReader? {
        guard let value = value(key) else { return nil }
        guard case let .object(members) = value else { throw mismatch(key, "an object", value) }
        return PluginConfigReader(members: members, location: "\(location).\(key)")
    }

    // MARK: Wording

    private func list<Item>(_ key: String, maxCount: Int, expected: String,
                            item convert: (JSONValue) -> Item?) throws(PluginConfigError) -> [Item]? {
        guard let value = value(key) else { return nil }
        guard case let .array(items) = value, items.count <= maxCount else { throw mismatch(key, expected, value) }
        var result: [Item] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard let converted = convert(item) else {
                throw PluginConfigError("\(location).\(key) must be \(expected); item \(index) is \(Self.shown(item))")
            }
            result.append(converted)
        }
        return result
    }

    private func mismatch(_ key: String, _ expected: String, _ value: JSONValue) -> PluginConfigError {
        error(key, "must be \(expected), not \(Self.shown(value))")
    }

    /// The value as the user wrote it, cut to 60 characters so that a huge value does not flood the log.
    static func shown(_ value: JSONValue) -> String {
        let text = value.jsonText
        return text.count <= 60 ? text : String(text.prefix(57)) + "…"
    }

    /// 1 as "1", 0.1 as "0.1": JSONNumber's own shortest form.
    static func shown(_ number: Double) -> String {
        JSONNumber(number)?.literal ?? String(number)
    }

    static func alternatives(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }
}

/// A setting in a plugin's config that cannot be used; `description` is the whole sentence.
public struct PluginConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
