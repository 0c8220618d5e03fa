import OtonEvents

/// Makes the connection a Player asks for: an engine of the kind the Player chose, for a
/// description. The real one builds GStreamer's pipeline or the light engine; tests give a fake,
/// so the Player's logic runs without a network or GStreamer.
package protocol StreamEngineFactory: Sendable {
    /// `onEvent` receives the engine's reports (any thread); `inOrder` runs work on the player's
    /// queue after the events reported before it (the light engine publishes its media there).
    func make(
        _ kind: EngineKind, _ description: PipelineDescription, connection: UInt64, bus: PluginBus,
        onEvent: @escaping @Sendable (PipelineEvent) -> Void,
        inOrder: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) throws(PipelineBuildError) -> any StreamEngine
}

/// The two engines oton has (and their pair for timeshift: the light engine into a ring, GStreamer out of it).
package struct SystemStreamEngines: StreamEngineFactory {
    package init() {}

    package func make(
        _ kind: EngineKind, _ description: PipelineDescription, connection: UInt64, bus: PluginBus,
        onEvent: @escaping @Sendable (PipelineEvent) -> Void,
        inOrder: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) throws(PipelineBuildError) -> any StreamEngine {
        if kind == .gstreamer, let ring = description.timeshift {
            return try TimeshiftEngine(description, ring: ring, connection: connection, bus: bus, onEvent: onEvent, inOrder: inOrder)
        }
        switch kind {
        case .light: return LightStream(description, connection: connection, bus: bus, onEvent: onEvent, inOrder: inOrder)
        case .gstreamer: return try StreamPipeline(description, connection: connection, bus: bus, onEvent: onEvent)
        }
    }
}
