import OtonMedia
import OtonPlayback

/// The STATUS systemd shows for a recorder: "812 of 1000 stations recording". A station records
/// while its player plays and a byte came within `stallSeconds`. Reads each player's snapshot on
/// its queue (so a stuck player holds the caller: the watchdog's point).
public enum RecorderStatusLine {
    public static let stallSeconds: Int64 = 30

    public static func text(_ players: [Player], now: Int64 = Clock.monotonicNanoseconds()) -> String {
        let recording = players.filter { player in
            let snapshot = player.snapshot
            guard case .playing = snapshot.state, let last = snapshot.lastByteAt else { return false }
            return now - last <= stallSeconds * 1_000_000_000
        }.count
        return "\(recording) of \(players.count) \(players.count == 1 ? "station" : "stations") recording"
    }
}
