import CGStreamer
import Foundation
import OtonHTTPSource

/// Rewrites a live DASH manifest so that GStreamer 1.22's `dashdemux` keeps its place in it
/// (issue 39 §3, live DASH stopping after 6–11 s).
///
/// Why: `gst_mpd_client_stream_seek` (gstmpdclient.c, since GStreamer commit 8a9821e8 of
/// September 2022, still so in 1.22 and later) computes the repeat index of the wanted segment as
/// `((ts - S.start) + firstS.start) / S.d`, i.e. off by the start of the timeline's first segment.
/// The demuxer makes that seek at its start (to the live edge) and again after every manifest reload
/// (to carry its position over to the new manifest). While a live MPD's `SegmentTimeline` starts at 0
/// the error is nothing; once the window slides (ffmpeg's `-f dash` keeps `-window_size` segments,
/// so after 6 s with 1 s segments, 12 s with 2 s ones) the first `<S t="…">` is no longer 0, and the
/// position lands about twice as far as the live edge: dashdemux waits for a segment that will not
/// exist for as long again, reloads `/live.mpd` over and over, fetches no segment, and the player's
/// buffer runs dry ("buffering-timeout"). A station joined after its window slid fetched none at all.
///
/// The repair: each `SegmentTimeline` of a dynamic MPD whose first segment does not start at time 0
/// of its Period gets one placeholder segment in front of it, from 0 to the first real segment
/// (`<S t="PTO − PeriodStart·timescale" d="…"/>`), and its template's `startNumber` one less, so the
/// real segments keep their numbers and times. The first segment then starts at 0, the error term is 0,
/// and every seek lands where it should. The placeholder is never fetched while the demuxer keeps up
/// with the window; if it fell behind, it is fetched as the segment just before the window (or is
/// missing, which dashdemux skips). Everything else in the manifest is left byte for byte.
///
/// Only what can be known safely is changed: a timeline whose template inherits `timescale`,
/// `presentationTimeOffset` or `startNumber` from an outer template, or whose numbers would go below 0,
/// is left as it is. Static (on-demand) MPDs are never changed: they play from their start, where the
/// placeholder would be fetched.
///
/// Every MPD a pipeline reads comes through `otonhttpsrc` (the first from the pipeline's source, each
/// reload from the demuxer's downloader), which hands it here whole (``install()``).
package enum DASHTimelineRepair {
    /// Makes every `otonhttpsrc` pass the XML bodies it receives through ``repaired(_:)``.
    /// Called once, after GStreamer's initialisation (``GLibMainLoop``).
    package static func install() {
        oton_http_source_set_xml_rewriter(rewriter)
    }

    private static let rewriter: OtonXMLBodyRewriter = { url, body, size, out, outSize in
        guard let body, let out, let outSize else { return 0 }
        let input = UnsafeBufferPointer(start: body, count: Int(size))
        if let url { DASHEventStreams.remember(manifest: input, url: String(cString: url)) }
        guard let output = repaired(input) else { return 0 }
        guard let copy = g_malloc(gsize(max(output.count, 1)))?.assumingMemoryBound(to: guint8.self) else { return 0 }
        output.withUnsafeBufferPointer { copy.update(from: $0.baseAddress!, count: output.count) }
        out.pointee = copy
        outSize.pointee = gsize(output.count)
        return 1
    }

    /// The manifest with its timelines repaired, or nil when nothing needs changing (not a dynamic MPD,
    /// every timeline already starts at 0, or one that cannot be repaired safely).
    package static func repaired<Bytes: Collection>(_ manifest: Bytes) -> [UInt8]? where Bytes.Element == UInt8 {
        let bytes = Array(manifest)
        var scanner = XMLTagScanner(bytes)
        var stack: [OpenElement] = []
        var templates: [Template] = []
        var candidates: [Candidate] = []
        var sawRoot = false
        while let tag = scanner.next() {
            switch tag {
            case let .end(name):
                if let index = stack.lastIndex(where: { $0.tag.name == name }) { stack.removeSubrange(index...) }
            case let .start(element):
                if !sawRoot {
                    // Only a live manifest: the root is MPD with type="dynamic".
                    guard element.name == "MPD", element.attributes["type"]?.value == "dynamic" else { return nil }
                    sawRoot = true
                }
                let ancestors = stack.map { $0.tag.start }
                if element.name == "SegmentTemplate" { templates.append(Template(tag: element, ancestors: ancestors)) }
                if element.name == "S", stack.count >= 2, stack[stack.count - 1].tag.name == "SegmentTimeline", !stack[stack.count - 1].sawSegment {
                    stack[stack.count - 1].sawSegment = true
                    let template = stack[stack.count - 2].tag
                    if template.name == "SegmentTemplate" {
                        let period = stack.last(where: { $0.tag.name == "Period" })?.tag
                        candidates.append(
                            Candidate(
                                first: element, timeline: stack[stack.count - 1].tag, template: template,
                                templateAncestors: Array(ancestors.dropLast(2)), period: period))
                    }
                }
                if !element.selfClosing { stack.append(OpenElement(tag: element)) }
            }
        }
        guard sawRoot else { return nil }
        let edits = candidates.flatMap { placeholder(for: $0, templates: templates) ?? [] }
        guard !edits.isEmpty else { return nil }
        var output = bytes
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            output.replaceSubrange(edit.range, with: Array(edit.text.utf8))
        }
        return output
    }

    private struct OpenElement {
        let tag: XMLTagScanner.Element
        var sawSegment = false
    }

    /// A SegmentTemplate and where it sits (the start offsets of the elements it is inside).
    private struct Template {
        let tag: XMLTagScanner.Element
        let ancestors: [Int]
    }

    /// A timeline whose first segment `first` may need a placeholder.
    private struct Candidate {
        let first: XMLTagScanner.Element
        let timeline: XMLTagScanner.Element
        let template: XMLTagScanner.Element
        /// The elements the template is inside, outermost first (its parent last).
        let templateAncestors: [Int]
        let period: XMLTagScanner.Element?
    }

    private static let inheritedAttributes = ["timescale", "presentationTimeOffset", "startNumber"]

    /// The edits that put a placeholder before `candidate`'s first segment, or nil.
    private static func placeholder(for candidate: Candidate, templates: [Template]) -> [(range: Range<Int>, text: String)]? {
        let template = candidate.template
        guard let start = candidate.first.attributes["t"].flatMap({ UInt64($0.value) }), start > 0,
            let parent = candidate.templateAncestors.last
        else { return nil }
        let outer = Set(candidate.templateAncestors.dropLast())
        for other in templates where other.tag.start != template.start {
            // A template further in (a Representation's under this AdaptationSet's) would override the numbers.
            if other.ancestors.contains(parent) { return nil }
            // One further out (the AdaptationSet's or Period's) that this one inherits from.
            if let otherParent = other.ancestors.last, outer.contains(otherParent),
                inheritedAttributes.contains(where: { template.attributes[$0] == nil && other.tag.attributes[$0] != nil })
            {
                return nil
            }
        }
        guard let timescale = UInt64(template.attributes["timescale"]?.value ?? "1"), timescale > 0,
            let offset = UInt64(template.attributes["presentationTimeOffset"]?.value ?? "0"),
            let number = UInt64(template.attributes["startNumber"]?.value ?? "1"), number > 0
        else { return nil }
        var periodStart: UInt64 = 0
        if let text = candidate.period?.attributes["start"]?.value {
            guard let seconds = seconds(ofDuration: text) else { return nil }
            periodStart = UInt64((seconds * Double(timescale)).rounded())
        }
        // The placeholder starts where the Period does on the media timeline: t = PTO − PeriodStart.
        guard offset >= periodStart else { return nil }
        let placeholderStart = offset - periodStart
        guard placeholderStart < start else { return nil }
        var edits: [(range: Range<Int>, text: String)] = [
            (candidate.timeline.end..<candidate.timeline.end, "<S t=\"\(placeholderStart)\" d=\"\(start - placeholderStart)\"/>")
        ]
        if let startNumber = template.attributes["startNumber"] {
            edits.append((startNumber.valueRange, "\(number - 1)"))
        } else {
            edits.append((template.nameEnd..<template.nameEnd, " startNumber=\"0\""))
        }
        return edits
    }

    /// Seconds of an xs:duration without years or months ("PT2S", "PT1H0M3.5S", "P1DT2H"), or nil.
    package static func seconds(ofDuration text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard rest.first == "P" else { return nil }
        rest = rest.dropFirst()
        var total = 0.0
        var inTime = false
        var number = ""
        var any = false
        for character in rest {
            switch character {
            case "T":
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
            case "0"..."9", ".":
                number.append(character)
            case "D", "H", "M", "S":
                guard let value = Double(number) else { return nil }
                switch (character, inTime) {
                case ("D", false): total += value * 86_400
                case ("H", true): total += value * 3_600
                case ("M", true): total += value * 60
                case ("S", true): total += value
                default: return nil  // years and months have no fixed length
                }
                number = ""
                any = true
            default:
                return nil
            }
        }
        return any && number.isEmpty ? total : nil
    }
}

/// The tags of an XML document, in order, found by scanning its bytes: enough to find elements and
/// where their attributes are, without building a tree or changing a byte (comments, processing
/// instructions, CDATA and DOCTYPE are skipped; names lose their namespace prefix).
struct XMLTagScanner {
    struct Attribute {
        let value: String
        /// Where the value (between its quotes) is in the document.
        let valueRange: Range<Int>
    }

    struct Element {
        /// Where its start tag's `<` is (what tells two elements apart).
        let start: Int
        let name: String
        let attributes: [String: Attribute]
        /// Just after the element's name in its start tag (where an attribute can be added).
        let nameEnd: Int
        /// Just after the start tag's `>`.
        let end: Int
        let selfClosing: Bool
    }

    enum Tag {
        case start(Element)
        case end(String)
    }

    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func next() -> Tag? {
        while let open = find(UInt8(ascii: "<"), from: index) {
            index = open + 1
            if starts(with: "!--", at: index) { index = skip(past: "-->", from: index); continue }
            if starts(with: "![CDATA[", at: index) { index = skip(past: "]]>", from: index); continue }
            if starts(with: "?", at: index) { index = skip(past: "?>", from: index); continue }
            if starts(with: "!", at: index) { index = skip(past: ">", from: index); continue }
            if starts(with: "/", at: index) {
                let (name, after) = readName(from: index + 1)
                index = skip(past: ">", from: after)
                return .end(name)
            }
            let (name, nameEnd) = readName(from: index)
            guard !name.isEmpty else { continue }
            var attributes: [String: Attribute] = [:]
            var position = nameEnd
            var selfClosing = false
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: ">") { position += 1; break }
                if byte == UInt8(ascii: "/") { selfClosing = true; position += 1; continue }
                if Self.isSpace(byte) { position += 1; continue }
                let (attribute, afterName) = readName(from: position)
                position = afterName
                while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
                guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                    if attribute.isEmpty { position += 1 }
                    continue
                }
                position += 1
                while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else { continue }
                let quote = bytes[position]
                let valueStart = position + 1
                let valueEnd = find(quote, from: valueStart) ?? bytes.count
                attributes[attribute] = Attribute(value: String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self), valueRange: valueStart..<valueEnd)
                position = min(valueEnd + 1, bytes.count)
            }
            index = position
            return .start(Element(start: open, name: name, attributes: attributes, nameEnd: nameEnd, end: position, selfClosing: selfClosing))
        }
        index = bytes.count
        return nil
    }

    /// The local name (no `prefix:`) starting at `start`, and where it ends.
    private func readName(from start: Int) -> (String, Int) {
        var end = start
        while end < bytes.count, !Self.isSpace(bytes[end]), bytes[end] != UInt8(ascii: ">"), bytes[end] != UInt8(ascii: "/"),
            bytes[end] != UInt8(ascii: "=")
        { end += 1 }
        let name = String(decoding: bytes[start..<end], as: UTF8.self)
        return (name.split(separator: ":").last.map(String.init) ?? name, end)
    }

    private func find(_ byte: UInt8, from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        return bytes[start...].firstIndex(of: byte)
    }

    private func starts(with text: String, at position: Int) -> Bool {
        let pattern = Array(text.utf8)
        guard position + pattern.count <= bytes.count else { return false }
        return bytes[position..<position + pattern.count].elementsEqual(pattern)
    }

    private func skip(past text: String, from start: Int) -> Int {
        let pattern = Array(text.utf8)
        var position = start
        while position + pattern.count <= bytes.count {
            if bytes[position..<position + pattern.count].elementsEqual(pattern) { return position + pattern.count }
            position += 1
        }
        return bytes.count
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
