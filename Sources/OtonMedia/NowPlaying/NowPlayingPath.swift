import Foundation
import OtonJSON

/// Where a field sits in a now-playing answer: `a.b[0].c[key=value]`, read over a ``JSONValue`` (JSON
/// answers as parsed; XML answers as ``NowPlayingXML`` turns them into one; SHOUTcast v1's `7.html` as
/// ``NowPlayingAnswer`` names its columns).
///
/// Steps: `.key` (an object's member; on a list, the member of its first item), `[n]` (a list's item
/// from 0) and filters that keep the items of a list (a lone object counts as a list of one) whose
/// member `key` is `=value` (equal), `$=value` (ends with) or `~=value` (a URL whose path equals the
/// value, trailing "/" ignored: Icecast's `listenurl` names its own host); the first kept item is the
/// step's value. Values may hold `{placeholders}` filled from the stream URL before the walk.
///
/// Pure: no state; any thread.
public struct NowPlayingPath: Hashable, Sendable, CustomStringConvertible {
    public enum Step: Hashable, Sendable {
        case key(String)
        case index(Int)
        case filter(key: String, op: FilterOp, value: String)
    }

    public enum FilterOp: String, Hashable, Sendable {
        case equals = "="
        case endsWith = "$="
        case urlPath = "~="
    }

    public let steps: [Step]
    public let description: String

    /// The longest path text accepted, and the most steps.
    public static let maxLength = 512
    public static let maxSteps = 32

    /// Nil when `text` is not a path (the catalogue says so, naming the rule and field).
    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= Self.maxLength else { return nil }
        var steps: [Step] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            if rest.first == "[" {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                let inside = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
                if let index = Int(inside), index >= 0 {
                    steps.append(.index(index))
                } else if let step = Self.filter(inside) {
                    steps.append(step)
                } else {
                    return nil
                }
            } else {
                if rest.first == "." { rest = rest.dropFirst() }
                let end = rest.firstIndex(where: { $0 == "." || $0 == "[" }) ?? rest.endIndex
                let key = rest[..<end]
                guard !key.isEmpty else { return nil }
                steps.append(.key(String(key)))
                rest = rest[end...]
            }
            guard steps.count <= Self.maxSteps else { return nil }
        }
        self.steps = steps
        description = text
    }

    private static func filter(_ inside: Substring) -> Step? {
        for op in [FilterOp.endsWith, .urlPath, .equals] {
            guard let range = inside.range(of: op.rawValue) else { continue }
            let key = inside[..<range.lowerBound]
            guard !key.isEmpty, !key.contains("=") else { return nil }
            return .filter(key: String(key), op: op, value: String(inside[range.upperBound...]))
        }
        return nil
    }

    /// Why a walk found nothing: a member was missing, or a filter kept no item (no source for the mount).
    public enum Miss: Hashable, Sendable {
        case key(String)
        case filter
    }

    /// The value at the path, or nil (and why in `miss`). `fill` replaces `{name}` in filter values;
    /// `loneItem` keeps a list's only item when a filter keeps none (a status_url the user named: a
    /// proxy may rename the mount). A missing member right before a filter counts as an empty list.
    public func value(
        in root: JSONValue, fill: (String) -> String = { $0 }, loneItem: Bool = false, miss: inout Miss?
    ) -> JSONValue? {
        var node = root
        for (position, step) in steps.enumerated() {
            switch step {
            case let .key(written):
                let key = written.contains("{") ? fill(written) : written
                if case let .array(items) = node, let first = items.first { node = first }
                guard let next = node[key], next != .null else {
                    if position + 1 < steps.count, case .filter = steps[position + 1] { miss = .filter } else { miss = .key(key) }
                    return nil
                }
                node = next
            case let .index(index):
                guard case let .array(items) = node, index < items.count else {
                    miss = .filter
                    return nil
                }
                node = items[index]
            case let .filter(key, op, value):
                let items: [JSONValue]
                switch node {
                case let .array(list): items = list
                case .object: items = [node]
                default: items = []
                }
                let wanted = fill(value)
                if let kept = items.first(where: { Self.keeps($0, key: key, op: op, wanted: wanted) }) {
                    node = kept
                } else if loneItem, items.count == 1 {
                    node = items[0]
                } else {
                    miss = .filter
                    return nil
                }
            }
        }
        return node
    }

    /// The value at the path, or nil, whatever the reason.
    public func value(in root: JSONValue, fill: (String) -> String = { $0 }) -> JSONValue? {
        var miss: Miss?
        return value(in: root, fill: fill, miss: &miss)
    }

    private static func keeps(_ item: JSONValue, key: String, op: FilterOp, wanted: String) -> Bool {
        guard let text = NowPlayingPath.text(item[key]) else { return false }
        switch op {
        case .equals: return text == wanted
        case .endsWith: return text.hasSuffix(wanted)
        case .urlPath:
            guard let url = URL(string: text) else { return false }
            return trimmedPath(url.path) == trimmedPath(wanted)
        }
    }

    /// A node's text: a string or number as written, an XML element's text, a list's first item's.
    public static func text(_ node: JSONValue?) -> String? {
        switch node {
        case let .string(value)?: value
        case let .number(value)?: value.literal
        case let .object(members)?: members["#text"]?.text
        case let .array(items)?: text(items.first)
        default: nil
        }
    }

    static func trimmedPath(_ path: String) -> String {
        var path = path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
