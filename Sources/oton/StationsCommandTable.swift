import Foundation
import OtonHost

/// Search results as a terminal table (columns padded by display width) or as JSON.
enum StationsTable {
    static func table(_ stations: [DirectoryStation]) -> String {
        let header = ["#", "NAME", "COUNTRY", "CODEC", "KBPS", "ONLINE", "TAGS"]
        let rows: [[String]] = stations.enumerated().map { index, station in
            [
                String(index + 1),
                TerminalText.truncated(clean(station.name), toColumns: 40),
                station.countryCode ?? station.country.map { TerminalText.truncated(clean($0), toColumns: 12) } ?? "-",
                TerminalText.truncated(station.codec ?? "-", toColumns: 8),
                station.bitrate.map(String.init) ?? "-",
                station.lastCheckOK.map { $0 ? "yes" : "no" } ?? "?",
                station.tags.isEmpty ? "-" : TerminalText.truncated(station.tags.map(clean).joined(separator: ","), toColumns: 40),
            ]
        }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { TerminalText.width($0[column]) }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - TerminalText.width(cell))
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }

    static func json(_ stations: [DirectoryStation]) -> String {
        let list: [JSONValue] = stations.enumerated().map { index, station in
            var members: [String: JSONValue] = [
                "position": .number(JSONNumber(index + 1)), "name": .string(station.name), "url": .string(station.url),
                "play_url": .string(station.playURL), "tags": .array(station.tags.map(JSONValue.string)),
                "online": station.lastCheckOK.map(JSONValue.bool) ?? .null,
                "bitrate": station.bitrate.map { .number(JSONNumber($0)) } ?? .null,
            ]
            let optional: [(String, String?)] = [
                ("uuid", station.uuid), ("homepage", station.homepage), ("favicon", station.favicon),
                ("countrycode", station.countryCode), ("country", station.country), ("language", station.language), ("codec", station.codec),
            ]
            for (key, text) in optional { members[key] = text.map(JSONValue.string) ?? .null }
            return .object(members)
        }
        return JSONValue.array(list).jsonText
    }

    /// Text from a file or the directory without control characters, for the terminal.
    static func clean(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }))
    }
}
