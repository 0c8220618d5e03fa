import OtonEvents

/// What answers the control socket's requests: one player's commands (``ControlCommands``), or a
/// recorder of many stations (``RecorderCommands``).
package protocol ControlHandler: Sendable {
    func run(_ request: ControlRequest) -> ControlReply
    /// What a request does once its reply is on its way (quit).
    func afterReply(_ request: ControlRequest)
}
