#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads one typed value out of a JSON text by a path such as `config.station.name` or `args[0]`:
/// what ABI 1.5's `oton_host.read_json` gives C plugins, so that they read their config and a
/// command's arguments with no JSON code of their own.
///
/// It adds only the walk: the text is parsed by ``JSONParser`` and the value is read by
/// ``PluginConfigReader``, so a C plugin's settings are refused with the same rules and the same
/// words as a Swift plugin's (`config.port must be a whole number from 1 to 65535, not "80"`).
///
/// Path: a root name (letters, digits, `_`, `-`) that names the text in messages, then any number of
/// `.key` (an object's member; a key holding `.` or `[` cannot be reached) and `[index]` (a list's
/// item, from 0). A root named `config` must be a JSON object and is refused in the config reader's
/// words. An absent or null value, anywhere along the path, is ``Value/absent``: the default applies.
///
/// Threading: no state; any thread.
public enum JSONPathReader {
    /// What to read at the path.
    public enum Want: Equatable, Sendable {
        case string
        /// A number (fractions allowed), within the range when one is given.
        case number(ClosedRange<Double>?)
        /// A whole number, within the range when one is given (else any that fits 64 bits).
        case integer(ClosedRange<Int>?)
        case bool
        /// How many items a list holds.
        case arrayLength
    }

    public enum Value: Equatable, Sendable {
        case absent
        case string(String)
        case number(Double)
        case integer(Int)
        case bool(Bool)
        case arrayLength(Int)
    }

    /// The longest path read, in bytes, and the most steps in it.
    public static let maxPathBytes = 1024
    public static let maxSteps = 64

    private enum Step: Equatable {
        case key(String)
        case index(Int)
    }

    /// The value at `path` in `json` (UTF-8 JSON text of at most ``PluginConfigReader/maxBytes``).
    public static func read(_ json: Data, path: String, want: Want) throws(PluginConfigError) -> Value {
        guard let (root, steps) = parse(path) else {
            throw PluginConfigError(
                message: N_("the path {path} is not valid: write a name, then .key or [index] for each step, e.g. config.station.name or args[0]"),
                values: ["path": PluginConfigReader.shown(.string(path))])
        }
        var value: JSONValue
        if root == "config" {
            value = .object(try PluginConfigReader.members(parsing: json))
        } else {
            do {
                value = try JSONParser(maxBytes: PluginConfigReader.maxBytes).parse(json)
            } catch {
                throw PluginConfigError(message: N_("{key} is not valid JSON ({reason})"), values: ["key": root, "reason": "\(error)"])
            }
        }
        // Walk to the leaf's container; `location` names it in messages as the config reader does.
        var location = ""
        var leaf = root
        for step in steps {
            let holder = PluginConfigReader(members: [leaf: value], location: location)
            let name = holder.named(leaf)
            switch step {
            case let .key(key):
                guard let object = try holder.section(leaf) else { return .absent }
                (value, location, leaf) = (object.value(key) ?? .null, name, key)
            case let .index(index):
                guard try holder.count(leaf) != nil, case let .array(items) = value else { return .absent }
                (location, leaf) = (name, "[\(index)]")
                value = index < items.count ? items[index] : .null
            }
        }
        let reader = PluginConfigReader(members: [leaf: value], location: location)
        switch want {
        case .string: return try reader.string(leaf).map(Value.string) ?? .absent
        case .bool: return try reader.bool(leaf).map(Value.bool) ?? .absent
        case let .number(range?): return try reader.number(leaf, in: range).map(Value.number) ?? .absent
        case .number(nil): return try reader.number(leaf).map(Value.number) ?? .absent
        case let .integer(range?): return try reader.integer(leaf, in: range).map(Value.integer) ?? .absent
        case .integer(nil): return try reader.integer(leaf).map(Value.integer) ?? .absent
        case .arrayLength: return try reader.count(leaf).map(Value.arrayLength) ?? .absent
        }
    }

    /// The root name and the steps, or nil for a path that breaks the syntax or the limits.
    private static func parse(_ path: String) -> (String, [Step])? {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maxPathBytes else { return nil }
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x2D
        }
        var position = 0
        while position < bytes.count, isNameByte(bytes[position]) { position += 1 }
        guard position > 0 else { return nil }
        let root = String(decoding: bytes[0..<position], as: UTF8.self)
        var steps: [Step] = []
        while position < bytes.count {
            guard steps.count < maxSteps else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "."):
                let start = position + 1
                position = start
                while position < bytes.count, bytes[position] != UInt8(ascii: "."), bytes[position] != UInt8(ascii: "[") { position += 1 }
                guard position > start else { return nil }
                steps.append(.key(String(decoding: bytes[start..<position], as: UTF8.self)))
            case UInt8(ascii: "["):
                let start = position + 1
                position = start
                while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 { position += 1 }
                // At most 9 digits: an index never overflows, and no list is that long anyway.
                guard position > start, position - start <= 9, position < bytes.count, bytes[position] == UInt8(ascii: "]") else { return nil }
                steps.append(.index(Int(String(decoding: bytes[start..<position], as: UTF8.self))!))
                position += 1
            default:
                return nil
            }
        }
        return (root, steps)
    }
}
