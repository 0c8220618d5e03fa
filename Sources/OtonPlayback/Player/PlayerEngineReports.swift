import Dispatch
import Foundation
import Logging
import OtonEvents
import OtonMedia
import OtonStations
import OtonSupport

/// What the Player does with its engine's reports: state, titles, failures (with the cause found
/// when GStreamer cannot name it), the end of a stream, and the watchdog's stall. On the player's queue.
extension Player {
    func pipelineReported(_ event: PipelineEvent, connection: UInt64) {
        guard connection == self.connection, pipeline != nil else { return }  // a report from a pipeline already gone
        switch event {
        case .started:
            failureSaid = nil
            handle(.streamStarted)
            if !warnedSilentOutput, pipeline?.playsSilently == true {
                warnedSilentOutput = true
                let reason = lastSinkWarning.map { " (\($0))" } ?? ""
                logger.warning(
                    "\(tr("no sound device could be opened{reason}: oton plays, but you will hear nothing. On a server use --headless; on a desktop start PipeWire or PulseAudio, or choose an output with --audio-sink (pulsesink, pipewiresink, alsasink)", ["reason": reason]))"
                )
            }
        case let .tags(tags, readAt):
            if track.apply(tags, readAt: readAt, station: current, stationCount: stationList.stations.count), let statusFollower {
                // The status API may know the artwork for the new title (see StationStatusLookup for the rule).
                let now = track.current
                statusFollower.heardTrackChanged(.init(title: now.title, artist: now.artist, rawTitle: now.rawTitle))
            }
        case let .buffering(percent):
            if percent >= 100 {
                handle(.bufferingFinished)
            } else if case .buffering = machine.state {
                handle(.bufferingProgress(percent: percent))
            } else {
                handle(.bufferingStarted(percent: percent))
            }
        case let .error(report):
            let kind = PlaybackErrorClassifier.classify(report)
            if resolveAfterAll(kind) { return }
            // The listener reads words; GStreamer's domain, codes and our classification are for debugging.
            sayFailure("\(current.url): \(report.message)")
            logger.debug("\(current.url): [\(report.domain) \(report.code)\(report.httpStatus.map { " HTTP \($0)" } ?? "")] → \(kind.code)")
            fail(kind)
        case let .warning(text):
            logger.debug("GStreamer warning: \(text)")
            lastSinkWarning = text
        case let .notice(text):
            logger.warning("\(text)")
        case let .failure(kind, detail):
            if resolveAfterAll(kind) { return }
            logger.info("\(current.url): \(detail)")
            sayFailure("\(current.url): \(kind.message(in: .current))")
            logger.debug("\(current.url): [light engine] → \(kind.code)")  // as the GStreamer engine's errors above
            fail(kind)
        case let .needsPipeline(reason):
            fallBackToGStreamer(because: reason)
        case let .timeshiftUnwritable(reason):
            playWithoutTimeshift(because: reason)
        case .endOfStream:
            ended()
        case .programmeEnded:
            // A finite resource played to its end (a bulletin, a file over HTTP): reconnecting would replay it.
            logger.warning("\(current.url): \(tr("the programme ended"))")
            handle(.stop)
            finish(.ended)
        }
    }

    /// A failure's words, said once while the same failure repeats: a player that waits for a station
    /// to come back tries every second or two, and the cause is news only the first time (then at debug).
    func sayFailure(_ text: String) {
        if failureSaid == text {
            logger.debug("\(text)")
        } else {
            failureSaid = text
            logger.warning("\(text)")
        }
    }

    /// The light engine cannot frame this stream: GStreamer takes over (unless `--engine light`).
    func fallBackToGStreamer(because reason: String) {
        if resolveAfterAll(.streamUnavailable(reason: .unsupportedFormat)) { return }
        guard options.engine == .auto, var lastResolved else {
            logger.warning("\(current.url): \(tr("the light engine cannot record {reason} (--engine light)", ["reason": reason]))")
            return handle(.failed(.streamUnavailable(reason: .unsupportedFormat)))
        }
        logger.info("\(current.url): \(reason): the light engine cannot frame it, GStreamer takes over")
        lightUnsupported = true
        pipeline?.stop()
        pipeline = nil
        lastResolved.playlistBody = nil  // read a while ago: the new pipeline fetches a fresh playlist
        startPipeline(lastResolved)
    }

    /// The timeshift ring cannot be written (a full cache disk): the station plays on straight through,
    /// said once; pause and rewind are off for this player until it runs again.
    func playWithoutTimeshift(because reason: String) {
        guard !timeshiftUnavailable, var lastResolved else { return }
        logger.warning(
            "\(tr("the timeshift cannot be written ({reason}; is the cache disk full?): playing on without pause and rewind", ["reason": reason]))")
        timeshiftUnavailable = true
        pipeline?.stop()
        pipeline = nil
        dropTimeshiftRing()
        lastResolved.playlistBody = nil
        startPipeline(lastResolved)
    }

    func ended() {
        if pipeline?.description.isAdaptive == true {
            // HLS and DASH end only when the manifest says so (#EXT-X-ENDLIST, a static MPD played
            // out): the broadcast is over, as a file is at its end. Reconnecting would replay it.
            logger.warning("\(current.url): \(tr("the broadcast has ended"))")
            handle(.stop)
            finish(.ended)
        } else if pipeline?.description.isLive == true {
            logger.warning("\(current.url): \(tr("the server ended the stream"))")
            fail(.streamUnavailable(reason: .serverEnded))
        } else {
            handle(.stop)
            finish(.ended)
        }
    }

    /// The engine connected to an extension-less URL without a probe and found no audio it plays
    /// (a playlist, a page, HLS): the URL is resolved after all, as a URL with no stream behind it
    /// always was. True when that took over from the failure.
    func resolveAfterAll(_ kind: PlaybackErrorKind) -> Bool {
        guard lastResolved?.unprobed == true, !probeUnprobed else { return false }
        switch kind {
        case .streamUnavailable(reason: .notAudio), .streamUnavailable(reason: .unsupportedFormat): break
        default: return false
        }
        logger.info("\(current.url): not audio at first sight; looking at what it is")
        probeUnprobed = true
        liveResolution.withLock { $0 += 1 }
        // The connection may have reported buffering before it failed: the state is not asked here.
        resolveOffQueue(whileConnecting: false)
        return true
    }

    /// A failure of the current connection, with the cause found when GStreamer could not name it
    /// (see EmptyConnectionDiagnosis: a server that sent nothing, a redirect loop …).
    func fail(_ kind: PlaybackErrorKind) {
        guard let pipeline else { return handle(.failed(kind)) }
        switch EmptyConnectionDiagnosis.first(kind, isHTTP: pipeline.description.isLive, sourceBytes: pipeline.flow.sourceBytes) {
        case .keep:
            handle(.failed(kind))
        case .probe:
            // The pipeline is done with; the state machine hears of the failure once the cause is known (≤ 3 s).
            let elapsed = clock.now - pipelineStartedAt
            pipeline.stop()
            self.pipeline = nil
            watchdog.cancel()
            // Any start since (a switch, a play) makes this diagnosis stale, also while that start
            // is still resolving a playlist and has no pipeline or connection number yet.
            let (connection, start) = (connection, liveResolution.withLock { $0 })
            EmptyConnectionDiagnosis.probe(pipeline.description.url, userAgent: pipeline.description.userAgent) { [weak self] failure in
                guard let self else { return }
                queue.async { [self] in
                    guard connection == self.connection, start == liveResolution.withLock({ $0 }), self.pipeline == nil else { return }
                    let better = EmptyConnectionDiagnosis.refine(
                        kind, with: failure, elapsed: elapsed,
                        sourceTimeoutSeconds: PipelineDescription.sourceTimeoutSeconds)
                    if better != kind { logger.info("\(current.url): \(better.message)") }
                    handle(.failed(better))
                    // The diagnostic connection got a stream: the station has recovered. Its bytes are not
                    // thrown away for a backoff's wait (4 s of audio at Icecast's burst): reconnect at once.
                    if EmptyConnectionDiagnosis.answersAgain(failure), case .reconnecting = machine.state {
                        logger.info("\(current.url): the station answers again; reconnecting at once")
                        retryTimer?.cancel()
                        retryTimer = nil
                        handle(.retryTimerFired)
                    }
                }
            }
        }
    }

    /// The watchdog's look (every second; every 2 s for the light engine, whose recorders run hundreds).
    func checkFlow() {
        guard let pipeline, !finished else { return }
        let playing = if case .playing = machine.state { true } else { false }
        guard watchdog.isStalled(outputBuffers: pipeline.flow.outputBuffers, playing: playing, timeout: options.stallTimeout) else { return }
        let seconds = Int(options.stallTimeout.components.seconds)
        logger.warning(
            "\(current.url): \(tr("playing, but no audio reached the output for {seconds} s ({bytes} bytes received in all); reconnecting", ["seconds": String(seconds), "bytes": String(pipeline.flow.sourceBytes)]))"
        )
        handle(.failed(.stalled(seconds: seconds)))
    }

}
