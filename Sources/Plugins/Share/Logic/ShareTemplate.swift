import Foundation

/// Renders a share text from a template with {artist}, {title}, {raw_title},
/// {station} and {station_url}. A placeholder with no value disappears
/// together with the separator next to it, so "{artist} – {title}" without
/// an artist gives just the title, never a dangling "– ".
public struct ShareTemplate: Sendable, Equatable {
    public static let standard = "{artist} – {title} · {station} {station_url}"
    /// Separators that are dropped when the value beside them is missing.
    static let separators = [" – ", " - ", " · ", " | ", ", "]

    public let template: String

    public init(_ template: String = ShareTemplate.standard) {
        self.template = template
    }

    public func render(_ values: [String: String]) -> String {
        enum Token { case literal(String), value(String?) }
        var tokens: [Token] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            if open > rest.startIndex { tokens.append(.literal(String(rest[..<open]))) }
            let value = values[String(rest[rest.index(after: open)..<close])]?.trimmingCharacters(in: .whitespaces)
            tokens.append(.value(value?.isEmpty == false ? value : nil))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { tokens.append(.literal(String(rest))) }

        func present(_ index: Int) -> Bool {
            guard tokens.indices.contains(index), case let .value(value) = tokens[index] else { return true }
            return value != nil
        }
        var output = ""
        for (index, token) in tokens.enumerated() {
            switch token {
            case let .value(value):
                output += value ?? ""
            case let .literal(text):
                // A separator stays only when the values on both sides are there.
                output += present(index - 1) && present(index + 1) ? text : Self.strippingSeparators(text)
            }
        }
        return Self.collapsingSpaces(output)
    }

    private static func strippingSeparators(_ text: String) -> String {
        var result = text
        for separator in separators { result = result.replacingOccurrences(of: separator, with: " ") }
        return result
    }

    private static func collapsingSpaces(_ text: String) -> String {
        var output = ""
        var previousSpace = false
        for character in text {
            if character == " " {
                if !previousSpace { output.append(character) }
                previousSpace = true
            } else {
                output.append(character)
                previousSpace = false
            }
        }
        return output.trimmingCharacters(in: .whitespaces)
    }
}
