/// A CUE sheet for one recorded file: where each track begins in it. Most
/// useful with `--no-split`, where one file holds a whole session.
public struct CueSheet: Equatable, Sendable {
    public struct Track: Equatable, Sendable {
        public var title: String?
        public var performer: String?
        public var nanoseconds: Int64

        public init(title: String?, performer: String?, nanoseconds: Int64) {
            self.title = title
            self.performer = performer
            self.nanoseconds = nanoseconds
        }
    }

    public var fileName: String
    public var station: String?
    public var tracks: [Track]

    public init(fileName: String, station: String?, tracks: [Track]) {
        self.fileName = fileName
        self.station = station
        self.tracks = tracks
    }

    /// The sheet as text (UTF-8). CUE has 99 tracks at most; later ones are left out.
    public var text: String {
        var lines: [String] = []
        if let station, !station.isEmpty { lines.append("TITLE \(Self.quoted(station))") }
        let type = fileName.lowercased().hasSuffix(".mp3") ? "MP3" : "WAVE"
        lines.append("FILE \(Self.quoted(fileName)) \(type)")
        var previous: Int64 = -1
        var number = 0
        for track in tracks.sorted(by: { $0.nanoseconds < $1.nanoseconds }) where number < 99 {
            let frames = max(track.nanoseconds, 0) * 75 / 1_000_000_000  // CUE counts 1/75 s
            guard frames > previous else { continue }  // two titles in the same frame: the first wins
            previous = frames
            number += 1
            lines.append("  TRACK \(number < 10 ? "0" : "")\(number) AUDIO")
            if let title = track.title, !title.isEmpty { lines.append("    TITLE \(Self.quoted(title))") }
            if let performer = track.performer, !performer.isEmpty { lines.append("    PERFORMER \(Self.quoted(performer))") }
            let minutes = frames / (75 * 60)
            let seconds = frames / 75 % 60
            let rest = frames % 75
            lines.append("    INDEX 01 " + [minutes, seconds, rest].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// CUE strings cannot hold quotes or line breaks: quotes become ’ and breaks spaces.
    static func quoted(_ text: String) -> String {
        let cleaned = text.map { character -> String in
            if character == "\"" { return "\u{2019}" }
            if character.isNewline || character.unicodeScalars.allSatisfy({ $0.value < 0x20 }) { return " " }
            return String(character)
        }.joined()
        return "\"" + cleaned + "\""
    }
}
