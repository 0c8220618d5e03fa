import CGStreamer
import Dispatch
import Foundation
import OtonSupport

/// Fades of a heard pipeline, all at the leveller (docs/levelling.md): a pause's and a stop's fall,
/// a resume's rise, and a timeshift seek's cross-fade (docs/timeshift.md). A fade is heard a sink's
/// latency after it leaves the leveller, so what follows a fall waits until it was played out.
extension StreamPipeline {
    /// What an audio sink holds ahead of what is heard (pulsesink's and alsasink's default
    /// buffer-time, 200 ms, and a margin): after the fade-out left the leveller, the pipeline runs
    /// this long more so the fade is heard, not cut.
    static let sinkPlayoutSeconds = 0.25
    /// The longest a fade-out waits for the streaming thread to pass it (a stalled stream).
    static let fadeBound: DispatchTimeInterval = .milliseconds(300)

    public func fadeOutThenStop() {
        fadeOut { [self] in stop() }
    }

    /// As ``fadeOutThenStop()``, for a timeshift seek: `faded` as soon as the fade has left the
    /// leveller (it is heard a sink's latency later), `first` just before the stop, once it was heard.
    /// Its reports after this call are the caller's to ignore.
    public func fadeOutThenStop(faded: @escaping @Sendable () -> Void, first: @escaping @Sendable () -> Void) {
        fadeOut(faded: faded) { [self] in
            first()
            stop()
        }
    }

    /// What the output holds and plays (stream time, ns): up to where audio has left the leveller, where
    /// its last fade-out began, and what the sink plays now (the position). nil before there is any.
    var outputTiming: (processed: Int64?, fadeStart: Int64?, playing: Int64?)? {
        guard let leveller else { return nil }
        var position: gint64 = -1
        let playing = gst_element_query_position(pipeline, GST_FORMAT_TIME, &position) != 0 && position >= 0 ? Int64(position) : nil
        let (processed, fadeStart) = leveller.timing
        return (processed, fadeStart, playing)
    }

    /// Plays nothing but silence from its first sound on until ``riseFromSilence()`` (a timeshift seek's
    /// new pipeline: it runs, so its sink fills, while the old one's sound ends).
    public func beginSilent() {
        leveller?.fadeOut()
    }

    /// Ends ``beginSilent()``: the next audible frame rises over a few ms; no state change.
    public func riseFromSilence() {
        lock.withLock { fades += 1 }
        leveller?.fadeIn()
    }

    /// A held timeshift connection: the sound fades out and plays out before the pipeline pauses
    /// (as ``fadeOutThenStop()``); unless ``fadeInThenPlay()`` came first.
    public func fadeOutThenPause() {
        fadeOut { [self] in setPlaying(false) }
    }

    /// Plays again after ``fadeOutThenPause()``: the sound rises from silence over a few ms.
    public func fadeInThenPlay() {
        lock.withLock { fades += 1 }
        leveller?.fadeIn()
        setPlaying(true)
    }

    /// Fades out, waits until it was heard, then `then` — unless a fade-in came meanwhile.
    func fadeOut(faded: (@Sendable () -> Void)? = nil, then: @escaping @Sendable () -> Void) {
        guard let leveller, autoSink != nil || description.audioSink != nil else {
            faded?()
            then()
            return
        }
        let fade = lock.withLock {
            fades += 1; return fades
        }
        leveller.fadeOut()
        DispatchQueue.global().async { [self] in
            let deadline = DispatchTime.now() + Self.fadeBound
            while !leveller.isSilent, DispatchTime.now() < deadline { usleep(2_000) }
            faded?()
            if leveller.isSilent { Thread.sleep(forTimeInterval: Self.sinkPlayoutSeconds) }
            if lock.withLock({ fades == fade && !stopped }) { then() }
        }
    }

    /// Rises this pipeline (see ``beginSilent()``) so that its rise is heard when `old`'s fall is: once the time until the old fall is
    /// heard (its fade's stream time less what its sink plays now) is no more than the new sink's
    /// latency (what left the new leveller less what the new sink plays); this one waits, silent,
    /// while it has not played yet. At once when the old fall has been heard or cannot be told (this
    /// one then rises from its first sound). At most a second.
    func riseFromSilence(heardWithTheFallOf old: StreamPipeline) {
        let deadline = Clock.monotonicNanoseconds() + 1_000_000_000
        while Clock.monotonicNanoseconds() < deadline {
            guard let fall = old.outputTiming, let fade = fall.fadeStart, let oldPlays = fall.playing else { break }
            let untilFall = fade - oldPlays
            guard untilFall > 0 else { break }  // heard already: a gap until the new one sounds
            // The new one has not played yet: it waits, silent, while the old fall is still to come.
            if let output = outputTiming, let processed = output.processed, let newPlays = output.playing, untilFall <= processed - newPlays {
                break
            }
            usleep(2_000)
        }
        riseFromSilence()
    }
}
