import OtonEvents
import OtonMedia
import OtonSupport

extension Player {
    public struct Options: Sendable {
        public var headless: Bool
        public var reconnect: ReconnectPolicy
        /// How long the pipeline may stay paused for buffering before it counts as a failure.
        public var bufferingTimeout: Duration
        public var volume: Double
        /// false: nobody listens (recording), so the stream is parsed and tagged but not decoded.
        public var decodes = true
        /// In `playing`, this long without a buffer reaching the output is a `stalled` failure
        /// (then a reconnect like any other): "playing" means audio flows.
        public var stallTimeout: Duration = .seconds(10)
        /// `--audio-sink`: a GStreamer sink element instead of autoaudiosink.
        public var audioSink: String?
        /// `--engine`: GStreamer, or the light engine where only the encoded stream is wanted.
        public var engine: EngineChoice = .auto
        /// `--fade-in` and `--alarm`: the start rises from silence to `volume` (and an alarm is never silent).
        public var wakeUp: WakeUp?
        /// Loudness levelling of what plays (target and whether it starts on; docs/levelling.md); nil: none
        /// (`oton play` sets it; recording hears nothing).
        public var levelling: LevellingSettings?
        /// Timeshift (docs/timeshift.md): how much of the received stream a ring keeps; nil or 0: none.
        public var timeshift: TimeshiftSettings?
        /// The effect chain of what plays (plugins.json's `effects`, checked: see ``EffectCatalogue``); docs/effects.md.
        public var effects: [EffectSettings] = []
        /// Where each station's measured loudness is kept (nil: nowhere, every station measured afresh).
        public var loudnessMemory: LoudnessMemory?
        /// Where the volume the listener sets is kept for the next run (nil: nowhere).
        public var volumeMemory: VolumeMemory?

        public init(headless: Bool, reconnect: ReconnectPolicy? = nil, bufferingTimeout: Duration = .seconds(20), volume: Double = 1.0) {
            self.headless = headless
            self.reconnect = reconnect ?? (headless ? .headless : .listening)
            self.bufferingTimeout = bufferingTimeout
            self.volume = volume
        }
    }

    /// How playback ended, for the command's exit code.
    public enum Outcome: Equatable, Sendable {
        /// Quit was requested (Ctrl-C, q, MPRIS Quit).
        case quit
        /// A local file played to its end.
        case ended
        /// The stream could not be played after `reconnects` retries (0: the failure was not worth one).
        case gaveUp(PlaybackErrorKind, reconnects: Int)
    }

    /// What the player itself holds, typed (read on the player's queue): for the control socket and the
    /// terminal, which used to read the volume back out of the last event's text.
    public struct Snapshot: Sendable {
        public var state: PlaybackState
        public var station: Station
        /// 0 … OutputVolume.maximum.
        public var volume: Double
        public var volumePercent: Int { VolumeArgument.percent(of: volume) }
        /// The engine of the current connection (nil while none runs).
        public var engine: EngineKind?
        /// Connections made so far (each reconnect is one more).
        public var connections: UInt64 = 0
        /// Bytes received over every connection, ICY metadata included.
        public var receivedBytes: UInt64 = 0
        /// When the current connection last received bytes (CLOCK_MONOTONIC ns; nil: not yet).
        public var lastByteAt: Int64?
        /// The leveller of the current connection (nil: none runs, or levelling is not configured).
        public var levelling: LevellingReading?
        /// Whether levelling is on (it is said even while no connection runs); nil: not configured.
        public var levellingEnabled: Bool?
        /// Where timeshift playback is (nil: this connection has no timeshift).
        public var timeshift: TimeshiftPosition? = nil
        /// The effect chain's settings now, and what each effect of the current connection does.
        public var effects: [EffectSettings] = []
        public var effectReadings: [EffectReading] = []
        /// The plugins' filters (their plugin ids), in the order they run: after the effects, as plugins.json lists the plugins.
        public var filters: [String] = []
    }
}
