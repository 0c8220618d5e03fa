import OtonEvents
import OtonJSON

/// One element of plugins.json's "stations" array as text: an existing one exactly as it
/// was written (unknown keys, order and spacing kept), a new one in the shipped layout.
public struct StationEntry: Equatable, Sendable {
    public var name: String
    public var url: String
    /// The JSON object text that goes into the array.
    public var text: String

    package init(name: String, url: String, text: String) {
        self.name = name
        self.url = url
        self.text = text
    }

    /// A new entry, laid out like the shipped plugins.json (two-space steps, inside "stations").
    public init(_ station: Station) {
        var members: [(String, String)] = [("name", station.name), ("url", station.url)]
        if let statusURL = station.statusURL { members.append(("status_url", statusURL)) }
        if let homepage = station.homepage { members.append(("homepage", homepage)) }
        if let logoURL = station.logoURL { members.append(("logo_url", logoURL)) }
        let lines = members.map { "      " + JSONText.quoted($0.0) + ": " + JSONText.quoted($0.1) }
        self.init(name: station.name, url: station.url, text: "{\n" + lines.joined(separator: ",\n") + "\n    }")
    }

    package func hasName(_ other: String) -> Bool { name.caseInsensitiveCompare(other) == .orderedSame }
}
