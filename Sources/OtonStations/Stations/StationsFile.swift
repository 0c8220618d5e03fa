import Foundation
import OtonEvents
import OtonJSON
import OtonSupport

/// plugins.json opened for editing its "stations": only the bytes of that array change;
/// every other key, value, order and space stays exactly as written. A file that does not
/// parse as a valid plugins.json is refused with its parser error and never written.
public struct StationsFile: Sendable {
    /// The path as given (a symbolic link is written through to its target).
    public let path: String
    private let bytes: [UInt8]
    /// The span of the "stations" array, when the file has one.
    private let stationsSpan: Range<Int>?
    /// The span of the "default_station" value, when the file has one.
    private let defaultSpan: Range<Int>?
    /// The top-level object's `{` and whether it has no members (for inserting "stations").
    private let rootStart: Int
    private let rootIsEmpty: Bool
    public let config: OtonConfig
    /// The stations as they stand in the file; edit them, then `save()`.
    public var entries: [StationEntry]
    /// "default_station" as the file has it; set it with ``setDefault(_:)``.
    public private(set) var defaultStationName: String?

    public static func load(_ path: String) throws(StationsEditError) -> StationsFile {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: ConfigLoader.maxBytes + 1) ?? Data()
        } catch {
            throw .config(.unreadable(file: path, reason: (error as NSError).localizedDescription))
        }
        guard data.count <= ConfigLoader.maxBytes else {
            throw .config(.unreadable(file: path, reason: "larger than \(ConfigLoader.maxBytes) bytes, the limit for plugins.json"))
        }
        return try StationsFile(path: path, data: data)
    }

    public init(path: String, data: Data) throws(StationsEditError) {
        do {
            config = try ConfigLoader.parse(data, file: path)
        } catch {
            throw .config(error)
        }
        self.path = path
        let bytes = Array(data)
        self.bytes = bytes
        let spans = JSONSpans(bytes: bytes)
        rootStart = spans.rootStart
        let members = spans.members(ofObjectAt: rootStart)
        rootIsEmpty = members.isEmpty
        stationsSpan = members.first { $0.key == "stations" }?.value
        defaultSpan = members.first { $0.key == "default_station" }?.value
        defaultStationName = config.defaultStationName
        entries =
            stationsSpan.map { span in
                spans.elements(ofArrayAt: span.lowerBound).map { range in
                    let text = String(decoding: bytes[range], as: UTF8.self)
                    let value = try? JSONValue.parse(Data(bytes[range]))
                    return StationEntry(name: value?["name"]?.stringValue ?? "", url: value?["url"]?.stringValue ?? "", text: text)
                }
            } ?? []
    }

    /// The file's text with `entries` as its "stations" array and `defaultStationName` as its
    /// "default_station": each value replaced where it stands, a missing member added first in the object.
    public var rendered: Data {
        let array = entries.isEmpty ? "[]" : "[\n    " + entries.map(\.text).joined(separator: ",\n    ") + "\n  ]"
        var replacements: [(range: Range<Int>, text: String)] = []
        var added: [String] = []
        if let span = stationsSpan {
            replacements.append((span, array))
        } else {
            added.append("\n  \"stations\": " + array)
        }
        if defaultStationName != config.defaultStationName, let name = defaultStationName {
            let value = JSONValue.string(name).jsonText
            if let span = defaultSpan { replacements.append((span, value)) } else { added.insert("\n  \"default_station\": " + value, at: 0) }
        }
        if !added.isEmpty {
            replacements.append((rootStart + 1..<rootStart + 1, added.joined(separator: ",") + (rootIsEmpty ? "\n" : ",")))
        }
        var out = bytes
        for replacement in replacements.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            out.replaceSubrange(replacement.range, with: Array(replacement.text.utf8))
        }
        return Data(out)
    }

    /// Checks the new text is still a valid plugins.json, then replaces the file atomically.
    public func save() throws(StationsEditError) {
        let data = rendered
        do {
            _ = try ConfigLoader.parse(data, file: path)
        } catch {
            throw .config(error)
        }
        do {
            try AtomicFileWriter.write(data, to: path)
        } catch {
            throw .write(error)
        }
    }
}

extension StationsFile {
    public func index(of name: String) throws(StationsEditError) -> Int {
        guard let index = entries.firstIndex(where: { $0.hasName(name) }) else {
            throw .unknownStation(name: name, known: entries.map(\.name))
        }
        return index
    }

    /// Appends a station; a name already present (in any case) is refused.
    public mutating func add(_ station: Station) throws(StationsEditError) {
        guard !entries.contains(where: { $0.hasName(station.name) }) else { throw .duplicate(name: station.name, file: path) }
        entries.append(StationEntry(station))
    }

    /// Removes a station; the default_station is refused (the file would no longer load), with
    /// another station to make the default first.
    public mutating func remove(_ name: String) throws(StationsEditError) {
        let index = try index(of: name)
        if let defaultName = defaultStationName, entries[index].hasName(defaultName) {
            let other = entries.first { !$0.hasName(defaultName) }?.name
            throw .isDefault(name: entries[index].name, file: path, other: other)
        }
        entries.remove(at: index)
    }

    /// Makes a station of the list the default_station (its name as the list spells it).
    public mutating func setDefault(_ name: String) throws(StationsEditError) {
        defaultStationName = entries[try index(of: name)].name
    }

    /// Renames a station: only the value of its "name" changes (its other members stay as written),
    /// and a default_station that named it follows. Another station with the new name (in any case) is refused.
    public mutating func rename(_ name: String, to newName: String) throws(StationsEditError) {
        let index = try index(of: name)
        if let other = entries.firstIndex(where: { $0.hasName(newName) }), other != index { throw .duplicate(name: newName, file: path) }
        let entry = entries[index]
        let text = try replacing("name", of: entry, with: newName)
        entries[index] = StationEntry(name: newName, url: entry.url, text: text)
        if let defaultName = defaultStationName, entry.hasName(defaultName) { defaultStationName = newName }
    }

    /// Gives a station a new stream URL: only its "url" value changes (its other members stay).
    public mutating func setURL(_ name: String, to url: String) throws(StationsEditError) {
        let index = try index(of: name)
        let entry = entries[index]
        entries[index] = StationEntry(name: entry.name, url: url, text: try replacing("url", of: entry, with: url))
    }

    /// The entry's text with the string value of its member `key` replaced, byte for byte around it.
    private func replacing(_ key: String, of entry: StationEntry, with value: String) throws(StationsEditError) -> String {
        var bytes = Array(entry.text.utf8)
        let spans = JSONSpans(bytes: bytes)
        guard let span = spans.members(ofObjectAt: spans.rootStart).first(where: { $0.key == key })?.value else {
            throw .unknownStation(name: entry.name, known: entries.map(\.name))
        }
        bytes.replaceSubrange(span, with: Array(JSONValue.string(value).jsonText.utf8))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Moves a station to `position` (1 is the top).
    public mutating func move(_ name: String, to position: Int) throws(StationsEditError) {
        let index = try index(of: name)
        guard (1...entries.count).contains(position) else { throw .badPosition(position, count: entries.count) }
        let entry = entries.remove(at: index)
        entries.insert(entry, at: position - 1)
    }
}
