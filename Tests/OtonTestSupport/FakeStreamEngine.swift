import Foundation
import OtonHost

/// An engine that connects nowhere: the test says what it reports (``report(_:)``) and how much
/// flowed, and reads back what the Player asked of it.
public final class FakeStreamEngine: StreamEngine, @unchecked Sendable {  // `lock` guards the vars
    public let description: PipelineDescription
    public let kind: EngineKind
    public let flow = PipelineFlow()
    public let connection: UInt64
    public var playsSilently: Bool { false }
    private let onEvent: @Sendable (PipelineEvent) -> Void
    private let lock = NSLock()
    private var startedValue = false
    private var stoppedValue = false
    private var playingRequests: [Bool] = []
    private var volumes: [Double] = []

    init(kind: EngineKind, description: PipelineDescription, connection: UInt64, onEvent: @escaping @Sendable (PipelineEvent) -> Void) {
        self.kind = kind
        self.description = description
        self.connection = connection
        self.onEvent = onEvent
    }

    public func start() { lock.withLock { startedValue = true } }
    public func setPlaying(_ playing: Bool) { lock.withLock { playingRequests.append(playing) } }
    public func setVolume(_ value: Double) { lock.withLock { volumes.append(value) } }
    @discardableResult public func stop() -> Bool {
        lock.withLock { stoppedValue = true }
        return true
    }

    public var isStarted: Bool { lock.withLock { startedValue } }
    public var isStopped: Bool { lock.withLock { stoppedValue } }
    public var playingAsked: [Bool] { lock.withLock { playingRequests } }
    public var volumesSet: [Double] { lock.withLock { volumes } }

    /// Reports `event` as the real engines do (the Player takes it on its queue).
    public func report(_ event: PipelineEvent) { onEvent(event) }

    /// Bytes received and, when `audio`, a buffer at the output: what keeps the watchdog content.
    public func flows(bytes: Int = 4096, audio: Bool = true) {
        flow.addSourceBytes(bytes)
        if audio { flow.addOutputBuffer() }
    }
}

/// Makes ``FakeStreamEngine``s and keeps them, in order; `failBuilding` makes the next builds throw.
public final class FakeStreamEngines: StreamEngineFactory, @unchecked Sendable {  // `lock` guards the vars
    private let lock = NSLock()
    private var made: [FakeStreamEngine] = []
    private var buildFailure: PipelineBuildError?

    public init() {}

    public var engines: [FakeStreamEngine] { lock.withLock { made } }
    public var last: FakeStreamEngine? { engines.last }

    public func failBuilding(with error: PipelineBuildError?) { lock.withLock { buildFailure = error } }

    package func make(
        _ kind: EngineKind, _ description: PipelineDescription, connection: UInt64, bus: PluginBus,
        onEvent: @escaping @Sendable (PipelineEvent) -> Void,
        inOrder: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) throws(PipelineBuildError) -> any StreamEngine {
        let engine = FakeStreamEngine(kind: kind, description: description, connection: connection, onEvent: onEvent)
        let failure: PipelineBuildError? = lock.withLock {
            if buildFailure == nil { made.append(engine) }
            return buildFailure
        }
        if let failure { throw failure }
        return engine
    }
}
