import Foundation
import OtonJSON
import OtonSupport

/// One key of one plugin's "config" in plugins.json set to a value (`oton plugins set`): only the
/// bytes of that value change (or the member is added); every other key, value, order and space
/// stays as written. The result is checked to be a valid plugins.json before it is written,
/// atomically; a file that does not parse is refused with its parser error and never written.
public enum PluginConfigEdit {
    /// The file's bytes with `config.key` of the plugin `id` set to `value`.
    public static func setting(_ key: String, to value: JSONValue, plugin id: String, in data: Data, file: String) throws(StationsEditError) -> Data {
        let config: OtonConfig
        do { config = try ConfigLoader.parse(data, file: file) } catch { throw .config(error) }
        let bytes = Array(data)
        let spans = JSONSpans(bytes: bytes)
        let plugins = spans.members(ofObjectAt: spans.rootStart).first { $0.key == "plugins" }?.value
        let element = plugins.flatMap { span in
            spans.elements(ofArrayAt: span.lowerBound).first { range in
                (try? JSONValue.parse(Data(bytes[range])))?["id"]?.stringValue == id
            }
        }
        guard let element else { throw .unknownPlugin(id: id, file: file, known: config.plugins.map(\.id)) }
        let member = JSONValue.string(key).jsonText + ": " + value.jsonText
        var out = bytes
        func insert(_ text: String, intoObjectAt start: Int, isEmpty: Bool) {
            out.replaceSubrange(start + 1..<start + 1, with: Array((isEmpty ? text : text + ", ").utf8))
        }
        let members = spans.members(ofObjectAt: element.lowerBound)
        if let configSpan = members.first(where: { $0.key == "config" })?.value, bytes[configSpan.lowerBound] == UInt8(ascii: "{") {
            let configMembers = spans.members(ofObjectAt: configSpan.lowerBound)
            if let existing = configMembers.first(where: { $0.key == key }) {
                out.replaceSubrange(existing.value, with: Array(value.jsonText.utf8))
            } else {
                insert(member, intoObjectAt: configSpan.lowerBound, isEmpty: configMembers.isEmpty)
            }
        } else if let configSpan = members.first(where: { $0.key == "config" })?.value {
            out.replaceSubrange(configSpan, with: Array("{\(member)}".utf8))  // null or another type: replaced by an object
        } else {
            insert("\"config\": {\(member)}", intoObjectAt: element.lowerBound, isEmpty: members.isEmpty)
        }
        let result = Data(out)
        do { _ = try ConfigLoader.parse(result, file: file) } catch { throw .config(error) }
        return result
    }

    /// Reads `path`, sets the key, and replaces the file atomically.
    public static func apply(_ key: String, _ value: JSONValue, plugin id: String, path: String) throws(StationsEditError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .config(.unreadable(file: path, reason: (error as NSError).localizedDescription))
        }
        guard data.count <= ConfigLoader.maxBytes else {
            throw .config(.unreadable(file: path, reason: "larger than \(ConfigLoader.maxBytes) bytes, the limit for plugins.json"))
        }
        let edited = try setting(key, to: value, plugin: id, in: data, file: path)
        do { try AtomicFileWriter.write(edited, to: path) } catch { throw .write(error) }
    }
}
