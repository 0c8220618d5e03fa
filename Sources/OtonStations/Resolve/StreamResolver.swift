import Dispatch
import Foundation
import Logging
import OtonEvents
import OtonHTTP
import OtonSupport

/// What the pipeline opens after resolution.
public struct ResolvedStream: Sendable, Equatable {
    /// The stream URL (or local path) to play.
    public var url: String
    /// A title the playlist gave the stream or itself; names the station when the stream does not.
    public var stationTitle: String?
    /// The playlists followed to get here, outermost first (empty for a direct stream).
    public var playlists: [String] = []
    /// `url` is an HLS playlist (media or master): GStreamer's HLS demuxer fetches its segments.
    public var isHLS = false
    /// Not looked at first (``StreamResolver/unprobed(_:)``): the engine's own connection says what it
    /// is; when that is not audio, the player asks the resolver after all.
    public var unprobed = false
    /// `url` is a DASH manifest (MPD): GStreamer's DASH demuxer fetches its segments.
    public var isDASH = false
    /// The HLS playlist's body as the resolver read it a moment ago (nil when it was not fetched, or
    /// fetched through a redirect): the pipeline's source delivers it as its first response instead
    /// of fetching it again. Used once: a later start (a reconnect resolves afresh) fetches as usual.
    public var playlistBody: Data?

    public init(url: String, stationTitle: String? = nil, playlists: [String] = [], isHLS: Bool = false, isDASH: Bool = false) {
        self.url = url
        self.stationTitle = stationTitle
        self.playlists = playlists
        self.isHLS = isHLS
        self.isDASH = isDASH
    }
}

/// Why resolution gave no stream: the kind the player's state machine acts on, plus what happened.
public struct StreamResolutionError: Error, Sendable, CustomStringConvertible {
    public var kind: PlaybackErrorKind
    public var detail: String
    public var description: String { "\(kind.message) (\(detail))" }
}

/// Turns a station URL into the URL of a stream, following playlists
/// (PLS, M3U, XSPF, ASX; see ``PlaylistParser``) before the pipeline is
/// built. An HLS playlist (``HLSDetector``) is a stream of its own: it is
/// returned as it is, marked ``ResolvedStream/isHLS``, wherever it is met
/// (the station's URL or an entry of another playlist). The player calls it on every (re)connect, so play, record,
/// switching and reconnects resolve alike.
///
/// How a direct stream avoids a second fetch: a URL whose extension names
/// an audio format (.mp3, .ogg, .aac, …) or a local file that is not named as
/// a playlist is played without looking (``resolveWithoutFetching(_:)``).
/// Any other http(s) URL is probed once with a capped GET: a playlist is
/// small and arrives complete; a stream overflows the probe's 16 KiB (or
/// keeps the transfer open past 3 s) and is then handed to GStreamer, which
/// opens its own connection. A URL without any extension is not probed by the
/// player (``unprobed(_:)``): the engine connects, and only when what it gets
/// is not audio is the URL probed, so a server that sends a playlist as
/// text/html is still recognized by its bytes. When the probe
/// of a top-level URL fails (refused, TLS, HTTP error), the URL goes to
/// GStreamer unchanged so its error is classified as before; only playlist
/// entries count a failed probe as a dead entry and fall through to the next.
///
/// Threading: `resolve` runs the transfers on the resolver's own serial queue
/// and calls back there; never on the player's queue.
public final class StreamResolver: Sendable {
    /// Playlists inside playlists are followed this many levels deep.
    public static let maxDepth = 3
    /// A body that overflows this while probing a URL not named as a playlist is a stream.
    public static let probeBytes = 16 * 1024
    public static let probeMilliseconds = 3000
    /// At most this many entries of one playlist are tried before giving up.
    public static let maxEntriesTried = 10

    private let client: CappedHTTPClient
    private let logger: Logger
    private let queue = DispatchQueue(label: "oton.stream-resolver")

    public init(
        limits: CappedHTTPClient.Limits = .init(totalMilliseconds: 10_000, connectMilliseconds: 5000),
        logger: Logger = Logger(label: "oton.resolve")
    ) {
        client = CappedHTTPClient(limits: limits, userAgent: OtonVersion.userAgent)
        self.logger = logger
    }

    /// The answer when no fetch is needed: an audio URL by its extension, or a local file not named as a playlist.
    public func resolveWithoutFetching(_ url: String) -> ResolvedStream? {
        if let local = Self.localPath(url) {
            return PlaylistDetector.hint(extension: (local as NSString).pathExtension) == nil ? ResolvedStream(url: url) : nil
        }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return ResolvedStream(url: url)  // GStreamer reports what it cannot open
        }
        return PlaylistDetector.audioExtensions.contains(parsed.pathExtension.lowercased()) ? ResolvedStream(url: url) : nil
    }

    /// An http(s) URL without an extension, to be played without a probe: the probe was a connection
    /// of its own, which a server counts as a listener (two listeners for one player). The engine's
    /// connection is the only one; when its answer is not audio (a playlist, a page, HLS), the player
    /// resolves the URL with ``resolve(_:isCancelled:completion:)``. Nil for every other URL.
    public func unprobed(_ url: String) -> ResolvedStream? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
            parsed.pathExtension.isEmpty
        else { return nil }
        var stream = ResolvedStream(url: url)
        stream.unprobed = true
        return stream
    }

    /// Resolves on the resolver's queue; `completion` runs there. A cancelled resolution never completes.
    /// Every request says `userAgent` (the station's).
    public func resolve(
        _ url: String, userAgent: String = OtonVersion.userAgent, isCancelled: @escaping @Sendable () -> Bool,
        completion: @escaping @Sendable (Result<ResolvedStream, StreamResolutionError>) -> Void
    ) {
        queue.async { [self] in
            guard !isCancelled() else { return }
            let result = resolveNow(url, userAgent: userAgent, isCancelled: isCancelled)
            guard !isCancelled() else { return }
            completion(result)
        }
    }

    /// Resolves on the calling thread (blocks for the transfers).
    public func resolveNow(
        _ url: String, userAgent: String = OtonVersion.userAgent,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) -> Result<ResolvedStream, StreamResolutionError> {
        if let direct = resolveWithoutFetching(url) { return .success(direct) }
        do {
            return .success(try resolve(url, depth: 0, chain: [url], isEntry: false, userAgent: userAgent, isCancelled: isCancelled))
        } catch {
            switch error {
            case .cancelled: return .failure(StreamResolutionError(kind: .networkUnavailable, detail: "cancelled"))
            case let .failed(failure): return .failure(failure)
            }
        }
    }

    // MARK: one level

    private enum Failure: Error {
        case cancelled
        case failed(StreamResolutionError)
    }

    private func resolve(
        _ url: String, depth: Int, chain: [String], isEntry: Bool, userAgent: String,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws(Failure) -> ResolvedStream {
        if isCancelled() { throw .cancelled }
        if let path = Self.localPath(url) {
            return try resolveLocal(url, path: path, depth: depth, chain: chain, isEntry: isEntry, userAgent: userAgent, isCancelled: isCancelled)
        }
        guard let parsed = URL(string: url) else { throw Self.failed(.streamUnavailable(reason: .notAudio), "\(url) is not a URL") }
        let namedPlaylist = PlaylistDetector.hint(extension: parsed.pathExtension) != nil
        let response: CappedHTTPClient.Response
        do {
            if namedPlaylist {
                response = try client.get(url, maxBytes: PlaylistParser.maxBytes, userAgent: userAgent, isCancelled: isCancelled)
            } else {
                let deadline = DispatchTime.now() + .milliseconds(Self.probeMilliseconds)
                response = try client.get(
                    url, maxBytes: Self.probeBytes, userAgent: userAgent,
                    isCancelled: { isCancelled() || DispatchTime.now() > deadline })
            }
        } catch {
            if isCancelled() { throw .cancelled }
            switch error {
            case .tooLarge where namedPlaylist:
                throw Self.failed(.streamUnavailable(reason: .playlist(.tooLarge(limit: PlaylistParser.maxBytes))), url)
            case .tooLarge, .cancelled:
                return ResolvedStream(url: url)  // still sending after the probe's share: a stream
            default:
                // A top-level URL goes to GStreamer as it is, so its failure is classified as before.
                if !isEntry && !namedPlaylist { return ResolvedStream(url: url) }
                throw Self.failed(Self.kind(of: error), "\(error)")
            }
        }
        let base = URL(string: response.effectiveURL) ?? parsed
        if DASHDetector.isDASH(response.body, contentType: response.contentType) { return ResolvedStream(url: url, isDASH: true) }
        guard let format = PlaylistDetector.format(body: response.body, contentType: response.contentType, url: base) else {
            return ResolvedStream(url: url)  // small, and not a playlist: GStreamer decides what it is
        }
        if format == .m3u, HLSDetector.isHLS(response.body) {
            var stream = ResolvedStream(url: url, isHLS: true)
            if response.effectiveURL == url { stream.playlistBody = response.body }
            return stream
        }
        return try follow(
            body: response.body, format: format, base: base, from: url, depth: depth, chain: chain,
            userAgent: userAgent, isCancelled: isCancelled)
    }

    private func resolveLocal(
        _ url: String, path: String, depth: Int, chain: [String], isEntry: Bool, userAgent: String,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws(Failure) -> ResolvedStream {
        guard let format = PlaylistDetector.hint(extension: (path as NSString).pathExtension) else {
            if isEntry, !FileManager.default.fileExists(atPath: path) {
                throw Self.failed(.streamUnavailable(reason: .notFound), "\(path) does not exist")
            }
            return ResolvedStream(url: url)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Self.failed(.streamUnavailable(reason: .notFound), "cannot open the playlist \(path)")
        }
        defer { try? handle.close() }
        let body = (try? handle.read(upToCount: PlaylistParser.maxBytes + 1)) ?? Data()
        let base = URL(fileURLWithPath: path)
        let sniffed = PlaylistDetector.format(body: body, contentType: nil, url: base) ?? format
        if sniffed == .m3u, HLSDetector.isHLS(body) { return ResolvedStream(url: url, isHLS: true) }
        return try follow(
            body: body, format: sniffed, base: base, from: url, depth: depth, chain: chain,
            userAgent: userAgent, isCancelled: isCancelled)
    }

    // MARK: entries

    private func follow(
        body: Data, format: PlaylistFormat, base: URL, from url: String, depth: Int, chain: [String], userAgent: String,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws(Failure) -> ResolvedStream {
        guard depth < Self.maxDepth else {
            throw Self.failed(.streamUnavailable(reason: .playlist(.tooDeep(limit: Self.maxDepth))), url)
        }
        let playlist: Playlist
        do {
            playlist = try PlaylistParser.parse(body, format: format, base: base)
        } catch {
            throw Self.failed(.streamUnavailable(reason: .playlist(error.problem)), url)
        }
        if !playlist.refusedEntries.isEmpty {
            logger.info("\(url): ignored \(playlist.refusedEntries.count) entries that are not http(s) URLs, e.g. \(playlist.refusedEntries[0])")
        }
        if playlist.wasTruncated {
            logger.info("\(url): the playlist has more than \(PlaylistParser.maxEntries) entries; the rest are ignored")
        }
        guard !playlist.entries.isEmpty else {
            throw Self.failed(.streamUnavailable(reason: .playlist(.empty)), "\(url) (\(format.rawValue))")
        }
        var problems: [PlaylistProblem?] = []
        for entry in playlist.entries.prefix(Self.maxEntriesTried) {
            if chain.contains(entry.url) {
                problems.append(.tooDeep(limit: Self.maxDepth))  // the playlist includes itself
                continue
            }
            do {
                var resolved = try resolve(
                    entry.url, depth: depth + 1, chain: chain + [entry.url], isEntry: true, userAgent: userAgent,
                    isCancelled: isCancelled)
                resolved.stationTitle = resolved.stationTitle ?? entry.title ?? playlist.title
                resolved.playlists.insert(url, at: 0)
                return resolved
            } catch {
                guard case let .failed(failure) = error else { throw error }
                logger.info("\(url): entry \(entry.url) failed: \(failure.detail); trying the next")
                if case let .streamUnavailable(.playlist(problem)) = failure.kind { problems.append(problem) } else { problems.append(nil) }
            }
        }
        let problem: PlaylistProblem =
            if let first = problems.first, let same = first, problems.allSatisfy({ $0 == same }) {
                same
            } else {
                .noEntryReachable(tried: problems.count)
            }
        throw Self.failed(.streamUnavailable(reason: .playlist(problem)), "\(url) (\(format.rawValue), \(playlist.entries.count) entries)")
    }

    // MARK: helpers

    private static func failed(_ kind: PlaybackErrorKind, _ detail: String) -> Failure {
        .failed(StreamResolutionError(kind: kind, detail: detail))
    }

    /// The path of a local file: a `file://` URL or a string without a scheme.
    package static func localPath(_ url: String) -> String? {
        if url.lowercased().hasPrefix("file://") { return URL(string: url)?.path ?? String(url.dropFirst(7)) }
        if url.hasPrefix("/") || URL(string: url)?.scheme == nil { return url }
        return nil
    }

    /// How a failed playlist fetch reaches the listener: as the same kinds a failed stream gets.
    package static func kind(of failure: CappedHTTPClient.Failure) -> PlaybackErrorKind {
        switch failure {
        case let .http(status):
            PlaybackErrorClassifier.classify(httpStatus: status) ?? .streamUnavailable(reason: .httpStatus(status))
        case let .transport(detail) where detail.localizedCaseInsensitiveContains("ssl") || detail.localizedCaseInsensitiveContains("certificate"):
            .streamUnavailable(reason: .secureConnectionFailed)
        case .hostNotFound, .transport, .timedOut, .cancelled:
            .networkUnavailable
        case .tooLarge, .tooManyRedirects, .unsupportedScheme:
            .streamUnavailable(reason: .unknown)
        }
    }
}
