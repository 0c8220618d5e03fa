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
        self.init(members: try Self.members(parsing: Data(json.utf8), example: example), location: "config")
    }

    /// The members of the config object in `data` (UTF-8 JSON text), refused in the words of
    /// ``init(json:example:)``: the one place that says a config text is not an object.
    public static func members(parsing data: Data, example: String? = nil) throws(PluginConfigError) -> [String: JSONValue] {
        let root: JSONValue
        do {
            root = try JSONParser(maxBytes: Self.maxBytes).parse(data)
        } catch {
            let values = ["reason": "\(error)", "example": example ?? ""]
            throw example == nil
                ? PluginConfigError(message: N_("config is not valid JSON ({reason})"), values: values)
                : PluginConfigError(message: N_("config is not valid JSON ({reason}), e.g. {example}"), values: values)
        }
        guard case let .object(members) = root else {
            let values = ["value": Self.shown(root), "example": example ?? ""]
            throw example == nil
                ? PluginConfigError(message: N_("config must be a JSON object, not {value}"), values: values)
                : PluginConfigError(message: N_("config must be a JSON object, e.g. {example}, not {value}"), values: values)
        }
        return members
    }

    public init(members: [String: JSONValue], location: String) {
        self.members = members
        self.location = location
    }

    /// How `key` is named in errors: `config.key`, or `args[0]` for a key written as an index
    /// (`[0]`, JSONPathReader's array items), or the key alone at the top (empty location).
    func named(_ key: String) -> String {
        location.isEmpty ? key : key.hasPrefix("[") ? location + key : location + "." + key
    }

    /// The value of `key`; nil when absent or null.
    public func value(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    /// An error about `key`: "config.KEY " + `message` (no space before a message that starts with ":").
    public func error(_ key: String, _ message: String) -> PluginConfigError {
        PluginConfigError(named(key) + (message.hasPrefix(":") ? "" : " ") + message)
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
        guard case let .bool(flag) = value else { throw mismatch(key, N_("{key} must be true or false, not {value}"), value) }
        return flag
    }

    /// A string; `nonEmpty` refuses "", `maxCount` counts characters.
    public func string(
        _ key: String, nonEmpty: Bool = false, maxCount: Int = .max,
        expected: String? = nil
    ) throws(PluginConfigError) -> String? {
        guard let value = value(key) else { return nil }
        guard case let .string(text) = value, !nonEmpty || !text.isEmpty, text.count <= maxCount else {
            throw mismatch(key, expected, or: nonEmpty ? N_("{key} must be a non-empty string, not {value}") : N_("{key} must be a string, not {value}"), value)
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
            guard expected == nil, names.count > 1 else { throw mismatch(key, Optional(expected ?? names.joined()), or: "", value) }
            throw mismatch(
                key, N_("{key} must be {choices} or {last}, not {value}"), value,
                ["choices": names.dropLast().joined(separator: ", "), "last": names[names.count - 1]])
        }
        return choice
    }

    /// A number within `range` (fractions allowed).
    public func number(
        _ key: String, in range: ClosedRange<Double>,
        expected: String? = nil
    ) throws(PluginConfigError) -> Double? {
        guard let value = value(key) else { return nil }
        guard case let .number(number) = value, range.contains(number.double) else {
            throw mismatch(
                key, expected, or: N_("{key} must be a number from {min} to {max}, not {value}"), value,
                ["min": Self.shown(range.lowerBound), "max": Self.shown(range.upperBound)])
        }
        return number.double
    }

    /// A whole number within `range` (`1e3` is 1000; `1.5` and `true` are refused).
    public func integer(
        _ key: String, in range: ClosedRange<Int>,
        expected: String? = nil
    ) throws(PluginConfigError) -> Int? {
        guard let value = value(key) else { return nil }
        guard case let .number(number) = value, let whole = number.int, range.contains(whole) else {
            throw mismatch(
                key, expected, or: N_("{key} must be a whole number from {min} to {max}, not {value}"), value,
                ["min": String(range.lowerBound), "max": String(range.upperBound)])
        }
        return whole
    }

    /// Any number (fractions allowed): for a reader that states no range (JSONPathReader).
    public func number(_ key: String) throws(PluginConfigError) -> Double? {
        guard let value = value(key) else { return nil }
        guard case let .number(number) = value else { throw mismatch(key, N_("{key} must be a number, not {value}"), value) }
        return number.double
    }

    /// Any whole number that fits 64 bits (`1e3` is 1000; `1.5` and `true` are refused).
    public func integer(_ key: String) throws(PluginConfigError) -> Int? {
        guard let value = value(key) else { return nil }
        guard case let .number(number) = value, let whole = number.int else {
            throw mismatch(key, N_("{key} must be a whole number, not {value}"), value)
        }
        return whole
    }

    // MARK: Lists and objects

    /// How many items the list `key` holds, whatever they are.
    public func count(_ key: String) throws(PluginConfigError) -> Int? {
        guard let value = value(key) else { return nil }
        guard case let .array(items) = value else { throw mismatch(key, N_("{key} must be a list, not {value}"), value) }
        return items.count
    }

    /// A list of strings, at most `maxCount` long.
    public func strings(_ key: String, maxCount: Int = .max, expected: String? = nil) throws(PluginConfigError) -> [String]? {
        try list(
            key, maxCount: maxCount,
            phrase: expected.map(ListPhrase.init(expected:))
                ?? ListPhrase(whole: N_("{key} must be a list of strings, not {value}"), item: N_("{key} must be a list of strings; item {index} is {value}"))
        ) { item in
            if case let .string(text) = item { text } else { nil }
        }
    }

    /// A list of numbers, each within `range`.
    public func numbers(
        _ key: String, in range: ClosedRange<Double>, maxCount: Int = .max,
        expected: String? = nil
    ) throws(PluginConfigError) -> [Double]? {
        let phrase =
            expected.map(ListPhrase.init(expected:))
            ?? ListPhrase(
                whole: N_("{key} must be a list of numbers from {min} to {max}, not {value}"),
                item: N_("{key} must be a list of numbers from {min} to {max}; item {index} is {value}"),
                values: ["min": Self.shown(range.lowerBound), "max": Self.shown(range.upperBound)])
        return try list(key, maxCount: maxCount, phrase: phrase) { item in
            if case let .number(number) = item, range.contains(number.double) { number.double } else { nil }
        }
    }

    /// A list of whole numbers, each within `range`.
    public func integers(
        _ key: String, in range: ClosedRange<Int>, count: ClosedRange<Int> = 0 ... .max,
        expected: String? = nil
    ) throws(PluginConfigError) -> [Int]? {
        let phrase =
            expected.map(ListPhrase.init(expected:))
            ?? ListPhrase(
                whole: N_("{key} must be a list of whole numbers from {min} to {max}, not {value}"),
                item: N_("{key} must be a list of whole numbers from {min} to {max}; item {index} is {value}"),
                values: ["min": String(range.lowerBound), "max": String(range.upperBound)])
        guard
            let values = try list(
                key, maxCount: count.upperBound, phrase: phrase,
                item: { item -> Int? in
                    if case let .number(number) = item, let whole = number.int, range.contains(whole) { whole } else { nil }
                })
        else { return nil }
        guard values.count >= count.lowerBound else { throw mismatch(key, phrase.whole, value(key) ?? .null, phrase.values) }
        return values
    }

    /// A list of objects, each read with its own reader (location `config.KEY[i]`).
    public func objects(_ key: String, expected: String? = nil) throws(PluginConfigError) -> [PluginConfigReader]? {
        guard let value = value(key) else { return nil }
        guard case let .array(items) = value else { throw mismatch(key, expected, or: N_("{key} must be a list of objects, not {value}"), value) }
        var readers: [PluginConfigReader] = []
        for (index, item) in items.enumerated() {
            guard case let .object(members) = item else {
                let values = ["key": "\(named(key))[\(index)]", "value": Self.shown(item), "expected": expected ?? ""]
                throw PluginConfigError(
                    message: expected == nil ? N_("{key} must be an object, not {value}") : N_("{key} must be {expected}, not {value}"),
                    values: values)
            }
            readers.append(PluginConfigReader(members: members, location: "\(named(key))[\(index)]"))
        }
        return readers
    }

    /// A nested object (location `config.KEY`).
    public func section(_ key: String) throws(PluginConfigError) -> PluginConfigReader? {
        guard let value = value(key) else { return nil }
        guard case let .object(members) = value else { throw mismatch(key, N_("{key} must be an object, not {value}"), value) }
        return PluginConfigReader(members: members, location: named(key))
    }

    // MARK: Wording

    /// A list's two refusals: the whole value, and one item of it (a message each, with their values).
    private struct ListPhrase {
        var whole: String
        var item: String
        var values: [String: String] = [:]

        /// A plugin's own wording of what the list must be (English, in `{expected}`).
        init(expected: String) {
            whole = N_("{key} must be {expected}, not {value}")
            item = N_("{key} must be {expected}; item {index} is {value}")
            values = ["expected": expected]
        }

        init(whole: String, item: String, values: [String: String] = [:]) {
            (self.whole, self.item, self.values) = (whole, item, values)
        }
    }

    private func list<Item>(
        _ key: String, maxCount: Int, phrase: ListPhrase,
        item convert: (JSONValue) -> Item?
    ) throws(PluginConfigError) -> [Item]? {
        guard let value = value(key) else { return nil }
        guard case let .array(items) = value, items.count <= maxCount else { throw mismatch(key, phrase.whole, value, phrase.values) }
        var result: [Item] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard let converted = convert(item) else {
                var values = phrase.values
                (values["key"], values["index"], values["value"]) = (named(key), String(index), Self.shown(item))
                throw PluginConfigError(message: phrase.item, values: values)
            }
            result.append(converted)
        }
        return result
    }

    /// `message` (with {key} and {value}) about `key` holding `value`.
    private func mismatch(_ key: String, _ message: String, _ value: JSONValue, _ values: [String: String] = [:]) -> PluginConfigError {
        PluginConfigError(message: message, values: values.merging(["key": named(key), "value": Self.shown(value)]) { _, new in new })
    }

    /// `message`, or the plugin's own `expected` wording (English) when it gave one.
    private func mismatch(
        _ key: String, _ expected: String?, or message: String, _ value: JSONValue,
        _ values: [String: String] = [:]
    ) -> PluginConfigError {
        guard let expected else { return mismatch(key, message, value, values) }
        return mismatch(key, N_("{key} must be {expected}, not {value}"), value, ["expected": expected])
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

/// A setting in a plugin's config that cannot be used. `description` is the whole sentence in
/// English; the reader's own refusals also keep it apart as a message of the host's catalogues and
/// its values, so a plugin can say it in the user's language (``text(_:)`` with `HostHandle.tr`).
public struct PluginConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    /// English, `{placeholders}` filled from `values`.
    public let message: String
    public let values: [String: String]
    public var description: String { MessageTemplate.filled(message, values) }

    /// A sentence of the plugin's own (English only).
    public init(_ description: String) {
        message = description
        values = [:]
    }

    public init(message: String, values: [String: String]) {
        self.message = message
        self.values = values
    }

    /// Through `translate` (a plugin's `HostHandle.tr`).
    public func text(_ translate: (String, [String: String]) -> String) -> String {
        translate(message, values)
    }
}

/// Marks a message for the host's catalogues without translating it (gettext's `N_`); a plugin
/// translates it with `HostHandle.tr` when it shows it.
func N_(_ message: String) -> String { message }
