import OtonTextFolding

/// Which track a kept wish is, so the same song is not kept twice: its artist and title folded
/// (``TextFolding``) as "artist - title"; a track without an artist by its title alone (or the
/// title as the station sent it). The station, the time and the recording play no part: the same
/// song from another station, or in another case or spelling of accents, is the same track.
public enum WishIdentity {
    public static func of(artist: String?, title: String?, rawTitle: String?) -> String? {
        let artist = artist.map(TextFolding.fold).flatMap { $0.isEmpty ? nil : $0 }
        let title = (title ?? rawTitle).map(TextFolding.fold).flatMap { $0.isEmpty ? nil : $0 }
        switch (artist, title) {
        case let (artist?, title?): return artist + " - " + title
        case let (nil, title?): return title
        case let (artist?, nil): return artist
        case (nil, nil): return nil
        }
    }
}
