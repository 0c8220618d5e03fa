import Foundation

/// A parsed JSON value, used where the shape is open (a plugin's config object).
public indirect enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case let .bool(value): value
        case let .number(value): value
        case let .string(value): value
        case let .array(values): values.map(\.foundationObject)
        case let .object(values): values.mapValues(\.foundationObject)
        }
    }

    /// Compact JSON text with sorted keys.
    public var jsonText: String {
        if case let .string(value) = self { return JSONValue.quote(value) }
        guard let data = try? JSONSerialization.data(withJSONObject: foundationObject, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]),
              let text = String(data: data, encoding: .utf8) else { return "null" }
        return text
    }

    static func quote(_ string: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [string], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        let text = String(decoding: data, as: UTF8.self)
        return String(text.dropFirst().dropLast())
    }

    public subscript(key: String) -> JSONValue? {
        if case let .object(values) = self { return values[key] }
        return nil
    }

    /// The value as text: strings as-is, finite numbers in their shortest
    /// form ("1999", not "1999.0"); `nil` for everything else.
    public var text: String? {
        switch self {
        case .string(let value):
            return value
        case .number(let value) where value.isFinite:
            if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
            return String(value)
        default:
            return nil
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

    public var numberValue: Double? {
        if case let .number(value) = self { return value }
        return nil
    }

    /// Parses JSON text; a syntax error names the line and column.
    public static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            // JSONDecoder says only "not valid JSON"; JSONSerialization says where.
            do {
                _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
                throw JSONSyntaxError(data: data, underlying: error)
            } catch let syntax as JSONSyntaxError {
                throw syntax
            } catch {
                throw JSONSyntaxError(data: data, underlying: error)
            }
        }
    }
}

extension JSONValue: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

/// A JSON syntax error with the position a person can find in an editor.
public struct JSONSyntaxError: Error, Sendable {
    public let line: Int
    public let column: Int
    public let reason: String

    init(data: Data, underlying: Error) {
        let description = ((underlying as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(underlying)"
        reason = description
        // Foundation reports "… around character N." (or "line L, column C" on some platforms).
        let offset = JSONSyntaxError.number(after: "character ", in: description)
        if let line = JSONSyntaxError.number(after: "line ", in: description),
           let column = JSONSyntaxError.number(after: "column ", in: description) {
            self.line = line
            self.column = column
        } else if let offset {
            (self.line, self.column) = JSONSyntaxError.position(ofCharacter: offset, in: data)
        } else {
            (self.line, self.column) = JSONSyntaxError.position(ofCharacter: data.count, in: data)
        }
    }

    private static func number(after marker: String, in text: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }

    /// Line and column (both from 1) of the character at `offset` (counted in UTF-8 bytes by Foundation's parser).
    static func position(ofCharacter offset: Int, in data: Data) -> (Int, Int) {
        var line = 1
        var column = 1
        for byte in data.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}
