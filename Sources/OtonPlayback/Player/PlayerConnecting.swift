import Dispatch
import Foundation
import Logging
import OtonEvents
import OtonMedia
import OtonStations
import OtonSupport

/// How the Player connects: a station's URL resolved (one way, off its queue), the engine made
/// through its factory, and the fallback from the light engine to GStreamer. On the player's queue.
extension Player {
    /// Resolves the station's URL (a playlist becomes its first live entry), then starts the pipeline.
    func resolveThenStartPipeline() {
        liveResolution.withLock { $0 += 1 }
        if let direct = resolver.resolveWithoutFetching(current.url) { return startPipeline(direct) }
        if !probeUnprobed, let unprobed = resolver.unprobed(current.url) { return startPipeline(unprobed) }
        resolveOffQueue(whileConnecting: true)
    }

    /// The one way a URL is resolved with a fetch: off this queue, then on it only when this is still
    /// the latest start (and, unless the engine asked for it mid-connection, still connecting).
    func resolveOffQueue(whileConnecting: Bool) {
        pipeline?.stop()
        pipeline = nil
        let round = liveResolution.withLock { $0 }
        resolver.resolve(current.url, userAgent: current.requestUserAgent, isCancelled: { [weak self] in self?.liveResolution.withLock { $0 } != round }) {
            [weak self] result in
            guard let self else { return }
            queue.async { [self] in
                guard !finished, liveResolution.withLock({ $0 }) == round else { return }
                if whileConnecting { guard case .connecting = machine.state else { return } }
                switch result {
                case let .success(stream):
                    startPipeline(stream)
                case let .failure(error):
                    logger.warning("\(current.url): \(error.detail)")
                    logger.debug("\(current.url): resolving failed → \(error.kind.code)")
                    handle(.failed(error.kind))
                }
            }
        }
    }

    func startPipeline(_ stream: ResolvedStream) {
        lastResolved = stream
        pipeline?.stop()
        connection += 1
        track.connecting(to: stream, station: current, reconnect: connection > 1 && !freshStation, stationCount: stationList.stations.count)
        freshStation = false
        if let playlist = stream.playlists.first { logger.info("\(playlist): playing the playlist's entry \(stream.url)") }
        var description = PipelineDescription(url: stream.url, headless: options.headless, taps: bus.requestedTaps, volume: fader.volume)
        description.pcmFormats = bus.requestedPCMFormats
        description.decodes = options.decodes
        description.audioSink = options.audioSink
        description.titleEncoding = current.titleEncoding
        description.userAgent = current.requestUserAgent
        description.isHLS = stream.isHLS
        description.isDASH = stream.isDASH
        description.playlistBody = stream.playlistBody
        description.levelling = levellingSettings()
        description.timeshift = timeshiftRing(for: description)
        description.effects = effects
        description.filters = filters
        let connection = self.connection
        let kind: EngineKind = options.engine.kind(for: description) == .light && !lightUnsupported ? .light : .gstreamer
        do {
            let built = try engines.make(
                kind, description, connection: connection, bus: bus,
                onEvent: { [weak self] event in
                    guard let self else { return }
                    queue.async { self.pipelineReported(event, connection: connection) }
                }, inOrder: { [queue] work in queue.async(execute: work) })
            pipeline = built
            pipelineStartedAt = clock.now
            watchdog.start(every: built.kind == .light ? .seconds(2) : .seconds(1)) { [weak self] in self?.checkFlow() }
            built.start()
            statusFollower?.connected()
        } catch {
            logger.error("\(tr("cannot build the pipeline: {reason}", ["reason": "\(error)"]))")
            pipeline = nil
            let kind: PlaybackErrorKind = error.missingElement == AdaptiveDemuxerChoice.requiredHLS ? .streamUnavailable(reason: .playlist(.hls)) : .decodeError
            queue.async { [self] in handle(.failed(kind)) }
        }
    }

}
