import OtonEvents
import PluginAPI

/// How a session gets its stream (docs/architecture.md, "Walk 1"): GStreamer's pipeline
/// whenever audio is decoded, the light engine (libcurl, no pipeline) when only the encoded bytes
/// are wanted. The Player drives either the same way, and both report the same ``PipelineEvent``s
/// and publish the same stream-tap packets, so a plugin cannot tell which one ran.
public protocol StreamEngine: AnyObject, Sendable {
    var description: PipelineDescription { get }
    /// What has flowed so far (any thread).
    var flow: PipelineFlow { get }
    /// autoaudiosink fell back to a silent fake sink (GStreamer only).
    var playsSilently: Bool { get }
    var kind: EngineKind { get }
    func start()
    /// PAUSED while a network buffer refills (GStreamer only; the light engine never buffers).
    func setPlaying(_ playing: Bool)
    func setVolume(_ value: Double)
    /// The loudness leveller's reading (GStreamer, when heard and levelling); nil otherwise.
    var levelling: LevellingReading? { get }
    /// Turns the leveller on or off, where there is one.
    func setLevelling(enabled: Bool)
    /// Sets the effects' parameters and bypasses live, where there is a chain (GStreamer, heard).
    func setEffects(_ settings: [EffectSettings])
    /// What each effect does now (empty: no chain).
    var effectReadings: [EffectReading] { get }
    /// Drops the connection; afterwards no event and no media is reported. False when it could
    /// not be stopped within 2 s (left to finish on its own).
    @discardableResult func stop() -> Bool
    /// A pause: the sound falls to silence over a few ms and what the sink holds plays out before
    /// the connection stops (about a quarter of a second later, on another thread); returns at once.
    /// Afterwards, as after `stop()`, the caller hears of this connection no more.
    func fadeOutThenStop()
}

extension StreamEngine {
    /// Engines without a leveller (the light engine: nothing is heard).
    public var levelling: LevellingReading? { nil }
    public func setLevelling(enabled: Bool) {}
    public func setEffects(_ settings: [EffectSettings]) {}
    public var effectReadings: [EffectReading] { [] }
    /// Engines that play nothing stop at once.
    public func fadeOutThenStop() { stop() }
}

/// Which engine runs a connection.
public enum EngineKind: String, Sendable, Equatable {
    case gstreamer
    case light
}

/// `--engine`: which engine a session may use.
public enum EngineChoice: String, Sendable, Equatable, CaseIterable {
    /// The light engine whenever it can do the job (see ``kind(for:)``), GStreamer otherwise.
    case auto
    /// The light engine; a stream it cannot frame fails instead of falling back.
    case light
    case gstreamer

    /// The engine for a connection described by `description`: light only for an http(s) stream
    /// that is not HLS or DASH, not decoded and not tapped as PCM.
    public func kind(for description: PipelineDescription) -> EngineKind {
        switch self {
        case .gstreamer: return .gstreamer
        case .auto, .light: return Self.lightCanRun(description) ? .light : .gstreamer
        }
    }

    public static func lightCanRun(_ description: PipelineDescription) -> Bool {
        description.isLive && !description.isAdaptive && !description.decodes && description.taps & OTON_TAP_PCM == 0
    }
}

extension StreamPipeline: StreamEngine {
    public var kind: EngineKind { .gstreamer }
}
