import Dispatch
import Foundation
import OtonEvents
import OtonJSON
import PluginAPI
import Synchronization

/// Runs control commands for plugins (ABI 1.3 `oton_host.run_command`) through the same
/// ``ControlCommands`` that `oton ctl` reaches, so a plugin can do nothing the control socket
/// cannot. The host session connects the commands once it has built them; until then (and in
/// `oton plugins validate`, where no player runs) every command is answered with an error.
///
/// Threading: `run` from any thread. A command runs on a global queue, never on the caller's
/// thread: a plugin command waits for its plugin's mailbox, which may be the caller's own.
/// The reply is queued on the caller's mailbox, so `done` is one of its callbacks, never
/// concurrent with the others and never after its destroy() began.
package final class PluginCommandGateway: Sendable {
    package typealias Runner = @Sendable (ControlRequest) -> ControlReply

    /// Commands one instance may have waiting for replies; the next is refused (OTON_ERR_BUSY).
    package static let maximumWaitingPerInstance = 16
    /// The largest `args_json` accepted.
    package static let maximumArgumentBytes = 64 * 1024

    private let runner = Mutex<Runner?>(nil)

    /// From now on commands run through `runner`: the session's control commands (``ControlCommands/runner``),
    /// or in `oton plugin-host` a call up to oton, whose commands they are.
    package func connect(_ runner: @escaping Runner) {
        self.runner.withLock { $0 = runner }
    }

    /// Commands are answered with an error again; breaks the cycle the commands' plugin manager makes.
    package func disconnect() {
        runner.withLock { $0 = nil }
    }

    /// Checks a plugin's call and parses its arguments; nil with the status to return when they are bad.
    package static func request(name: UnsafePointer<CChar>?, argumentsJSON: UnsafePointer<CChar>?) -> Result<ControlRequest, StatusError> {
        guard let name else { return .failure(StatusError(OTON_ERR_INVALID)) }
        let word = String(cString: name)
        guard !word.isEmpty, word.utf8.count <= 64 else { return .failure(StatusError(OTON_ERR_INVALID)) }
        guard word != "subscribe" else { return .failure(StatusError(OTON_ERR_UNSUPPORTED)) }
        var arguments: [String] = []
        if let argumentsJSON {
            let bytes = Data(bytes: argumentsJSON, count: strlen(argumentsJSON))
            guard bytes.count <= maximumArgumentBytes,
                case let .array(list)? = try? JSONParser(maxBytes: maximumArgumentBytes).parse(bytes)
            else {
                return .failure(StatusError(OTON_ERR_INVALID))
            }
            for item in list {
                guard case let .string(text) = item else { return .failure(StatusError(OTON_ERR_INVALID)) }
                arguments.append(text)
            }
        }
        return .success(ControlRequest(id: nil, name: word, arguments: arguments))
    }

    package struct StatusError: Error {
        package let status: oton_status
        package init(_ status: oton_status) { self.status = status }
    }

    /// Runs `request` and hands its reply to `deliver` (which queues it on the caller's mailbox).
    package func run(_ request: ControlRequest, deliver: @escaping @Sendable (_ ok: Bool, _ replyJSON: String) -> Void) {
        let runner = self.runner.withLock { $0 }
        DispatchQueue.global().async {
            let reply = runner?(request) ?? .failure("no player runs in this process, so \"\(request.name)\" cannot run here")
            var line = String(decoding: reply.line(id: nil), as: UTF8.self)
            if line.hasSuffix("\n") { line.removeLast() }
            deliver(reply.ok, line)
        }
    }
}
