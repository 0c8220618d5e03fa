import CGio
import FoundationEssentials
import OtonGLibThread

extension NowPlayingInstance {
    /// Owns MPRIS's name, else `<name>.instance<pid>` when another player has it (MPRIS's rule for a
    /// second instance). Returns the name owned.
    static func ownBusName(on connection: OpaquePointer) throws(MprisError) -> String {
        if SessionBus.own(busName, on: connection) { return busName }
        let fallback = "\(busName).instance\(getpid())"
        if SessionBus.own(fallback, on: connection) { return fallback }
        throw MprisError("\(busName) and \(fallback) are both taken")
    }
}
