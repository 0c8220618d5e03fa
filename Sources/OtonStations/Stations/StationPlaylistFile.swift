import Foundation
import OtonEvents

/// Favourites to and from the playlist files other players read: extended M3U
/// (`#EXTINF:-1,Name` before each URL) and PLS (`FileN=`, `TitleN=`). Import reads
/// through the same bounded parser the player uses for station playlists.
public enum StationPlaylistFile {
    public enum Format: String, Sendable, CaseIterable {
        case m3u, pls

        /// From a file name's extension (.m3u, .m3u8, .pls); nil for anything else.
        public init?(fileName: String) {
            switch (fileName as NSString).pathExtension.lowercased() {
            case "m3u", "m3u8": self = .m3u
            case "pls": self = .pls
            default: return nil
            }
        }
    }

    public static func export(_ entries: [StationEntry], as format: Format) -> String {
        let clean = { (text: String) in text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ") }
        switch format {
        case .m3u:
            return "#EXTM3U\n" + entries.map { "#EXTINF:-1,\(clean($0.name))\n\(clean($0.url))\n" }.joined()
        case .pls:
            var lines = ["[playlist]"]
            for (index, entry) in entries.enumerated() {
                lines += ["File\(index + 1)=\(clean(entry.url))", "Title\(index + 1)=\(clean(entry.name))", "Length\(index + 1)=-1"]
            }
            lines += ["NumberOfEntries=\(entries.count)", "Version=2"]
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// Stations from a playlist file's text: names from the titles, else the URL's host.
    /// The format is sniffed from the text (`[playlist]` is PLS, anything else M3U).
    public static func stations(in data: Data, file: String) throws(PlaylistParser.Failure) -> [Station] {
        let sniffed = String(decoding: data.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let format: PlaylistFormat = sniffed.hasPrefix("[playlist]") ? .pls : .m3u
        let playlist = try PlaylistParser.parse(data, format: format, base: URL(fileURLWithPath: file))
        return playlist.entries.filter { $0.url.hasPrefix("http://") || $0.url.hasPrefix("https://") }.map { entry in
            Station(name: entry.title.flatMap(StationInput.cleanedName) ?? URL(string: entry.url)?.host ?? entry.url, url: entry.url)
        }
    }
}
