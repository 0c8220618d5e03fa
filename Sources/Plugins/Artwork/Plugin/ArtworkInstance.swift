import ArtworkLogic
import Dispatch
import Foundation
import OtonHTTP
import OtonPluginKit
import PluginAPI

/// One artwork instance. Track events are turned into jobs on a private serial
/// queue; a newer track (or destroy) cancels the job under way and its
/// transfers. The host alone asks the station's status API: a track event
/// carries the cover it learned (`artwork_url`, only once the status named the
/// heard track) and the station's logo (`station_logo_url`); this plugin only
/// fetches, checks and caches images.
/// Concurrency: jobs run on `queue`; `generation`, `stopped` and `lastKey` are guarded by `condition`.
final class ArtworkInstance: @unchecked Sendable {
    private let host: HostHandle
    private let config: ArtworkConfig
    private let cache: ArtworkCache
    private let defaultPath: String?
    private let http: CappedHTTPClient
    private let queue = DispatchQueue(label: "org.oton.artwork")
    private let condition = NSCondition()
    private var generation: UInt64 = 0
    private var stopped = false
    /// What the last job was for: a track, with the cover and logo the host knew for it.
    private var lastKey: String?

    init(host: HostHandle, config: ArtworkConfig) throws {
        self.host = host
        self.config = config
        cache = try ArtworkCache(
            directory: config.resolvedCacheDirectory(hostCacheDirectory: host.cacheDirectory),
            maxBytes: config.cacheMaxBytes)
        defaultPath = DefaultArtwork.write(into: cache.directory)
        http = CappedHTTPClient(
            limits: .init(
                totalMilliseconds: config.timeoutMilliseconds,
                connectMilliseconds: min(config.timeoutMilliseconds, 5000)),
            userAgent: "oton-artwork/0.1")
    }

    /// On the host's mailbox: starts a job for a new track.
    func handle(_ event: EventView.Snapshot) {
        guard event.kind == OTON_EVENT_TRACK, let track = event.track else { return }
        let key = "\(track.sequence) \(track.artworkURL ?? "") \(track.stationLogoURL ?? "")"
        guard key != lastKey else { return }
        lastKey = key
        condition.lock()
        generation += 1
        let job = generation
        condition.broadcast()
        condition.unlock()
        queue.async { [self] in run(track, job: job) }
    }

    func shutdown() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        queue.sync {}
    }

    // MARK: the job (worker queue)

    private func isCurrent(_ job: UInt64) -> Bool {
        condition.lock(); defer { condition.unlock() }
        return !stopped && generation == job
    }

    /// How long a track without a cover waits for the host to find one in the status API before the
    /// logo or the default is shown (a later track event with the cover supersedes the wait).
    static let coverGraceSeconds = 6.0

    /// Waits `seconds` unless the job is superseded; true when it is still current.
    private func wait(_ seconds: Double, job: UInt64) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock(); defer { condition.unlock() }
        while !stopped && generation == job {
            if !condition.wait(until: deadline) { break }
        }
        return !stopped && generation == job
    }

    private func run(_ track: TrackFields, job: UInt64) {
        guard isCurrent(job) else { return }
        if track.artworkURL == nil, track.stationStatusURL != nil, track.title != nil {
            guard wait(Self.coverGraceSeconds, job: job) else { return }
        }
        let logo = track.stationLogoURL
        let cover = track.artworkURL
        let coverIsLogo =
            cover.map {
                TrackMatcher.isStationLogo(url: $0, statusTitle: track.rawTitle ?? track.title, station: track.station, logoURL: logo)
            } ?? false
        var candidates: [(url: String, type: String)] = []
        if let cover { candidates.append((cover, coverIsLogo ? "station-logo" : "cover")) }
        if let logo, logo != cover { candidates.append((logo, "station-logo")) }
        for candidate in candidates {
            guard isCurrent(job) else { return }
            do {
                let entry = try image(at: candidate.url, job: job)
                guard isCurrent(job) else { return }
                publish(track, path: entry.path, url: candidate.url, type: candidate.type, color: entry.color)
                return
            } catch {
                host.log(OTON_LOG_WARNING, host.tr("artwork {url} not used: {reason}; falling back", ["url": candidate.url, "reason": "\(error)"]))
            }
        }
        guard isCurrent(job), let defaultPath else { return }
        publish(track, path: defaultPath, url: "", type: "default", color: DefaultArtwork.color)
    }

    /// The image for `url`: memory, disk, then the network, or the file the host wrote a cover
    /// inside the stream to (validated before it is cached, as a download is).
    private func image(at url: String, job: UInt64) throws -> ArtworkCache.Entry {
        if let cached = cache.lookup(url) { return cached }
        let body: Data
        if url.hasPrefix("file:") {
            body = try EmbeddedCoverFile.read(url, maxBytes: ArtworkConfig.maxImageBytes)
        } else {
            body = try http.get(url, maxBytes: ArtworkConfig.maxImageBytes) { [weak self] in self?.isCurrent(job) != true }.body
        }
        let bytes = [UInt8](body)
        let download = cache.downloadPath()
        guard FileManager.default.createFile(atPath: download, contents: body, attributes: [.posixPermissions: 0o600]) else {
            throw ImageValidator.Failure(description: "cannot write \(download)")
        }
        do {
            let image = try ImageValidator.validate(file: download, bytes: bytes, maxDimension: ArtworkConfig.maxDimension)
            return try cache.store(url: url, download: download, bytes: bytes, format: image.format, color: image.color)
        } catch {
            try? FileManager.default.removeItem(atPath: download)
            throw error
        }
    }

    private func publish(_ track: TrackFields, path: String, url: String, type: String, color: String) {
        host.publish(
            OTON_EVENT_NAME_ARTWORK_READY,
            [
                (OTON_FIELD_PATH, path), (OTON_FIELD_URL, url), (OTON_FIELD_TYPE, type), (OTON_FIELD_COLOR, color),
                (OTON_FIELD_TITLE, track.title ?? ""), (OTON_FIELD_SEQUENCE, String(track.sequence)),
            ])
    }
}
