import CGStreamer
import Foundation
import OtonHTTPSource

/// The `#EXTINF` titles of HLS segments (`#EXTINF:2.0,Artist - Title`, or `title="…"` attributes):
/// read from every playlist an `otonhttpsrc` fetches (``install()``), kept by segment URL, and
/// looked up when a segment's download starts (``HLSSegmentTagFilter``), which reports the title
/// when the segment carries no timed ID3 tag of its own. GStreamer's HLS demuxer reads these titles
/// but passes none on (neither does mpv). The text is untrusted: it goes the way of every stream
/// title (``TagSet`` → ``TrackAccumulator``, which cleans it with ``TagNormalizer`` and reports a change only).
///
/// Memory: at most ``capacity`` URLs (the oldest go first) of at most 512 characters of title each,
/// whatever the playlists say. Threads: any (a lock).
package enum HLSSegmentTitles {
    package static let capacity = 4096

    private final class Table: @unchecked Sendable {
        let lock = NSLock()
        var titles: [String: (title: String, artist: String?)] = [:]
        var order: [String] = []
        var head = 0
    }
    private static let table = Table()

    /// Makes every `otonhttpsrc` hand its HLS playlists here. Called once, after GStreamer's initialisation (``GLibMainLoop``).
    package static func install() {
        oton_http_source_set_playlist_observer(observer)
    }

    private static let observer: OtonPlaylistObserver = { url, body, size in
        guard let url, let body else { return }
        let text = String(decoding: UnsafeBufferPointer(start: body, count: Int(size)), as: UTF8.self)
        remember(playlist: text, url: String(cString: url))
    }

    /// Reads a media playlist fetched from `url`: each segment URI (resolved against `url`) with the
    /// title of the `#EXTINF` line before it.
    package static func remember(playlist: String, url: String) {
        guard let base = URL(string: url) else { return }
        var pending: (title: String, artist: String?)?
        var found: [(String, (title: String, artist: String?))] = []
        for line in playlist.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = line.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if line.uppercased().hasPrefix("#EXTINF:") { pending = EXTINFLine.track(line) }
                continue
            }
            if let pending, let segment = URL(string: line, relativeTo: base)?.absoluteString { found.append((segment, pending)) }
            pending = nil
        }
        guard !found.isEmpty else { return }
        table.lock.lock(); defer { table.lock.unlock() }
        for (segment, track) in found.suffix(capacity) {
            if table.titles.updateValue(track, forKey: segment) == nil { table.order.append(segment) }
        }
        // Forget the oldest beyond the capacity (compacting the queue now and then).
        while table.order.count - table.head > capacity {
            table.titles[table.order[table.head]] = nil
            table.head += 1
        }
        if table.head > capacity { table.order.removeFirst(table.head); table.head = 0 }
    }

    /// The title of the segment at `url`, when a playlist named one.
    package static func title(forSegment url: String) -> (title: String, artist: String?)? {
        table.lock.lock(); defer { table.lock.unlock() }
        return table.titles[url]
    }
}
