import Foundation
import OtonJSON

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Turns an XML answer (SHOUTcast v2's `stats`, Triton's now-playing list) into a ``JSONValue`` so one
/// path grammar reads both: an element is an object of its attributes, its child elements (a list per
/// name) and its text under `#text`; the document is `{rootName: element}`. Parsed by libxml2 (through
/// Foundation's XMLParser) with external entities off; the body is already capped by the caller, and
/// elements past ``maxElements`` or nesting past ``maxDepth`` end the parse.
///
/// Not thread-safe per instance; `parse` makes its own.
public final class NowPlayingXML: NSObject, XMLParserDelegate {
    public static let maxElements = 20_000
    public static let maxDepth = 32

    private struct Open {
        var name: String
        var members: [String: JSONValue]
        var children: [String: [JSONValue]] = [:]
        var text = ""
    }

    private var stack: [Open] = []
    private var root: JSONValue?
    private var elements = 0
    private var refused = false

    /// The document as a value, or nil when it is not well-formed XML (or too big).
    public static func parse(_ data: Data) -> JSONValue? {
        let reader = NowPlayingXML()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        guard parser.parse(), !reader.refused else { return nil }
        return reader.root
    }

    public func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        elements += 1
        guard elements <= Self.maxElements, stack.count < Self.maxDepth else {
            refused = true
            parser.abortParsing()
            return
        }
        stack.append(Open(name: elementName, members: attributeDict.mapValues { .string($0) }))
    }

    public func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty, stack[stack.count - 1].text.utf8.count < 65_536 else { return }
        stack[stack.count - 1].text += string
    }

    public func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        self.parser(parser, foundCharacters: String(decoding: CDATABlock, as: UTF8.self))
    }

    public func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard var open = stack.popLast() else { return }
        for (name, list) in open.children { open.members[name] = .array(list) }
        let text = open.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty { open.members["#text"] = .string(text) }
        let element = JSONValue.object(open.members)
        if stack.isEmpty {
            root = .object([open.name: element])
        } else {
            stack[stack.count - 1].children[open.name, default: []].append(element)
        }
    }
}
