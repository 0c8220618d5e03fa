/// One check of `oton plugins validate`. Each runs in a child process of its own, so a crash or a
/// hang of the plugin fails that check and not the validator.
public enum ValidationCheck: String, CaseIterable, Sendable {
    case descriptor
    case createEmpty = "create-empty"
    case createHostile = "create-hostile"
    case createHuge = "create-huge"
    case commands
    case eventStorm = "event-storm"
    case leak
    case media
    case filter
    case destroyPending = "destroy-pending"
    case afterDestroy = "after-destroy"

    /// What the check does, as the validator's output line names it.
    public var title: String {
        switch self {
        case .descriptor: "descriptor and the loader's checks"
        case .createEmpty: "create/destroy with empty config, 3 cycles"
        case .createHostile: "create/destroy with hostile config"
        case .createHuge: "create/destroy with huge config"
        case .commands: "every declared command with bad arguments"
        case .eventStorm: "on_event storm of every kind it consumes"
        case .leak: "no growth of heap, files or threads over events, media and commands"
        case .media: "media at the declared taps, with DISCONT and format changes"
        case .filter: "filter with a test tone: its time, heap, samples and buffer bounds"
        case .destroyPending: "destroy while events are pending"
        case .afterDestroy: "no thread of the plugin calls the host after destroy"
        }
    }
}

/// What one check found.
public enum ValidationOutcome: Equatable, Sendable {
    case pass(note: String?)
    case skip(String)
    /// Passed, with something the author should fix that does not stop the plugin from working.
    case warn(String)
    case fail(String)
}

/// A check that cannot go on: the reason is the check's failure.
package struct ValidationFailure: Error {
    package let reason: String
}
