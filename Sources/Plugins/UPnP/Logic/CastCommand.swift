/// `oton ctl cast list|to NAME|stop|status`, parsed. NAME may be several words (the rest of the
/// line): `cast to Living Room TV`.
public enum CastCommand: Sendable, Equatable {
    case list
    case to(String)
    case stop
    case status

    public enum ParseError: Error, Equatable, Sendable {
        case unknown(String)
        case missingName
    }

    public static func parse(_ arguments: [String]) -> Result<CastCommand, ParseError> {
        switch arguments.first {
        case nil, "list": return .success(.list)
        case "status": return .success(.status)
        case "stop": return .success(.stop)
        case "to":
            let name = arguments.dropFirst().joined(separator: " ")
            return name.isEmpty ? .failure(.missingName) : .success(.to(name))
        case let other?: return .failure(.unknown(PeerText.clean(other, limit: 32)))
        }
    }
}
