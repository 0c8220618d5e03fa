import Foundation
import OtonJSON

/// One key of a plugin's "config" object as its descriptor declares it (ABI 1.6, oton_setting_decl).
public struct PluginSetting: Equatable, Sendable {
    public enum Kind: String, Equatable, Sendable {
        case boolean, integer, number, string, strings
    }

    public var key: String
    public var kind: Kind
    public var help: String
    /// The value used when the key is absent, as the plugin declares it.
    public var defaultValue: JSONValue?
    /// Accepted strings (``Kind/string`` only); empty: any text.
    public var choices: [String]
    /// Inclusive bounds (``Kind/integer`` and ``Kind/number``), when declared.
    public var range: ClosedRange<Double>?
    public var required: Bool
    /// A password or a token: its value is never shown.
    public var secret: Bool

    package init(
        key: String, kind: Kind, help: String, defaultValue: JSONValue? = nil, choices: [String] = [],
        range: ClosedRange<Double>? = nil, required: Bool = false, secret: Bool = false
    ) {
        self.key = key
        self.kind = kind
        self.help = help
        self.defaultValue = defaultValue
        self.choices = choices
        self.range = range
        self.required = required
        self.secret = secret
    }

    /// What the setting takes, in a few words: "integer 1–3600", "one of mp3, aac", "true or false".
    public var accepts: String {
        switch kind {
        case .boolean: return "true or false"
        case .integer, .number:
            let noun = kind == .integer ? "integer" : "number"
            guard let range else { return noun }
            return "\(noun) \(Self.shown(range.lowerBound))–\(Self.shown(range.upperBound))"
        case .string: return choices.isEmpty ? "text" : "one of " + choices.joined(separator: ", ")
        case .strings: return "a list of text"
        }
    }

    /// A declared bound without a needless ".0".
    static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Why `value` does not fit this setting, or nil when it does.
    public func problem(with value: JSONValue) -> String? {
        switch (kind, value) {
        case (.boolean, .bool): return nil
        case (.integer, let .number(number)), (.number, let .number(number)):
            if kind == .integer, number.int64 == nil { return "must be a whole number, not \(number)" }
            if let range, !range.contains(number.double) {
                return "is \(number), outside \(Self.shown(range.lowerBound))–\(Self.shown(range.upperBound))"
            }
            return nil
        case (.string, let .string(text)):
            if !choices.isEmpty, !choices.contains(text) {
                return "is \(JSONValue.string(text).jsonText), not one of \(choices.joined(separator: ", "))"
            }
            return nil
        case (.strings, let .array(items)):
            return items.allSatisfy { if case .string = $0 { true } else { false } } ? nil : "must be a list of strings"
        default:
            return "must be \(accepts), not \(Self.describe(value))"
        }
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "true/false"
        case .number: "a number"
        case .string: "text"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

extension PluginSetting {
    /// The value a person typed (`oton plugins set ID KEY VALUE`) as this setting's type, or why it
    /// does not fit: "true"/"false", a number, text as it is, a list as JSON (["a","b"]) or comma-separated.
    public func value(fromText text: String) -> Result<JSONValue, SettingValueError> {
        let value: JSONValue
        switch kind {
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "on", "1": value = .bool(true)
            case "false", "no", "off", "0": value = .bool(false)
            default: return .failure(SettingValueError(message: "\(key) takes true or false, not \(JSONValue.string(text).jsonText)"))
            }
        case .integer, .number:
            guard let parsed = try? JSONValue.parse(Data(text.utf8)), case .number = parsed else {
                return .failure(SettingValueError(message: "\(key) takes \(accepts), not \(JSONValue.string(text).jsonText)"))
            }
            value = parsed
        case .string:
            value = .string(text)
        case .strings:
            if let parsed = try? JSONValue.parse(Data(text.utf8)), case .array = parsed {
                value = parsed
            } else {
                value = .array(text.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) })
            }
        }
        if let problem = problem(with: value) { return .failure(SettingValueError(message: "\(key) \(problem)")) }
        return .success(value)
    }
}

/// Why a typed value does not fit a declared setting.
public struct SettingValueError: Error, Equatable, Sendable {
    public let message: String
}
